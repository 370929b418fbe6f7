package member_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/writer/internal/writertest"
)

type libraryAnswer struct {
	List []struct {
		PID        string     `json:"pid"`
		NextVol    int        `json:"nextVol"`
		LastVol    int        `json:"lastVol"`
		LastReadAt *time.Time `json:"lastReadAt"`
		RentUntil  *time.Time `json:"rentUntil"`
		Place      *struct {
			Vol int `json:"vol"`
		} `json:"place"`
	} `json:"list"`
	CurPage    int `json:"curPage"`
	PageCount  int `json:"pageCount"`
	TotalCount int `json:"totalCount"`
}

func (a libraryAnswer) pids() string {
	var s []string
	for _, it := range a.List {
		s = append(s, it.PID)
	}
	return strings.Join(s, ",")
}

// TestLibraryShelves: each shelf lists the member's own works, sorted by last
// read or by update, with the next episode to read.
func TestLibraryShelves(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	for _, pid := range []string{"L1", "L2", "L3"} {
		addWork(t, e, pid, "WT", 0)
	}
	addWork(t, e, "LX", "WT", 19)
	m := newMember(t, e, "library@example.com")
	other := newMember(t, e, "library-other@example.com")
	const lib = "/home/api/v1/users/library"
	now := time.Now()

	// Reading: L1 finished episode 1 (last page, bottom) long ago; L2 is in
	// episode 2 now. L3 got a new episode after both (update order).
	put := func(pid string, body map[string]any) {
		t.Helper()
		if st, b := m.Do("PUT", "/home/api/v1/users/reading-place/"+pid, body); st != 200 {
			t.Fatalf("place %s: %d %s", pid, st, b)
		}
	}
	put("L1", map[string]any{"vol": 1, "page": 2, "ratio": 1, "at": now.Add(-time.Hour).UnixMilli()})
	put("L2", map[string]any{"vol": 2, "page": 0, "ratio": 0.2, "at": now.UnixMilli()})
	if st, b := other.Do("PUT", "/home/api/v1/users/reading-place/L3", map[string]any{"vol": 1}); st != 200 {
		t.Fatalf("other: %d %s", st, b)
	}
	_, body := m.Do("GET", lib+"?shelf=reading", nil)
	a := decode[libraryAnswer](t, body)
	if a.pids() != "L2,L1" || a.TotalCount != 2 || a.CurPage != 1 {
		t.Fatalf("reading shelf, last read first: %s", body)
	}
	if a.List[0].NextVol != 2 || a.List[1].NextVol != 2 || a.List[1].Place == nil || a.List[1].Place.Vol != 1 {
		t.Fatalf("next episode (in episode 2; finished episode 1 goes on to 2): %s", body)
	}

	// Saved (zzim), sorted by update: L3 got the newest release.
	for _, pid := range []string{"L1", "L3", "LX"} {
		if st, b := m.Do("POST", "/protocol/appapi/mb/user/info/zzim-add", map[string]any{"uid": m.uid, "zzim_type": "prod", "pid": pid}); st != 200 {
			t.Fatalf("zzim %s: %d %s", pid, st, b)
		}
	}
	ctx := context.Background()
	for pid, at := range map[string]time.Time{"L1": now.Add(-48 * time.Hour), "L2": now.Add(-24 * time.Hour), "L3": now.Add(-time.Hour), "LX": now.Add(-30 * time.Hour)} {
		if _, err := e.Pool.Exec(ctx, `UPDATE volumes SET release_at = $2 WHERE pid = $1`, pid, at); err != nil {
			t.Fatal(err)
		}
	}
	_, body = m.Do("GET", lib+"?shelf=saved&sort=update", nil)
	if a := decode[libraryAnswer](t, body); a.pids() != "L3,L1" {
		// LX is adult: a member who is not a verified adult never sees it.
		t.Fatalf("saved by update: %s", body)
	}
	_, body = m.Do("GET", lib+"?shelf=saved&sort=read", nil)
	if a := decode[libraryAnswer](t, body); a.pids() != "L1,L3" || a.List[1].NextVol != 1 || a.List[1].LastReadAt != nil {
		t.Fatalf("saved by last read (never read: first episode, last): %s", body)
	}

	// Owned and rented, from the member's entitlements.
	uid, _ := strconv.ParseInt(m.uid, 10, 64)
	if _, err := e.Pool.Exec(ctx, `INSERT INTO entitlements (uid, pid, vol, kind, source, expires_at, created_at) VALUES
		($1, 'L2', 2, 'B', 'buy', NULL, now()),
		($1, 'L3', 1, 'R', 'rent', $2, now()), ($1, 'L3', 2, 'R', 'rent', $3, now()),
		($1, 'L1', 2, 'R', 'rent', $4, now())`, uid, now.Add(48*time.Hour), now.Add(24*time.Hour), now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	_, body = m.Do("GET", lib+"?shelf=owned", nil)
	if a := decode[libraryAnswer](t, body); a.pids() != "L2" {
		t.Fatalf("owned: %s", body)
	}
	_, body = m.Do("GET", lib+"?shelf=rented", nil)
	a = decode[libraryAnswer](t, body)
	// L1's rental ended: not listed. L3 shows its earliest end.
	if a.pids() != "L3" || a.List[0].RentUntil == nil || a.List[0].RentUntil.Sub(now.Add(24*time.Hour)).Abs() > time.Second {
		t.Fatalf("rented with time left: %s", body)
	}
	_, body = other.Do("GET", lib+"?shelf=owned", nil)
	if a := decode[libraryAnswer](t, body); len(a.List) != 0 {
		t.Fatalf("another member sees this member's library: %s", body)
	}
}

func TestLibraryBadInput(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	m := newMember(t, e, "library-bad@example.com")
	const lib = "/home/api/v1/users/library"
	for name, q := range map[string]string{
		"no shelf":      "",
		"unknown shelf": "?shelf=wish",
		"unknown sort":  "?shelf=saved&sort=title",
		"page zero":     "?shelf=saved&page=0",
		"page text":     "?shelf=saved&page=two",
		"bad channel":   "?shelf=saved&channel=XX",
	} {
		st, body := m.Do("GET", lib+q, nil)
		if st != 400 || writertest.Code(t, body) != 400 || !strings.Contains(string(body), "message") {
			t.Errorf("%s: %d %s", name, st, body)
		}
	}
	if _, body := m.Do("GET", lib+"?shelf=saved&sort=title", nil); !strings.Contains(string(body), "정렬(sort)") {
		t.Errorf("unknown sort message: %s", body)
	}
	if st, body := e.Browser().Do("GET", lib+"?shelf=saved", nil); st != 401 || writertest.Code(t, body) != 401 {
		t.Fatalf("visitor: %d %s", st, body)
	}
}
