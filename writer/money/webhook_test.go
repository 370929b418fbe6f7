package money_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"storefront/devstack/testenv"
	"storefront/realip"
	"storefront/writer/money"
)

// The webhook route takes no session, so it is limited per client address
// (3 a minute here): a fourth call from one address is 429 in the envelope
// and changes nothing, even carrying a genuine refund; another address is
// not affected, and the rate refills with the clock.
func TestWebhookRateLimit(t *testing.T) {
	t.Parallel()
	p := newGatewayEnvCfg(t, 0, money.Config{WebhookPerMinute: 3})
	const uid = 36
	order, key := p.charge(t, uid, 5000)
	// A refund at the gateway's console; its webhook is kept back and posted below.
	p.sb.Wait()
	p.sb.SetWebhookURL("")
	if _, err := p.gw.Cancel(p.ctx, "console-rl", key, money.CancelRequest{CancelReason: "상담원 환불"}); err != nil {
		t.Fatal(err)
	}
	ds := p.sb.Deliveries()
	refund := ds[len(ds)-1].Body

	// The writer behind the balancer: realip puts the client into RemoteAddr.
	trusted, err := realip.Parse("127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	p.svc.Routes(mux, func(*http.Request) (int64, bool) { return 0, false })
	srv := httptest.NewServer(trusted.Middleware(mux, nil))
	t.Cleanup(srv.Close)
	post := func(client string, body []byte) (int, map[string]any) {
		t.Helper()
		return postWebhook(t, srv.URL, client, body)
	}
	other, _ := json.Marshal(map[string]any{"eventType": "DEPOSIT_CALLBACK", "createdAt": "2026-11-25T12:00:00.000000", "data": map[string]any{}})
	for i := 0; i < 3; i++ {
		if st, ans := post("203.0.113.7", other); st != http.StatusOK {
			t.Fatalf("call %d: %d %v", i, st, ans)
		}
	}
	before := p.snapshot()
	st, ans := post("203.0.113.7", refund)
	h, _ := ans["header"].(map[string]any)
	msg, _ := h["message"].(string)
	if st != http.StatusTooManyRequests || h["code"] != float64(http.StatusTooManyRequests) || !testenv.Korean(msg) {
		t.Fatalf("fourth call: %d %v", st, ans)
	}
	if p.snapshot() != before || p.status(order) != "done" || p.balance(uid, money.Blue) != 5000 {
		t.Fatalf("a limited webhook changed something: %s, blue %d", p.status(order), p.balance(uid, money.Blue))
	}
	// Another client address is not limited: the refund is applied.
	if st, ans := post("203.0.113.8", refund); st != http.StatusOK || ans["applied"] != true {
		t.Fatalf("other address: %d %v", st, ans)
	}
	if p.status(order) != "canceled" || p.balance(uid, money.Blue) != 0 {
		t.Fatalf("refund from another address: %s, blue %d", p.status(order), p.balance(uid, money.Blue))
	}
	p.clock.Add(20 * time.Second) // one call a 20 s at 3 a minute
	if st, ans := post("203.0.113.7", other); st != http.StatusOK {
		t.Fatalf("after 20 s: %d %v", st, ans)
	}
	if st, _ := post("203.0.113.7", other); st != http.StatusTooManyRequests {
		t.Fatalf("second call after 20 s: %d, want 429", st)
	}
	p.checkLedger()
}
