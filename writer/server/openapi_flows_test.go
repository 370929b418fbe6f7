package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"storefront/contract"
	"storefront/writer/auth"
	"storefront/writer/internal/writertest"
	"storefront/writer/money"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/server"
)

func openAPIRouter(t *testing.T, base string) routers.Router {
	t.Helper()
	doc := loadOpenAPI(t)
	doc.Servers = openapi3.Servers{{URL: base}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return router
}

// noRedirect is a browser step outside the writer (a provider's page, the
// gateway's checkout): one hop, not followed.
var noRedirect = &http.Client{Timeout: 10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// TestWriterFlowsMatchOpenAPI drives what TestWriterAnswersMatchOpenAPI only
// refuses, against the real writer with fakes for the third parties that
// speak their real HTTP: OAuth2 login at fake Kakao and Naver providers
// (writertest.OAuthProvider), webhooks of the Toss sandbox that change a
// charge, the jumping pass bought with that money and used, and the comic
// heroism coupon claim. Every request and answer is checked against
// docs/openapi.yaml, the refusals as refusals (checker.refused).
func TestWriterFlowsMatchOpenAPI(t *testing.T) {
	t.Parallel()
	kakao := writertest.NewOAuthProvider(t, "kakao", "4242")
	naver := writertest.NewOAuthProvider(t, "naver", "nv-abc")
	// The Toss sandbox is the test's, without a webhook URL: its webhooks are
	// recorded and the test delivers them, so the document sees them.
	pg := tosssandbox.New(tosssandbox.Config{DeclineAmount: 2000})
	pgsrv := httptest.NewServer(pg.Handler())
	t.Cleanup(pgsrv.Close)
	t.Cleanup(pg.Close)
	e := writertest.StartWriter(t, func(c *server.Config) {
		c.Providers = map[string]auth.Provider{"kakao": kakao.Provider(), "naver": naver.Provider()}
		c.PaymentURL, c.PaymentCheckoutURL = pgsrv.URL, pgsrv.URL
	})
	router := openAPIRouter(t, e.Base)
	now := time.Now().UTC().Truncate(time.Second)
	admin := newChecker(t, router, e.Base)
	bearer := "Authorization: Bearer tok"

	// --- 1. Social login: start -> the provider's authorize page -> callback.
	// authorize starts a login and has the provider answer; it returns the
	// callback path and query the provider redirected the browser to.
	authorize := func(c *checker, provider, returnTo string) (string, url.Values) {
		t.Helper()
		c.want(302, "GET", "/home/api/v1/auth/oauth/"+provider+"/start?url="+url.QueryEscape(returnTo), nil)
		loc, err := url.Parse(c.header.Get("Location"))
		p := map[string]*writertest.OAuthProvider{"kakao": kakao, "naver": naver}[provider]
		if err != nil || !strings.HasPrefix(loc.String(), p.URL+"/authorize?") {
			t.Fatalf("%s start redirected to %q, not to the provider", provider, c.header.Get("Location"))
		}
		q := loc.Query()
		if q.Get("state") == "" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
			q.Get("redirect_uri") != e.Base+"/home/api/v1/auth/oauth/"+provider+"/callback" {
			t.Fatalf("%s authorize request without state, PKCE or our callback: %s", provider, loc)
		}
		resp, err := noRedirect.Get(loc.String())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cb, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || resp.StatusCode != 302 || !strings.HasPrefix(cb.String(), q.Get("redirect_uri")+"?") {
			t.Fatalf("%s authorize: %d %q", provider, resp.StatusCode, resp.Header.Get("Location"))
		}
		return cb.Path, cb.Query()
	}
	login := func(provider, wantID string) *checker {
		t.Helper()
		c := admin.browser()
		path, q := authorize(c, provider, "/novel")
		c.want(302, "GET", path+"?"+q.Encode(), nil)
		if loc := c.header.Get("Location"); loc != "/novel" {
			t.Errorf("%s callback returned to %q, want /novel", provider, loc)
		}
		me := c.want(200, "GET", "/home/api/v1/auth/me", nil)
		if field[string](t, me, "authInfo", "id") != wantID || field[string](t, me, "authInfo", "loginType") != "S" {
			t.Errorf("%s login is not the social member %s: %s", provider, wantID, me)
		}
		return c
	}
	m := login("kakao", "kakao_4242")
	uid := field[string](t, m.want(200, "GET", "/home/api/v1/auth/me", nil), "authInfo", "uid")
	n := login("naver", "naver_nv-abc")
	if again := login("kakao", "kakao_4242"); field[string](t, again.want(200, "GET", "/home/api/v1/auth/me", nil), "authInfo", "uid") != uid {
		t.Error("a second kakao login made another member")
	}
	// The member declines at the provider: back to the login page, logged out.
	v := admin.browser()
	path, q := authorize(v, "kakao", "/novel")
	v.want(302, "GET", path+"?"+url.Values{"state": {q.Get("state")}, "error": {"access_denied"}}.Encode(), nil)
	if loc := v.header.Get("Location"); loc != "/nuxgin?url=%2Fnovel" {
		t.Errorf("declined login redirected to %q", loc)
	}
	if me := v.want(200, "GET", "/home/api/v1/auth/me", nil); field[any](t, me, "authInfo") != nil {
		t.Errorf("declined login logged in: %s", me)
	}
	// The provider refuses a code it never issued (its token endpoint answers
	// invalid_grant); a state not the session's, a callback without code and
	// an unknown provider are refused before asking it.
	path, q = authorize(v, "kakao", "/novel")
	v.refused(401, "", "GET", path+"?"+url.Values{"state": {q.Get("state")}, "code": {"never-issued"}}.Encode(), nil)
	path, q = authorize(v, "naver", "/novel")
	v.refused(400, "", "GET", path+"?"+url.Values{"state": {q.Get("state")}}.Encode(), nil)
	v.refused(400, "", "GET", "/home/api/v1/auth/oauth/kakao/callback?state=forged&code=x", nil)
	v.refused(404, "provider", "GET", "/home/api/v1/auth/oauth/facebook/start?url=%2F", nil)
	v.refused(404, "provider", "GET", "/home/api/v1/auth/oauth/facebook/callback?state=x&code=x", nil)
	// The provider fails on its side (its token endpoint answers 500), then
	// goes down between its authorize page and our callback: a bad gateway.
	path, q = authorize(v, "kakao", "/novel")
	kakao.Fail(500, 0)
	if ans := v.want(502, "GET", path+"?"+q.Encode(), nil); field[int](t, ans, "header", "code") != 502 {
		t.Errorf("provider failing: %s", ans)
	}
	kakao.Fail(0, 0)
	path, q = authorize(v, "naver", "/novel")
	naver.Close()
	if ans := v.want(502, "GET", path+"?"+q.Encode(), nil); field[int](t, ans, "header", "code") != 502 {
		t.Errorf("provider down: %s", ans)
	}

	// --- 2. The gateway's webhooks change charges. They are not signed: the
	// writer looks each payment up at the gateway and trusts only that.
	ctx := context.Background()
	gw := &money.HTTPGateway{BaseURL: pgsrv.URL, SecretKey: tosssandbox.DefaultSecretKey}
	// lastWebhook is the sandbox's newest webhook body, of status.
	lastWebhook := func(status string) []byte {
		t.Helper()
		d := pg.Deliveries()
		if len(d) == 0 || d[len(d)-1].Status != status {
			t.Fatalf("the gateway sent no %s webhook: %+v", status, d)
		}
		return d[len(d)-1].Body
	}
	deliver := func(body []byte, applied bool) {
		t.Helper()
		ans := admin.want(200, "POST", money.WebhookPath, string(body))
		if field[bool](t, ans, "applied") != applied {
			t.Errorf("webhook applied %v, want %v: %s", !applied, applied, ans)
		}
	}
	charge := func(key string, amount int64) (orderID, payKey string) {
		t.Helper()
		ch := m.want(200, "POST", "/home/api/v1/charge/requests", map[string]any{"amount": amount, "successUrl": "/ok", "failUrl": "/fail"},
			"Idempotency-Key: "+key, "X-Channel: AW")
		red, err := tosssandbox.Pay(ctx, field[string](t, ch, "checkoutUrl"), true)
		if err != nil {
			t.Fatal(err)
		}
		return field[string](t, ch, "orderId"), red.PaymentKey
	}
	chargeStatus := func(orderID, want string) {
		t.Helper()
		if st := field[string](t, m.want(200, "GET", "/home/api/v1/charge/"+orderID, nil), "status"); st != want {
			t.Errorf("charge %s is %s, want %s", orderID, st, want)
		}
	}
	wallet := func(c *checker) int64 {
		t.Helper()
		w := c.want(200, "GET", "/home/api/v1/wallet", nil, "X-Channel: AW")
		return field[int64](t, w, "bluemoney") + field[int64](t, w, "blueMileage")
	}
	// The buyer approves; the writer's confirm never got the gateway's answer (the
	// gateway did confirm): the gateway's DONE webhook credits the charge.
	orderA, keyA := charge("flow-charge-a", 5000)
	if _, err := gw.Confirm(ctx, "", keyA, orderA, 5000); err != nil {
		t.Fatal(err)
	}
	chargeStatus(orderA, "requested")
	done := lastWebhook(tosssandbox.Done)
	deliver(done, true)
	chargeStatus(orderA, "done")
	credited := wallet(m)
	if credited < 5000 {
		t.Errorf("the DONE webhook credited %d, want at least 5000", credited)
	}
	// A re-delivery changes nothing.
	deliver(done, false)
	if w := wallet(m); w != credited {
		t.Errorf("a re-delivered webhook moved the wallet from %d to %d", credited, w)
	}
	// The card company declines (the sandbox declines 2000): the ABORTED webhook fails the charge.
	orderB, keyB := charge("flow-charge-b", 2000)
	if _, err := gw.Confirm(ctx, "", keyB, orderB, 2000); err == nil {
		t.Fatal("the sandbox accepted its declined amount")
	}
	deliver(lastWebhook(tosssandbox.Aborted), true)
	chargeStatus(orderB, "failed")
	// Refunds made at the gateway (its admin console): PARTIAL_CANCELED then CANCELED take the money back.
	orderC, keyC := charge("flow-charge-c", 1000)
	m.want(200, "POST", "/home/api/v1/charge/confirm", map[string]any{"orderId": orderC, "paymentKey": keyC, "amount": 1000},
		"Idempotency-Key: flow-confirm-c")
	before := wallet(m)
	deliver(lastWebhook(tosssandbox.Done), false) // a first delivery, though the confirm already credited it
	if _, err := gw.Cancel(ctx, "", keyC, money.CancelRequest{CancelReason: "console", CancelAmount: 400}); err != nil {
		t.Fatal(err)
	}
	deliver(lastWebhook(tosssandbox.PartialCanceled), true)
	chargeStatus(orderC, "partial_canceled")
	if _, err := gw.Cancel(ctx, "", keyC, money.CancelRequest{CancelReason: "console"}); err != nil {
		t.Fatal(err)
	}
	deliver(lastWebhook(tosssandbox.Canceled), true)
	chargeStatus(orderC, "canceled")
	if w := wallet(m); w != before-1000 {
		t.Errorf("the refund webhooks left %d, want %d", w, before-1000)
	}
	// Refused webhooks: no event type, no payment key, an unknown payment,
	// and a forged DONE for the declined payment (the lookup says ABORTED).
	admin.refused(400, "eventType", "POST", money.WebhookPath, `{"data":{"paymentKey":"tgen_x","orderId":"x"}}`)
	noKey := []byte(`{"eventType":"PAYMENT_STATUS_CHANGED","createdAt":"2026-11-25T12:00:00.000000","data":{"orderId":"` + orderA + `","status":"DONE"}}`)
	admin.refused(400, "paymentKey", "POST", money.WebhookPath, string(noKey))
	stamp := now.Format("2006-01-02T15:04:05.000000")
	unknown, _ := json.Marshal(money.WebhookEvent{EventType: money.EventPaymentStatusChanged, CreatedAt: stamp,
		Data: money.Payment{PaymentKey: "tgen_x", OrderID: "ch_nosuch", Status: "DONE", TotalAmount: 1000}})
	admin.refused(400, "", "POST", money.WebhookPath, string(unknown))
	forged, _ := json.Marshal(money.WebhookEvent{EventType: money.EventPaymentStatusChanged, CreatedAt: stamp,
		Data: money.Payment{PaymentKey: keyB, OrderID: orderB, Status: "DONE", TotalAmount: 2000}})
	admin.refused(400, "", "POST", money.WebhookPath, string(forged))
	chargeStatus(orderB, "failed")

	// --- 3. The jumping pass: on sale, bought with the webhook's money, used.
	jp := "/home/api/v1/coupons/jumping-pass"
	m.refused(404, "", "POST", jp, nil, "Idempotency-Key: flow-jp-0") // not on sale yet
	admin.want(200, "PUT", "/admin/api/v1/jumpingpass", map[string]any{"title": "점핑패스", "price": 1000, "days": 7}, bearer)
	work := newWork("FJ1")
	work["jumpingPass"] = true
	admin.want(201, "POST", "/admin/api/v1/works", work, bearer)
	m.refused(400, "Idempotency-Key", "POST", jp, nil)
	m.refused(400, "bogus", "POST", jp, map[string]any{"bogus": 1}, "Idempotency-Key: flow-jp-bad")
	m.refused(403, "", "POST", jp, map[string]any{"uid": "999999"}, "Idempotency-Key: flow-jp-other")
	n.refused(402, "", "POST", jp, nil, "Idempotency-Key: flow-jp-poor") // the naver member has no money
	admin.browser().refused(401, "sf_session", "POST", jp, nil, "Idempotency-Key: flow-jp-visitor")
	before = wallet(m)
	pass := m.want(200, "POST", jp, map[string]any{}, "Idempotency-Key: flow-jp-1", "X-Channel: AW")
	if field[int64](t, pass, "amount") != 1000 || wallet(m) != before-1000 {
		t.Errorf("the pass cost %d, the wallet went from %d to %d: %s", field[int64](t, pass, "amount"), before, wallet(m), pass)
	}
	var paid int64
	for _, v := range field[map[string]int64](t, pass, "paid") {
		paid += v
	}
	if paid != 1000 {
		t.Errorf("paid %d for a pass of 1000: %s", paid, pass)
	}
	if exp := field[time.Time](t, pass, "expiresAt"); exp.Sub(now) < 7*24*time.Hour-time.Minute || exp.Sub(now) > 7*24*time.Hour+time.Minute {
		t.Errorf("the pass expires at %s, want 7 days from %s", exp, now)
	}
	// A retry with the same key replays the answer; nothing is bought again.
	replay := m.want(200, "POST", jp, map[string]any{}, "Idempotency-Key: flow-jp-1", "X-Channel: AW")
	if string(replay) != string(pass) || m.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry was not a replay (%q): %s", m.header.Get("Idempotent-Replayed"), replay)
	}
	if w := wallet(m); w != before-1000 {
		t.Errorf("the replay spent again: %d", w)
	}
	jcp := field[int64](t, pass, "jcpId")
	coupons := m.want(200, "GET", "/home/api/v1/coupons?pid=FJ1", nil)
	if field[int](t, coupons, "PCPInfo", "jumpingCount") != 1 || field[int64](t, coupons, "PCPInfo", "jcpId") != jcp {
		t.Errorf("the bought pass %d is not the member's: %s", jcp, coupons)
	}
	use := m.want(200, "POST", "/home/api/v1/coupons/use", map[string]any{"pid": "FJ1", "vol": 2, "kind": "jumping"}, "Idempotency-Key: flow-use-jp")
	if field[string](t, use, "kind") != "jumping" || field[int](t, use, "vol") != 2 {
		t.Errorf("the pass did not open FJ1 2: %s", use)
	}
	if field[int](t, m.want(200, "GET", "/home/api/v1/coupons?pid=FJ1", nil), "PCPInfo", "jumpingCount") != 0 {
		t.Error("the used pass is still counted")
	}

	// --- 4. The comic heroism coupons: only heroism events, once a member.
	event := func(kind string, coupons int) int64 {
		return field[int64](t, admin.want(201, "POST", "/admin/api/v1/events", contract.Event{Kind: kind, Title: kind, Writer: "hero",
			PIDs: []string{"FJ1"}, Coupons: coupons, StartAt: now.Add(-time.Hour), EndAt: now.Add(24 * time.Hour)}, bearer), "id")
	}
	hero, honey := event(contract.EventHeroism, 2), event(contract.EventHoneyBenefit, 1)
	heroism := "/home/api/v1/contents/comic/heroism/coupons"
	admin.browser().refused(401, "sf_session", "POST", heroism, map[string]any{"eid": hero})
	m.refused(400, "eid", "POST", heroism, map[string]any{})
	m.refused(400, "bogus", "POST", heroism, map[string]any{"eid": hero, "bogus": 1})
	m.refused(400, "eid", "POST", heroism, map[string]any{"eid": "one"})
	m.refused(403, "", "POST", heroism, map[string]any{"eid": hero, "uid": "999999"})
	m.refused(404, "", "POST", heroism, map[string]any{"eid": honey}) // not a heroism event
	m.refused(404, "", "POST", heroism, map[string]any{"eid": 99999999})
	claim := m.want(200, "POST", heroism, map[string]any{"eid": hero, "uid": uid})
	if field[int64](t, claim, "eid") != hero || field[string](t, claim, "kind") != contract.EventHeroism || field[int](t, claim, "gifts") != 1 {
		t.Errorf("heroism claim: %s", claim)
	}
	m.refused(409, "", "POST", heroism, map[string]any{"eid": hero})
	var got bool
	for _, g := range field[[]struct {
		Kind   string `json:"kind"`
		PID    string `json:"pid"`
		Count  int    `json:"count"`
		Source string `json:"source"`
		EID    int64  `json:"eid"`
	}](t, m.want(200, "GET", "/home/api/v1/coupons/gifts", nil), "list") {
		got = got || (g.EID == hero && g.Kind == "read" && g.PID == "FJ1" && g.Count == 2 && g.Source == contract.EventHeroism)
	}
	if !got {
		t.Error("the heroism coupons are not in the gift box")
	}
	n.want(200, "POST", heroism, map[string]any{"eid": hero})
}
