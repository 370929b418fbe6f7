package money_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"storefront/writer/money"
)

// A refund made at the gateway's console reaches us only as a webhook: the
// lookup it triggers takes the money back, partially then fully; what was
// spent meanwhile is recorded as the shortfall, never a negative balance.
func TestConsoleRefundWebhook(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid = 30
	p.addWork(work{pid: "p1", vols: 3, price: 1000})
	order, key := p.charge(t, uid, 5000) // +500 mileage
	if _, err := p.gw.Cancel(p.ctx, "console-1", key, money.CancelRequest{CancelReason: "상담원 환불", CancelAmount: 2000}); err != nil {
		t.Fatal(err)
	}
	p.sb.Wait()
	if p.status(order) != "partial_canceled" || p.balance(uid, money.Blue) != 3000 || p.balance(uid, money.Mileage) != 300 {
		t.Fatalf("after a console partial refund: %s blue %d mileage %d", p.status(order), p.balance(uid, money.Blue), p.balance(uid, money.Mileage))
	}
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{1, 2}, "buyType": "B"}}).mustOK(t) // 300 mileage + 1700 blue
	if _, err := p.gw.Cancel(p.ctx, "console-2", key, money.CancelRequest{CancelReason: "상담원 환불"}); err != nil {
		t.Fatal(err)
	}
	p.sb.Wait()
	if p.status(order) != "canceled" || p.balance(uid, money.Blue) != 0 || p.balance(uid, money.Mileage) != 0 {
		t.Fatalf("after a console full refund: %s blue %d", p.status(order), p.balance(uid, money.Blue))
	}
	c := p.do(req{method: "GET", path: "/home/api/v1/charge/" + order, uid: uid}).mustOK(t)
	if !strings.Contains(c["failReason"].(string), "shortfall 1700") {
		t.Fatalf("shortfall not recorded: %v", c)
	}
	var flagged int64
	if err := p.pool.QueryRow(p.ctx, `SELECT coalesce(sum(amount), 0) FROM money_flags
		WHERE uid = $1 AND reason = 'charge_refund_spent' AND ref = $2`, uid, "charge:"+order).Scan(&flagged); err != nil || flagged != 1700 {
		t.Fatalf("spent money refunded flagged %d (%v), want 1700", flagged, err)
	}
	p.checkLedger()
}

// Refunds race purchases spending the same money: both take the wallet
// lock, so every won is spent or refunded once and the balance never goes
// below zero. 12 purchases and 6 refunds of 1000 each against 10000.
func TestRefundRacesPurchases(t *testing.T) {
	t.Parallel()
	p := newGatewayEnvCfg(t, 0, money.Config{ChargePerMinute: 100})
	const uid = 31
	p.addWork(work{pid: "race", vols: 12, price: 1000})
	// No first-charge bonus here, so every won of the purchases is blue money.
	p.exec(`INSERT INTO wallets (uid, first_charge_at) VALUES ($1, now())`, uid)
	order, key := p.charge(t, uid, 10000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	bought, refunded, refused := 0, 0, 0
	for i := 0; i < 18; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var r resp
			if i < 12 {
				r = p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
					body: map[string]any{"pid": "race", "vols": []int{i + 1}, "buyType": "B"}})
			} else {
				r = p.cancel(uid, order, map[string]any{"cancelAmount": 1000})
			}
			code := r.code(t)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case code == 200 && i < 12:
				bought++
			case code == 200:
				refunded++
			case code == http.StatusPaymentRequired && i < 12, code == http.StatusConflict && i >= 12:
				refused++
			default:
				t.Errorf("call %d: %d %s", i, code, r.body)
			}
		}(i)
	}
	wg.Wait()
	if bought+refunded != 10 || refused != 8 {
		t.Fatalf("bought %d, refunded %d, refused %d: want 10 successes and 8 refusals", bought, refunded, refused)
	}
	if b := p.balance(uid, money.Blue); b != 0 {
		t.Fatalf("blue %d, want 0", b)
	}
	pay, err := p.gw.Payment(p.ctx, key)
	if err != nil || pay.BalanceAmount != int64(10000-1000*refunded) {
		t.Fatalf("gateway balance %d, want %d (%v)", pay.BalanceAmount, 10000-1000*refunded, err)
	}
	if n := p.int(`SELECT canceled_amount FROM charges WHERE order_id = $1`, order); n != int64(1000*refunded) {
		t.Fatalf("charge canceled %d, want %d", n, 1000*refunded)
	}
	if n := p.int(`SELECT count(*) FROM entitlements WHERE uid = $1`, uid); n != int64(bought) {
		t.Fatalf("%d entitlements, want %d", n, bought)
	}
	p.sb.Wait()
	p.checkLedger()
}
