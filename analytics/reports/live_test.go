package reports_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"storefront/analytics/ingest"
	"storefront/analytics/reports"
	"storefront/contract"
)

// The live view reads its rollups, and their figures are the raw events'
// counts: events inserted in several batches over the last minutes (as the
// ingester does), then the view's every second, top work and volume checked
// against counts of the raw table. The rollups fill at insert, so the delay
// is the ingestion's; here nothing is in flight.
func TestLiveViewMatchesRawCounts(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	_, ch := setup(t, now)
	rp := reports.New(ch, ch, secret, allowAll, func() time.Time { return now }, slog.New(slog.DiscardHandler))
	released := now.Add(-10 * time.Minute)
	rp.Releases = func(_ context.Context, pid string, no int) (time.Time, bool) {
		if pid == "W1" && no == 12 {
			return released, true
		}
		return time.Time{}, false
	}
	mux := http.NewServeMux()
	rp.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	rng := rand.New(rand.NewPCG(21, 21))
	works := []string{"W1", "W2", "W3"}
	for batch := range 6 {
		var evs []contract.TrackedEvent
		for n := range 300 {
			e := contract.TrackedEvent{V: 1, ID: fmt.Sprintf("l%d-%d", batch, n), Channel: "AW", SessionID: fmt.Sprintf("s%d", rng.IntN(50)),
				Time: now.Add(-time.Duration(rng.IntN(7*60)) * time.Second)} // some before the 5-minute window
			w := works[rng.IntN(3)]
			switch rng.IntN(4) {
			case 0:
				e.Type, e.Route, e.URL = contract.EvPageView, "/webtoon", "/webtoon"
			case 1:
				e.Type, e.PID = contract.EvViewContent, w
			case 2:
				no := 11 + rng.IntN(2)
				e.Type, e.Route, e.URL = contract.EvPageView, "/viewer", fmt.Sprintf("/viewer?pid=%s&no=%d", w, no)
			case 3:
				e.Type, e.PID, e.Vol, e.Amount, e.UID = contract.EvPurchase, w, 12, 300, "m"
			}
			evs = append(evs, e)
		}
		if err := ingest.InsertEvents(context.Background(), ch, evs, now); err != nil {
			t.Fatal(err)
		}
	}
	var live reports.Live
	get(t, srv, "/analytics/api/v1/reports/live?minutes=5", token, &live)
	if len(live.Seconds) != 300 || !live.Seconds[299].T.Equal(now) {
		t.Fatalf("%d seconds ending %v, want 300 ending %v", len(live.Seconds), live.Seconds[len(live.Seconds)-1].T, now)
	}
	from := live.Seconds[0].T
	raw := func(q string, args ...any) uint64 {
		t.Helper()
		var n uint64
		if err := ch.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const window = " AND ts >= ? AND ts <= ?"
	for name, c := range map[string]struct {
		got uint64
		sql string
	}{
		"page views":   {live.Totals.PageViews, "SELECT count() FROM events FINAL WHERE type = 'page_view'"},
		"detail views": {live.Totals.ContentViews, "SELECT count() FROM events FINAL WHERE type = 'view_content'"},
		"viewer opens": {live.Totals.Opens, "SELECT count() FROM events FINAL WHERE type = 'page_view' AND route LIKE '/viewer%'"},
		"purchases":    {live.Totals.Purchases, "SELECT count() FROM events FINAL WHERE type IN ('purchase', 'rental')"},
	} {
		if want := raw(c.sql+window, from, now); c.got != want || want == 0 {
			t.Errorf("%s: live %d, raw %d", name, c.got, want)
		}
	}
	// Every second's readers (page and detail views).
	for _, s := range live.Seconds {
		if want := raw("SELECT count() FROM events FINAL WHERE type IN ('page_view', 'view_content') AND ts = ?", s.T); s.PageViews+s.ContentViews != want {
			t.Errorf("second %v: live %d, raw %d", s.T, s.PageViews+s.ContentViews, want)
		}
	}
	// Top works over whole minutes of the window, from the minute rollup.
	first := from.Truncate(time.Minute)
	for _, w := range live.Works {
		want := raw(`SELECT count() FROM events FINAL WHERE ((type = 'view_content' AND pid = ?) OR (type = 'page_view' AND route LIKE '/viewer%' AND extractURLParameter(url, 'pid') = ?)) AND ts >= ? AND ts < ?`,
			w.PID, w.PID, first, now.Add(time.Second))
		if w.Views+w.Opens != want {
			t.Errorf("work %s: views+opens %d, raw %d", w.PID, w.Views+w.Opens, want)
		}
	}
	if len(live.Works) != 3 {
		t.Errorf("top works = %+v, want the 3 works", live.Works)
	}
	var newOpens uint64
	for _, v := range live.Volumes {
		want := raw(`SELECT count() FROM events FINAL WHERE type = 'page_view' AND route LIKE '/viewer%' AND url = ? AND ts >= ? AND ts < ?`,
			fmt.Sprintf("/viewer?pid=%s&no=%d", v.PID, v.No), first, now.Add(time.Second))
		if v.Opens != want {
			t.Errorf("volume %s/%d: opens %d, raw %d", v.PID, v.No, v.Opens, want)
		}
		if v.New != (v.PID == "W1" && v.No == 12) {
			t.Errorf("volume %s/%d new = %v", v.PID, v.No, v.New)
		}
		if v.New {
			newOpens = v.Opens
		}
	}
	if len(live.Volumes) != 6 || live.NewOpens != newOpens || newOpens == 0 {
		t.Errorf("volumes %+v, new-volume opens %d", live.Volumes, live.NewOpens)
	}
	if code := get(t, srv, "/analytics/api/v1/reports/live?minutes=61", token, nil); code != 400 {
		t.Errorf("61 minutes: %d", code)
	}
}
