package drills

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"storefront/devstack"
)

// purchaseLoad runs s's purchase plan at rate for d and returns every call.
func purchaseLoad(ctx context.Context, s *shop, rate float64, d time.Duration) (*load, *recorder[buy]) {
	var rec recorder[buy]
	l := startLoad(ctx, rate, d, func(ctx context.Context, seq int) {
		rec.add(s.buyOne(ctx, s.plan(seq)))
	})
	return l, &rec
}

// volsFor is how many volumes the work needs for rate × d purchases over n members.
func volsFor(rate float64, d time.Duration, n int) int {
	return int(rate*d.Seconds())/n + 5
}

// PostgreSQL (a private server of this drill) is restarted (fast shutdown,
// then start on the same folder and port) while members buy volumes through
// the edge. Asserted: every purchase call answers 200 or a clean 503 envelope
// (HTTP 503 and header.code 503): never a 500 or another status, never a
// transport error or a wait beyond the client's 15 s timeout; some calls did
// meet the outage. Afterwards every call that was not 200 is asked again with
// its Idempotency-Key until it answers, every 200 replays identically, and
// the reconciliation holds: each purchase whole (purchase row, entitlement,
// ledger rows, stored answer, one business event in EVENTS) or absent, no row
// without an answer, every wallet equal to its ledger and to charged + bonus -
// spent.
func TestPostgresRestartDuringPurchases(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(4*time.Minute, 10*time.Minute))
	defer cancel()
	var (
		rate    = pick(30.0, 40.0)
		lead    = pick(2*time.Second, 10*time.Second)
		outage  = pick(3*time.Second, 20*time.Second)
		tail    = pick(4*time.Second, 15*time.Second)
		members = pick(6, 10)
	)
	dir := filepath.Join(openDir(t, "drills-pg-"), "data")
	port := freePort(t)
	pg, err := devstack.StartPostgres(ctx, dir, port, quietLog(), "fsync=off")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	dbURL, err := pg.CreateDatabase(ctx, "drills")
	if err != nil {
		t.Fatal(err)
	}
	n := startNATS(t)
	w := startWriter(t, ctx, "writer", dbURL, n.URL)
	e := startEdge(t, ctx, "edge", n.URL, w.URL())
	vols := volsFor(rate, lead+outage+tail, members)
	s := openShop(t, ctx, e.URL(), members, vols, int64(vols*volPrice))

	l, rec := purchaseLoad(ctx, s, rate, lead+outage+tail)
	sleepCtx(ctx, lead)
	whenBusy(ctx, s.busy.Load, time.Second)
	down := mark(func() {
		if err := pg.Stop(); err != nil {
			t.Errorf("stop postgres: %v", err)
		}
	})
	t.Logf("PostgreSQL stopped at %s (took %s)", down.before.Format("15:04:05.000"), down.after.Sub(down.before).Round(time.Millisecond))
	sleepCtx(ctx, outage-time.Since(down.before))
	up := mark(func() {
		if pg, err = devstack.StartPostgres(ctx, dir, port, quietLog(), "fsync=off"); err != nil {
			t.Fatalf("restart postgres: %v", err)
		}
	})
	t.Logf("PostgreSQL back after %s", up.after.Sub(down.before).Round(time.Millisecond))
	calls := l.Wait()
	buys := rec.all(func(a, b buy) bool { return a.seq < b.seq })
	if calls != len(buys) {
		t.Errorf("%d purchases started, %d recorded", calls, len(buys))
	}

	var ok, unavailable, bad int
	var slowest time.Duration
	for _, b := range buys {
		slowest = max(slowest, b.end.Sub(b.start))
		switch {
		case b.err == nil && b.status == 200:
			ok++
		case b.err == nil && b.status == 503 && b.code == 503:
			unavailable++
		default:
			bad++
			if bad <= 10 {
				t.Errorf("purchase %s at %s (took %s): %d %v %s", b.key, b.start.Format("15:04:05.000"),
					b.end.Sub(b.start).Round(time.Millisecond), b.status, b.err, short(b.body))
			}
		}
	}
	if unavailable == 0 {
		t.Errorf("no purchase met the outage: the drill proved nothing")
	}
	if !w.Alive() {
		t.Fatalf("the writer died during the PostgreSQL restart")
	}
	done := s.settle(t, ctx, buys)
	var committedUnknown int
	for _, st := range done {
		if st.first.status != 200 && st.last.replayed {
			committedUnknown++
		}
	}
	s.reconcile(t, ctx, dbURL, n.URL, done)
	t.Logf("PostgreSQL drill: %d purchases at %.0f/s, %d members; during the run %d answered 200, %d answered 503, %d otherwise; "+
		"slowest answer %s; after retries with the same keys %d purchases, of which %d had committed behind a 503",
		len(buys), rate, members, ok, unavailable, bad, slowest.Round(time.Millisecond), len(done), committedUnknown)
}
