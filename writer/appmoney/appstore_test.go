package appmoney_test

import (
	"encoding/json"
	"testing"

	"storefront/writer/appmoney"
	"storefront/writer/appmoney/storetest"
)

func appleReceipt(id string) map[string]string { return map[string]string{"transactionId": id} }

// The same transaction posted 16 times at once credits iOS money once; a
// second member cannot use it.
func TestAppleReceiptCreditsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 51
	id := e.apple.Buy("bluemoney_10000")
	for _, a := range e.postConcurrently(appmoney.AppleReceiptPath, uid, "IA", appleReceipt(id), 16) {
		if a.body["transactionId"] != id || a.body["amount"] != 10000.0 || a.body["money"] != "ios" {
			t.Fatalf("answer %s", a.raw)
		}
	}
	if got := e.balance(uid, "ios"); got != 10000 {
		t.Fatalf("ios money %d, want 10000", got)
	}
	if got := e.balance(uid, "android") + e.balance(uid, "blue"); got != 0 {
		t.Fatalf("other moneys %d", got)
	}
	if n := e.int(`SELECT count(*) FROM ledger WHERE reason = 'store_purchase' AND ref = $1`, "apple:"+id); n != 1 {
		t.Fatalf("%d ledger rows, want 1", n)
	}
	if n := e.int(`SELECT count(*) FROM outbox WHERE kind = 'ev'`); n != 1 {
		t.Fatalf("%d business events, want 1", n)
	}
	e.checkLedger()
	before := e.snapshot()
	e.post(appmoney.AppleReceiptPath, 52, "IA", appleReceipt(id)).refused(t, 409)
	if e.snapshot() != before {
		t.Fatal("another member's replay changed something")
	}
}

// Every bad transaction gets the envelope with a Korean message and changes
// nothing, including an API answer signed by another chain.
func TestAppleBadReceipts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 61
	good := e.apple.Buy("bluemoney_1000")
	otherApp := e.apple.Buy("bluemoney_1000")
	e.apple.Edit(otherApp, func(p *appmoney.TransactionPayload) { p.BundleID = "com.other.ios" })
	production := e.apple.Buy("bluemoney_1000")
	e.apple.Edit(production, func(p *appmoney.TransactionPayload) { p.Environment = "Production" })
	nonConsumable := e.apple.Buy("bluemoney_1000")
	e.apple.Edit(nonConsumable, func(p *appmoney.TransactionPayload) { p.Type = "Non-Consumable" })
	unsold := e.apple.Buy("premium_pass")
	revoked := e.apple.Buy("bluemoney_1000")
	e.apple.Edit(revoked, func(p *appmoney.TransactionPayload) { p.RevocationDate = p.PurchaseDate + 1000 })
	e.refuseAll(t, appmoney.AppleReceiptPath, []badCase{
		{"no session", 0, "IA", appleReceipt(good), 401},
		{"malformed", uid, "IA", `{"transactionId":1`, 400},
		{"number", uid, "IA", `{"transactionId":2000000812345001}`, 400},
		{"not digits", uid, "IA", appleReceipt("../../v1/history"), 400},
		{"android channel", uid, "AA", appleReceipt(good), 400},
		{"web channel", uid, "", appleReceipt(good), 400},
		{"unknown transaction", uid, "IA", appleReceipt("1999999999999999"), 400},
		{"another app", uid, "IA", appleReceipt(otherApp), 400},
		{"another environment", uid, "IA", appleReceipt(production), 400},
		{"not consumable", uid, "IA", appleReceipt(nonConsumable), 400},
		{"unknown product", uid, "IA", appleReceipt(unsold), 400},
		{"refunded", uid, "IA", appleReceipt(revoked), 400},
	})
	before := e.snapshot()
	// The API's answer signed by a chain that is not the pinned root's.
	e.apple.Chain = storetest.NewChain()
	e.post(appmoney.AppleReceiptPath, uid, "IA", appleReceipt(good)).refused(t, 502)
	if e.snapshot() != before {
		t.Fatal("a transaction signed by another chain changed something")
	}
}

// A REFUND notification takes back the unspent iOS money and flags the
// rest, once per notification and once per transaction; notifications not
// signed through the pinned root, or of another app, change nothing.
func TestAppleRefundNotification(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 71
	id := e.apple.Buy("bluemoney_3000")
	if a := e.post(appmoney.AppleReceiptPath, uid, "IA", appleReceipt(id)); a.status != 200 {
		t.Fatalf("credit: %s", a.raw)
	}
	e.exec(`INSERT INTO ledger (uid, money, delta, reason, created_at) VALUES ($1, 'ios', -1000, 'test_spend', now())`, uid)

	before := e.snapshot()
	forged := e.apple.Refund(id, storetest.NewChain())
	e.post(appmoney.AppleNotificationPath, 0, "", forged).refused(t, 400)
	e.post(appmoney.AppleNotificationPath, 0, "", `{"signedPayload":"e30.e30.e30"}`).refused(t, 400)
	e.post(appmoney.AppleNotificationPath, 0, "", `{"signedPayload":`).refused(t, 400)
	// A refund whose outer payload is genuine but whose transaction is not.
	inner := appmoney.TransactionPayload{TransactionID: id, BundleID: bundle, ProductID: "bluemoney_3000", Type: "Consumable",
		Environment: "Sandbox", RevocationDate: 1}
	mixed := notificationWithInner(e, storetest.NewChain().Sign(inner))
	e.post(appmoney.AppleNotificationPath, 0, "", mixed).refused(t, 400)
	if e.snapshot() != before {
		t.Fatal("a refused notification changed something")
	}

	refund := e.apple.Refund(id, nil)
	if a := e.post(appmoney.AppleNotificationPath, 0, "", refund); a.status != 200 {
		t.Fatalf("refund: %s", a.raw)
	}
	if got := e.balance(uid, "ios"); got != 0 {
		t.Fatalf("ios money %d after the refund, want 0", got)
	}
	if n := e.int(`SELECT shortfall FROM store_purchases WHERE store = 'apple' AND transaction_id = $1 AND status = 'revoked'`, id); n != 1000 {
		t.Fatalf("shortfall %d, want 1000", n)
	}
	if n := e.int(`SELECT amount FROM money_flags WHERE uid = $1`, uid); n != 1000 {
		t.Fatalf("flagged %d, want 1000", n)
	}
	// The same notification again, and a second REFUND of the transaction.
	if a := e.post(appmoney.AppleNotificationPath, 0, "", refund); a.status != 200 {
		t.Fatalf("redelivery: %s", a.raw)
	}
	if a := e.post(appmoney.AppleNotificationPath, 0, "", e.apple.Refund(id, nil)); a.status != 200 {
		t.Fatalf("second refund: %s", a.raw)
	}
	if n := e.int(`SELECT count(*) FROM ledger WHERE reason = 'store_refund'`); n != 1 || e.int(`SELECT count(*) FROM money_flags`) != 1 {
		t.Fatalf("%d refund rows", n)
	}
	// A refunded transaction cannot be credited again.
	e.post(appmoney.AppleReceiptPath, uid, "IA", appleReceipt(id)).refused(t, 400)
	// Other notification types are acknowledged without changing money.
	if a := e.post(appmoney.AppleNotificationPath, 0, "", e.apple.Notification("CONSUMPTION_REQUEST", nil, nil)); a.status != 200 {
		t.Fatal(a.raw)
	}
	if e.balance(uid, "ios") != 0 {
		t.Fatal("money moved")
	}
	e.checkLedger()
}

// notificationWithInner is a REFUND signed by the fake's own chain carrying
// a transaction JWS made elsewhere.
func notificationWithInner(e *env, innerJWS string) []byte {
	payload := map[string]any{"notificationType": "REFUND", "notificationUUID": "6f4f1a9e-0000-4000-8000-000000000001", "version": "2.0",
		"data": map[string]any{"bundleId": bundle, "environment": "Sandbox", "signedTransactionInfo": innerJWS}}
	b, _ := json.Marshal(map[string]string{"signedPayload": e.apple.Chain.Sign(payload)})
	return b
}
