package member_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
)

type member struct {
	*writertest.Client
	uid string
}

func newMember(t *testing.T, e *writertest.Env, email string) member {
	t.Helper()
	b := e.Browser()
	st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	var m struct {
		AuthInfo struct{ UID string } `json:"authInfo"`
	}
	_ = json.Unmarshal(body, &m)
	return member{b, m.AuthInfo.UID}
}

func addWork(t *testing.T, e *writertest.Env, pid, section string, age int) {
	t.Helper()
	st, body := e.Admin.Do("POST", "/admin/api/v1/works", map[string]any{"pid": pid, "section": section, "title": "작품 " + pid, "age": age,
		"authors": []map[string]any{{"authorId": 77, "authorName": "작가", "isWriter": true}},
		"volumes": []map[string]any{{"no": 1, "pages": 3}, {"no": 2, "pages": 3, "buyPrice": 100}}})
	if st != 201 {
		t.Fatalf("add work: %d %s", st, body)
	}
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

func form(kv ...string) writertest.Form {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return writertest.Form(v.Encode())
}

func product(t *testing.T, e *writertest.Env, pid string, ok func(contract.Product) bool) contract.Product {
	t.Helper()
	return waitDoc(t, e, contract.ProductKey(pid), ok)
}

// stat waits for the counters document of pid (stat.<pid>) that ok accepts.
func stat(t *testing.T, e *writertest.Env, pid string, ok func(contract.ProductStat) bool) contract.ProductStat {
	t.Helper()
	return waitDoc(t, e, contract.StatKey(pid), ok)
}

// waitDoc waits for the KV document under key that decodes as T and that ok
// accepts, and returns it.
func waitDoc[T any](t *testing.T, e *writertest.Env, key string, ok func(T) bool) T {
	t.Helper()
	b := writertest.WaitKV(t, e.KV, key, 5*time.Second, func(b []byte) bool {
		var d T
		return json.Unmarshal(b, &d) == nil && ok(d)
	})
	var d T
	_ = json.Unmarshal(b, &d)
	return d
}

// prodRevision is the bucket revision of pid's work document.
func prodRevision(t *testing.T, e *writertest.Env, pid string) uint64 {
	t.Helper()
	en, err := e.KV.Get(context.Background(), contract.ProductKey(pid))
	if err != nil {
		t.Fatal(err)
	}
	return en.Revision()
}

func TestRecentlyViewed(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	addWork(t, e, "W2", "CM", 0)
	m := newMember(t, e, "recent@example.com")
	for _, pid := range []string{"W1", "W2"} {
		if st, body := m.Do("POST", "/home/api/v1/users/recent", map[string]any{"pid": pid, "vol": 2}); st != 200 {
			t.Fatalf("view: %d %s", st, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	type page struct {
		List       []struct{ PID, Title, Unit string } `json:"list"`
		TotalCount int                                 `json:"totalCount"`
	}
	_, body := m.Do("GET", "/home/api/v1/users/recent?page=1", nil)
	p := decode[page](t, body)
	if p.TotalCount != 2 || p.List[0].PID != "W2" || p.List[0].Title != "작품 W2" {
		t.Fatalf("recent list: %s", body)
	}
	// A comic is counted in 권, a webtoon in 화: the list says which.
	if p.List[0].Unit != "권" || p.List[1].Unit != "화" {
		t.Fatalf("recent units: %s", body)
	}
	if st, _ := m.Do("POST", "/home/api/v1/users/recent/delete", map[string]any{"pids": []string{"W2"}}); st != 200 {
		t.Fatal("delete")
	}
	_, body = m.Do("GET", "/home/api/v1/users/recent", nil)
	if p := decode[page](t, body); p.TotalCount != 1 || p.List[0].PID != "W1" {
		t.Fatalf("after delete: %s", body)
	}
	for name, tc := range map[string]struct {
		method, path string
		body         any
		want         int
	}{
		"unknown pid": {"POST", "/home/api/v1/users/recent", map[string]any{"pid": "NOPE"}, 404},
		"negative":    {"POST", "/home/api/v1/users/recent", map[string]any{"pid": "W1", "vol": -1}, 400},
		"bad page":    {"GET", "/home/api/v1/users/recent?page=x", nil, 400},
		"no pids":     {"POST", "/home/api/v1/users/recent/delete", map[string]any{}, 400},
	} {
		if st, body := m.Do(tc.method, tc.path, tc.body); st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %s", name, st, body)
		}
	}
	if st, _ := e.Browser().Do("GET", "/home/api/v1/users/recent", nil); st != 401 {
		t.Fatalf("visitor: %d", st)
	}
}

func TestInterestGenres(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	m := newMember(t, e, "genres@example.com")
	type state struct {
		IsConfigured bool
		ShowsPopup   bool
		Genres       []struct {
			ID         string `json:"integratedGenreId"`
			IsSelected bool
		}
	}
	get := func(path string) state {
		st, body := m.Do("GET", path, nil)
		if st != 200 {
			t.Fatalf("%s: %d %s", path, st, body)
		}
		return decode[state](t, body)
	}
	if s := get("/home/api/v1/users/interests/genres/exists"); s.IsConfigured || !s.ShowsPopup {
		t.Fatalf("fresh member: %+v", s)
	}
	if st, body := m.Do("POST", "/home/api/v1/users/interests/genres/rejection", nil); st != 204 || len(body) != 0 {
		t.Fatalf("rejection: %d %s", st, body)
	}
	if s := get("/home/api/v1/users/interests/genres/exists"); s.ShowsPopup {
		t.Fatal("popup shown after rejection")
	}
	st, body := m.Do("PUT", "/home/api/v1/users/interests/genres", map[string]any{"genres": []map[string]any{
		{"integratedGenreId": "21", "isSelected": true}, {"integratedGenreId": "05", "isSelected": false}}})
	if st != 201 {
		t.Fatalf("put: %d %s", st, body)
	}
	s := get("/home/api/v1/users/interests/genres")
	sel := map[string]bool{}
	for _, g := range s.Genres {
		sel[g.ID] = g.IsSelected
	}
	if !s.IsConfigured || !sel["21"] || sel["05"] || len(s.Genres) != len(contract.Genres) {
		t.Fatalf("after put: %+v", s)
	}
	for name, body := range map[string]string{
		"unknown id": `{"genres":[{"integratedGenreId":"99","isSelected":true}]}`,
		"twice":      `{"genres":[{"integratedGenreId":"21","isSelected":true},{"integratedGenreId":"21","isSelected":false}]}`,
		"missing":    `{}`,
		"wrong type": `{"genres":"21"}`,
	} {
		if st, resp := m.Do("PUT", "/home/api/v1/users/interests/genres", body); st != 400 || writertest.Code(t, resp) != 400 {
			t.Errorf("%s: %d %s", name, st, resp)
		}
	}
	if s := get("/home/api/v1/users/interests/genres"); !sel["21"] || !s.IsConfigured {
		t.Fatal("bad input changed the selection")
	}
	if st, _ := e.Browser().Do("GET", "/home/api/v1/users/interests/genres", nil); st != 401 {
		t.Fatalf("visitor: %d", st)
	}
}

func TestUserGetInfoAndProfile(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	type info struct {
		Info struct {
			BlueMoney int64 `json:"bluemoney"`
			NewGift   bool  `json:"new_gift"`
			JoinBonus struct {
				Valid  bool   `json:"valid"`
				ImgURL string `json:"img_url"`
			} `json:"join_bonus"`
			FirstBill struct {
				ImgURL string `json:"img_url"`
			} `json:"firstbill"`
		} `json:"info"`
		AutoPaymentInfo map[string]any `json:"auto_payment_info"`
	}
	visitor := e.Browser()
	st, body := visitor.Do("POST", zz+"user-get-info", form("channel", "AW", "nai", "0"))
	if v := decode[info](t, body); st != 200 || !v.Info.NewGift || v.Info.BlueMoney != 0 || v.AutoPaymentInfo == nil {
		t.Fatalf("visitor side info: %d %s", st, body)
	}
	m := newMember(t, e, "info@example.com")
	st, body = m.Do("POST", zz+"user-get-info", form("uid", m.uid, "channel", "AW", "nai", "19"))
	if v := decode[info](t, body); st != 200 || !v.Info.JoinBonus.Valid || v.Info.NewGift || v.Info.JoinBonus.ImgURL != "" {
		t.Fatalf("member side info: %d %s", st, body)
	}
	// The banners' pictures are those of the running join and first-charge
	// events (processed uploads), not addresses of their own.
	now := time.Now()
	exec(t, e, `INSERT INTO events (eid, kind, title, body, banner_url, start_at, end_at) VALUES
		(2050, 'join', '가입', '', '/media/aa', $1, $2), (2051, 'firstcharge', '첫 충전', '', '/media/bb', $1, $2),
		(2052, 'join', '지난 가입', '', '/media/cc', $3, $1)`, now.Add(-time.Hour), now.Add(time.Hour), now.Add(-48*time.Hour))
	st, body = m.Do("POST", zz+"user-get-info", form("uid", m.uid, "channel", "AW", "nai", "19"))
	if v := decode[info](t, body); st != 200 || v.Info.JoinBonus.ImgURL != "/media/aa" || v.Info.FirstBill.ImgURL != "/media/bb" {
		t.Fatalf("side info's banner pictures: %d %s", st, body)
	}
	if st, _ := m.Do("POST", zz+"user-get-info", form("uid", "12345", "channel", "AW")); st != 403 {
		t.Fatalf("other uid: %d", st)
	}
	if st, _ := m.Do("POST", zz+"user-get-info", form("uid", m.uid, "nai", "7")); st != 400 {
		t.Fatalf("bad nai: %d", st)
	}
	if st, _ := visitor.Do("POST", zz+"user-get-info", form("uid", m.uid)); st != 401 {
		t.Fatalf("visitor claiming a uid: %d", st)
	}
	// An app guest (loginType D) has an account but gets the guest defaults
	// (seed §7), never a member's wallet or bonus offers.
	guest := e.Browser()
	st, body = guest.Do("POST", "/home/api/v1/auth/guest", nil)
	g := decode[struct {
		AuthInfo struct{ UID, LoginType string } `json:"authInfo"`
	}](t, body)
	if st != 201 || g.AuthInfo.LoginType != "D" || g.AuthInfo.UID == "" {
		t.Fatalf("guest: %d %s", st, body)
	}
	st, body = guest.Do("POST", zz+"user-get-info", form("uid", g.AuthInfo.UID, "channel", "AC", "nai", "0"))
	if v := decode[info](t, body); st != 200 || !v.Info.NewGift || v.Info.BlueMoney != 0 || v.Info.JoinBonus.Valid || v.AutoPaymentInfo == nil {
		t.Fatalf("guest side info: %d %s", st, body)
	}
	if st, _ := guest.Do("POST", zz+"user-get-info", form("uid", m.uid, "channel", "AC")); st != 403 {
		t.Fatalf("guest claiming a member's uid: %d", st)
	}
	st, body = m.Do("GET", "/iam/v2/user-info", nil)
	var prof struct {
		UserInfo map[string]any `json:"userInfo"`
	}
	_ = json.Unmarshal(body, &prof)
	if st != 200 || len(prof.UserInfo) != 27 || prof.UserInfo["loginCount"].(float64) != 1 || prof.UserInfo["memberType"] != "member" {
		t.Fatalf("tracking profile: %d %s", st, body)
	}
	if st, _ := visitor.Do("GET", "/iam/v2/user-info", nil); st != 401 {
		t.Fatalf("visitor profile: %d", st)
	}
}

func TestQnA(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	m := newMember(t, e, "qna@example.com")
	if st, body := m.Do("POST", "/home/api/v1/cs/qna", map[string]any{"category": "payment", "title": "결제 문의", "body": "충전이 안 돼요"}); st != 201 {
		t.Fatalf("qna add: %d %s", st, body)
	}
	st, body := m.Do("POST", "/protocol/appapi/mb/helpdesk/qna_list", form("uid", m.uid, "page", "1"))
	if st != 200 || !strings.Contains(string(body), "결제 문의") || !strings.Contains(string(body), `"totalCount":1`) {
		t.Fatalf("qna list: %d %s", st, body)
	}
	other := newMember(t, e, "qna2@example.com")
	if st, _ := other.Do("POST", "/protocol/appapi/mb/helpdesk/qna_list", form("uid", m.uid)); st != 403 {
		t.Fatalf("other uid: %d", st)
	}
	if st, _ := m.Do("POST", "/home/api/v1/cs/qna", map[string]any{"category": "x", "title": "t", "body": "b"}); st != 400 {
		t.Fatalf("bad category: %d", st)
	}
	if n := e.Count(`SELECT count(*) FROM qna`); n != 1 {
		t.Fatalf("qna rows %d", n)
	}
}

func TestAwardVoteAndWebVersion(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	now := time.Now().UTC()
	award := contract.Award{Title: "웹툰 어워즈", StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour), Sections: []contract.AwardSection{
		{Key: "best", Title: "최고", List: []contract.AwardCandidate{{PID: "W1"}, {PID: "W2"}}}}}
	st, body := e.Admin.Do("POST", "/admin/api/v1/awards", award)
	if st != 201 {
		t.Fatalf("award: %d %s", st, body)
	}
	eid := decode[struct{ ID int64 }](t, body).ID
	closed := award
	closed.EndAt = now.Add(-time.Minute)
	_, body = e.Admin.Do("POST", "/admin/api/v1/awards", closed)
	closedID := decode[struct{ ID int64 }](t, body).ID

	m := newMember(t, e, "vote@example.com")
	path := fmt.Sprintf("/pc/api/awards/%d/vote", eid)
	if st, body := m.Do("POST", path, map[string]any{"section": "best", "pid": "W2"}); st != 200 || !strings.Contains(string(body), `"votes":1`) {
		t.Fatalf("vote: %d %s", st, body)
	}
	writertest.WaitKV(t, e.KV, fmt.Sprintf("award.%d", eid), 5*time.Second, func(b []byte) bool {
		var a contract.Award
		return json.Unmarshal(b, &a) == nil && len(a.Sections) == 1 && a.Sections[0].List[1].Votes == 1
	})
	for name, tc := range map[string]struct {
		path string
		body any
		want int
	}{
		"twice":          {path, map[string]any{"section": "best", "pid": "W1"}, 409},
		"unknown cand":   {path, map[string]any{"section": "best", "pid": "W9"}, 404},
		"missing pid":    {path, map[string]any{"section": "best"}, 400},
		"closed":         {fmt.Sprintf("/pc/api/awards/%d/vote", closedID), map[string]any{"section": "best", "pid": "W1"}, 409},
		"unknown award":  {"/pc/api/awards/424242/vote", map[string]any{"section": "best", "pid": "W1"}, 404},
		"malformed json": {path, `{"section":`, 400},
	} {
		st, body := m.Do("POST", tc.path, tc.body)
		if st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %s", name, st, body)
		}
		// Readers see the message: Korean, and for some cases these words.
		wantMessage(t, name, body, map[string]string{
			"twice":         "이미 투표한 부문입니다.",
			"unknown cand":  "후보 작품을 찾을 수 없습니다.",
			"closed":        "투표 기간이 아닙니다.",
			"unknown award": "어워드를 찾을 수 없습니다.",
		}[name])
	}
	if n := e.Count(`SELECT count(*) FROM award_votes`); n != 1 {
		t.Fatalf("votes stored: %d", n)
	}
	version := func() int {
		st, body := e.Browser().Do("POST", "/protocol/appapi/mb/etc/version/web-version-code", nil)
		var v struct {
			Header struct{ Code, Version int } `json:"header"`
		}
		_ = json.Unmarshal(body, &v)
		if st != 200 || v.Header.Code != 200 {
			t.Fatalf("web-version-code: %d %s", st, body)
		}
		return v.Header.Version
	}
	if v := version(); v != 24 {
		t.Fatalf("default version %d", v)
	}
	e.Admin.Do("PUT", "/admin/api/v1/siteconfig", contract.SiteConfig{WebVersionCode: 31})
	if v := version(); v != 31 {
		t.Fatalf("version after admin change %d", v)
	}
}

// wantMessage checks the envelope's message is Korean and holds want.
func wantMessage(t *testing.T, name string, body []byte, want string) {
	t.Helper()
	if msg := writertest.Message(t, body); !testenv.Korean(msg) || !strings.Contains(msg, want) {
		t.Errorf("%s: message %q, want Korean holding %q", name, msg, want)
	}
}
