package member_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"storefront/writer/internal/writertest"
)

type placeAnswer struct {
	Place *struct {
		PID    string  `json:"pid"`
		Vol    int     `json:"vol"`
		Page   int     `json:"page"`
		Ratio  float64 `json:"ratio"`
		Offset int     `json:"offset"`
	} `json:"place"`
}

func TestReadingPlaceFollowsTheMemberAcrossDevices(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	phone := newMember(t, e, "place@example.com")
	const path = "/home/api/v1/users/reading-place/W1"

	_, body := phone.Do("GET", path, nil)
	if a := decode[placeAnswer](t, body); a.Place != nil {
		t.Fatalf("a first visit has no place: %s", body)
	}
	if st, body := phone.Do("PUT", path, map[string]any{"vol": 2, "page": 1, "ratio": 0.375, "offset": 0}); st != 200 {
		t.Fatalf("put: %d %s", st, body)
	}
	// Another device of the same member (a new session) reads it back.
	tablet := e.Browser()
	if st, body := tablet.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "place@example.com", "password": "correct horse"}); st != 200 {
		t.Fatalf("login: %d %s", st, body)
	}
	_, body = tablet.Do("GET", path, nil)
	a := decode[placeAnswer](t, body)
	if a.Place == nil || a.Place.Vol != 2 || a.Place.Page != 1 || a.Place.Ratio != 0.375 {
		t.Fatalf("other device: %s", body)
	}
	// sendBeacon POSTs; the last write wins, whichever device made it.
	if st, body := tablet.Do("POST", path, map[string]any{"vol": 1, "offset": 1234}); st != 200 {
		t.Fatalf("beacon: %d %s", st, body)
	}
	_, body = phone.Do("GET", path, nil)
	if a := decode[placeAnswer](t, body); a.Place == nil || a.Place.Vol != 1 || a.Place.Offset != 1234 || a.Place.Page != 0 || a.Place.Ratio != 0 {
		t.Fatalf("after the beacon: %s", body)
	}
	// Places are per member: someone else sees none.
	other := newMember(t, e, "other-reader@example.com")
	_, body = other.Do("GET", path, nil)
	if a := decode[placeAnswer](t, body); a.Place != nil {
		t.Fatalf("another member sees a place: %s", body)
	}
}

func TestReadingPlaceBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	m := newMember(t, e, "place-bad@example.com")
	other := newMember(t, e, "place-victim@example.com")
	const path = "/home/api/v1/users/reading-place/W1"
	if st, body := m.Do("PUT", path, map[string]any{"vol": 1, "page": 2, "ratio": 0.5}); st != 200 {
		t.Fatalf("put: %d %s", st, body)
	}
	before := placeRow(t, e)
	for name, tc := range map[string]struct {
		path string
		body any
		want int
	}{
		"no vol":         {path, map[string]any{"page": 1}, 400},
		"vol zero":       {path, map[string]any{"vol": 0}, 400},
		"negative page":  {path, map[string]any{"vol": 1, "page": -1}, 400},
		"huge page":      {path, map[string]any{"vol": 1, "page": 100_001}, 400},
		"ratio above 1":  {path, map[string]any{"vol": 1, "ratio": 1.5}, 400},
		"negative ratio": {path, map[string]any{"vol": 1, "ratio": -0.1}, 400},
		"bad offset":     {path, map[string]any{"vol": 1, "offset": -5}, 400},
		"wrong type":     {path, `{"vol":"2"}`, 400},
		"malformed":      {path, `{"vol":`, 400},
		"empty body":     {path, ``, 400},
		"unknown field":  {path, map[string]any{"vol": 1, "color": "red"}, 400},
		// identity comes from the session: a uid in the body is refused, never used
		"uid in body":    {path, map[string]any{"vol": 1, "uid": other.uid}, 400},
		"unknown volume": {path, map[string]any{"vol": 9}, 404},
		"unknown work":   {"/home/api/v1/users/reading-place/NOPE", map[string]any{"vol": 1}, 404},
		"invalid pid":    {"/home/api/v1/users/reading-place/a%20b", map[string]any{"vol": 1}, 400},
		"oversized":      {path, `{"vol":1,"page":1` + strings.Repeat(" ", 1<<20) + `}`, 413},
	} {
		for _, method := range []string{"PUT", "POST"} {
			if st, body := m.Do(method, tc.path, tc.body); st != tc.want || writertest.Code(t, body) != tc.want {
				t.Errorf("%s %s: %d %s", method, name, st, body)
			}
		}
	}
	if after := placeRow(t, e); after != before {
		t.Fatalf("bad input changed the place: %s -> %s", before, after)
	}
	if n := e.Count(`SELECT count(*) FROM reading_places`); n != 1 {
		t.Fatalf("rows: %d", n)
	}
	// A visitor has no place to read or write.
	v := e.Browser()
	if st, body := v.Do("GET", path, nil); st != 401 || writertest.Code(t, body) != 401 {
		t.Fatalf("visitor get: %d %s", st, body)
	}
	if st, _ := v.Do("PUT", path, map[string]any{"vol": 1}); st != 401 {
		t.Fatalf("visitor put: %d", st)
	}
	if st, body := m.Do("GET", "/home/api/v1/users/reading-place/NOPE", nil); st != 404 || writertest.Code(t, body) != 404 {
		t.Fatalf("unknown work get: %d %s", st, body)
	}
}

// TestReadingPlaceOfAnUnreleasedVolumeIsRefused: a scheduled volume is not
// readable yet, so nobody can be in it.
func TestReadingPlaceOfAnUnreleasedVolumeIsRefused(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/works/W1/volumes/3", map[string]any{"no": 3, "pages": 3, "releaseAt": "2999-01-01T00:00:00Z"}); st/100 != 2 {
		t.Fatalf("schedule: %d %s", st, body)
	}
	m := newMember(t, e, "place-early@example.com")
	if st, body := m.Do("PUT", "/home/api/v1/users/reading-place/W1", map[string]any{"vol": 3}); st != 404 {
		t.Fatalf("unreleased: %d %s", st, body)
	}
	// Sold early (미리보기) and bought: its buyer's viewer keeps their place.
	if st, body := e.Admin.Do("PATCH", "/admin/api/v1/works/W1", map[string]any{"earlyCount": 1, "earlyPrice": 100}); st != 200 {
		t.Fatalf("early access: %d %s", st, body)
	}
	if st, body := m.Do("POST", "/home/api/v1/wallet/join-bonus", nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, body)
	}
	m.Headers = map[string]string{"Idempotency-Key": "early-buy"}
	if st, body := m.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "W1", "vols": []int{3}, "buyType": "B"}); st != 200 {
		t.Fatalf("early buy: %d %s", st, body)
	}
	m.Headers = nil
	if st, body := m.Do("PUT", "/home/api/v1/users/reading-place/W1", map[string]any{"vol": 3, "page": 2}); st != 200 {
		t.Fatalf("bought early: %d %s", st, body)
	}
	other := newMember(t, e, "place-early-other@example.com")
	if st, body := other.Do("PUT", "/home/api/v1/users/reading-place/W1", map[string]any{"vol": 3}); st != 404 {
		t.Fatalf("not bought: %d %s", st, body)
	}
}

func placeRow(t *testing.T, e *writertest.Env) string {
	t.Helper()
	var vol, page, off int
	var ratio float64
	if err := e.Pool.QueryRow(context.Background(), `SELECT vol, page, ratio, char_offset FROM reading_places`).Scan(&vol, &page, &ratio, &off); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("vol %d page %d ratio %g offset %d", vol, page, ratio, off)
}

// TestReadingPlaceKeepsTheNewestDeviceSave: the phone read offline to episode
// 1 and its save arrives after the tablet's newer save of episode 2; the
// writer keeps the tablet's, and answers it to the phone so it can follow.
func TestReadingPlaceKeepsTheNewestDeviceSave(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	m := newMember(t, e, "place-order@example.com")
	const path = "/home/api/v1/users/reading-place/W1"
	now := time.Now().UnixMilli()
	if st, body := m.Do("PUT", path, map[string]any{"vol": 2, "page": 1, "at": now - 1_000}); st != 200 {
		t.Fatalf("tablet: %d %s", st, body)
	}
	st, body := m.Do("POST", path, map[string]any{"vol": 1, "page": 2, "at": now - 60_000})
	if a := decode[placeAnswer](t, body); st != 200 || a.Place == nil || a.Place.Vol != 2 || a.Place.Page != 1 {
		t.Fatalf("the late, older save must answer the newer place: %d %s", st, body)
	}
	if got := placeRow(t, e); got != "vol 2 page 1 ratio 0 offset 0" {
		t.Fatalf("an older save moved the reader backwards: %s", got)
	}
	// Going back on purpose is a newer save: it wins.
	if st, body := m.Do("PUT", path, map[string]any{"vol": 1, "at": now}); st != 200 {
		t.Fatalf("back on purpose: %d %s", st, body)
	}
	if got := placeRow(t, e); got != "vol 1 page 0 ratio 0 offset 0" {
		t.Fatalf("a newer save back to episode 1 was dropped: %s", got)
	}
	// A save without a device time takes the writer's, which is newer still.
	if st, body := m.Do("PUT", path, map[string]any{"vol": 2, "page": 3}); st != 200 {
		t.Fatalf("no at: %d %s", st, body)
	}
	if got := placeRow(t, e); got != "vol 2 page 3 ratio 0 offset 0" {
		t.Fatalf("a save without at: %s", got)
	}
	// A clock far ahead would pin the place forever: refused, nothing changed.
	for name, at := range map[string]any{"far future": now + int64(time.Hour/time.Millisecond), "zero": 0, "negative": -5, "text": "soon"} {
		if st, body := m.Do("PUT", path, map[string]any{"vol": 1, "at": at}); st != 400 || writertest.Code(t, body) != 400 {
			t.Errorf("%s: %d %s", name, st, body)
		}
	}
	if got := placeRow(t, e); got != "vol 2 page 3 ratio 0 offset 0" {
		t.Fatalf("bad at changed the place: %s", got)
	}
}
