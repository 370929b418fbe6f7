package money_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"storefront/writer/money"
	"storefront/writer/money/tosssandbox"
)

type gatewayEnv struct {
	*env
	sb  *tosssandbox.Sandbox
	pgs *httptest.Server
	gw  *money.HTTPGateway // the writer's own client, to act as its earlier attempt or the console
}

const testSecret, testClient = "test_sk_unit", "test_ck_unit"

func newGatewayEnv(t *testing.T, decline int64) *gatewayEnv {
	return newGatewayEnvCfg(t, decline, money.Config{})
}

// newGatewayEnvCfg is newGatewayEnv with other settings (the gateway is set here).
// The sandbox follows the writer's test clock.
func newGatewayEnvCfg(t *testing.T, decline int64, cfg money.Config) *gatewayEnv {
	var e *env
	sb := tosssandbox.New(tosssandbox.Config{SecretKey: testSecret, ClientKey: testClient, DeclineAmount: decline,
		Now: func() time.Time { return e.clock.Now() }})
	pgs := httptest.NewServer(sb.Handler())
	t.Cleanup(pgs.Close)
	t.Cleanup(sb.Close)
	gw := &money.HTTPGateway{BaseURL: pgs.URL, SecretKey: testSecret}
	if cfg.Gateway == nil {
		cfg.Gateway = gw
	}
	cfg.PaymentClientKey, cfg.PaymentCheckoutURL = testClient, pgs.URL
	cfg.ReturnOrigins = append(cfg.ReturnOrigins, "https://store.example")
	e = newEnv(t, cfg)
	sb.SetWebhookURL(e.srv.URL + money.WebhookPath)
	return &gatewayEnv{env: e, sb: sb, pgs: pgs, gw: gw}
}

// pay plays the buyer in the widget: approve (or give up) on the sandbox's checkout page.
func (p *gatewayEnv) pay(t *testing.T, checkoutURL string, approve bool) tosssandbox.Redirect {
	t.Helper()
	r, err := tosssandbox.Pay(p.ctx, checkoutURL, approve)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (p *gatewayEnv) status(orderID string) string {
	var s string
	if err := p.pool.QueryRow(p.ctx, `SELECT status FROM charges WHERE order_id = $1`, orderID).Scan(&s); err != nil {
		p.t.Fatal(err)
	}
	return s
}

func (p *gatewayEnv) request(t *testing.T, uid int64, amount int64) (orderID, checkoutURL string) {
	t.Helper()
	r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": amount, "successUrl": "https://store.example/charge/ok", "failUrl": "https://store.example/charge/no"}}).mustOK(t)
	return r["orderId"].(string), r["checkoutUrl"].(string)
}

func (p *gatewayEnv) confirm(uid int64, orderID, paymentKey string, amount int64) resp {
	return p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": orderID, "paymentKey": paymentKey, "amount": amount}})
}

// charge runs the whole flow: order, widget, confirm.
func (p *gatewayEnv) charge(t *testing.T, uid int64, amount int64) (orderID, paymentKey string) {
	t.Helper()
	order, url := p.request(t, uid, amount)
	r := p.pay(t, url, true)
	if c := p.confirm(uid, order, r.PaymentKey, amount).mustOK(t); c["status"] != "done" {
		t.Fatalf("charge %s: %v", order, c)
	}
	return order, r.PaymentKey
}

func (p *gatewayEnv) cancel(uid int64, orderID string, body any) resp {
	return p.do(req{method: "POST", path: "/home/api/v1/charge/" + orderID + "/cancel", uid: uid, key: newKey(), body: body})
}

// webhook posts a webhook body as the gateway would (no signature).
func (p *gatewayEnv) webhook(t *testing.T, body []byte) (int, map[string]any) {
	t.Helper()
	return postWebhook(t, p.srv.URL, "", body)
}

// postWebhook posts a webhook body to the writer at base, from client (an
// X-Forwarded-For address for a writer behind realip; "" = none).
func postWebhook(t *testing.T, base, client string, body []byte) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+money.WebhookPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if client != "" {
		req.Header.Set("X-Forwarded-For", client)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

func TestChargeFlow(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid = 21
	// The order is fixed by the writer; the answer opens the widget.
	r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": 10000, "successUrl": "https://store.example/ok", "failUrl": "https://store.example/no"}}).mustOK(t)
	if r["clientKey"] != testClient || r["orderName"] == "" || r["amount"].(float64) != 10000 || r["status"] != "requested" ||
		r["successUrl"] != "https://store.example/ok" || r["paymentKey"] != nil {
		t.Fatalf("charge request answer: %v", r)
	}
	order := r["orderId"].(string)
	red := p.pay(t, r["checkoutUrl"].(string), true)
	if red.OrderID != order || red.Amount != 10000 || red.PaymentKey == "" {
		t.Fatalf("success redirect: %+v", red)
	}
	// An edited redirect (another amount) is refused before the gateway is asked.
	p.confirm(uid, order, red.PaymentKey, 100).mustFail(t, http.StatusBadRequest)
	// Another user cannot confirm it.
	p.confirm(uid+1, order, red.PaymentKey, 10000).mustFail(t, http.StatusNotFound)
	// Another payment's key is refused by the gateway: the order still waits.
	p.confirm(uid, order, "tgen_nosuch", 10000).mustFail(t, http.StatusBadRequest)
	c := p.confirm(uid, order, red.PaymentKey, 10000).mustOK(t)
	if c["status"] != "done" || c["bonus"].(float64) != 1000 || c["paymentKey"] != red.PaymentKey {
		t.Fatalf("confirm: %v", c)
	}
	p.sb.Wait()
	// Every webhook reached us and was acknowledged; the DONE one found the charge credited.
	done := -1
	for i, d := range p.sb.Deliveries() {
		if d.Code != 200 {
			t.Fatalf("webhook %d (%s) answered %d", i, d.Status, d.Code)
		}
		if d.Status == tosssandbox.Done {
			done = i
		}
	}
	if done < 0 {
		t.Fatal("no DONE webhook")
	}
	// The gateway re-sends it: nothing more.
	if err := p.sb.Redeliver(done); err != nil {
		t.Fatal(err)
	}
	p.sb.Wait()
	if p.balance(uid, money.Blue) != 10000 || p.balance(uid, money.Mileage) != 1000 {
		t.Fatalf("after confirm and duplicate webhook: blue %d mileage %d", p.balance(uid, money.Blue), p.balance(uid, money.Mileage))
	}
	// The first-charge bonus is given once.
	p.charge(t, uid, 5000)
	if p.balance(uid, money.Blue) != 15000 || p.balance(uid, money.Mileage) != 1000 {
		t.Fatal("second charge got a bonus or was not credited")
	}
	w := p.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t)
	if w["firstbill"].(map[string]any)["valid"] != false {
		t.Fatal("first-charge banner still valid")
	}
	// A partial refund: 3000 of the first charge and 30 % of its bonus.
	c = p.cancel(uid, order, map[string]any{"cancelAmount": 3000, "cancelReason": "일부 환불"}).mustOK(t)
	if c["status"] != "partial_canceled" || c["canceledAmount"].(float64) != 3000 {
		t.Fatalf("partial cancel: %v", c)
	}
	if p.balance(uid, money.Blue) != 12000 || p.balance(uid, money.Mileage) != 700 {
		t.Fatalf("after partial cancel: blue %d mileage %d", p.balance(uid, money.Blue), p.balance(uid, money.Mileage))
	}
	// More than what is left is refused; the rest (no body) cancels it in full.
	p.cancel(uid, order, map[string]any{"cancelAmount": 7100}).mustFail(t, http.StatusBadRequest)
	c = p.cancel(uid, order, nil).mustOK(t)
	if c["status"] != "canceled" || c["canceledAmount"].(float64) != 10000 {
		t.Fatalf("full cancel: %v", c)
	}
	p.sb.Wait()
	if p.balance(uid, money.Blue) != 5000 || p.balance(uid, money.Mileage) != 0 {
		t.Fatalf("after cancel: blue %d mileage %d", p.balance(uid, money.Blue), p.balance(uid, money.Mileage))
	}
	pay, err := p.gw.Payment(p.ctx, red.PaymentKey)
	if err != nil || pay.Status != money.PayCanceled || pay.BalanceAmount != 0 || len(pay.Cancels) != 2 {
		t.Fatalf("gateway after cancels: %+v %v", pay, err)
	}
	// Canceling twice is a conflict; every refund is a ledger row.
	p.cancel(uid, order, nil).mustFail(t, http.StatusConflict)
	if n := p.int(`SELECT count(*) FROM ledger WHERE ref = $1 AND reason = 'charge_cancel' AND money = 'blue'`, "charge:"+order); n != 2 {
		t.Fatalf("%d refund rows in the ledger, want 2", n)
	}
	p.checkLedger()
	if n := p.int(`SELECT count(*) FROM outbox WHERE key = 'events.biz.charge'`); n != 4 {
		t.Fatalf("%d charge events, want 4 (two charges, two refunds)", n)
	}
}

func TestChargeFailures(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 7000)
	const uid = 22
	// The card company declines at confirm: failed, with our Korean words; the
	// gateway's ABORTED webhook agrees and changes nothing.
	order, url := p.request(t, uid, 7000)
	red := p.pay(t, url, true)
	r := p.confirm(uid, order, red.PaymentKey, 7000).mustOK(t)
	if r["status"] != "failed" || r["failReason"] != money.KoreanMessage("REJECT_CARD_PAYMENT") {
		t.Fatalf("declined: %v", r)
	}
	// The buyer gives up in the widget: the fail redirect, no payment.
	order2, url2 := p.request(t, uid, 3000)
	if f := p.pay(t, url2, false); f.Code != "PAY_PROCESS_CANCELED" || f.OrderID != order2 || f.PaymentKey != "" {
		t.Fatalf("fail redirect: %+v", f)
	}
	p.sb.Wait()
	if p.balance(uid, money.Blue) != 0 || p.status(order2) != "requested" {
		t.Fatal("failed charges credited money")
	}
	// Forged webhooks: refused because the gateway's lookup disagrees, nothing changes.
	order3, url3 := p.request(t, uid, 3000)
	red3 := p.pay(t, url3, true) // IN_PROGRESS at the gateway, not confirmed
	before := p.snapshot()
	for name, data := range map[string]map[string]any{
		"claims DONE":     {"paymentKey": red3.PaymentKey, "orderId": order3, "status": "DONE", "totalAmount": 3000},
		"unknown payment": {"paymentKey": "tgen_forged", "orderId": order3, "status": "DONE", "totalAmount": 3000},
		"another order":   {"paymentKey": red3.PaymentKey, "orderId": order2, "status": "IN_PROGRESS", "totalAmount": 3000},
		"another amount":  {"paymentKey": red3.PaymentKey, "orderId": order3, "status": "IN_PROGRESS", "totalAmount": 300000},
	} {
		body, _ := json.Marshal(map[string]any{"eventType": "PAYMENT_STATUS_CHANGED", "createdAt": "2026-11-25T12:00:00.000000", "data": data})
		if st, ans := p.webhook(t, body); st != http.StatusBadRequest || !strings.Contains(fmt.Sprint(ans), "결제") {
			t.Errorf("forged webhook (%s): %d %v", name, st, ans)
		}
	}
	if p.snapshot() != before || p.status(order3) != "requested" {
		t.Fatal("a forged webhook changed something")
	}
	// Only unspent money is refunded.
	p.addWork(work{pid: "p1", vols: 3, price: 1000})
	order4, _ := p.charge(t, uid, 3000) // first charge: 300 mileage bonus
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{1, 2}, "buyType": "B"}}).mustOK(t) // 300 mileage + 1700 blue
	p.cancel(uid, order4, nil).mustFail(t, http.StatusConflict)
	p.cancel(uid, order4, map[string]any{"cancelAmount": 1400}).mustFail(t, http.StatusConflict)
	if c := p.cancel(uid, order4, map[string]any{"cancelAmount": 1300}).mustOK(t); c["status"] != "partial_canceled" {
		t.Fatalf("refund of the unspent part: %v", c)
	}
	if p.balance(uid, money.Blue) != 0 {
		t.Fatalf("blue %d after refunding the unspent part", p.balance(uid, money.Blue))
	}
	h := p.do(req{method: "GET", path: "/home/api/v1/charge/history", uid: uid}).mustOK(t)
	if n := len(h["list"].([]any)); n != 4 {
		t.Fatalf("%d charges in history", n)
	}
	p.sb.Wait()
	p.checkLedger()
}

// A payment not confirmed within the gateway's 10 minutes expires: the
// confirm fails the order with our words, the EXPIRED webhook agrees.
func TestChargeExpired(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid = 28
	order, url := p.request(t, uid, 2000)
	red := p.pay(t, url, true)
	p.clock.Add(tosssandbox.ConfirmTimeout + time.Minute)
	r := p.confirm(uid, order, red.PaymentKey, 2000).mustOK(t)
	if r["status"] != "failed" || r["failReason"] != money.KoreanMessage("NOT_FOUND_PAYMENT_SESSION") {
		t.Fatalf("expired: %v", r)
	}
	p.sb.Wait()
	if d := p.sb.Deliveries(); len(d) != 1 || d[0].Status != tosssandbox.Expired || d[0].Code != 200 {
		t.Fatalf("deliveries: %+v", d)
	}
	if p.balance(uid, money.Blue) != 0 {
		t.Fatal("expired payment credited")
	}
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
	sb, err := tosssandbox.Start("127.0.0.1:0", tosssandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	e := newEnv(t, money.Config{PaymentURL: sb.URL, PaymentSecretKey: tosssandbox.DefaultSecretKey,
		PaymentClientKey: tosssandbox.DefaultClientKey, PaymentCheckoutURL: sb.URL})
	sb.SetWebhookURL(e.srv.URL + money.WebhookPath)
	const uid = 23
	r := e.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": 3000}}).mustOK(t)
	order, url := r["orderId"].(string), r["checkoutUrl"].(string)
	page, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != 200 || page.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("checkout page: %d %s", page.StatusCode, page.Header.Get("Content-Type"))
	}
	red, err := tosssandbox.Pay(e.ctx, url, true) // no successUrl: the widget answers the redirect query as JSON
	if err != nil {
		t.Fatal(err)
	}
	e.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": order, "paymentKey": red.PaymentKey, "amount": 3000}}).mustOK(t)
	c := e.do(req{method: "GET", path: "/home/api/v1/charge/" + order, uid: uid}).mustOK(t)
	if c["status"] != "done" || e.balance(uid, money.Blue) != 3000 {
		t.Fatalf("charge %v, balance %d", c, e.balance(uid, money.Blue))
	}
	e.do(req{method: "GET", path: "/home/api/v1/charge/" + order, uid: uid + 1}).mustFail(t, http.StatusNotFound)
	// A client key the gateway does not know cannot open the widget.
	bad := newEnv(t, money.Config{PaymentURL: sb.URL, PaymentClientKey: "test_ck_wrong", PaymentCheckoutURL: sb.URL})
	r = bad.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": 3000}}).mustOK(t)
	if _, err := tosssandbox.Pay(e.ctx, r["checkoutUrl"].(string), true); err == nil || !strings.Contains(err.Error(), "UNAUTHORIZED_KEY") {
		t.Fatalf("wrong client key: %v", err)
	}
	// A secret key the gateway does not know: the confirm is not an answer (502), the order waits.
	bad = newEnv(t, money.Config{PaymentURL: sb.URL, PaymentSecretKey: "test_sk_wrong", PaymentClientKey: tosssandbox.DefaultClientKey,
		PaymentCheckoutURL: sb.URL})
	r = bad.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": 3000}}).mustOK(t)
	red, err = tosssandbox.Pay(e.ctx, r["checkoutUrl"].(string), true)
	if err != nil {
		t.Fatal(err)
	}
	bad.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": r["orderId"], "paymentKey": red.PaymentKey, "amount": 3000}}).mustFail(t, http.StatusBadGateway)
	if bad.balance(uid, money.Blue) != 0 {
		t.Fatal("credited although the gateway refused our key")
	}
}

// Charging calls are limited per member (3 a minute here): the fourth is 429
// and creates no order; the rate refills with the clock; other members and
// bad input are not affected.
func TestChargeRateLimit(t *testing.T) {
	t.Parallel()
	p := newGatewayEnvCfg(t, 0, money.Config{ChargePerMinute: 3})
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
	var oid string
	if err := p.pool.QueryRow(p.ctx, `SELECT order_id FROM charges WHERE uid = $1 LIMIT 1`, uid).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	p.confirm(uid, oid, "tgen_x", 1000).mustFail(t, http.StatusTooManyRequests)
	p.cancel(uid, oid, nil).mustFail(t, http.StatusTooManyRequests)
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
	p := newGatewayEnv(t, 0)
	const uid = 27
	charge := func(channel string, amount int64) {
		t.Helper()
		r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(), channel: channel,
			body: map[string]any{"amount": amount}}).mustOK(t)
		red := p.pay(t, r["checkoutUrl"].(string), true)
		p.confirm(uid, r["orderId"].(string), red.PaymentKey, amount).mustOK(t)
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
