package drills

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"storefront/devstack"
)

// startPurchases opens a shop through the edge at base for members, with
// volumes enough for rate × d purchases, and runs its purchase plan at rate
// for d. The returned wait waits for every call and returns them in order.
func startPurchases(t *testing.T, ctx context.Context, base string, members int, rate float64, d time.Duration) (*shop, func() []buy) {
	t.Helper()
	vols := int(rate*d.Seconds())/members + 5
	s := openShop(t, ctx, base, members, vols, int64(vols*volPrice))
	var rec recorder[buy]
	l := startLoad(ctx, rate, d, func(ctx context.Context, seq int) {
		rec.add(s.buyOne(ctx, s.plan(seq)))
	})
	return s, func() []buy {
		calls := l.Wait()
		buys := rec.all(func(a, b buy) bool { return a.seq < b.seq })
		if calls != len(buys) {
			t.Errorf("%d purchases started, %d recorded", calls, len(buys))
		}
		return buys
	}
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
	s, wait := startPurchases(t, ctx, e.URL(), members, rate, lead+outage+tail)
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
	buys := wait()

	a := countAnswers(t, buys, 503)
	if a.clean[503] == 0 {
		t.Errorf("no purchase met the outage: the drill proved nothing")
	}
	if !w.Alive() {
		t.Fatalf("the writer died during the PostgreSQL restart")
	}
	done := s.settle(t, ctx, buys)
	s.reconcile(t, ctx, dbURL, n.URL, done)
	t.Logf("PostgreSQL drill: %d purchases at %.0f/s, %d members; during the run %d answered 200, %d answered 503, %d otherwise; "+
		"slowest answer %s; after retries with the same keys %d purchases, of which %d had committed behind a 503",
		len(buys), rate, members, a.ok, a.clean[503], a.bad, a.slowest.Round(time.Millisecond), len(done), committedBehindError(done))
}
