package money_test

import (
	"sort"
	"testing"
	"time"

	"storefront/writer/money"
)

// The daily reconciliation finds every kind of difference between the
// gateway's settlement list and the ledger, and nothing where they agree.
func TestReconcile(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid, spender = 51, 52
	p.addWork(work{pid: "p1", vols: 3, price: 1000})
	// Agreeing: a charge, and a charge partly refunded through the writer.
	p.charge(t, uid, 5000)
	orderB, _ := p.charge(t, uid, 3000)
	p.cancel(uid, orderB, map[string]any{"cancelAmount": 1000}).mustOK(t)
	// A refund at the console after the money was spent: the ledger could
	// take back only what was left (shortfall), the gateway refunded it all.
	orderD, keyD := p.charge(t, spender, 2000)
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: spender, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{1, 2}, "buyType": "B"}}).mustOK(t)
	if _, err := p.gw.Cancel(p.ctx, "", keyD, money.CancelRequest{CancelReason: "console"}); err != nil {
		t.Fatal(err)
	}
	p.sb.Wait()
	// The webhooks stop reaching us: an approval the writer never confirmed,
	// and a console refund it never heard of.
	p.sb.SetWebhookURL("")
	orderC, urlC := p.request(t, uid, 4000)
	redC := p.pay(t, urlC, true)
	if _, err := p.gw.Confirm(p.ctx, "", redC.PaymentKey, orderC, 4000); err != nil {
		t.Fatal(err)
	}
	orderE, keyE := p.charge(t, uid, 6000)
	if _, err := p.gw.Cancel(p.ctx, "", keyE, money.CancelRequest{CancelReason: "console", CancelAmount: 1000}); err != nil {
		t.Fatal(err)
	}
	// Money the ledger moved for an order the gateway never saw.
	p.exec(`INSERT INTO wallets (uid) VALUES (53)`)
	p.exec(`INSERT INTO ledger (uid, money, delta, reason, ref, created_at) VALUES (53, 'blue', 700, 'charge', 'charge:ch_ghost', $1)`, p.clock.Now())

	rep, err := p.svc.Reconcile(p.ctx, p.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]money.Difference{}
	var keys []string
	for _, d := range rep.Differences {
		k := d.Kind + " " + d.OrderID
		got[k] = d
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := map[string][2]int64{
		money.DiffMissingInLedger + " " + orderC: {4000, 0},
		money.DiffStatus + " " + orderC:          {4000, 0},
		money.DiffAmount + " " + orderD:          {0, 1800},
		money.DiffAmount + " " + orderE:          {5000, 6000},
		money.DiffStatus + " " + orderE:          {5000, 6000},
		money.DiffMissingAtGateway + " ch_ghost": {0, 700},
	}
	if len(got) != len(want) {
		t.Fatalf("differences %v, want %d", keys, len(want))
	}
	for k, w := range want {
		d, ok := got[k]
		if !ok || d.Gateway != w[0] || d.Ledger != w[1] {
			t.Errorf("%s: %+v, want gateway %d ledger %d", k, d, w[0], w[1])
		}
	}
	if rep.Settlements != 8 || rep.GatewayTotal != 5000+2000+0+4000+5000 || rep.LedgerTotal != 5000+2000+1800+6000+700 {
		t.Errorf("report %d settlements, gateway %d, ledger %d", rep.Settlements, rep.GatewayTotal, rep.LedgerTotal)
	}
	if n := p.int(`SELECT jsonb_array_length(differences) FROM charge_reconciliations WHERE day = $1`, rep.Day); n != int64(len(want)) {
		t.Errorf("stored report has %d differences", n)
	}
	// The next day has nothing on either side.
	next, err := p.svc.Reconcile(p.ctx, p.clock.Now().Add(24*time.Hour))
	if err != nil || next.Settlements != 0 || len(next.Differences) != 0 {
		t.Fatalf("next day: %+v %v", next, err)
	}
}
