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

	// purchase is "status revoked/shortfall voided units".
	check := func(when string, balance int64, purchase string, flagged int64) {
		t.Helper()
		if got := e.balance(uid, "android"); got != balance {
			t.Fatalf("%s: android money %d, want %d", when, got, balance)
		}
		if got := e.purchaseState("google", order); got != purchase {
			t.Fatalf("%s: purchase %s, want %s", when, got, purchase)
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
	check("2 of 5 refunded", 1500, "credited 2000/0 2", 0)
	// The same message again, and the same void in a new message.
	again := e.google.Push(map[string]any{"voidedPurchaseNotification": map[string]any{"purchaseToken": token, "orderId": order,
		"productType": 2, "refundType": 2}})
	for _, b := range [][]byte{two, again} {
		if a := e.notify(b); a.status != 200 {
			t.Fatalf("copy: %s", a.raw)
		}
	}
	check("copies of the void", 1500, "credited 2000/0 2", 0)

	if a := e.notify(e.google.RefundUnits(token, 2)); a.status != 200 {
		t.Fatalf("second partial refund: %s", a.raw)
	}
	check("4 of 5 refunded", 0, "credited 3500/500 4", 500)

	if a := e.notify(e.google.RefundUnits(token, 1)); a.status != 200 {
		t.Fatalf("last unit: %s", a.raw)
	}
	check("5 of 5 refunded", 0, "revoked 3500/1500 5", 1500)
	if n := e.int(`SELECT count(*) FROM ledger WHERE reason = 'store_refund'`); n != 2 {
		t.Fatalf("%d refund rows, want 2 (the last void found nothing left)", n)
	}
}
