package security

import (
	"strings"
	"testing"
)

// TestChargeReturnURLsThroughTheEdge (issue 30): through the edge, a charge
// may return to the store's own address as the browser built it (its
// origin, the charge page's absolute URL) or a path; javascript: and another
// host are a 400 envelope and nothing is stored.
func TestChargeReturnURLsThroughTheEdge(t *testing.T) {
	s := startStack(t, options{})
	m := s.member("return-url@example.com")
	before := s.fingerprint()
	for i, bad := range []string{"javascript:alert(document.cookie)", "https://evil.example/payment/recharge.asp", "//evil.example/x"} {
		k := m.with(map[string]string{"Idempotency-Key": "bad-return-" + string(rune('a'+i))})
		st, b := k.do("POST", "/home/api/v1/charge/requests", map[string]any{"amount": 1000, "successUrl": bad, "failUrl": "/fail"})
		if st != 400 || !strings.Contains(string(b), `"code":400`) {
			t.Errorf("successUrl %q through the edge: %d %s, want a 400 envelope", bad, st, b)
		}
	}
	if s.fingerprint() != before {
		t.Fatal("a refused return address changed the tables")
	}
	k := m.with(map[string]string{"Idempotency-Key": "own-return"})
	own := s.edgeURL + "/payment/recharge.asp"
	if st, b := k.do("POST", "/home/api/v1/charge/requests", map[string]any{"amount": 1000, "successUrl": own, "failUrl": own + "?result=fail"}); st != 200 {
		t.Fatalf("the store's own address through the edge: %d %s", st, b)
	}
}
