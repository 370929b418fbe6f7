package drills

import (
	"bytes"
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

// chQuery runs sql on the ClickHouse HTTP interface and returns the trimmed answer.
func chQuery(ctx context.Context, ch *devstack.ClickHouse, sql string) (string, error) {
	var b bytes.Buffer
	if err := ch.Query(ctx, sql, &b); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

func chCount(ctx context.Context, ch *devstack.ClickHouse, sql string) (int, error) {
	s, err := chQuery(ctx, ch, sql)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(s)
}

// event is one tracking call of the ClickHouse drill.
type event struct {
	seq    int
	start  time.Time
	end    time.Time
	status int
	id     string
	err    error
}

// ClickHouse (a private server of this drill) is stopped while page views
// keep coming in through the edge, and started again after the outage
// (5 s short, 60 s long). Asserted: the edge accepts every event (it only
// needs JetStream); analytics survives the outage; afterwards every accepted
// event is in ClickHouse exactly once: raw rows (no FINAL), rows with FINAL
// and distinct ids all equal the number accepted, the id sets are equal, the
// page-view rollup counts each once, and nothing was parked as poison.
func TestClickHouseOutageUnderIngestion(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(4*time.Minute, 10*time.Minute))
	defer cancel()
	var (
		rate   = pick(100.0, 200.0)
		lead   = pick(2*time.Second, 10*time.Second)
		outage = pick(5*time.Second, 60*time.Second)
		tail   = pick(3*time.Second, 20*time.Second)
	)
	ch, err := devstack.StartClickHouse(ctx, t.TempDir(), freePort(t), freePort(t), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Stop() })
	n := startNATS(t)
	an := newService(t, "analytics", "analytics", freePort(t), "-nats-url", n.URL, "-clickhouse-url", ch.URL,
		"-rank-interval", "1h")
	if err := an.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// No writer: tracking never reaches one.
	e := startEdge(t, ctx, "edge", n.URL, "http://127.0.0.1:1")

	c := &http.Client{Timeout: 10 * time.Second}
	var rec recorder[event]
	l := startLoad(ctx, rate, lead+outage+tail, func(ctx context.Context, seq int) {
		ev := event{seq: seq, start: time.Now()}
		var body []byte
		ev.status, body, _, ev.err = call(ctx, c, "POST", e.URL()+"/home/api/v1/tracking/page-view",
			map[string]string{"curPageUrl": fmt.Sprintf("/drill/clickhouse/%d", seq)}, map[string]string{contract.HeaderChannel: "AW"})
		ev.end = time.Now()
		var ans struct {
			EventID string `json:"event_id"`
		}
		if ev.err == nil && ev.status == 200 && json.Unmarshal(body, &ans) == nil {
			ev.id = ans.EventID
		}
		rec.add(ev)
	})
	sleepCtx(ctx, lead)
	down := mark(func() {
		if err := ch.Stop(); err != nil {
			t.Errorf("stop clickhouse: %v", err)
		}
	})
	t.Logf("ClickHouse stopped at %s (took %s)", down.before.Format("15:04:05.000"), down.after.Sub(down.before).Round(time.Millisecond))
	sleepCtx(ctx, outage-time.Since(down.before))
	up := mark(func() {
		if err := ch.Start(ctx); err != nil {
			t.Fatalf("restart clickhouse: %v", err)
		}
	})
	t.Logf("ClickHouse back after %s", up.after.Sub(down.before).Round(time.Millisecond))
	calls := l.Wait()
	evs := rec.all(func(a, b event) bool { return a.seq < b.seq })

	acked := map[string]bool{}
	var failed, during int
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
		if ev.start.After(down.before) && ev.end.Before(up.after) {
			during++
		}
	}
	if calls != len(evs) {
		t.Errorf("%d calls started, %d recorded", calls, len(evs))
	}
	if during == 0 {
		t.Errorf("no event was accepted during the outage: the drill proved nothing")
	}
	if !an.Alive() {
		t.Errorf("analytics died during the ClickHouse outage")
	}

	want := len(acked)
	drained := time.Now()
	eventually(t, pick(90*time.Second, 5*time.Minute), "every accepted event in ClickHouse", func() error {
		got, err := chCount(ctx, ch, "SELECT count() FROM events FINAL WHERE type = 'page_view'")
		if err != nil {
			return err
		}
		if got < want {
			return fmt.Errorf("%d of %d events", got, want)
		}
		return nil
	})
	t.Logf("ClickHouse caught up %s after the load ended", time.Since(drained).Round(time.Millisecond))
	// Let late duplicates (a retried insert landing twice) show up before counting.
	time.Sleep(2 * time.Second)

	counts := map[string]string{
		"raw rows":          "SELECT count() FROM events WHERE type = 'page_view'",
		"rows with FINAL":   "SELECT count() FROM events FINAL WHERE type = 'page_view'",
		"distinct ids":      "SELECT uniqExact(id) FROM events WHERE type = 'page_view'",
		"rollup page views": "SELECT sum(views) FROM pageviews_hourly",
	}
	got := map[string]int{}
	for what, sql := range counts {
		n, err := chCount(ctx, ch, sql)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got[what] = n
		if n != want {
			t.Errorf("%s: %d, want %d (accepted events)", what, n, want)
		}
	}
	ids, err := chQuery(ctx, ch, "SELECT id FROM events WHERE type = 'page_view' FORMAT TSV")
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]int{}
	for _, id := range strings.Fields(ids) {
		stored[id]++
	}
	var lost, doubled, unknown int
	for id := range acked {
		switch stored[id] {
		case 0:
			lost++
		case 1:
		default:
			doubled++
		}
	}
	for id := range stored {
		if !acked[id] {
			unknown++
		}
	}
	if lost+doubled+unknown != 0 {
		t.Errorf("events lost %d, doubled %d, stored but never accepted %d", lost, doubled, unknown)
	}
	if dead, err := chCount(ctx, ch, "SELECT count() FROM events_dead"); err != nil || dead != 0 {
		t.Errorf("events parked as poison: %d %v", dead, err)
	}
	t.Logf("ClickHouse drill: %d page views at %.0f/s, accepted %d (%d during the %s outage), failed %d; "+
		"in ClickHouse %v; lost %d, doubled %d; copies analytics dropped as already stored or held: %s",
		len(evs), rate, want, during, up.after.Sub(down.before).Round(time.Millisecond), failed, got, lost, doubled,
		metric(ctx, an.URL(), "analytics_events_duplicate_total"))
}

// metric reads one unlabelled sample from a service's /metrics ("?" when absent).
func metric(ctx context.Context, base, name string) string {
	_, b, _, err := call(ctx, http.DefaultClient, "GET", base+"/metrics", nil, nil)
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	return "?"
}
