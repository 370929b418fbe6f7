package money_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storefront/writer/money"
)

// TestChargeReturnURLs (issue 30): a charge's successUrl and failUrl are the
// store's own: a path, a configured origin or the host the request came to.
// Any other scheme or host, userinfo, "//host" and backslash tricks are
// refused with a 400 envelope in Korean and nothing stored; the sandbox's
// checkout sends the buyer (with the payment key) only to the stored address.
func TestChargeReturnURLs(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid = 61
	own := strings.TrimPrefix(p.srv.URL, "http://") // the host the test's requests are made to
	before := p.snapshot()
	for _, bad := range []string{
		"javascript:alert(document.cookie)", "JavaScript:alert(1)", " javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
		"https://evil.example/steal", "http://evil.example", "//evil.example/x", "/\\evil.example/x", "\\\\evil.example",
		"https://store.example@evil.example/", "https://evil.example#https://store.example", "https://store.example.evil.example/",
		"ftp://store.example/", "https:/\\evil.example", "/ok\nLocation: https://evil.example", "vbscript:msgbox(1)",
		"http://" + own + ".evil.example/", "https://store.example:444/",
	} {
		for _, field := range []string{"successUrl", "failUrl"} {
			body := map[string]any{"amount": 10000, "successUrl": "/ok", "failUrl": "/no"}
			body[field] = bad
			r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(), body: body})
			if r.status != 400 || r.code(t) != 400 || !strings.Contains(string(r.body), "상점의 주소") {
				t.Errorf("%s %q: %d %s, want a 400 envelope", field, bad, r.status, r.body)
			}
		}
	}
	if p.snapshot() != before {
		t.Fatal("a refused return address changed the tables")
	}
	for _, good := range []string{"/payment/recharge.asp?return=%2Fdetail", "https://store.example/payment/recharge.asp?result=fail",
		"HTTPS://STORE.EXAMPLE/ok", "http://" + own + "/payment/recharge.asp", ""} {
		r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
			body: map[string]any{"amount": 10000, "successUrl": good, "failUrl": good}})
		if r.status != 200 {
			t.Errorf("own address %q: %d %s", good, r.status, r.body)
		}
	}
	// Behind the edge: the store's address is the forwarded host.
	r0 := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(), headers: map[string]string{"X-Forwarded-Host": "shop.example:8443"},
		body: map[string]any{"amount": 10000, "successUrl": "https://shop.example:8443/payment/recharge.asp", "failUrl": "https://shop.example:8443/payment/recharge.asp?result=fail"}})
	if r0.status != 200 {
		t.Errorf("the forwarded host's address: %d %s", r0.status, r0.body)
	}
	// The checkout redirects to the stored address with the payment key.
	r := p.do(req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: newKey(),
		body: map[string]any{"amount": 10000, "successUrl": "https://store.example/ok?x=1", "failUrl": "https://store.example/no"}}).mustOK(t)
	loc := redirectOf(t, r["checkoutUrl"].(string)+"/approve")
	if u, err := url.Parse(loc); err != nil || u.Host != "store.example" || u.Path != "/ok" || u.Query().Get("paymentKey") == "" {
		t.Fatalf("success redirect to %q", loc)
	}
	// A checkout session forged with a javascript: address is refused.
	for _, bad := range []string{"javascript:alert(1)", "data:text/html,x", "//evil.example", "/\\evil.example", "https://u:p@evil.example/"} {
		w := money.Widget{ClientKey: testClient, OrderID: "ch_forged", OrderName: "x", Amount: 1000, SuccessURL: bad, FailURL: bad}
		for _, step := range []string{"/approve", "/fail"} {
			if st, _ := post(t, money.SandboxCheckoutURL(p.pgs.URL, w)+step); st != 400 {
				t.Errorf("sandbox checkout%s with %q: %d, want 400", step, bad, st)
			}
		}
	}
}

// post posts to u without following a redirect: its status and Location.
func post(t *testing.T, u string) (int, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Post(u, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

func redirectOf(t *testing.T, u string) string {
	t.Helper()
	st, loc := post(t, u)
	if st != http.StatusSeeOther {
		t.Fatalf("%s: %d, want 303", u, st)
	}
	return loc
}
