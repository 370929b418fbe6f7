package auth_test

import (
	"fmt"
	"strings"
	"testing"

	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

func TestLoginRateLimit(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	signup(t, e.Browser(), "limited@example.com")
	b := e.Browser()
	codes := []int{}
	for range 7 {
		st, _ := b.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "limited@example.com", "password": "guess guess"})
		codes = append(codes, st)
	}
	if codes[0] != 401 || codes[6] != 429 {
		t.Fatalf("attempt codes %v: want 401 first and 429 once over 5 per minute", codes)
	}
	// Even the right password is refused while limited.
	st, body := b.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "limited@example.com", "password": "correct horse"})
	if st != 429 || !strings.Contains(writertest.Message(t, body), "로그인 시도가 너무 많습니다.") {
		t.Fatalf("right password while limited: %d %s", st, body)
	}
}

// The login limit per client address keys on the address the edge saw (the
// last X-Forwarded-For entry): a client writing a new address in front of it
// on every attempt is limited all the same. The limit per address is
// LOGIN_PER_MINUTE itself, as documented (issue 24 item 13: it was five
// times that).
func TestLoginLimitIgnoresSpoofedForwardedFor(t *testing.T) {
	t.Parallel()
	e := start(t, func(c *server.Config) { c.LoginPerMinute = 10 }) // 10 a minute per address, each account tried once
	b := e.Browser()
	limited := 0
	for i := range 12 {
		b.Headers = map[string]string{"X-Forwarded-For": fmt.Sprintf("10.9.8.%d, 203.0.113.7", i)}
		st, _ := b.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": fmt.Sprintf("nobody%d@example.com", i), "password": "guess guess"})
		if st == 429 {
			limited++
		}
	}
	if limited != 2 {
		t.Fatalf("%d of 12 attempts from one address limited, want 2 (10 a minute)", limited)
	}
	// Another address the edge saw is not limited.
	b.Headers = map[string]string{"X-Forwarded-For": "203.0.113.8"}
	if st, _ := b.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "nobody@example.com", "password": "guess guess"}); st != 401 {
		t.Fatalf("other address: %d", st)
	}
}

// The writer believes X-Forwarded-For only from its edges
// (WRITER_TRUSTED_PROXIES). A caller that is not one (here the test's
// loopback address once the edges are elsewhere) is its own address however
// many made-up addresses it writes: each new one used to open a fresh
// allowance, since the last entry was taken from anyone.
func TestLoginLimitTrustsForwardedForFromEdgesOnly(t *testing.T) {
	t.Parallel()
	e := start(t, func(c *server.Config) { c.LoginPerMinute, c.TrustedProxies = 2, "10.0.0.0/8" })
	b := e.Browser()
	var codes []int
	for i := range 4 {
		b.Headers = map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i+1)}
		st, _ := b.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": fmt.Sprintf("nobody%d@example.com", i), "password": "guess guess"})
		codes = append(codes, st)
	}
	if fmt.Sprint(codes) != "[401 401 429 429]" {
		t.Fatalf("login codes from one untrusted caller naming 4 addresses: %v, want 401 twice, then 429", codes)
	}
}
