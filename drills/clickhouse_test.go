package drills

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

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
	rate, lead, outage, tail := ingestionPlan()
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

	rollupBefore := rollupViews(t, ctx, ch)
	l, rec := pageViewLoad(ctx, e.URL(), "clickhouse", rate, lead+outage+tail, false)
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

	acked, failed, during := accepted(t, evs, func(ev event) bool { return ev.start.After(down.before) && ev.end.Before(up.after) })
	if calls != len(evs) {
		t.Errorf("%d calls started, %d recorded", calls, len(evs))
	}
	if during == 0 {
		t.Errorf("no event was accepted during the outage: the drill proved nothing")
	}
	if !an.Alive() {
		t.Errorf("analytics died during the ClickHouse outage")
	}

	drained := time.Now()
	got := onceInClickHouse(t, ctx, ch, "clickhouse", acked, rollupBefore, pick(90*time.Second, 5*time.Minute))
	t.Logf("ClickHouse caught up %s after the load ended (checks included)", time.Since(drained).Round(time.Millisecond))
	t.Logf("ClickHouse drill: %d page views at %.0f/s, accepted %d (%d during the %s outage), failed %d; "+
		"in ClickHouse %v; copies analytics dropped as already stored or held: %s",
		len(evs), rate, len(acked), during, up.after.Sub(down.before).Round(time.Millisecond), failed, got,
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
