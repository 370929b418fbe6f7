package drills

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack"
)

// event is one tracking call of a page-view load.
type event struct {
	seq    int
	start  time.Time
	end    time.Time
	status int
	id     string
	err    error
	// retries is how many times it was sent again after a 503.
	retries int
}

// pageViewRun keeps the event ids of this test binary's loads apart from
// those of an earlier run on the same ClickHouse.
var pageViewRun = strconv.FormatInt(time.Now().UnixNano(), 36)

// pageViewLoad posts page views of /drill/<tag>/<seq> to base at rate for d;
// the tag keeps one drill's events apart from another's in ClickHouse.
// With retry503, a page view answered 503 is sent again until it is answered otherwise.
func pageViewLoad(ctx context.Context, base, tag string, rate float64, d time.Duration, retry503 bool) (*load, *recorder[event]) {
	c := &http.Client{Timeout: 10 * time.Second}
	var rec recorder[event]
	l := startLoad(ctx, rate, d, func(ctx context.Context, seq int) {
		ev := event{seq: seq, start: time.Now()}
		var body []byte
		// The page's own event id, as frontend/app/shell/tracking.ts sends it:
		// a copy sent again after a 503 carries the same id and retry, so an
		// event JetStream stored although its ack was lost in the election is
		// kept once (a fresh id made it a second page view: seen in CI).
		pv := map[string]any{"id": fmt.Sprintf("drill-%s-%s-%d", pageViewRun, tag, seq),
			"curPageUrl": fmt.Sprintf("/drill/%s/%d", tag, seq)}
		for {
			ev.status, body, _, ev.err = call(ctx, c, "POST", base+"/home/api/v1/tracking/page-view",
				pv, map[string]string{contract.HeaderChannel: "AW"})
			// 503: the edge could not hand the event to JetStream (no
			// stream leader yet); the page's tracker sends it again.
			if !retry503 || ev.err != nil || ev.status != http.StatusServiceUnavailable || ctx.Err() != nil {
				break
			}
			ev.retries++
			pv["retry"] = true
			sleepCtx(ctx, 500*time.Millisecond)
		}
		ev.end = time.Now()
		var ans struct {
			EventID string `json:"event_id"`
		}
		if ev.err == nil && ev.status == 200 && json.Unmarshal(body, &ans) == nil {
			ev.id = ans.EventID
		}
		rec.add(ev)
	})
	return l, &rec
}

// accepted returns the ids the edge answered for evs (each must be answered
// once, with an id; failures are reported) and how many of them fall in window.
func accepted(t *testing.T, evs []event, window func(event) bool) (acked map[string]bool, failed, inWindow int) {
	t.Helper()
	acked = map[string]bool{}
	for _, ev := range evs {
		if ev.id == "" {
			failed++
			if failed <= 10 {
				t.Errorf("page view %d was not accepted: %d %v", ev.seq, ev.status, ev.err)
			}
			continue
		}
		if acked[ev.id] {
			t.Errorf("event id %s answered twice", ev.id)
		}
		acked[ev.id] = true
		if window(ev) {
			inWindow++
		}
	}
	return acked, failed, inWindow
}

// rollupViews is the page views the hourly rollup counts in all: a drill
// reads it before its load, and its events must add exactly their number.
func rollupViews(t *testing.T, ctx context.Context, ch *devstack.ClickHouse) int {
	t.Helper()
	return rollupViewsIn(t, ctx, ch, "default")
}

// rollupViewsIn is rollupViews of the tables in database db (default_all:
// through the Distributed tables).
func rollupViewsIn(t *testing.T, ctx context.Context, ch *devstack.ClickHouse, db string) int {
	t.Helper()
	n, err := chCount(ctx, ch, "SELECT toInt64(sum(views)) FROM "+db+".pageviews_hourly")
	if err != nil {
		t.Fatalf("rollup page views: %v", err)
	}
	return n
}

// onceInClickHouse waits until every accepted page view of tag is in ch and
// then checks each is there exactly once: raw rows (no FINAL), rows with
// FINAL and distinct ids all equal the number accepted, the stored ids are
// the accepted ones (lost, doubled, unknown all 0), the rollup grew by
// exactly that number from rollupBefore, nothing was parked in events_dead.
// It returns the counts for the drill's log line.
func onceInClickHouse(t *testing.T, ctx context.Context, ch *devstack.ClickHouse, tag string, acked map[string]bool,
	rollupBefore int, limit time.Duration) map[string]int {
	t.Helper()
	return onceInDatabase(t, ctx, ch, "default", tag, acked, rollupBefore, limit)
}

// onceInDatabase is onceInClickHouse of the tables in database db of ch
// (default_all: read through the Distributed tables).
func onceInDatabase(t *testing.T, ctx context.Context, ch *devstack.ClickHouse, db, tag string, acked map[string]bool,
	rollupBefore int, limit time.Duration) map[string]int {
	t.Helper()
	want := len(acked)
	at := ch.HTTPURL + " " + db
	where := fmt.Sprintf("type = 'page_view' AND url LIKE '/drill/%s/%%'", tag)
	eventually(t, limit, "every accepted event in ClickHouse "+at, func() error {
		got, err := chCount(ctx, ch, "SELECT count() FROM "+db+".events FINAL WHERE "+where)
		if err != nil {
			return err
		}
		if got < want {
			return fmt.Errorf("%d of %d events", got, want)
		}
		return nil
	})
	// Let late duplicates (a retried insert landing twice) show up before counting.
	time.Sleep(2 * time.Second)
	counts := map[string]string{
		"raw rows":        "SELECT count() FROM " + db + ".events WHERE " + where,
		"rows with FINAL": "SELECT count() FROM " + db + ".events FINAL WHERE " + where,
		"distinct ids":    "SELECT uniqExact(id) FROM " + db + ".events WHERE " + where,
	}
	got := map[string]int{}
	for what, sql := range counts {
		n, err := chCount(ctx, ch, sql)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got[what] = n
		if n != want {
			t.Errorf("%s %s: %d, want %d (accepted events)", at, what, n, want)
		}
	}
	got["rollup page views added"] = rollupViewsIn(t, ctx, ch, db) - rollupBefore
	if got["rollup page views added"] != want {
		t.Errorf("%s rollup page views grew by %d, want %d", at, got["rollup page views added"], want)
	}
	ids, err := chQuery(ctx, ch, "SELECT id FROM "+db+".events WHERE "+where+" FORMAT TSV")
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]int{}
	for _, id := range strings.Fields(ids) {
		stored[id]++
	}
	for id := range acked {
		switch stored[id] {
		case 0:
			got["lost"]++
		case 1:
		default:
			got["doubled"]++
		}
	}
	for id := range stored {
		if !acked[id] {
			got["unknown"]++
		}
	}
	if got["lost"]+got["doubled"]+got["unknown"] != 0 {
		t.Errorf("%s: events lost %d, doubled %d, stored but never accepted %d", at, got["lost"], got["doubled"], got["unknown"])
	}
	if dead, err := chCount(ctx, ch, "SELECT count() FROM "+db+".events_dead"); err != nil || dead != 0 {
		t.Errorf("%s: events parked as poison: %d %v", at, dead, err)
	}
	return got
}
