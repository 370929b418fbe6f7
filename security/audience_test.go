package security

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/url"
	"testing"
	"time"

	"storefront/contract"
	edgeserver "storefront/edge/server"
	writerserver "storefront/writer/server"
)

// The audience token the writer issues cannot be turned into an adult one:
// with a deployment secret, a teen's real token with its level byte raised, a
// token made with the public dev secret, and an adult's token past its expiry
// all get the teen version from the edge. (The edge alone: edge/server
// TestTeenVersionNeverShowsAdultWorks and TestAudienceCookieNeedsTheSecret;
// the verifier: contract FuzzVerifyAudience.)
func TestForgedOrExpiredAudienceToken(t *testing.T) {
	const secret = "deployment-audience-secret"
	s := startStack(t, options{
		writer: func(c *writerserver.Config) { c.AudienceSecret = secret },
		edge:   func(c *edgeserver.Config) { c.AudienceSecret = secret },
	})
	teen := s.member("teen-token@example.com")
	if st, b := teen.verifyAdult("김청소년", s.clock.Now().AddDate(-16, 0, 0).Format("2006-01-02")); st != 200 {
		t.Fatalf("verify: %d %s", st, b)
	}
	adult := s.member("adult-token@example.com")
	if st, b := adult.verifyAdult("김어른", "1980-01-01"); st != 200 {
		t.Fatalf("verify: %d %s", st, b)
	}
	if st, b := adult.do("PUT", "/home/api/v1/auth/adult/toggle", map[string]any{"on": true}); st != 200 {
		t.Fatalf("toggle: %d %s", st, b)
	}
	showsAdult := func(token string) bool {
		t.Helper()
		c := s.visitor()
		u, _ := url.Parse(s.edgeURL)
		c.http.Jar.SetCookies(u, []*http.Cookie{{Name: contract.AudienceCookie, Value: token, Path: "/"}})
		st, b := c.get("/home/api/v1/products/" + adultWork)
		if st != 200 {
			t.Fatalf("detail: %d %s", st, b)
		}
		return bytes.Contains(b, []byte(adultName))
	}
	real := adult.cookie(contract.AudienceCookie)
	if !showsAdult(real) {
		t.Fatal("the adult's own token does not show the adult work: the checks below would prove nothing")
	}
	raw, err := base64.RawURLEncoding.DecodeString(teen.cookie(contract.AudienceCookie))
	if err != nil || len(raw) < 2 || raw[1] != 1 {
		t.Fatalf("teen token: %v %x", err, raw)
	}
	raw[1] = 2 // level byte: teen -> adult
	for name, tok := range map[string]string{
		"teen token with the level raised": base64.RawURLEncoding.EncodeToString(raw),
		"token made with the dev secret": contract.SignAudience([]byte("dev-audience-secret"),
			contract.Audience{AdultLevel: 2, Expires: s.clock.Now().Add(time.Hour)}),
		"adult token in another cookie's place": "x" + real,
	} {
		if showsAdult(tok) {
			t.Errorf("%s shows the adult work", name)
		}
	}
	s.clock.Add(31 * 24 * time.Hour) // audience tokens last 30 days
	if showsAdult(real) {
		t.Error("an expired adult token shows the adult work")
	}
	// The writer renews it on /me for the member whose session it is.
	adult.me()
	if !showsAdult(adult.cookie(contract.AudienceCookie)) {
		t.Error("the renewed token does not show the adult work")
	}
}
