package money_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/writer/money"
	"storefront/writer/money/tosssandbox"
)

// registerCard plays the member through card registration over HTTP: the
// writer's start, the sandbox's window (approve), the success redirect's
// customerKey and authKey back to the writer. It returns the customerKey.
func (p *gatewayEnv) registerCard(t *testing.T, uid int64) string {
	t.Helper()
	start := p.do(req{method: "POST", path: "/home/api/v1/wallet/cards/registration", uid: uid,
		body: map[string]any{"successUrl": "https://store.example/wallet/cards/ok", "failUrl": "https://store.example/wallet/cards/no"}}).mustOK(t)
	if start["clientKey"] != testClient || start["successUrl"] != "https://store.example/wallet/cards/ok" {
		t.Fatalf("registration answer: %v", start)
	}
	q, err := tosssandbox.RegisterCard(p.ctx, start["windowUrl"].(string), true)
	if err != nil {
		t.Fatal(err)
	}
	if q.Get("customerKey") != start["customerKey"] || q.Get("authKey") == "" {
		t.Fatalf("window redirect: %v", q)
	}
	c := p.do(req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid,
		body: map[string]any{"customerKey": q.Get("customerKey"), "authKey": q.Get("authKey")}}).mustOK(t)
	card := c["card"].(map[string]any)
	if card["cardNumber"] != "43301234****123*" || card["cardCompany"] != "신한" || card["id"].(float64) <= 0 {
		t.Fatalf("card: %v", c)
	}
	return q.Get("customerKey")
}

func (p *gatewayEnv) setAuto(t *testing.T, uid int64, kind string, amount, trigger int64) {
	t.Helper()
	p.do(req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid,
		body: map[string]any{"is_use": true, "type": kind, "money": amount, "trigger_value": trigger}}).mustOK(t)
}

func (p *gatewayEnv) process(t *testing.T, svc *money.Service) int {
	t.Helper()
	n, err := svc.ProcessTopups(p.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (p *gatewayEnv) notices(t *testing.T, uid int64) []any {
	t.Helper()
	return p.do(req{method: "GET", path: "/home/api/v1/wallet/notices", uid: uid}).mustOK(t)["notices"].([]any)
}

// TestThresholdTopupOncePerCrossing: 64 concurrent purchases of one member
// cross the threshold once; exactly one top-up is charged at the gateway
// and credited through the ledger; the member sees it in the charge history
// and gets one receipt. A later crossing after the top-up starts another.
func TestThresholdTopupOncePerCrossing(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	p.sb.SetWebhookURL("") // the worker alone applies top-ups here
	const uid = 61
	p.addWork(work{pid: "t1", vols: 100, price: 100})
	p.fund(uid, "blue", 10000)
	ck := p.registerCard(t, uid)
	p.setAuto(t, uid, money.AutoPay, 5000, 5000)

	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := 1; i <= 64; i++ {
		wg.Add(1)
		go func(vol int) {
			defer wg.Done()
			r := p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
				body: map[string]any{"pid": "t1", "vols": []int{vol}, "buyType": "B"}})
			if r.status != 200 {
				errs <- fmt.Sprintf("vol %d: %d %s", vol, r.status, r.body)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if n := p.int(`SELECT count(*) FROM topups WHERE uid = $1`, uid); n != 1 {
		t.Fatalf("%d top-up jobs for one crossing", n)
	}
	// Running the workers of two writers at once still charges once.
	var wg2 sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg2.Add(1)
		go func() { defer wg2.Done(); _, _ = p.svc.ProcessTopups(p.ctx) }()
	}
	wg2.Wait()
	if got := p.sb.BillingCharges(ck); got != 1 {
		t.Fatalf("gateway charged %d times", got)
	}
	if b := p.balance(uid, "blue"); b != 10000-6400+5000 {
		t.Fatalf("blue %d", b)
	}
	if n := p.int(`SELECT count(*) FROM ledger WHERE uid = $1 AND reason = 'charge' AND delta = 5000`, uid); n != 1 {
		t.Fatalf("%d ledger credits", n)
	}
	p.checkLedger()
	hist := p.do(req{method: "GET", path: "/home/api/v1/charge/history", uid: uid}).mustOK(t)["list"].([]any)
	if len(hist) != 1 || hist[0].(map[string]any)["kind"] != "auto" || hist[0].(map[string]any)["status"] != "done" {
		t.Fatalf("history: %v", hist)
	}
	ns := p.notices(t, uid)
	if len(ns) != 1 || ns[0].(map[string]any)["kind"] != "topup_receipt" || !strings.Contains(ns[0].(map[string]any)["body"].(string), "5,000원") {
		t.Fatalf("notices: %v", ns)
	}
	if n := p.int(`SELECT count(*) FROM outbox WHERE convert_from(payload, 'UTF8') LIKE '%"kind":"auto"%'`); n != 1 {
		t.Fatalf("%d charge events of the top-up", n)
	}
	// Re-armed: the next crossing tops up again (1000-won volumes; the
	// first-charge bonus, 500 mileage, is spent first).
	p.addWork(work{pid: "t1b", vols: 10, price: 1000})
	for vol := 1; vol <= 10 && p.int(`SELECT count(*) FROM topups WHERE uid = $1`, uid) == 1; vol++ {
		p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
			body: map[string]any{"pid": "t1b", "vols": []int{vol}, "buyType": "B"}}).mustOK(t)
	}
	if b := p.balance(uid, "blue"); b != 4100 {
		t.Fatalf("second crossing at blue %d", b)
	}
	p.process(t, p.svc)
	if got := p.sb.BillingCharges(ck); got != 2 {
		t.Fatalf("second crossing: gateway charged %d times in all", got)
	}
	p.checkLedger()
}

// killingTransport forwards a request and then "kills" its writer: the
// gateway did the work, the writer never sees the answer and its context
// ends, so it records nothing more.
type killingTransport struct {
	kill func()
	once sync.Once
}

func (k *killingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && strings.HasPrefix(r.URL.Path, "/v1/billing/") {
		resp.Body.Close()
		k.once.Do(k.kill)
		return nil, errors.New("writer killed")
	}
	return resp, err
}

// TestScheduledTopupOnceAcrossWritersAndKill: on the chosen day two writers
// schedule at once (one job), the first writer is killed right after the
// gateway charged, the second takes the job after its lease and charges
// the same orderId: the gateway answers the first payment again, the
// member is credited once. Later ticks of the month and a restart add
// nothing; the next month charges again.
func TestScheduledTopupOnceAcrossWritersAndKill(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	p.sb.SetWebhookURL("")
	const uid = 62
	ck := p.registerCard(t, uid)
	p.setAuto(t, uid, money.ScheduledPay, 3000, 5) // on 2026-03-01 (KST), the 5th of each month

	killCtx, kill := context.WithCancel(p.ctx)
	log := slog.New(slog.DiscardHandler)
	newWriter := func(client *http.Client) *money.Service {
		return money.New(p.pool, money.Config{Now: p.clock.Now, PaymentClientKey: testClient,
			Gateway: &money.HTTPGateway{BaseURL: p.pgs.URL, SecretKey: testSecret, Client: client}}, log)
	}
	a := newWriter(&http.Client{Transport: &killingTransport{kill: kill}})
	b := newWriter(nil)

	if n, _ := a.ScheduleTopups(p.ctx); n != 0 {
		t.Fatalf("scheduled %d before the day", n)
	}
	p.clock.Add(4 * 24 * time.Hour) // 2026-03-05 21:00 KST
	var wg sync.WaitGroup
	var made [2]int64
	for i, w := range []*money.Service{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := w.ScheduleTopups(p.ctx)
			if err != nil {
				t.Error(err)
			}
			made[i] = n
		}()
	}
	wg.Wait()
	if made[0]+made[1] != 1 {
		t.Fatalf("two writers scheduled %v", made)
	}
	// Writer a dies mid-run: the gateway charged, nothing else happened.
	if _, err := a.ProcessTopups(killCtx); err == nil {
		t.Fatal("the killed writer reported success")
	}
	if got := p.sb.BillingCharges(ck); got != 1 || p.balance(uid, "blue") != 0 {
		t.Fatalf("after the kill: %d charges, blue %d", got, p.balance(uid, "blue"))
	}
	// Writer b does not take it while a's lease runs...
	if n := p.process(t, b); n != 0 {
		t.Fatalf("took a leased job: %d", n)
	}
	// ...and after it charges the same order again: one payment, one credit.
	p.clock.Add(3 * time.Minute)
	if n := p.process(t, b); n != 1 {
		t.Fatalf("ran %d jobs after the lease", n)
	}
	if got := p.sb.BillingCharges(ck); got != 1 {
		t.Fatalf("gateway charged %d times", got)
	}
	if bl := p.balance(uid, "blue"); bl != 3000 {
		t.Fatalf("blue %d", bl)
	}
	if n := p.int(`SELECT count(*) FROM ledger WHERE uid = $1 AND reason = 'charge'`, uid); n != 1 {
		t.Fatalf("%d credits", n)
	}
	// Later the same month, and a restarted writer: nothing more.
	p.clock.Add(24 * time.Hour)
	c := newWriter(nil)
	if n, _ := c.ScheduleTopups(p.ctx); n != 0 {
		t.Fatalf("scheduled again in the same month: %d", n)
	}
	if n := p.process(t, c); n != 0 {
		t.Fatalf("ran %d jobs", n)
	}
	hist := p.do(req{method: "GET", path: "/home/api/v1/charge/history", uid: uid}).mustOK(t)["list"].([]any)
	if len(hist) != 1 || hist[0].(map[string]any)["kind"] != "scheduled" || hist[0].(map[string]any)["status"] != "done" {
		t.Fatalf("history: %v", hist)
	}
	if ns := p.notices(t, uid); len(ns) != 1 || ns[0].(map[string]any)["title"] != "정기 충전 영수증" {
		t.Fatalf("notices: %v", ns)
	}
	// April 5th: the next month's top-up.
	p.clock.Add(30 * 24 * time.Hour)
	if n, _ := c.ScheduleTopups(p.ctx); n != 1 {
		t.Fatalf("next month scheduled %d", n)
	}
	p.process(t, c)
	if got := p.sb.BillingCharges(ck); got != 2 || p.balance(uid, "blue") != 6000 {
		t.Fatalf("next month: %d charges, blue %d", got, p.balance(uid, "blue"))
	}
	p.checkLedger()
}

// TestScheduledStartsFromItsDay: a setting turned on after this month's day
// waits for the next month.
func TestScheduledStartsFromItsDay(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid = 66
	p.registerCard(t, uid)
	p.clock.Add(10 * 24 * time.Hour) // March 11th
	p.setAuto(t, uid, money.ScheduledPay, 3000, 5)
	if n, _ := p.svc.ScheduleTopups(p.ctx); n != 0 {
		t.Fatalf("charged for a day before the setting: %d", n)
	}
	p.clock.Add(25 * 24 * time.Hour) // April 5th
	if n, _ := p.svc.ScheduleTopups(p.ctx); n != 1 {
		t.Fatalf("April: %d", n)
	}
}

// TestDeclinedTopupPauses: the card company declines; the setting is
// paused with the reason, the member is told, and no balance changes.
func TestDeclinedTopupPauses(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	p.sb.SetWebhookURL("")
	const uid = 63
	p.addWork(work{pid: "t2", vols: 5, price: 1000})
	p.fund(uid, "blue", 3000)
	ck := p.registerCard(t, uid)
	p.sb.DeclineCustomer(ck, true)
	p.setAuto(t, uid, money.AutoPay, 10000, 2500)
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "t2", "vols": []int{1}, "buyType": "B"}}).mustOK(t)
	balances := p.int(`SELECT count(*) FROM ledger WHERE uid = $1`, uid)
	p.process(t, p.svc)
	if n := p.int(`SELECT count(*) FROM ledger WHERE uid = $1`, uid); n != balances || p.balance(uid, "blue") != 2000 || p.balance(uid, "mileage") != 0 {
		t.Fatalf("a decline moved money: %d ledger rows, blue %d", n, p.balance(uid, "blue"))
	}
	ap := p.do(req{method: "GET", path: "/home/api/v1/wallet/auto-payment", uid: uid}).mustOK(t)
	info := ap
	if v, ok := ap["auto_payment_info"].(map[string]any); ok {
		info = v
	}
	if info["is_use"] != false || !strings.Contains(fmt.Sprint(info["paused_reason"]), "카드사") {
		t.Fatalf("setting not paused: %v", ap)
	}
	ns := p.notices(t, uid)
	if len(ns) != 1 || ns[0].(map[string]any)["kind"] != "topup_paused" {
		t.Fatalf("notices: %v", ns)
	}
	hist := p.do(req{method: "GET", path: "/home/api/v1/charge/history", uid: uid}).mustOK(t)["list"].([]any)
	if len(hist) != 1 || hist[0].(map[string]any)["status"] != "failed" {
		t.Fatalf("history: %v", hist)
	}
	// Paused: more purchases under the threshold start nothing.
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "t2", "vols": []int{2}, "buyType": "B"}}).mustOK(t)
	if n := p.int(`SELECT count(*) FROM topups WHERE uid = $1`, uid); n != 1 {
		t.Fatalf("%d jobs while paused", n)
	}
	// Turned on again with a card that works: the next purchase tops up.
	p.sb.DeclineCustomer(ck, false)
	p.setAuto(t, uid, money.AutoPay, 10000, 2500)
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "t2", "vols": []int{3}, "buyType": "B"}}).mustOK(t)
	p.process(t, p.svc)
	if p.balance(uid, "blue") != 10000 || p.sb.BillingCharges(ck) != 1 {
		t.Fatalf("after turning it on again: blue %d, %d charges", p.balance(uid, "blue"), p.sb.BillingCharges(ck))
	}
	p.checkLedger()
}

// TestTopupRetriesThenPauses: a gateway failure is retried with a doubling
// wait under the same orderId; the attempt after two failures succeeds.
// With no answer at all, the setting pauses after the last attempt.
func TestTopupRetriesThenPauses(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	p.sb.SetWebhookURL("")
	const uid = 64
	p.addWork(work{pid: "t3", vols: 5, price: 1000})
	p.fund(uid, "blue", 3000)
	ck := p.registerCard(t, uid)
	p.setAuto(t, uid, money.AutoPay, 5000, 2500)
	p.sb.FailNextBilling(2)
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "t3", "vols": []int{1}, "buyType": "B"}}).mustOK(t)
	p.process(t, p.svc) // attempt 1: 500
	// The stored error names the call, never the billing key in its path.
	var lastErr string
	if err := p.pool.QueryRow(p.ctx, `SELECT last_error FROM topups WHERE uid = $1`, uid).Scan(&lastErr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lastErr, "/v1/billing/[billingKey]") || regexp.MustCompile(`[0-9a-f]{48}`).MatchString(lastErr) {
		t.Fatalf("last_error: %q", lastErr)
	}
	if n := p.process(t, p.svc); n != 0 {
		t.Fatal("retried before its wait")
	}
	p.clock.Add(time.Minute)
	p.process(t, p.svc) // attempt 2: 500, next wait 2 minutes
	p.clock.Add(time.Minute)
	if n := p.process(t, p.svc); n != 0 {
		t.Fatal("the wait did not double")
	}
	p.clock.Add(time.Minute)
	p.process(t, p.svc) // attempt 3: done
	if p.balance(uid, "blue") != 7000 || p.sb.BillingCharges(ck) != 1 || p.int(`SELECT attempts FROM topups WHERE uid = $1`, uid) != 3 {
		t.Fatalf("blue %d, %d charges", p.balance(uid, "blue"), p.sb.BillingCharges(ck))
	}

	// A gateway that never answers: five attempts, then paused, no money moved.
	const uid2 = 65
	p.fund(uid2, "blue", 3000)
	p.registerCard(t, uid2)
	p.setAuto(t, uid2, money.AutoPay, 5000, 2500)
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid2, key: newKey(),
		body: map[string]any{"pid": "t3", "vols": []int{1}, "buyType": "B"}}).mustOK(t)
	p.sb.FailNextBilling(100)
	for i := 0; i < 6; i++ {
		p.process(t, p.svc)
		p.clock.Add(time.Hour)
	}
	if p.balance(uid2, "blue") != 2000 || p.int(`SELECT count(*) FROM auto_payments WHERE uid = $1 AND NOT is_use AND topup_state = 'paused'`, uid2) != 1 ||
		p.int(`SELECT attempts FROM topups WHERE uid = $1`, uid2) != 5 {
		t.Fatalf("not paused after 5 attempts: blue %d", p.balance(uid2, "blue"))
	}
	p.checkLedger()
}

// TestCardRegistration: the billing key is stored encrypted and never
// shown; a member cannot register with another member's customerKey, an
// authKey works once, a window given up registers nothing; removal.
func TestCardRegistration(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid, other = 71, 72
	ck := p.registerCard(t, uid)
	var enc []byte
	if err := p.pool.QueryRow(p.ctx, `SELECT key_enc FROM billing_cards WHERE uid = $1`, uid).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	// The sandbox's billing keys are 48 hex characters: none in the row.
	if len(enc) < 48 || bytes.Contains(enc, []byte("billing")) || isHex(enc) {
		t.Fatalf("billing key not encrypted: %q", enc)
	}
	list := p.do(req{method: "GET", path: "/home/api/v1/wallet/cards", uid: uid}).mustOK(t)
	cards := list["cards"].([]any)
	if len(cards) != 1 || strings.Contains(fmt.Sprint(list), "billingKey") {
		t.Fatalf("cards: %v", list)
	}
	// Another member's customerKey (from a window opened by uid) is refused.
	start := p.do(req{method: "POST", path: "/home/api/v1/wallet/cards/registration", uid: uid, body: map[string]any{}}).mustOK(t)
	q, err := tosssandbox.RegisterCard(p.ctx, start["windowUrl"].(string), true)
	if err != nil {
		t.Fatal(err)
	}
	p.do(req{method: "POST", path: "/home/api/v1/wallet/cards/registration", uid: other, body: map[string]any{}}).mustOK(t)
	p.do(req{method: "POST", path: "/home/api/v1/wallet/cards", uid: other,
		body: map[string]any{"customerKey": ck, "authKey": q.Get("authKey")}}).mustFail(t, http.StatusForbidden)
	// Used once: a second card; the same authKey again is refused by the gateway.
	p.do(req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid,
		body: map[string]any{"customerKey": ck, "authKey": q.Get("authKey")}}).mustOK(t)
	if n := p.int(`SELECT count(*) FROM billing_cards WHERE uid = $1`, uid); n != 2 {
		t.Fatalf("%d cards", n)
	}
	// A window given up comes back with the code and no authKey.
	q2, err := tosssandbox.RegisterCard(p.ctx, start["windowUrl"].(string), false)
	if err != nil || q2.Get("code") != "PAY_PROCESS_CANCELED" || q2.Get("authKey") != "" {
		t.Fatalf("give up: %v %v", q2, err)
	}
	// Removal: own cards only.
	id := int64(cards[0].(map[string]any)["id"].(float64))
	p.do(req{method: "DELETE", path: fmt.Sprintf("/home/api/v1/wallet/cards/%d", id), uid: other}).mustFail(t, http.StatusNotFound)
	p.do(req{method: "DELETE", path: fmt.Sprintf("/home/api/v1/wallet/cards/%d", id), uid: uid}).mustOK(t)
	if n := p.int(`SELECT count(*) FROM billing_cards WHERE uid = $1`, uid); n != 1 {
		t.Fatalf("%d cards after removal", n)
	}
	// The window refuses a forged session with a foreign return address.
	forged := tosssandbox.BillingWindowURL(p.pgs.URL, testClient, ck, "javascript:alert(1)", "")
	if _, err := tosssandbox.RegisterCard(p.ctx, forged, true); err == nil {
		t.Fatal("forged window accepted")
	}
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// TestBillingBadInput: bad requests of the card and auto-payment routes
// answer the seed's envelope with a Korean message and change nothing.
func TestBillingBadInput(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid, other = 81, 82
	ck := p.registerCard(t, uid)
	p.setAuto(t, uid, money.AutoPay, 5000, 1000)
	before := p.snapshot() + p.billingSnapshot()
	auto := "/home/api/v1/wallet/auto-payment"
	cases := []struct {
		name   string
		r      req
		status int
	}{
		{"type out of range", req{method: "PUT", path: auto, uid: uid, body: map[string]any{"is_use": true, "type": "bluemoney-weekly", "money": 5000, "trigger_value": 1}}, 400},
		{"day 29", req{method: "PUT", path: auto, uid: uid, body: map[string]any{"is_use": true, "type": money.ScheduledPay, "money": 5000, "trigger_value": 29}}, 400},
		{"day 0", req{method: "PUT", path: auto, uid: uid, body: map[string]any{"is_use": true, "type": money.ScheduledPay, "money": 5000, "trigger_value": 0}}, 400},
		{"threshold negative", req{method: "PUT", path: auto, uid: uid, body: map[string]any{"is_use": true, "type": money.AutoPay, "money": 5000, "trigger_value": -1}}, 400},
		{"money odd", req{method: "PUT", path: auto, uid: uid, body: map[string]any{"is_use": true, "type": money.AutoPay, "money": 5050, "trigger_value": 1000}}, 400},
		{"money huge", req{method: "PUT", path: auto, uid: uid, body: map[string]any{"is_use": true, "type": money.AutoPay, "money": 2000000, "trigger_value": 1000}}, 400},
		{"paused reason given", req{method: "PUT", path: auto, uid: uid, body: map[string]any{"is_use": true, "type": money.AutoPay, "money": 5000, "trigger_value": 1000, "paused_reason": "x"}}, 400},
		{"repeated uid", req{method: "PUT", path: auto, uid: uid, ctype: "application/json",
			body: fmt.Sprintf(`{"uid":"%d","uid":"%d","is_use":false}`, uid, other)}, 400},
		{"other uid", req{method: "PUT", path: auto, uid: uid, body: map[string]any{"uid": other, "is_use": false}}, 403},
		{"no session", req{method: "POST", path: "/home/api/v1/wallet/cards/registration", body: map[string]any{}}, 401},
		{"foreign success url", req{method: "POST", path: "/home/api/v1/wallet/cards/registration", uid: other, body: map[string]any{"successUrl": "https://evil.example/x"}}, 400},
		{"javascript fail url", req{method: "POST", path: "/home/api/v1/wallet/cards/registration", uid: other, body: map[string]any{"failUrl": "javascript:alert(1)"}}, 400},
		{"card no authKey", req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid, body: map[string]any{"customerKey": ck}}, 400},
		{"card repeated customerKey", req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid, ctype: "application/json",
			body: fmt.Sprintf(`{"customerKey":"%s","customerKey":"cus_other","authKey":"x"}`, ck)}, 400},
		{"card repeated uid", req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid, ctype: "application/json",
			body: fmt.Sprintf(`{"uid":"%d","uid":"%d","customerKey":"%s","authKey":"x"}`, uid, other, ck)}, 400},
		{"card other uid", req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid, body: map[string]any{"uid": other, "customerKey": ck, "authKey": "x"}}, 403},
		{"card unknown authKey", req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid, body: map[string]any{"customerKey": ck, "authKey": "bln_nosuch"}}, 400},
		{"card unknown field", req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid, body: map[string]any{"customerKey": ck, "authKey": "x", "billingKey": "y"}}, 400},
		{"card form body", req{method: "POST", path: "/home/api/v1/wallet/cards", uid: uid, ctype: "application/x-www-form-urlencoded", body: "customerKey=" + url.QueryEscape(ck)}, 415},
		{"delete with body", req{method: "DELETE", path: "/home/api/v1/wallet/cards/1", uid: uid, body: map[string]any{"id": 1}}, 400},
		{"delete bad id", req{method: "DELETE", path: "/home/api/v1/wallet/cards/abc", uid: uid}, 400},
		{"delete unknown", req{method: "DELETE", path: "/home/api/v1/wallet/cards/999999", uid: uid}, 404},
		{"notices bad limit", req{method: "GET", path: "/home/api/v1/wallet/notices?limit=0", uid: uid}, 400},
		{"notices other uid", req{method: "GET", path: fmt.Sprintf("/home/api/v1/wallet/notices?uid=%d", other), uid: uid}, 403},
	}
	for _, c := range cases {
		r := p.do(c.r)
		r.mustFail(t, c.status)
		msg, _ := r.json(t)["header"].(map[string]any)["message"].(string)
		if !hasHangul(msg) {
			t.Errorf("%s: message not Korean: %q", c.name, msg)
		}
		if after := p.snapshot() + p.billingSnapshot(); after != before {
			t.Fatalf("%s changed something", c.name)
		}
	}
}

func (e *env) billingSnapshot() string {
	e.t.Helper()
	return fmt.Sprint(e.int(`SELECT count(*) FROM billing_cards`), e.int(`SELECT count(*) FROM topups`), e.int(`SELECT count(*) FROM money_notices`))
}

func hasHangul(s string) bool {
	for _, r := range s {
		if r >= 0xAC00 && r <= 0xD7A3 {
			return true
		}
	}
	return false
}

// TestTopupWithWebhookAndJumpingPass: a jumping pass paid with blue money
// crosses the threshold like a purchase; the gateway's webhook of the
// billing payment and the worker both apply it, and it is credited once.
func TestTopupWithWebhookAndJumpingPass(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0) // webhooks on
	const uid = 67
	p.exec(`INSERT INTO site_docs (key, doc) VALUES ('jumpingpass', '{"title":"점핑패스","price":1000,"days":7}')`)
	p.fund(uid, "blue", 3000)
	ck := p.registerCard(t, uid)
	p.setAuto(t, uid, money.AutoPay, 5000, 2500)
	p.do(req{method: "POST", path: "/home/api/v1/coupons/jumping-pass", uid: uid, key: newKey()}).mustOK(t)
	if n := p.int(`SELECT count(*) FROM topups WHERE uid = $1 AND kind = 'threshold'`, uid); n != 1 {
		t.Fatalf("%d jobs after the jumping pass", n)
	}
	p.process(t, p.svc)
	p.sb.Wait() // the DONE webhook reached the writer and was applied (or found it applied)
	for i, d := range p.sb.Deliveries() {
		if d.Code != 200 {
			t.Fatalf("webhook %d answered %d", i, d.Code)
		}
	}
	if p.sb.BillingCharges(ck) != 1 || p.balance(uid, "blue") != 2000+5000 ||
		p.int(`SELECT count(*) FROM ledger WHERE uid = $1 AND reason = 'charge'`, uid) != 1 {
		t.Fatalf("blue %d, %d charges", p.balance(uid, "blue"), p.sb.BillingCharges(ck))
	}
	if n := p.int(`SELECT count(*) FROM money_notices WHERE uid = $1 AND kind = 'topup_receipt'`, uid); n != 1 {
		t.Fatalf("%d receipts", n)
	}
	p.checkLedger()
}
