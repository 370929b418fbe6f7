package member_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
)

type inboxAnswer struct {
	List []struct {
		ID      int64  `json:"id"`
		Kind    string `json:"kind"`
		PID     string `json:"pid"`
		No      int    `json:"no"`
		Title   string `json:"title"`
		IsAdult bool   `json:"isAdult"`
		Read    bool   `json:"read"`
	} `json:"list"`
	TotalCount int `json:"totalCount"`
	PageCount  int `json:"pageCount"`
	Unread     int `json:"unread"`
}

const inboxPath = "/home/api/v1/users/inbox"

// Adult levels as the users row holds them (auth.AdultLevel 0 to 3).
var levelColumns = map[int]string{
	0: `auth_real = false, auth_adult = false, toggle19 = false, birth_date = NULL`,
	1: `auth_real = true, auth_adult = false, toggle19 = false, birth_date = (now() - interval '15 years')::date`,
	2: `auth_real = true, auth_adult = true, toggle19 = true, birth_date = date '1990-01-01'`,
	3: `auth_real = true, auth_adult = true, toggle19 = false, birth_date = date '1990-01-01'`,
}

// releaseVolume adds volume no of pid released now (the admin API's write).
func releaseVolume(t *testing.T, e *writertest.Env, pid string, no int) {
	t.Helper()
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/works/"+pid+"/volumes/"+strconv.Itoa(no),
		map[string]any{"no": no, "pages": 3, "releaseAt": time.Now().UTC().Format(time.RFC3339)}); st/100 != 2 {
		t.Fatalf("release %s %d: %d %s", pid, no, st, body)
	}
}

// TestInboxOfFollowedAuthor (issue 34 item 3): a member who follows an
// author (the author zzim) finds the author's new episodes in the inbox the
// sidebar's 새 알림 opens, newest first, each once; the unread count and the
// side info's new_alarm follow it; marking one and then all read changes
// only the member's own items; bad input is refused in Korean and changes
// nothing; a visitor is asked to log in.
func TestInboxOfFollowedAuthor(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "F1", "WT", 0) // author 77, volumes 1 and 2 out now
	addWork(t, e, "F2", "WT", 0)
	writertest.Eventually(t, 20*time.Second, "the first volumes announced", func() bool {
		var n int
		_ = e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM push_releases WHERE pid IN ('F1', 'F2')`).Scan(&n)
		return n == 4
	})
	fan := newMember(t, e, "inbox-fan@example.com")
	other := newMember(t, e, "inbox-other@example.com")
	if st, body := fan.Do("POST", zz+"zzim-add", form("uid", fan.uid, "zzim_type", "author", "pid", "77")); st != 200 {
		t.Fatalf("follow: %d %s", st, body)
	}
	_, body := fan.Do("GET", inboxPath, nil)
	if a := decode[inboxAnswer](t, body); len(a.List) != 0 || a.Unread != 0 {
		t.Fatalf("inbox before any release after the follow: %s", body)
	}
	releaseVolume(t, e, "F1", 3)
	releaseVolume(t, e, "F2", 3)
	var a inboxAnswer
	writertest.Eventually(t, 20*time.Second, "both episodes in the inbox", func() bool {
		_, body = fan.Do("GET", inboxPath, nil)
		a = decode[inboxAnswer](t, body)
		return len(a.List) == 2
	})
	if a.Unread != 2 || a.TotalCount != 2 || a.List[0].ID < a.List[1].ID || a.List[0].Kind != "episode" || a.List[0].No != 3 ||
		a.List[0].Title != "작품 "+a.List[0].PID || a.List[0].Read {
		t.Fatalf("inbox: %s", body)
	}
	if _, side := fan.Do("POST", zz+"user-get-info", form("uid", fan.uid)); !json.Valid(side) || !contains(side, `"new_alarm":true`) {
		t.Fatalf("side info with unread items: %s", side)
	}
	if _, b := other.Do("GET", inboxPath, nil); decode[inboxAnswer](t, b).TotalCount != 0 {
		t.Fatalf("a member who follows nobody: %s", b)
	}

	// Bad input: refused, nothing changed.
	before := testenv.TableFingerprint(t, t.Context(), e.Pool, "inbox")
	for _, bad := range []any{map[string]any{}, map[string]any{"ids": []int64{1}, "all": true}, map[string]any{"ids": []int64{-1}},
		map[string]any{"ids": "1"}} {
		if st, b := fan.Do("POST", inboxPath+"/read", bad); st != 400 || writertest.Code(t, b) != 400 || writertest.Message(t, b) == "" {
			t.Errorf("mark read %v: %d %s, want 400", bad, st, b)
		}
	}
	if st, b := fan.Do("GET", inboxPath+"?page=0", nil); st != 400 {
		t.Errorf("page 0: %d %s", st, b)
	}
	// Another member naming the fan's item changes nothing.
	if st, b := other.Do("POST", inboxPath+"/read", map[string]any{"ids": []int64{a.List[0].ID}}); st != 200 {
		t.Fatalf("other's mark: %d %s", st, b)
	}
	if after := testenv.TableFingerprint(t, t.Context(), e.Pool, "inbox"); after != before {
		t.Fatal("a refused or foreign mark changed the inbox")
	}
	if st, b := e.Browser().Do("GET", inboxPath+"/unread", nil); st != 401 {
		t.Fatalf("visitor: %d %s", st, b)
	}

	st, b := fan.Do("POST", inboxPath+"/read", map[string]any{"ids": []int64{a.List[1].ID}})
	if st != 200 || !contains(b, `"unread":1`) {
		t.Fatalf("mark one: %d %s", st, b)
	}
	if _, b := fan.Do("GET", inboxPath+"/unread", nil); !contains(b, `"unread":1`) {
		t.Fatalf("unread after one: %s", b)
	}
	if st, b := fan.Do("POST", inboxPath+"/read", map[string]any{"all": true}); st != 200 || !contains(b, `"unread":0`) {
		t.Fatalf("mark all: %d %s", st, b)
	}
	if _, side := fan.Do("POST", zz+"user-get-info", form("uid", fan.uid)); !contains(side, `"new_alarm":false`) {
		t.Fatalf("side info with everything read: %s", side)
	}
}

// TestInboxAudienceTable runs contract/cases/audience.json against the
// inbox: an adult work's item (told to the follower while they were an
// adult) is listed and counted exactly where the table says adult content
// is shown, on each channel and level the follower has now; the work for
// everyone always is.
func TestInboxAudienceTable(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "AX", "WT", 19)
	addWork(t, e, "AN", "WT", 0)
	writertest.Eventually(t, 20*time.Second, "the first volumes announced", func() bool {
		var n int
		_ = e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM push_releases WHERE pid IN ('AX', 'AN')`).Scan(&n)
		return n == 4
	})
	m := newMember(t, e, "inbox-audience@example.com")
	setLevel := func(lvl int) {
		t.Helper()
		if _, err := e.Pool.Exec(t.Context(), `UPDATE users SET `+levelColumns[lvl]+` WHERE uid = $1::bigint`, m.uid); err != nil {
			t.Fatal(err)
		}
	}
	setLevel(2)
	if st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "zzim_type", "author", "pid", "77")); st != 200 {
		t.Fatalf("follow: %d %s", st, body)
	}
	releaseVolume(t, e, "AX", 3)
	releaseVolume(t, e, "AN", 3)
	writertest.Eventually(t, 20*time.Second, "both episodes in the inbox", func() bool {
		_, body := m.Do("GET", inboxPath, nil)
		return decode[inboxAnswer](t, body).TotalCount == 2
	})
	raw, err := os.ReadFile("../../contract/cases/audience.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []struct {
			Channel      string `json:"channel"`
			Login        bool   `json:"login"`
			Level        int    `json:"level"`
			AdultContent bool   `json:"adultContent"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	for _, c := range table.Cases {
		if !c.Login {
			continue // a visitor has no inbox (401 above)
		}
		setLevel(c.Level)
		m.Headers = map[string]string{"X-Channel": c.Channel}
		name := c.Channel + " level " + strconv.Itoa(c.Level)
		_, body := m.Do("GET", inboxPath, nil)
		a := decode[inboxAnswer](t, body)
		var adult, everyone bool
		for _, it := range a.List {
			adult = adult || it.IsAdult || it.PID == "AX"
			everyone = everyone || it.PID == "AN"
		}
		if adult != c.AdultContent || !everyone {
			t.Errorf("%s: adult item listed %v (table: %v), work for everyone %v: %s", name, adult, c.AdultContent, everyone, body)
		}
		wantUnread := 1
		if c.AdultContent {
			wantUnread = 2
		}
		if a.Unread != wantUnread || a.TotalCount != wantUnread {
			t.Errorf("%s: unread %d, total %d, want %d", name, a.Unread, a.TotalCount, wantUnread)
		}
	}
	m.Headers = nil
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }
