package drills

import (
	"context"
	"testing"
	"time"

	"storefront/devstack/testenv"
)

// The writer (the only one behind the edge) is killed with SIGKILL in the
// middle of purchases and started again at once (the long variant does it
// three times). Asserted: during the run every purchase answers 200, or the
// edge's clean 502 envelope (no writer reachable: the call in flight at the
// kill, and the calls until the writer is back), or a 503 envelope: never a
// 500, never a transport error or a wait beyond the client's timeout.
// Afterwards every call that was not 200 is asked again with its key until it
// answers, every 200 replays identically, and the reconciliation holds: each
// purchase whole (purchase row, entitlement, ledger rows, stored answer, one
// business event in EVENTS: the relay's rows left unsent by the kill go out
// after the restart, re-sends deduplicated) or absent; balances reconcile.
func TestWriterKillDuringPurchases(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(4*time.Minute, 10*time.Minute))
	defer cancel()
	var (
		rate     = pick(50.0, 50.0)
		duration = pick(8*time.Second, 60*time.Second)
		kills    = pick([]time.Duration{2500 * time.Millisecond}, []time.Duration{10 * time.Second, 25 * time.Second, 40 * time.Second})
		members  = pick(6, 10)
	)
	dbURL := testenv.PostgresURL(t)
	n := startNATS(t)
	w := startWriter(t, ctx, "writer", dbURL, n.URL)
	e := startEdge(t, ctx, "edge", n.URL, w.URL())
	s, wait := startPurchases(t, ctx, e.URL(), members, rate, duration)
	began := time.Now()
	var killed []instant
	var restarts []time.Duration
	for _, at := range kills {
		sleepCtx(ctx, at-time.Since(began))
		whenBusy(ctx, s.busy.Load, time.Second)
		k := mark(w.Kill)
		killed = append(killed, k)
		if err := w.Start(ctx); err != nil {
			t.Fatalf("restart the writer: %v", err)
		}
		restarts = append(restarts, time.Since(k.before).Round(time.Millisecond))
		t.Logf("writer killed with SIGKILL at %s, serving again after %s", k.before.Format("15:04:05.000"), restarts[len(restarts)-1])
	}
	buys := wait()

	a := countAnswers(t, buys, 502, 503)
	var inFlight int
	for _, b := range buys {
		for _, k := range killed {
			if k.inFlight(b.start, b.end) {
				inFlight++
			}
		}
	}
	if a.clean[502]+a.clean[503] == 0 {
		t.Errorf("no purchase met the kill: the drill proved nothing")
	}
	done := s.settle(t, ctx, buys)
	s.reconcile(t, ctx, dbURL, n.URL, done)
	t.Logf("writer drill: %d purchases at %.0f/s, %d members, %d kills (restart took %v); during the run %d answered 200, "+
		"%d answered 502 (no writer), %d answered 503, %d otherwise, %d in flight at a kill; slowest answer %s; after retries "+
		"with the same keys %d purchases, of which %d had committed behind an error answer",
		len(buys), rate, members, len(killed), restarts, a.ok, a.clean[502], a.clean[503], a.bad, inFlight, a.slowest.Round(time.Millisecond),
		len(done), committedBehindError(done))
}
