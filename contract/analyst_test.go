package contract_test

import (
	"strings"
	"testing"
	"time"

	"storefront/contract"
)

func TestAnalystToken(t *testing.T) {
	secret := []byte("s3")
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	tok := contract.SignAnalyst(secret, "1000001", now.Add(time.Hour))
	if uid, err := contract.VerifyAnalyst(secret, tok, now); err != nil || uid != "1000001" {
		t.Fatalf("verify = %q, %v", uid, err)
	}
	if _, err := contract.VerifyAnalyst(secret, tok, now.Add(time.Hour)); err == nil {
		t.Error("an expired token verified")
	}
	if _, err := contract.VerifyAnalyst([]byte("other"), tok, now); err == nil {
		t.Error("a token of another secret verified")
	}
	// Another uid or a later expiry with the same MAC.
	_, rest, _ := strings.Cut(tok, ".")
	for _, forged := range []string{"1000002." + rest, strings.Replace(tok, ".", ".9", 1), "", ".", "..", "x.1.y",
		"1000001." + rest + "\n", " 1000001." + rest, "-1." + rest} {
		if _, err := contract.VerifyAnalyst(secret, forged, now); err == nil {
			t.Errorf("forged token %q verified", forged)
		}
	}
	// An audience token made with the same secret is not an analyst token.
	aud := contract.SignAudience(secret, contract.Audience{AdultLevel: 2, Expires: now.Add(time.Hour)})
	if _, err := contract.VerifyAnalyst(secret, aud, now); err == nil {
		t.Error("an audience token verified as an analyst token")
	}
}
