package appmoney_test

import (
	"testing"

	"storefront/writer/appmoney"
	"storefront/writer/appmoney/storetest"
)

// REFUND_REVERSED credits back what the refund took and clears the flag of
// the spent rest, once per notificationUUID and once per refund; a reversal
// not signed through the pinned root, or whose transaction still carries the
// revocation, changes nothing; a later refund revokes the purchase anew.
func TestAppleRefundReversed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 81
	id := e.apple.Buy("bluemoney_5000")
	kept := e.apple.Buy("bluemoney_1000")
	for _, tx := range []string{id, kept} {
		if a := e.post(appmoney.AppleReceiptPath, uid, "IA", appleReceipt(tx)); a.status != 200 {
			t.Fatalf("credit: %s", a.raw)
		}
	}
	// 4,500 of the 6,000 is spent; the refund of 5,000 takes 1,500 and flags 3,500.
	e.exec(`INSERT INTO ledger (uid, money, delta, reason, created_at) VALUES ($1, 'ios', -4500, 'test_spend', now())`, uid)
	if a := e.post(appmoney.AppleNotificationPath, 0, "", e.apple.Refund(id, nil)); a.status != 200 {
		t.Fatalf("refund: %s", a.raw)
	}
	if got := e.balance(uid, "ios"); got != 0 {
		t.Fatalf("ios money %d after the refund, want 0", got)
	}

	// A reversal of a purchase never refunded changes nothing.
	before := e.snapshotMoney()
	if a := e.post(appmoney.AppleNotificationPath, 0, "", e.apple.ReverseRefund(kept)); a.status != 200 {
		t.Fatalf("reversal of an unrefunded purchase: %s", a.raw)
	}
	if e.snapshotMoney() != before {
		t.Fatal("the reversal of an unrefunded purchase moved money")
	}

	before = e.snapshot()
	cleared := appmoney.TransactionPayload{TransactionID: id, BundleID: bundle, ProductID: "bluemoney_5000", Type: "Consumable",
		Environment: "Sandbox", Quantity: 1}
	forged := e.apple.Notification("REFUND_REVERSED", &cleared, storetest.NewChain())
	e.post(appmoney.AppleNotificationPath, 0, "", forged).refused(t, 400)
	stillRevoked := cleared
	stillRevoked.RevocationDate = 1
	e.post(appmoney.AppleNotificationPath, 0, "", e.apple.Notification("REFUND_REVERSED", &stillRevoked, nil)).refused(t, 400)
	if e.snapshot() != before {
		t.Fatal("a refused reversal changed something")
	}

	reversal := e.apple.ReverseRefund(id)
	if a := e.post(appmoney.AppleNotificationPath, 0, "", reversal); a.status != 200 {
		t.Fatalf("reversal: %s", a.raw)
	}
	check := func(when string, balance, reversed, openFlags int64) {
		t.Helper()
		if got := e.balance(uid, "ios"); got != balance {
			t.Fatalf("%s: ios money %d, want %d", when, got, balance)
		}
		if n := e.int(`SELECT coalesce(sum(delta), 0) FROM ledger WHERE reason = 'store_refund_reversed' AND ref = $1`, "apple:"+id); n != reversed {
			t.Fatalf("%s: %d credited back, want %d", when, n, reversed)
		}
		if n := e.int(`SELECT coalesce(sum(amount), 0) FROM money_flags WHERE uid = $1 AND cleared_at IS NULL`, uid); n != openFlags {
			t.Fatalf("%s: %d flagged, want %d", when, n, openFlags)
		}
		e.checkLedger()
	}
	check("after the reversal", 1500, 1500, 0)
	if got := e.purchaseState("apple", id); got != "credited 0/0 0" {
		t.Fatalf("purchase %s, want credited 0/0 0", got)
	}
	if n := e.int(`SELECT count(*) FROM money_flags WHERE uid = $1 AND cleared_at IS NOT NULL AND clear_reason = 'refund_reversed' AND amount = 3500`, uid); n != 1 {
		t.Fatalf("%d cleared flags, want the one of 3,500", n)
	}

	// The same notification again, and a second reversal of the same refund.
	for _, b := range [][]byte{reversal, e.apple.ReverseRefund(id)} {
		if a := e.post(appmoney.AppleNotificationPath, 0, "", b); a.status != 200 {
			t.Fatalf("repeated reversal: %s", a.raw)
		}
	}
	check("after repeated reversals", 1500, 1500, 0)
	if n := e.int(`SELECT count(*) FROM ledger WHERE reason = 'store_refund_reversed'`); n != 1 {
		t.Fatalf("%d reversal rows, want 1", n)
	}

	// Refunded again later: taken back anew, the spent rest flagged anew.
	if a := e.post(appmoney.AppleNotificationPath, 0, "", e.apple.Refund(id, nil)); a.status != 200 {
		t.Fatalf("second refund: %s", a.raw)
	}
	check("after a new refund", 0, 1500, 3500)
}

// snapshotMoney fingerprints the money tables only (a notification that is
// acknowledged still records its id).
func (e *env) snapshotMoney() string {
	e.t.Helper()
	var s string
	if err := e.pool.QueryRow(e.ctx, `SELECT md5(coalesce((SELECT string_agg(t::text, ',' ORDER BY t::text) FROM wallets t), '') ||
		coalesce((SELECT string_agg(t::text, ',' ORDER BY t::text) FROM ledger t), '') ||
		coalesce((SELECT string_agg(t::text, ',' ORDER BY t::text) FROM store_purchases t), '') ||
		coalesce((SELECT string_agg(t::text, ',' ORDER BY t::text) FROM money_flags t), ''))`).Scan(&s); err != nil {
		e.t.Fatal(err)
	}
	return s
}
