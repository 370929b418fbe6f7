package member_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"storefront/writer/internal/writertest"
)

const (
	ticketInfo   = "/protocol/appapi/mb/user/info/ticket-info"
	getInfo      = "/protocol/appapi/mb/user/info/getinfo"
	chargeBanner = "/protocol/api/v-2/charge/charge_banner.asp"
)

func exec(t *testing.T, e *writertest.Env, sql string, args ...any) {
	t.Helper()
	if _, err := e.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// ticket-info (seed §7, "not shown") answers the member's usable tickets by
// section with the flags of the side info: received, started, unexpired and
// not used up; soonest to expire first.
func TestTicketInfo(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	m := newMember(t, e, "tickets@example.com")
	other := newMember(t, e, "other-tickets@example.com")
	now := time.Now()
	grant := func(uid, section string, count, used int, recv bool, from, to time.Time) {
		exec(t, e, `INSERT INTO coupon_grants (uid, kind, section, count, used_cnt, is_recv, available_at, expires_at, source, eid, created_at)
			VALUES ($1, 'ticket', $2, $3, $4, $5, $6, $7, 'event', 18322, $8)`, uid, section, count, used, recv, from, to, now)
	}
	grant(m.uid, "CM", 5, 2, true, now.Add(-time.Hour), now.Add(72*time.Hour))
	grant(m.uid, "CM", 1, 0, true, now.Add(-time.Hour), now.Add(24*time.Hour))
	grant(m.uid, "EB", 3, 3, true, now.Add(-time.Hour), now.Add(24*time.Hour))     // used up
	grant(m.uid, "EB", 2, 0, false, now.Add(-time.Hour), now.Add(24*time.Hour))    // in the gift box
	grant(m.uid, "EB", 2, 0, true, now.Add(-48*time.Hour), now.Add(-time.Hour))    // expired
	grant(m.uid, "EB", 2, 0, true, now.Add(time.Hour), now.Add(48*time.Hour))      // not yet
	grant(other.uid, "EB", 9, 0, true, now.Add(-time.Hour), now.Add(24*time.Hour)) // someone else's

	type answer struct {
		Header struct{ Code int } `json:"header"`
		Info   struct {
			FlagComic bool `json:"flag_ticket_comic"`
			FlagNovel bool `json:"flag_ticket_novel"`
			Comic     int  `json:"comic_ticket_cnt"`
			Novel     int  `json:"novel_ticket_cnt"`
			List      []struct {
				Section  string    `json:"section"`
				Left     int       `json:"leftCnt"`
				EID      int64     `json:"eid"`
				ExpireAt time.Time `json:"expireAt"`
			} `json:"list"`
		} `json:"info"`
	}
	st, body := m.Do("POST", ticketInfo, form("uid", m.uid))
	a := decode[answer](t, body)
	if st != 200 || a.Header.Code != 200 || !a.Info.FlagComic || a.Info.FlagNovel || a.Info.Comic != 4 || a.Info.Novel != 0 ||
		len(a.Info.List) != 2 || a.Info.List[0].Left != 1 || a.Info.List[1].Left != 3 || a.Info.List[0].EID != 18322 {
		t.Fatalf("ticket-info: %d %s", st, body)
	}
	st, body = m.Do("POST", ticketInfo, map[string]any{"uid": m.uid, "section": "소설"})
	if a := decode[answer](t, body); st != 200 || len(a.Info.List) != 0 || a.Info.FlagComic {
		t.Fatalf("novel tickets: %d %s", st, body)
	}
	for _, c := range []struct {
		who    member
		body   any
		status int
	}{
		{m, form("uid", other.uid), 403},
		{m, form("uid", m.uid, "section", "웹툰"), 400},
		{m, `{"uid":`, 400},
		{member{e.Browser(), ""}, form(), 401},
	} {
		st, body := c.who.Do("POST", ticketInfo, c.body)
		if st != c.status {
			t.Errorf("ticket-info %v: %d %s, want %d", c.body, st, body, c.status)
		}
	}
}

// getinfo (seed §7, "not shown") tells an app build who the session is: the
// auth and adult info of GET me.
func TestGetInfo(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	m := newMember(t, e, "getinfo@example.com")
	type answer struct {
		AuthInfo *struct {
			UID   string `json:"uid"`
			Email string `json:"email"`
		} `json:"authInfo"`
		AdultInfo map[string]any `json:"adultInfo"`
		EncID     string         `json:"encId"`
	}
	st, body := m.Do("POST", getInfo, form("uid", m.uid))
	a := decode[answer](t, body)
	_, meBody := m.Do("GET", "/home/api/v1/auth/me", nil)
	me := decode[answer](t, meBody)
	if st != 200 || a.AuthInfo == nil || a.AuthInfo.UID != m.uid || a.AuthInfo.Email != "getinfo@example.com" || a.AdultInfo == nil ||
		a.EncID == "" || a.EncID != me.EncID {
		t.Fatalf("getinfo: %d %s (me: %s)", st, body, meBody)
	}
	st, body = e.Browser().Do("POST", getInfo, nil)
	if a := decode[answer](t, body); st != 200 || a.AuthInfo != nil {
		t.Fatalf("visitor getinfo: %d %s", st, body)
	}
	if st, body := m.Do("POST", getInfo, form("uid", "424242")); st != 403 {
		t.Fatalf("getinfo for another uid: %d %s", st, body)
	}
	if st, body := e.Browser().Do("POST", getInfo, form("uid", m.uid)); st != 401 {
		t.Fatalf("visitor claiming a uid: %d %s", st, body)
	}
}

// charge_banner (seed §7, "not shown") lists the charge page's banners: the
// running join and first-charge events the reader can still take; none in
// the iOS app (seed §6), whatever the payload says.
func TestChargeBanner(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	now := time.Now()
	exec(t, e, `INSERT INTO events (eid, kind, title, body, banner_url, start_at, end_at) VALUES
		(1050, 'join', '신규 가입 혜택', '가입하면 드립니다.', '/img/event/1050.svg', $1, $2),
		(1051, 'firstcharge', '첫 충전 보너스', '첫 충전 보너스를 드립니다.', '/img/event/1051.svg', $1, $2),
		(1052, 'firstcharge', '지난 첫 충전 이벤트', '', '', $3, $1),
		(1053, 'bluerun', '블루런', '', '', $1, $2)`, now.Add(-time.Hour), now.Add(time.Hour), now.Add(-48*time.Hour))
	type answer struct {
		List []struct {
			Type    string `json:"type"`
			EID     int64  `json:"eid"`
			IsEvent bool   `json:"isEvent"`
			ImgURL  string `json:"imgUrl"`
			RetURL  string `json:"retUrl"`
			Title   string `json:"title"`
		} `json:"list"`
	}
	types := func(c *writertest.Client, channel string, body any) string {
		t.Helper()
		c.Headers = map[string]string{"X-Channel": channel}
		st, b := c.Do("POST", chargeBanner, body)
		if st != 200 {
			t.Fatalf("charge_banner %s: %d %s", channel, st, b)
		}
		out := ""
		for _, x := range decode[answer](t, b).List {
			if !x.IsEvent || x.ImgURL == "" || x.RetURL == "" || x.Title == "" {
				t.Fatalf("banner %+v", x)
			}
			out += x.Type + " "
		}
		return out
	}
	if got := types(e.Browser(), "AW", nil); got != "joinbonus firstcharge " {
		t.Fatalf("visitor on the web: %q", got)
	}
	m := newMember(t, e, "banner@example.com")
	if got := types(m.Client, "AA", form("uid", m.uid)); got != "joinbonus firstcharge " {
		t.Fatalf("new member: %q", got)
	}
	if got := types(m.Client, "IA", form("channel", "AW")); got != "" {
		t.Fatalf("iOS app: %q", got)
	}
	exec(t, e, `INSERT INTO wallets (uid, first_charge_at, join_bonus_at) VALUES ($1, now(), now())
		ON CONFLICT (uid) DO UPDATE SET first_charge_at = now(), join_bonus_at = now()`, m.uid)
	if got := types(m.Client, "AW", nil); got != "" {
		t.Fatalf("member who charged and took the join bonus: %q", got)
	}
	m.Headers = map[string]string{"X-Channel": "AW"}
	if st, body := m.Do("POST", chargeBanner, form("uid", "1")); st != 403 {
		t.Fatalf("naming another member's uid: %d %s", st, body)
	}
	m.Headers = map[string]string{"X-Channel": "ZZ"}
	if st, body := m.Do("POST", chargeBanner, nil); st != 400 {
		t.Fatalf("unknown channel: %d %s", st, body)
	}
}

// recentViewVol (seed §3) is the member's: purchases/status, which the detail
// page asks anyway, names the volume they were reading (isContinue, the
// "이어보기" button) from the viewer's reading place or the recently viewed
// list, whichever is newer; before any reading it is the first volume.
func TestStatusRecentViewVol(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	st, body := e.Admin.Do("POST", "/admin/api/v1/works", map[string]any{"pid": "rv1", "section": "WT", "title": "이어보기 웹툰", "age": 0,
		"authors": []map[string]any{{"authorId": 77, "authorName": "작가", "isWriter": true}},
		"volumes": []map[string]any{{"no": 1, "title": "1화", "pages": 3, "isFree": true}, {"no": 2, "title": "2화", "pages": 3, "previewPages": 1, "buyPrice": 100},
			{"no": 3, "title": "3화", "pages": 3, "previewPages": 1, "buyPrice": 100}}})
	if st != 201 {
		t.Fatalf("add work: %d %s", st, body)
	}
	m := newMember(t, e, "continue@example.com")
	type status struct {
		RecentViewVol *struct {
			No         int    `json:"no"`
			IsPreView  bool   `json:"isPreView"`
			IsContinue bool   `json:"isContinue"`
			NeedLogin  bool   `json:"needLogin"`
			Title      string `json:"title"`
		} `json:"recentViewVol"`
	}
	want := func(no int, cont, preview bool) {
		t.Helper()
		st, body := m.Do("GET", "/home/api/v1/purchases/status?pid=rv1", nil)
		rv := decode[status](t, body).RecentViewVol
		if st != 200 || rv == nil || rv.No != no || rv.IsContinue != cont || rv.IsPreView != preview || rv.NeedLogin || rv.Title != fmt.Sprintf("%d화", no) {
			t.Fatalf("status: %d %s, want volume %d continue=%v preview=%v", st, body, no, cont, preview)
		}
	}
	want(1, false, false)
	if st, body := m.Do("POST", "/home/api/v1/users/recent", map[string]any{"pid": "rv1", "vol": 2}); st != 200 {
		t.Fatalf("recent: %d %s", st, body)
	}
	want(2, true, true)
	// The viewer saved a newer place, in volume 3.
	time.Sleep(10 * time.Millisecond)
	if st, body := m.Do("PUT", "/home/api/v1/users/reading-place/rv1", map[string]any{"vol": 3, "page": 1}); st != 200 {
		t.Fatalf("place: %d %s", st, body)
	}
	want(3, true, true)
	// Bought, volume 3 opens in full.
	exec(t, e, `INSERT INTO entitlements (uid, pid, vol, kind, source, created_at) VALUES ($1, 'rv1', 3, 'B', 'test', now())`, m.uid)
	want(3, true, false)
	// Volume 3 taken back: the first again, not a continue.
	exec(t, e, `DELETE FROM volumes WHERE pid = 'rv1' AND no = 3`)
	want(1, false, false)
}
