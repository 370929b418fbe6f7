package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"storefront/devstack/testenv"
	"storefront/writer/devclock"
	"storefront/writer/internal/writertest"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/server"
)

// wffWork adds a wait-for-free work whose coupon comes back after an hour.
func wffWork(t *testing.T, e *writertest.Env) {
	t.Helper()
	vols := []map[string]any{{"no": 1, "pages": 3, "isFree": true}}
	for no := 2; no <= 6; no++ {
		vols = append(vols, map[string]any{"no": no, "pages": 3, "buyPrice": 100, "rentPrice": 50})
	}
	st, body := e.Admin.Do("POST", "/admin/api/v1/works", map[string]any{"pid": "wff1", "section": "WT", "title": "기다리면 무료", "age": 0,
		"waitForFree": true, "waitRecycle": 60, "authors": []map[string]any{{"authorId": 1, "authorName": "작가", "isWriter": true}}, "volumes": vols})
	if st != 201 {
		t.Fatalf("add work: %d %s", st, body)
	}
}

func signup(t *testing.T, e *writertest.Env, email string) *writertest.Client {
	t.Helper()
	b, _ := signupUID(t, e, email)
	return b
}

// signupUID signs a new member up in a browser of its own and returns it with
// the member's uid.
func signupUID(t *testing.T, e *writertest.Env, email string) (*writertest.Client, string) {
	t.Helper()
	b := e.Browser()
	st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	var m struct {
		AuthInfo struct{ UID string } `json:"authInfo"`
	}
	_ = json.Unmarshal(body, &m)
	return b, m.AuthInfo.UID
}

var useN atomic.Int64

func useWFF(t *testing.T, c *writertest.Client, vol int) int {
	t.Helper()
	c.Headers = map[string]string{"Idempotency-Key": fmt.Sprintf("wff-%d-%d", vol, useN.Add(1))}
	defer func() { c.Headers = nil }()
	st, _ := c.Do("POST", "/home/api/v1/coupons/use", map[string]any{"pid": "wff1", "vol": vol, "kind": "wff"})
	return st
}

func waitTime(t *testing.T, c *writertest.Client) int64 {
	t.Helper()
	st, body := c.Do("GET", "/home/api/v1/coupons?pid=wff1", nil)
	if st != 200 {
		t.Fatalf("coupons: %d %s", st, body)
	}
	var a struct {
		WCPInfo struct {
			WaitTime    int64 `json:"waitTime"`
			IsAvailable bool  `json:"isAvailable"`
		} `json:"WCPInfo"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	if a.WCPInfo.IsAvailable != (a.WCPInfo.WaitTime <= 0) {
		t.Fatalf("isAvailable disagrees with waitTime: %s", body)
	}
	return a.WCPInfo.WaitTime
}

func setOffset(c *writertest.Client, v string) {
	u, _ := url.Parse(c.Base)
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: devclock.Cookie, Value: v, Path: "/"}})
}

// TestDevClockMovesOneMembersCouponTimer: with -dev-clock a member whose
// requests carry sf_devclock sees the wait-for-free coupon come back after the
// wait; the same member without the cookie, and everybody else, keep the
// real clock.
func TestDevClockMovesOneMembersCouponTimer(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) { c.DevClock = true })
	wffWork(t, e)
	m := signup(t, e, "clock@example.com")
	other := signup(t, e, "clock-other@example.com")
	if st := useWFF(t, m, 2); st != 200 {
		t.Fatalf("first wait-for-free use: %d", st)
	}
	if w := waitTime(t, m); w < 3590 || w > 3600 {
		t.Fatalf("wait after use: %d, want recycle 60 min = 3600 s", w)
	}
	if st := useWFF(t, m, 3); st != 409 {
		t.Fatalf("second use before the wait: %d", st)
	}
	setOffset(m, "1800")
	if w := waitTime(t, m); w < 1790 || w > 1800 {
		t.Fatalf("half an hour later: %d", w)
	}
	setOffset(m, "3601")
	if w := waitTime(t, m); w > 0 {
		t.Fatalf("an hour later the coupon is back, wait %d", w)
	}
	if st := useWFF(t, m, 3); st != 200 {
		t.Fatalf("use after the moved wait: %d", st)
	}
	// Nobody else moved: the other member's first use works (never used), then waits the real hour.
	if st := useWFF(t, other, 2); st != 200 {
		t.Fatalf("other member: %d", st)
	}
	if w := waitTime(t, other); w < 3590 {
		t.Fatalf("other member's wait moved: %d", w)
	}
	// The member's own requests without the cookie are on the real clock again:
	// the coupon used at (now + 1 h) comes back at (now + 2 h).
	setOffset(m, "")
	if w := waitTime(t, m); w < 7190 {
		t.Fatalf("real clock wait after the moved use: %d", w)
	}
	// A bad offset is a 400 envelope and nothing is spent.
	setOffset(m, "-60")
	if st := useWFF(t, m, 4); st != 400 {
		t.Fatalf("negative offset: %d", st)
	}
	if n := e.Count(`SELECT count(*) FROM purchases WHERE pid = 'wff1'`); n != 3 {
		t.Fatalf("purchases: %d, want 3", n)
	}
}

// TestWithoutDevClockTheCookieDoesNothing: the hook is off by default.
func TestWithoutDevClockTheCookieDoesNothing(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	wffWork(t, e)
	m := signup(t, e, "noclock@example.com")
	if st := useWFF(t, m, 2); st != 200 {
		t.Fatalf("use: %d", st)
	}
	setOffset(m, "3601")
	if w := waitTime(t, m); w < 3590 {
		t.Fatalf("the cookie moved the clock of a writer without -dev-clock: %d", w)
	}
	if st := useWFF(t, m, 3); st != 409 {
		t.Fatalf("second use: %d", st)
	}
}

func TestDevClockIsRefusedInLiveMode(t *testing.T) {
	t.Parallel()
	_, err := server.New(context.Background(), server.Config{Addr: "127.0.0.1:0", DatabaseURL: testenv.PostgresURL(t),
		CookieMode: "live", DevClock: true}, writertest.Log())
	if err == nil || !strings.Contains(err.Error(), "dev-clock") {
		t.Fatalf("live mode with the dev clock: %v", err)
	}
}

// TestDevClockMovesOneMembersReleaseTime: with -dev-clock an episode
// scheduled for tomorrow cannot be bought today, and can by a member whose
// clock is moved past its release (the partner portal's end-to-end test buys
// a provider's scheduled episode so); other members keep the real clock.
func TestDevClockMovesOneMembersReleaseTime(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) { c.DevClock = true; c.PaymentSandbox = true })
	wffWork(t, e)
	release := time.Now().Add(24 * time.Hour).UTC()
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/works/wff1/volumes/7", map[string]any{"pages": 3, "buyPrice": 100, "releaseAt": release}); st != 201 {
		t.Fatalf("schedule: %d %s", st, body)
	}
	buy := func(c *writertest.Client, key string) int {
		c.Headers = map[string]string{"Idempotency-Key": key}
		defer func() { c.Headers = nil }()
		st, _ := c.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "wff1", "vols": []int{7}, "buyType": "B"})
		return st
	}
	m := signup(t, e, "release-clock@example.com")
	other := signup(t, e, "release-other@example.com")
	for _, c := range []*writertest.Client{m, other} {
		sandboxCharge(t, c, 1000)
	}
	if st := buy(m, "before"); st < 400 {
		t.Fatalf("bought before the release: %d", st)
	}
	setOffset(m, fmt.Sprint(int64(25*time.Hour/time.Second)))
	if st := buy(m, "after"); st != 200 {
		t.Fatalf("moved past the release: %d", st)
	}
	if st := buy(other, "other"); st < 400 {
		t.Fatalf("another member bought before the release: %d", st)
	}
}

// sandboxCharge charges amount of blue money through the Toss sandbox.
func sandboxCharge(t *testing.T, c *writertest.Client, amount int) {
	t.Helper()
	defer func() { c.Headers = nil }()
	c.Headers = map[string]string{"Idempotency-Key": fmt.Sprintf("charge-%d", useN.Add(1))}
	st, body := c.Do("POST", "/home/api/v1/charge/requests", map[string]any{"amount": amount, "successUrl": "/ok", "failUrl": "/fail"})
	if st != 200 {
		t.Fatalf("charge request: %d %s", st, body)
	}
	var ch struct {
		OrderID     string `json:"orderId"`
		CheckoutURL string `json:"checkoutUrl"`
	}
	_ = json.Unmarshal(body, &ch)
	red, err := tosssandbox.Pay(context.Background(), ch.CheckoutURL, true)
	if err != nil {
		t.Fatal(err)
	}
	c.Headers = map[string]string{"Idempotency-Key": fmt.Sprintf("confirm-%d", useN.Add(1))}
	if st, body := c.Do("POST", "/home/api/v1/charge/confirm", map[string]any{"orderId": ch.OrderID, "paymentKey": red.PaymentKey, "amount": amount}); st != 200 {
		t.Fatalf("confirm: %d %s", st, body)
	}
}
