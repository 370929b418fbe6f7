package appmoney_test

import (
	"testing"

	"storefront/writer/appmoney"
)

// A quantity-based partial refund takes back only the share of the units it
// voided: 5 units of 1,000 credited, 1,500 spent; 2 units refunded take
// 2,000; 2 more take the 1,500 left and flag 500; the last unit flags 1,000
// and revokes the purchase. Redeliveries and copies of a void take nothing
// more.
func TestGooglePartialRefund(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 61
	token, order := e.google.Buy("bluemoney_1000", "")
	e.google.SetQuantity(token, 5)
	if a := e.post(appmoney.GoogleReceiptPath, uid, "AA", googleReceipt("bluemoney_1000", token)); a.status != 200 || a.body["amount"] != 5000.0 {
		t.Fatalf("credit: %s", a.raw)
	}
	e.exec(`INSERT INTO ledger (uid, money, delta, reason, created_at) VALUES ($1, 'android', -1500, 'test_spend', now())`, uid)

	check := func(when string, balance, revoked, short, flagged int64, voided int, status string) {
		t.Helper()
		if got := e.balance(uid, "android"); got != balance {
			t.Fatalf("%s: android money %d, want %d", when, got, balance)
		}
		var st string
		var r, s, q int64
		if err := e.pool.QueryRow(e.ctx, `SELECT status, revoked_amount, shortfall, voided_quantity FROM store_purchases
			WHERE store = 'google' AND transaction_id = $1`, order).Scan(&st, &r, &s, &q); err != nil {
			t.Fatal(err)
		}
		if st != status || r != revoked || s != short || q != int64(voided) {
			t.Fatalf("%s: purchase %s revoked %d shortfall %d voided %d, want %s %d %d %d", when, st, r, s, q, status, revoked, short, voided)
		}
		if n := e.int(`SELECT coalesce(sum(amount), 0) FROM money_flags WHERE uid = $1 AND ref = $2`, uid, "google:"+order); n != flagged {
			t.Fatalf("%s: flagged %d, want %d", when, n, flagged)
		}
		e.checkLedger()
	}

	two := e.google.RefundUnits(token, 2)
	if a := e.notify(two); a.status != 200 {
		t.Fatalf("partial refund: %s", a.raw)
	}
	check("2 of 5 refunded", 1500, 2000, 0, 0, 2, "credited")
	// The same message again, and the same void in a new message.
	again := e.google.Push(map[string]any{"voidedPurchaseNotification": map[string]any{"purchaseToken": token, "orderId": order,
		"productType": 2, "refundType": 2}})
	for _, b := range [][]byte{two, again} {
		if a := e.notify(b); a.status != 200 {
			t.Fatalf("copy: %s", a.raw)
		}
	}
	check("copies of the void", 1500, 2000, 0, 0, 2, "credited")

	if a := e.notify(e.google.RefundUnits(token, 2)); a.status != 200 {
		t.Fatalf("second partial refund: %s", a.raw)
	}
	check("4 of 5 refunded", 0, 3500, 500, 500, 4, "credited")

	if a := e.notify(e.google.RefundUnits(token, 1)); a.status != 200 {
		t.Fatalf("last unit: %s", a.raw)
	}
	check("5 of 5 refunded", 0, 3500, 1500, 1500, 5, "revoked")
	if n := e.int(`SELECT count(*) FROM ledger WHERE reason = 'store_refund'`); n != 2 {
		t.Fatalf("%d refund rows, want 2 (the last void found nothing left)", n)
	}
}
