package money_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"storefront/contract"
	"storefront/writer/money"
)

// BenchmarkPurchase measures purchases per second with 32 concurrent buyers,
// each with its own wallet, each purchase one volume through the whole path
// (catalog read, idempotency key, wallet lock, ledger, entitlement, outbox).
// writer/money/bench.sh runs it next to pgbench's TPC-B on the same server.
func BenchmarkPurchase(b *testing.B) { benchPurchase(b, money.Config{Now: time.Now}) }

// BenchmarkPurchaseNoOutbox is the same without business events, to show what
// the outbox row costs. (Before migration 0005 it also showed the cost of the
// outbox's per-row NOTIFY, which serialised commits.)
func BenchmarkPurchaseNoOutbox(b *testing.B) {
	benchPurchase(b, money.Config{Now: time.Now, Outbox: nopOutbox{}})
}

type nopOutbox struct{}

func (nopOutbox) Enqueue(context.Context, money.Execer, contract.TrackedEvent) error { return nil }

func benchPurchase(b *testing.B, cfg money.Config) {
	const buyers, volsPerWork = 32, 1000
	e := newEnv(b, cfg)
	works := (b.N+buyers-1)/buyers/volsPerWork + 1
	for w := 0; w < works; w++ {
		e.exec(`INSERT INTO works (pid, section, title) VALUES ($1, 'WT', $1)`, fmt.Sprintf("b%d", w))
		e.exec(`INSERT INTO volumes (pid, no, release_at, buy_price, buy_price_org)
			SELECT $1, n, now() - interval '1 day', 100, 100 FROM generate_series(1, $2) n`, fmt.Sprintf("b%d", w), volsPerWork)
	}
	for u := 1; u <= buyers; u++ {
		e.fund(int64(u), money.Blue, int64(b.N)*100+100)
	}
	ctx := context.Background()
	var next atomic.Int64
	var failed atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for u := 1; u <= buyers; u++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				if next.Add(1) > int64(b.N) {
					return
				}
				req := money.PurchaseRequest{PID: fmt.Sprintf("b%d", n/volsPerWork), Vols: []int{n%volsPerWork + 1}, BuyType: money.BuyBuy}
				a, err := e.svc.Purchase(ctx, int64(u), fmt.Sprintf("bench-%d-%d", u, n), req)
				if err != nil || a.Status != 200 {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d purchases failed", f)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "purchases/s")
	e.checkLedger()
}
