package money_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"storefront/writer/money"
	"storefront/writer/money/pgsandbox"
)

type pgEnv struct {
	*env
	sb  *pgsandbox.Sandbox
	pgs *httptest.Server
}

func newPGEnv(t *testing.T, decline int64) *pgEnv {
	return newPGEnvCfg(t, decline, money.Config{})
}

// newPGEnvCfg is newPGEnv with other settings (the gateway is set here).
func newPGEnvCfg(t *testing.T, decline int64, cfg money.Config) *pgEnv {
	sb := pgsandbox.New(pgsandbox.Config{SecretKey: "sk_test", WebhookSecret: "wh_test", DeclineAmount: decline})
	pgs := httptest.NewServer(sb.Handler())
	t.Cleanup(pgs.Close)
	t.Cleanup(sb.Close)
	cfg.Gateway = &money.HTTPGateway{BaseURL: pgs.URL, SecretKey: "sk_test", WebhookSecret: "wh_test"}
	e := newEnv(t, cfg)
	sb.SetWebhookURL(e.srv.URL + "/home/api/v1/charge/webhook")
	return &pgEnv{env: e, sb: sb, pgs: pgs}
}

// checkout plays the buyer on the PG's checkout page (approve or decline).
func (p *pgEnv) checkout(t *testing.T, url, action string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Post(url+"/"+action, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusOK {
		t.Fatalf("checkout %s: %d", action, res.StatusCode)
	}
}

func (p *pgEnv) status(orderID string) string {
	var s string
	if err := p.pool.QueryRow(p.ctx, `SELECT status FROM charges WHERE order_id = $1`, orderID).Scan(&s); err != nil {
		p.t.Fatal(err)
	}
	return s
}

func (p *pgEnv) request(t *testing.T, uid int64, amount int64) (orderID, paymentKey, checkoutURL string) {
	t.Helper()
	r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": amount, "successUrl": "https://store.example/charge/ok"}}).mustOK(t)
	return r["orderId"].(string), r["paymentKey"].(string), r["checkoutUrl"].(string)
}

func TestChargeFlow(t *testing.T) {
	t.Parallel()
	p := newPGEnv(t, 0)
	const uid = 21
	order, pk, url := p.request(t, uid, 10000)
	// Confirming before the buyer approved is refused by the PG: nothing credited.
	p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order, "paymentKey": pk, "amount": 10000}}).mustOK(t)
	if p.status(order) != "failed" || p.balance(uid, money.Blue) != 0 {
		t.Fatalf("unapproved payment: status %s balance %d", p.status(order), p.balance(uid, money.Blue))
	}

	order, pk, url = p.request(t, uid, 10000)
	p.checkout(t, url, "approve")
	// A confirm with another amount is refused before the PG is asked.
	p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order, "paymentKey": pk, "amount": 100000}}).mustFail(t, http.StatusBadRequest)
	// Another user cannot confirm it.
	p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid + 1, key: newKey(),
		body: map[string]any{"orderId": order, "paymentKey": pk, "amount": 10000}}).mustFail(t, http.StatusNotFound)
	r := p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order, "paymentKey": pk, "amount": 10000}}).mustOK(t)
	if r["status"] != "done" || r["bonus"].(float64) != 1000 {
		t.Fatalf("confirm: %v", r)
	}
	p.sb.Wait()
	// Every webhook reached us; the DONE one found the charge already credited.
	var done string
	for _, d := range p.sb.Deliveries() {
		if d.Code != 200 {
			t.Fatalf("webhook %s answered %d", d.EventID, d.Code)
		}
		if d.Status == pgsandbox.Done {
			done = d.EventID
		}
	}
	// The PG re-sends the webhook: ignored.
	if err := p.sb.Redeliver(done); err != nil {
		t.Fatal(err)
	}
	p.sb.Wait()
	if p.balance(uid, money.Blue) != 10000 || p.balance(uid, money.Mileage) != 1000 {
		t.Fatalf("after confirm and duplicate webhook: blue %d mileage %d", p.balance(uid, money.Blue), p.balance(uid, money.Mileage))
	}
	if n := p.int(`SELECT count(*) FROM pg_webhooks WHERE event_id = $1`, done); n != 1 {
		t.Fatal("DONE webhook not recorded once")
	}
	// The first-charge bonus is given once.
	order2, pk2, url2 := p.request(t, uid, 5000)
	p.checkout(t, url2, "approve")
	p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order2, "paymentKey": pk2, "amount": 5000}}).mustOK(t)
	if p.balance(uid, money.Blue) != 15000 || p.balance(uid, money.Mileage) != 1000 {
		t.Fatal("second charge got a bonus or was not credited")
	}
	w := p.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t)
	if w["firstbill"].(map[string]any)["valid"] != false {
		t.Fatal("first-charge banner still valid")
	}
	// Cancel the first charge: money and bonus go back, the PG reports CANCELED, ignored.
	c := p.do(req{method: "POST", path: "/home/api/v1/charge/" + order + "/cancel", uid: uid, key: newKey()}).mustOK(t)
	if c["status"] != "canceled" {
		t.Fatalf("cancel: %v", c)
	}
	p.sb.Wait()
	if p.balance(uid, money.Blue) != 5000 || p.balance(uid, money.Mileage) != 0 {
		t.Fatalf("after cancel: blue %d mileage %d", p.balance(uid, money.Blue), p.balance(uid, money.Mileage))
	}
	// Canceling twice is a conflict.
	p.do(req{method: "POST", path: "/home/api/v1/charge/" + order + "/cancel", uid: uid, key: newKey()}).mustFail(t, http.StatusConflict)
	p.checkLedger()
	if n := p.int(`SELECT count(*) FROM outbox WHERE key = 'events.biz.charge'`); n != 3 {
		t.Fatalf("%d charge events, want 3 (two charges, one cancel)", n)
	}
}

func TestChargeFailures(t *testing.T) {
	t.Parallel()
	p := newPGEnv(t, 7000)
	const uid = 22
	// The card company declines at confirm.
	order, pk, url := p.request(t, uid, 7000)
	p.checkout(t, url, "approve")
	r := p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order, "paymentKey": pk, "amount": 7000}}).mustOK(t)
	if r["status"] != "failed" || r["failReason"] == "" {
		t.Fatalf("declined: %v", r)
	}
	// The buyer gives up on the checkout page: the ABORTED webhook fails the order.
	order2, _, url2 := p.request(t, uid, 3000)
	p.checkout(t, url2, "fail")
	p.sb.Wait()
	if s := p.status(order2); s != "failed" {
		t.Fatalf("aborted order is %s", s)
	}
	if p.balance(uid, money.Blue) != 0 {
		t.Fatal("failed charges credited money")
	}
	// A forged webhook is rejected and changes nothing.
	body, _ := json.Marshal(map[string]any{"eventId": "ev_forged", "eventType": "PAYMENT_STATUS_CHANGED",
		"data": map[string]any{"orderId": order2, "paymentKey": "x", "status": "DONE", "totalAmount": 3000}})
	hr, _ := http.NewRequest("POST", p.srv.URL+"/home/api/v1/charge/webhook", bytes.NewReader(body))
	hr.Header.Set(money.SignatureHeader, "v1=00")
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("forged webhook: %d", res.StatusCode)
	}
	// A cancel of money already spent is refused.
	p.addWork(work{pid: "p1", vols: 3, price: 1000})
	order3, pk3, url3 := p.request(t, uid, 2000)
	p.checkout(t, url3, "approve")
	p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order3, "paymentKey": pk3, "amount": 2000}}).mustOK(t)
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{1, 2}, "buyType": "B"}}).mustOK(t)
	p.do(req{method: "POST", path: "/home/api/v1/charge/" + order3 + "/cancel", uid: uid, key: newKey()}).mustFail(t, http.StatusConflict)
	if n := p.int(`SELECT count(*) FROM pg_webhooks WHERE event_id = 'ev_forged'`); n != 0 {
		t.Fatal("forged webhook recorded")
	}
	h := p.do(req{method: "GET", path: "/home/api/v1/charge/history", uid: uid}).mustOK(t)
	if n := len(h["list"].([]any)); n != 3 {
		t.Fatalf("%d charges in history", n)
	}
	p.checkLedger()
}

func TestChargeWithoutGateway(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: 1, key: newKey(),
		body: map[string]any{"amount": 1000}}).mustFail(t, http.StatusServiceUnavailable)
}

// The dev launcher's wiring: a sandbox on its own port, the writer configured
// by URL with the default keys, the webhook pointed at the writer.
func TestSandboxServerWiring(t *testing.T) {
	t.Parallel()
	sb, err := pgsandbox.Start("127.0.0.1:0", pgsandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	e := newEnv(t, money.Config{PaymentURL: sb.URL, PaymentSecretKey: pgsandbox.DefaultSecretKey,
		PaymentWebhookSecret: pgsandbox.DefaultWebhookSecret})
	sb.SetWebhookURL(e.srv.URL + money.WebhookPath)
	const uid = 23
	r := e.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": 3000}}).mustOK(t)
	order, pk, url := r["orderId"].(string), r["paymentKey"].(string), r["checkoutUrl"].(string)
	page, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != 200 || page.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("checkout page: %d %s", page.StatusCode, page.Header.Get("Content-Type"))
	}
	res, err := http.Post(url+"/approve", "", nil) // no successUrl: the PG answers the redirect query as JSON
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	e.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order, "paymentKey": pk, "amount": 3000}}).mustOK(t)
	c := e.do(req{method: "GET", path: "/home/api/v1/charge/" + order, uid: uid}).mustOK(t)
	if c["status"] != "done" || e.balance(uid, money.Blue) != 3000 {
		t.Fatalf("charge %v, balance %d", c, e.balance(uid, money.Blue))
	}
	e.do(req{method: "GET", path: "/home/api/v1/charge/" + order, uid: uid + 1}).mustFail(t, http.StatusNotFound)
	// A secret key the PG does not know is refused: no order is created.
	bad := newEnv(t, money.Config{PaymentURL: sb.URL, PaymentSecretKey: "wrong"})
	bad.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": 3000}}).mustFail(t, http.StatusBadGateway)
	if n := bad.int(`SELECT count(*) FROM charges`); n != 0 {
		t.Fatal("order recorded although the PG refused us")
	}
}

// A confirm that reached the PG but never committed here (crash, deadlock
// retry) is credited exactly once: by the next confirm or by the webhook.
func TestConfirmAfterLostCommit(t *testing.T) {
	t.Parallel()
	p := newPGEnv(t, 0)
	const uid = 24
	gw := &money.HTTPGateway{BaseURL: p.pgs.URL, SecretKey: "sk_test", WebhookSecret: "wh_test"}
	order, pk, url := p.request(t, uid, 4000)
	p.checkout(t, url, "approve")
	p.sb.SetWebhookURL("") // the webhook is delayed
	if _, err := gw.Confirm(p.ctx, pk, order, 4000); err != nil {
		t.Fatal(err)
	}
	r := p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order, "paymentKey": pk, "amount": 4000}}).mustOK(t)
	if r["status"] != "done" || p.balance(uid, money.Blue) != 4000 {
		t.Fatalf("confirm after a lost commit: %v, balance %d", r, p.balance(uid, money.Blue))
	}
	// The delayed DONE webhook arrives: nothing more is credited.
	p.sb.SetWebhookURL(p.srv.URL + money.WebhookPath)
	for _, d := range p.sb.Deliveries() {
		if err := p.sb.Redeliver(d.EventID); err != nil {
			t.Fatal(err)
		}
	}
	p.sb.Wait()
	if n := p.int(`SELECT count(*) FROM pg_webhooks`); n == 0 {
		t.Fatal("webhook not received")
	}
	if p.balance(uid, money.Blue) != 4000 {
		t.Fatalf("credited twice: %d", p.balance(uid, money.Blue))
	}
	p.checkLedger()
}

// Charging calls that would reach the PG are limited per member (3 a minute
// here): the fourth is 429 and creates no order; the rate refills with the
// clock; other members and bad input are not affected.
func TestChargeRateLimit(t *testing.T) {
	t.Parallel()
	p := newPGEnvCfg(t, 0, money.Config{ChargePerMinute: 3})
	const uid, other = 25, 26
	charge := func(who int64) resp {
		return p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: who, key: newKey(),
			body: map[string]any{"amount": 1000}})
	}
	for i := 0; i < 3; i++ {
		charge(uid).mustOK(t)
	}
	before := p.snapshot()
	charge(uid).mustFail(t, http.StatusTooManyRequests)
	order := p.int(`SELECT count(*) FROM charges WHERE uid = $1`, uid)
	if order != 3 || p.snapshot() != before {
		t.Fatalf("a limited call changed the database (%d orders)", order)
	}
	// Confirm and cancel count against the same rate.
	var oid, pk string
	if err := p.pool.QueryRow(p.ctx, `SELECT order_id, payment_key FROM charges WHERE uid = $1 LIMIT 1`, uid).Scan(&oid, &pk); err != nil {
		t.Fatal(err)
	}
	p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": oid, "paymentKey": pk, "amount": 1000}}).mustFail(t, http.StatusTooManyRequests)
	p.do(req{method: "POST", path: "/home/api/v1/charge/" + oid + "/cancel", uid: uid, key: newKey()}).mustFail(t, http.StatusTooManyRequests)
	// Bad input is still answered as such.
	p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": -5}}).mustFail(t, http.StatusBadRequest)
	charge(other).mustOK(t)
	p.clock.Add(20 * time.Second) // one call a 20 s at 3 a minute
	charge(uid).mustOK(t)
	charge(uid).mustFail(t, http.StatusTooManyRequests)
	if n := p.int(`SELECT count(*) FROM charges WHERE uid = $1`, uid); n != 4 {
		t.Fatalf("%d orders, want 4", n)
	}
}

// A charge fills the money of the channel it was made on (seed §6): iOS
// money in the iOS app, Android money in the Android apps, blue money on the
// web; the first-charge bonus is mileage whatever the channel.
func TestChargeIntoChannelMoney(t *testing.T) {
	t.Parallel()
	p := newPGEnv(t, 0)
	const uid = 27
	charge := func(channel string, amount int64) {
		t.Helper()
		r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(), channel: channel,
			body: map[string]any{"amount": amount}}).mustOK(t)
		p.checkout(t, r["checkoutUrl"].(string), "approve")
		p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
			body: map[string]any{"orderId": r["orderId"], "paymentKey": r["paymentKey"], "amount": amount}}).mustOK(t)
	}
	charge("IA", 3000)
	charge("AC", 2000)
	charge("AW", 1000)
	if p.balance(uid, money.IOS) != 3000 || p.balance(uid, money.Android) != 2000 || p.balance(uid, money.Blue) != 1000 || p.balance(uid, money.Mileage) != 300 {
		t.Fatalf("ios %d android %d blue %d mileage %d", p.balance(uid, money.IOS), p.balance(uid, money.Android),
			p.balance(uid, money.Blue), p.balance(uid, money.Mileage))
	}
	for ch, want := range map[string]float64{"IA": 3000, "AA": 2000, "AO": 2000, "IW": 1000, "": 1000} {
		if w := p.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid, channel: ch}).mustOK(t); w["shownAmount"].(float64) != want {
			t.Errorf("channel %q shows %v, want %v", ch, w["shownAmount"], want)
		}
	}
	p.sb.Wait()
	p.checkLedger()
}
