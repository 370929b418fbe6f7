package appmoney_test

import (
	"testing"

	"storefront/writer/appmoney"
)

func googleReceipt(product, token string) map[string]string {
	return map[string]string{"packageName": pkg, "productId": product, "purchaseToken": token}
}

// The same receipt posted 16 times at once credits once, consumes it, and
// another member cannot use it afterwards.
func TestGoogleReceiptCreditsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 7
	token, order := e.google.Buy("bluemoney_5000", "")
	for _, a := range e.postConcurrently(appmoney.GoogleReceiptPath, uid, "AA", googleReceipt("bluemoney_5000", token), 16) {
		if a.body["transactionId"] != order || a.body["amount"] != 5000.0 || a.body["money"] != "android" {
			t.Fatalf("answer %s", a.raw)
		}
	}
	if got := e.balance(uid, "android"); got != 5000 {
		t.Fatalf("android money %d, want 5000", got)
	}
	if got := e.balance(uid, "blue") + e.balance(uid, "ios") + e.balance(uid, "mileage"); got != 0 {
		t.Fatalf("other moneys %d, want 0", got)
	}
	if n := e.int(`SELECT count(*) FROM ledger WHERE uid = $1 AND reason = 'store_purchase' AND ref = $2`, uid, "google:"+order); n != 1 {
		t.Fatalf("%d ledger rows, want 1", n)
	}
	if n := e.int(`SELECT count(*) FROM outbox WHERE kind = 'ev'`); n != 1 {
		t.Fatalf("%d business events, want 1", n)
	}
	if !e.google.Consumed(token) {
		t.Fatal("purchase not consumed")
	}
	e.checkLedger()

	before := e.snapshot()
	e.post(appmoney.GoogleReceiptPath, 8, "AA", googleReceipt("bluemoney_5000", token)).refused(t, 409)
	if e.snapshot() != before {
		t.Fatal("another member's replay changed something")
	}
}

// Every bad receipt gets the envelope with a Korean message and changes nothing.
func TestGoogleBadReceipts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 11
	good, _ := e.google.Buy("bluemoney_1000", "")
	pending, _ := e.google.Buy("bluemoney_1000", "")
	e.google.SetState(pending, 2)
	canceled, _ := e.google.Buy("bluemoney_1000", "")
	e.google.SetState(canceled, 1)
	others, _ := e.google.Buy("bluemoney_1000", "12")
	unsold, _ := e.google.Buy("bluemoney_777", "")
	e.refuseAll(t, appmoney.GoogleReceiptPath, []badCase{
		{"no session", 0, "AA", googleReceipt("bluemoney_1000", good), 401},
		{"malformed", uid, "AA", `{"packageName":`, 400},
		{"missing token", uid, "AA", map[string]string{"packageName": pkg, "productId": "bluemoney_1000"}, 400},
		{"unknown field", uid, "AA", map[string]string{"packageName": pkg, "productId": "bluemoney_1000", "purchaseToken": good, "uid": "12"}, 400},
		{"web channel", uid, "", googleReceipt("bluemoney_1000", good), 400},
		{"ios channel", uid, "IA", googleReceipt("bluemoney_1000", good), 400},
		{"unknown channel", uid, "XX", googleReceipt("bluemoney_1000", good), 400},
		{"other package", uid, "AA", map[string]string{"packageName": "com.other.app", "productId": "bluemoney_1000", "purchaseToken": good}, 400},
		{"unknown product", uid, "AA", googleReceipt("bluemoney_777", unsold), 400},
		{"product of another token", uid, "AA", googleReceipt("bluemoney_5000", good), 400},
		{"unknown token", uid, "AA", googleReceipt("bluemoney_1000", "forged-token"), 400},
		{"pending", uid, "AC", googleReceipt("bluemoney_1000", pending), 409},
		{"canceled", uid, "AO", googleReceipt("bluemoney_1000", canceled), 400},
		{"another account's purchase", uid, "AA", googleReceipt("bluemoney_1000", others), 403},
	})
	if e.google.Consumed(good) {
		t.Fatal("a refused receipt was consumed")
	}
}

// A consume that fails after the credit answers 502; posting the receipt
// again consumes it without crediting twice.
func TestGoogleConsumeRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 21
	token, _ := e.google.Buy("bluemoney_3000", "")
	e.google.FailConsume(true)
	e.post(appmoney.GoogleReceiptPath, uid, "AA", googleReceipt("bluemoney_3000", token)).refused(t, 502)
	if got := e.balance(uid, "android"); got != 3000 {
		t.Fatalf("android money %d, want 3000", got)
	}
	e.google.FailConsume(false)
	a := e.post(appmoney.GoogleReceiptPath, uid, "AA", googleReceipt("bluemoney_3000", token))
	if a.status != 200 || a.body["replayed"] != true {
		t.Fatalf("repost: %s", a.raw)
	}
	if !e.google.Consumed(token) || e.balance(uid, "android") != 3000 {
		t.Fatalf("consumed %v, android %d", e.google.Consumed(token), e.balance(uid, "android"))
	}
}

// A voided purchase (refund) takes back what is unspent and flags the rest;
// the notification is read back from the voided purchases list, redeliveries
// and forged or unauthenticated pushes change nothing.
func TestGoogleRefundNotification(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 31
	token, order := e.google.Buy("bluemoney_5000", "")
	kept, keptOrder := e.google.Buy("bluemoney_1000", "")
	for _, tk := range []struct{ product, token string }{{"bluemoney_5000", token}, {"bluemoney_1000", kept}} {
		if a := e.post(appmoney.GoogleReceiptPath, uid, "AA", googleReceipt(tk.product, tk.token)); a.status != 200 {
			t.Fatalf("credit: %s", a.raw)
		}
	}
	// 4000 of the 6000 is spent.
	e.exec(`INSERT INTO ledger (uid, money, delta, reason, created_at) VALUES ($1, 'android', -4000, 'test_spend', now())`, uid)

	before := e.snapshot()
	// A push for a purchase Google has not voided is refused.
	forged := e.google.Push(map[string]any{"voidedPurchaseNotification": map[string]any{"purchaseToken": kept, "orderId": keptOrder, "productType": 2, "refundType": 1}})
	e.notify(forged).refused(t, 400)
	push := e.google.Refund(token)
	e.post(appmoney.GoogleNotificationPath+"?token=wrong", 0, "", push).refused(t, 401)
	e.post(appmoney.GoogleNotificationPath, 0, "", push).refused(t, 401)
	e.notify([]byte(`{"message":{}}`)).refused(t, 400)
	if e.snapshot() != before {
		t.Fatal("a refused notification changed something")
	}

	if a := e.notify(push); a.status != 200 {
		t.Fatalf("refund: %s", a.raw)
	}
	if got := e.balance(uid, "android"); got != 0 {
		t.Fatalf("android money %d after the refund, want 0", got)
	}
	if got := e.purchaseState("google", order); got != "revoked 2000/3000 1" {
		t.Fatalf("purchase %s, want revoked 2000/3000 1", got)
	}
	if n := e.int(`SELECT coalesce(sum(amount), 0) FROM money_flags WHERE uid = $1 AND ref = $2`, uid, "google:"+order); n != 3000 {
		t.Fatalf("flagged %d, want 3000", n)
	}
	e.checkLedger()

	if a := e.notify(push); a.status != 200 {
		t.Fatalf("redelivery: %s", a.raw)
	}
	// The same void in a new message (Pub/Sub may publish twice) is applied once too.
	again := e.google.Push(map[string]any{"voidedPurchaseNotification": map[string]any{"purchaseToken": token, "orderId": order, "productType": 2, "refundType": 1}})
	if a := e.notify(again); a.status != 200 {
		t.Fatalf("second message: %s", a.raw)
	}
	if got := e.int(`SELECT count(*) FROM ledger WHERE reason = 'store_refund'`); got != 1 || e.balance(uid, "android") != 0 {
		t.Fatalf("%d refund rows, android %d", got, e.balance(uid, "android"))
	}
	if e.int(`SELECT count(*) FROM money_flags`) != 1 {
		t.Fatal("flagged twice")
	}
}

// A canceled one-time purchase (ONE_TIME_PRODUCT_CANCELED) is read back and
// revoked when Google shows it canceled; a test notification is acknowledged.
func TestGoogleCanceledNotification(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 41
	token, _ := e.google.Buy("bluemoney_1000", "")
	if a := e.post(appmoney.GoogleReceiptPath, uid, "AA", googleReceipt("bluemoney_1000", token)); a.status != 200 {
		t.Fatalf("credit: %s", a.raw)
	}
	cancel := func() []byte {
		return e.google.Push(map[string]any{"oneTimeProductNotification": map[string]any{"version": "1.0",
			"notificationType": appmoney.OneTimeProductCanceled, "purchaseToken": token, "sku": "bluemoney_1000"}})
	}
	// Google still shows it purchased: the notification changes no money.
	if a := e.notify(cancel()); a.status != 200 || e.balance(uid, "android") != 1000 {
		t.Fatalf("%s, android %d", a.raw, e.balance(uid, "android"))
	}
	e.google.SetState(token, 1)
	if a := e.notify(cancel()); a.status != 200 || e.balance(uid, "android") != 0 {
		t.Fatalf("%s, android %d", a.raw, e.balance(uid, "android"))
	}
	test := e.google.Push(map[string]any{"testNotification": map[string]any{"version": "1.0"}})
	if a := e.notify(test); a.status != 200 {
		t.Fatal(a.raw)
	}
	e.checkLedger()
}
