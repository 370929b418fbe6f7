package money_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"storefront/writer/money"
	"storefront/writer/push"
	"storefront/writer/push/pushtest"
)

// pushDevice gives member uid a users row and one browser subscription at a
// fake push service, as the push routes store it, and answers the push
// worker of a writer on the same database (same clock) and the endpoint.
func (p *gatewayEnv) pushDevice(t *testing.T, uid int64, channel string) (*push.Worker, *pushtest.Service, string) {
	t.Helper()
	f, err := pushtest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	sub, err := f.NewSubscription(push.DevPublicKey)
	if err != nil {
		t.Fatal(err)
	}
	p.exec(`INSERT INTO users (uid, login_type, login_id, bid) VALUES ($1, 'N', 'topup-push-' || $1::bigint, 'topup-push-b' || $1::bigint)`, uid)
	p.exec(`INSERT INTO push_subscriptions (uid, endpoint, p256dh, auth, channel, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, now(), now())`, uid, sub.Endpoint, sub.Keys.P256dh, sub.Keys.Auth, channel)
	ps, err := push.New(p.pool, push.Config{EndpointHosts: "127.0.0.1", AllowHTTP: true, Now: p.clock.Now, Window: time.Hour},
		slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	return ps.Worker(nil), f, sub.Endpoint
}

// payloads runs the push worker once and answers every notification the
// fake push service has decrypted for endpoint so far.
func payloads(t *testing.T, w *push.Worker, f *pushtest.Service, endpoint string) []push.Payload {
	t.Helper()
	if _, err := w.Once(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := f.Refused(); len(r) > 0 {
		t.Fatalf("the push service refused: %v", r)
	}
	var out []push.Payload
	for _, m := range f.Messages(endpoint) {
		var pl push.Payload
		if err := json.Unmarshal(m.Payload, &pl); err != nil {
			t.Fatal(err)
		}
		out = append(out, pl)
	}
	return out
}

// TestTopupReceiptPushed (issue 32: "gets a receipt notification"): each
// automatic top-up's receipt reaches the member's browser by Web Push once,
// however often the workers run, with the same words as the history; the
// setting pausing after a decline is pushed too; a device of the app
// (which rings through its bridge) gets nothing, and neither does a notice
// older than the push window.
func TestTopupReceiptPushed(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	p.sb.SetWebhookURL("")
	const uid = 71
	w, f, ep := p.pushDevice(t, uid, "AW")
	p.addWork(work{pid: "rp", vols: 10, price: 1000})
	p.fund(uid, "blue", 3000)
	ck := p.registerCard(t, uid)
	p.setAuto(t, uid, money.AutoPay, 5000, 2500)
	if got := payloads(t, w, f, ep); len(got) != 0 {
		t.Fatalf("pushed before any top-up: %v", got)
	}
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "rp", "vols": []int{1}, "buyType": "B"}}).mustOK(t)
	p.process(t, p.svc)
	if p.sb.BillingCharges(ck) != 1 || p.balance(uid, "blue") != 2000+5000 {
		t.Fatalf("top-up: %d charges, blue %d", p.sb.BillingCharges(ck), p.balance(uid, "blue"))
	}
	ns := p.notices(t, uid)
	if len(ns) != 1 {
		t.Fatalf("notices: %v", ns)
	}
	n := ns[0].(map[string]any)
	got := payloads(t, w, f, ep)
	want := push.Payload{Title: "자동 충전 영수증", Body: n["body"].(string), URL: push.NoticeURL, Tag: "money:" + jsonNumber(n["id"])}
	if len(got) != 1 || got[0] != want || !strings.Contains(want.Body, "5,000원") || !strings.Contains(want.Body, n["orderId"].(string)) {
		t.Fatalf("pushed %+v, want one %+v", got, want)
	}
	// Another look (or another writer's worker) sends nothing again.
	if got := payloads(t, w, f, ep); len(got) != 1 {
		t.Fatalf("the receipt rang %d times", len(got))
	}

	// A declined top-up pauses the setting: the member is told on the device.
	p.sb.DeclineCustomer(ck, true)
	for vol := 2; p.int(`SELECT count(*) FROM topups WHERE uid = $1`, uid) == 1; vol++ {
		p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
			body: map[string]any{"pid": "rp", "vols": []int{vol}, "buyType": "B"}}).mustOK(t)
	}
	p.process(t, p.svc)
	got = payloads(t, w, f, ep)
	if len(got) != 2 || got[1].Title != "자동 충전이 멈췄습니다" || !strings.Contains(got[1].Body, "카드") || got[1].URL != push.NoticeURL {
		t.Fatalf("pause pushed as %+v", got)
	}

	// The app's web view rings through the app, never by Web Push; a notice
	// the worker finds only after the window (a writer down for hours) is
	// history, not news.
	const appUID = 72
	wa, fa, epa := p.pushDevice(t, appUID, "AA")
	p.exec(`INSERT INTO money_notices (uid, kind, title, body, order_id, amount, created_at) VALUES ($1, 'topup_receipt', '자동 충전 영수증', '앱', 'o-app', 1000, $2)`,
		appUID, p.clock.Now())
	p.exec(`INSERT INTO money_notices (uid, kind, title, body, order_id, amount, created_at) VALUES ($1, 'topup_receipt', '자동 충전 영수증', '늦음', 'o-late', 1000, $2)`,
		uid, p.clock.Now().Add(-2*time.Hour))
	if got := payloads(t, wa, fa, epa); len(got) != 0 {
		t.Fatalf("pushed to the app: %v", got)
	}
	if got := payloads(t, w, f, ep); len(got) != 2 {
		t.Fatalf("a late notice rang: %+v", got)
	}
	if n := p.int(`SELECT count(*) FROM money_notices WHERE pushed_at IS NULL`); n != 0 {
		t.Fatalf("%d notices left to fan out", n)
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRemovedCardIsNeverCharged: removing a card deletes its encrypted
// billing key from our database; Toss's v1 API has no call to delete a
// billing key (README, Automatic top-up), so the gateway is not called and
// the key can only be used by whoever holds it: nobody. A top-up that comes
// due afterwards charges nothing at the gateway, pauses the setting with
// the no-card reason and tells the member (history and notice).
func TestRemovedCardIsNeverCharged(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	p.sb.SetWebhookURL("")
	const uid = 73
	p.addWork(work{pid: "rm", vols: 3, price: 1000})
	p.fund(uid, "blue", 3000)
	ck := p.registerCard(t, uid)
	p.setAuto(t, uid, money.AutoPay, 5000, 2500)
	cards := p.do(req{method: "GET", path: "/home/api/v1/wallet/cards", uid: uid}).mustOK(t)["cards"].([]any)
	id := jsonNumber(cards[0].(map[string]any)["id"])
	p.do(req{method: "DELETE", path: "/home/api/v1/wallet/cards/" + id, uid: uid}).mustOK(t)
	if n := p.int(`SELECT count(*) FROM billing_cards WHERE uid = $1`, uid); n != 0 {
		t.Fatalf("%d encrypted keys left after removal", n)
	}
	if cs := p.do(req{method: "GET", path: "/home/api/v1/wallet/cards", uid: uid}).mustOK(t)["cards"].([]any); len(cs) != 0 {
		t.Fatalf("cards after removal: %v", cs)
	}
	// Removing it again: 404, nothing else changes.
	p.do(req{method: "DELETE", path: "/home/api/v1/wallet/cards/" + id, uid: uid}).mustFail(t, http.StatusNotFound)

	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "rm", "vols": []int{1}, "buyType": "B"}}).mustOK(t)
	p.process(t, p.svc)
	if got := p.sb.BillingCharges(ck); got != 0 {
		t.Fatalf("the removed card was charged %d times", got)
	}
	if b := p.balance(uid, "blue"); b != 2000 {
		t.Fatalf("blue %d", b)
	}
	ns := p.notices(t, uid)
	if len(ns) != 1 || ns[0].(map[string]any)["kind"] != "topup_paused" || !strings.Contains(ns[0].(map[string]any)["body"].(string), "등록된 카드가 없어") {
		t.Fatalf("notices: %v", ns)
	}
	hist := p.do(req{method: "GET", path: "/home/api/v1/charge/history", uid: uid}).mustOK(t)["list"].([]any)
	if len(hist) != 1 || hist[0].(map[string]any)["status"] != "failed" {
		t.Fatalf("history: %v", hist)
	}
	p.checkLedger()
}
