package money_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/writer/money"
)

// sends counts what a connection sends to the server: each query and each
// batch is one round trip (a batch is one pipeline with one Sync).
type sends struct{ n atomic.Int64 }

func (s *sends) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	s.n.Add(1)
	return ctx
}
func (s *sends) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *sends) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	s.n.Add(1)
	return ctx
}
func (s *sends) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (s *sends) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestPurchaseRoundTrips: a purchase waits for the database twice, BEGIN
// riding with the wallet lock, the work and entitlement reads, COMMIT with
// the writes (issue 32: a purchase should cost about one TPC-B transaction,
// and round trips are what it waited for). A refusal and a replay stay
// correct on the same path.
func TestPurchaseRoundTrips(t *testing.T) {
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "rt", section: "WT", vols: 5, price: 100})
	e.fund(7, money.Blue, 250)
	pcfg := e.pool.Config()
	tr := &sends{}
	pcfg.ConnConfig.Tracer = tr
	pcfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(e.ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	svc := money.New(pool, money.Config{Now: e.clock.Now}, slog.Default())
	buy := func(key string, vol int) money.Answer {
		t.Helper()
		a, err := svc.Purchase(e.ctx, 7, key, money.PurchaseRequest{PID: "rt", Vols: []int{vol}, BuyType: money.BuyBuy})
		if err != nil {
			t.Fatalf("purchase %s: %v", key, err)
		}
		return a
	}
	// The first purchase on the connection also prepares its statements.
	if a := buy("rt-1", 1); a.Status != 200 {
		t.Fatalf("first purchase: %d %s", a.Status, a.Body)
	}
	tr.n.Store(0)
	if a := buy("rt-2", 2); a.Status != 200 || a.Replayed {
		t.Fatalf("second purchase: %d %s", a.Status, a.Body)
	}
	if n := tr.n.Load(); n != 2 {
		t.Errorf("a purchase took %d round trips, want 2", n)
	}
	if a := buy("rt-2", 2); a.Status != 200 || !a.Replayed {
		t.Fatalf("replay: %d replayed=%v %s", a.Status, a.Replayed, a.Body)
	}
	if a := buy("rt-3", 3); a.Status != 402 {
		t.Fatalf("purchase beyond the balance: %d %s, want 402", a.Status, a.Body)
	}
	if a := buy("rt-3", 3); a.Status != 402 || !a.Replayed {
		t.Fatalf("replayed refusal: %d replayed=%v", a.Status, a.Replayed)
	}
	if got := e.balance(7, money.Blue); got != 50 {
		t.Errorf("balance %d, want 50", got)
	}
	e.checkLedger()
}
