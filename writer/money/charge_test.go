package money_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/writer/money"
	"storefront/writer/money/tosssandbox"
)

type pgEnv struct {
	*env
	sb  *tosssandbox.Sandbox
	pgs *httptest.Server
	gw  *money.HTTPGateway // the writer's own client, to act as its earlier attempt or the console
}

const testSecret, testClient = "test_sk_unit", "test_ck_unit"

func newPGEnv(t *testing.T, decline int64) *pgEnv {
	return newPGEnvCfg(t, decline, money.Config{})
}

// newPGEnvCfg is newPGEnv with other settings (the gateway is set here).
// The sandbox follows the writer's test clock.
func newPGEnvCfg(t *testing.T, decline int64, cfg money.Config) *pgEnv {
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
	e = newEnv(t, cfg)
	sb.SetWebhookURL(e.srv.URL + money.WebhookPath)
	return &pgEnv{env: e, sb: sb, pgs: pgs, gw: gw}
}

// pay plays the buyer in the widget: approve (or give up) on the sandbox's checkout page.
func (p *pgEnv) pay(t *testing.T, checkoutURL string, approve bool) tosssandbox.Redirect {
	t.Helper()
	r, err := tosssandbox.Pay(p.ctx, checkoutURL, approve)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (p *pgEnv) status(orderID string) string {
	var s string
	if err := p.pool.QueryRow(p.ctx, `SELECT status FROM charges WHERE order_id = $1`, orderID).Scan(&s); err != nil {
		p.t.Fatal(err)
	}
	return s
}

func (p *pgEnv) request(t *testing.T, uid int64, amount int64) (orderID, checkoutURL string) {
	t.Helper()
	r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": amount, "successUrl": "https://store.example/charge/ok", "failUrl": "https://store.example/charge/no"}}).mustOK(t)
	return r["orderId"].(string), r["checkoutUrl"].(string)
}

func (p *pgEnv) confirm(uid int64, orderID, paymentKey string, amount int64) resp {
	return p.do(req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: newKey(),
		body: map[string]any{"orderId": orderID, "paymentKey": paymentKey, "amount": amount}})
}

// charge runs the whole flow: order, widget, confirm.
func (p *pgEnv) charge(t *testing.T, uid int64, amount int64) (orderID, paymentKey string) {
	t.Helper()
	order, url := p.request(t, uid, amount)
	r := p.pay(t, url, true)
	if c := p.confirm(uid, order, r.PaymentKey, amount).mustOK(t); c["status"] != "done" {
		t.Fatalf("charge %s: %v", order, c)
	}
	return order, r.PaymentKey
}

func (p *pgEnv) cancel(uid int64, orderID string, body any) resp {
	return p.do(req{method: "POST", path: "/home/api/v1/charge/" + orderID + "/cancel", uid: uid, key: newKey(), body: body})
}

// webhook posts a webhook body as the gateway would (no signature).
func (p *pgEnv) webhook(t *testing.T, body []byte) (int, map[string]any) {
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
	p := newPGEnv(t, 0)
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
	p := newPGEnv(t, 7000)
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
	p := newPGEnv(t, 0)
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

// A confirm that reached the gateway but never committed here (crash,
// deadlock retry) is credited exactly once: by the next confirm (the
// gateway answers ALREADY_PROCESSED_PAYMENT, the lookup says DONE) or by the
// webhook.
func TestConfirmAfterLostCommit(t *testing.T) {
	t.Parallel()
	p := newPGEnv(t, 0)
	const uid = 24
	order, url := p.request(t, uid, 4000)
	red := p.pay(t, url, true)
	p.sb.SetWebhookURL("") // the webhook is delayed
	if _, err := p.gw.Confirm(p.ctx, "earlier-attempt", red.PaymentKey, order, 4000); err != nil {
		t.Fatal(err)
	}
	r := p.confirm(uid, order, red.PaymentKey, 4000).mustOK(t)
	if r["status"] != "done" || p.balance(uid, money.Blue) != 4000 {
		t.Fatalf("confirm after a lost commit: %v, balance %d", r, p.balance(uid, money.Blue))
	}
	// The delayed DONE webhook arrives: nothing more is credited.
	p.sb.SetWebhookURL(p.srv.URL + money.WebhookPath)
	for i := range p.sb.Deliveries() {
		if err := p.sb.Redeliver(i); err != nil {
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

// loseAnswers passes requests on but loses the answer of the first n whose
// path ends with suffix: the gateway acted, the writer never heard.
type loseAnswers struct {
	mu     sync.Mutex
	suffix string
	n      int
}

func (l *loseAnswers) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil && l.n > 0 && strings.HasSuffix(r.URL.Path, l.suffix) {
		l.n--
		res.Body.Close()
		return nil, errors.New("connection reset by peer")
	}
	return res, err
}

// The network loses the gateway's answer to our confirm (and to a cancel):
// the writer looks the payment up by order id (by key) and applies it once.
func TestConfirmNetworkLoss(t *testing.T) {
	t.Parallel()
	lose := &loseAnswers{suffix: "/confirm", n: 1}
	var p *pgEnv
	p = newPGEnvCfg(t, 0, money.Config{Gateway: &lazyGateway{get: func() money.PaymentGateway {
		return &money.HTTPGateway{BaseURL: p.pgs.URL, SecretKey: testSecret, Client: &http.Client{Transport: lose}}
	}}})
	const uid = 29
	order, url := p.request(t, uid, 6000)
	red := p.pay(t, url, true)
	r := p.confirm(uid, order, red.PaymentKey, 6000).mustOK(t)
	if r["status"] != "done" || p.balance(uid, money.Blue) != 6000 || lose.n != 0 {
		t.Fatalf("confirm with a lost answer: %v, balance %d, lost %d", r, p.balance(uid, money.Blue), 1-lose.n)
	}
	lose.mu.Lock()
	lose.suffix, lose.n = "/cancel", 1
	lose.mu.Unlock()
	r = p.cancel(uid, order, map[string]any{"cancelAmount": 1000}).mustOK(t)
	if r["status"] != "partial_canceled" || p.balance(uid, money.Blue) != 5000 {
		t.Fatalf("cancel with a lost answer: %v, balance %d", r, p.balance(uid, money.Blue))
	}
	p.sb.Wait()
	if p.balance(uid, money.Blue) != 5000 {
		t.Fatalf("webhooks moved the balance to %d", p.balance(uid, money.Blue))
	}
	p.checkLedger()
}

// lazyGateway builds its gateway on first use (the sandbox's URL is known
// only after the env is made).
type lazyGateway struct {
	once sync.Once
	get  func() money.PaymentGateway
	gw   money.PaymentGateway
}

func (l *lazyGateway) g() money.PaymentGateway { l.once.Do(func() { l.gw = l.get() }); return l.gw }
func (l *lazyGateway) Confirm(ctx context.Context, k, pk, o string, a int64) (money.Payment, error) {
	return l.g().Confirm(ctx, k, pk, o, a)
}
func (l *lazyGateway) Payment(ctx context.Context, pk string) (money.Payment, error) {
	return l.g().Payment(ctx, pk)
}
func (l *lazyGateway) PaymentByOrder(ctx context.Context, o string) (money.Payment, error) {
	return l.g().PaymentByOrder(ctx, o)
}
func (l *lazyGateway) Cancel(ctx context.Context, k, pk string, c money.CancelRequest) (money.Payment, error) {
	return l.g().Cancel(ctx, k, pk, c)
}
func (l *lazyGateway) Settlements(ctx context.Context, s, e time.Time, page, size int) ([]money.Settlement, error) {
	return l.g().Settlements(ctx, s, e, page, size)
}

// A refund made at the gateway's console reaches us only as a webhook: the
// lookup it triggers takes the money back, partially then fully; what was
// spent meanwhile is recorded as the shortfall, never a negative balance.
func TestConsoleRefundWebhook(t *testing.T) {
	t.Parallel()
	p := newPGEnv(t, 0)
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
	p.checkLedger()
}

// Refunds race purchases spending the same money: both take the wallet
// lock, so every won is spent or refunded once and the balance never goes
// below zero. 12 purchases and 6 refunds of 1000 each against 10000.
func TestRefundRacesPurchases(t *testing.T) {
	t.Parallel()
	p := newPGEnvCfg(t, 0, money.Config{ChargePerMinute: 100})
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

// Charging calls are limited per member (3 a minute here): the fourth is 429
// and creates no order; the rate refills with the clock; other members and
// bad input are not affected.
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
	p := newPGEnv(t, 0)
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
