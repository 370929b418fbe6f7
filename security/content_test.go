package security

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/contract"
)

type downloadAuth struct {
	IsAuth       bool   `json:"isAuth"`
	Token        string `json:"token"`
	ContentBase  string `json:"contentBase"`
	PreviewPages int    `json:"previewPages"`
}

func (c *client) downloadAuth(pid string, vol int) (int, downloadAuth, []byte) {
	c.t.Helper()
	st, b := c.do("POST", "/protocol/api/v-1/product/download-auth.asp", map[string]any{"pid": pid, "vol": vol})
	var d downloadAuth
	_ = json.Unmarshal(b, &d)
	return st, d, b
}

// page fetches a content page and answers its status and Cache-Control.
func (c *client) page(path string) (int, string) {
	c.t.Helper()
	resp := c.req("GET", path, nil)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Cache-Control")
}

// A paid volume's pages beyond the preview are served only with a content
// token from download-auth, which only an entitled member gets (here after a
// real charge through the Toss sandbox and a purchase); a token opens exactly
// its volume, and not after it expires.
func TestPaidPagesNeedAnEntitlement(t *testing.T) {
	s := startStack(t, options{})
	buyer, other := s.member("buyer@example.com"), s.member("other@example.com")
	buyer.charge(1000)
	k := buyer.with(map[string]string{"Idempotency-Key": "buy-vol-2"})
	if st, b := k.do("POST", "/home/api/v1/purchases", map[string]any{"pid": paidWork, "vols": []int{2}, "buyType": "B"}); st != 200 {
		t.Fatalf("purchase: %d %s", st, b)
	}
	st, auth, body := buyer.downloadAuth(paidWork, 2)
	if st != 200 || !auth.IsAuth || auth.Token == "" || auth.ContentBase != contract.ContentBase(paidWork, 2) {
		t.Fatalf("buyer's download-auth: %d %s", st, body)
	}
	full := s.pageURL(paidWork, 2, 5)
	if st, cc := buyer.page(full + "?t=" + auth.Token); st != 200 || !strings.HasPrefix(cc, "private") {
		t.Fatalf("entitled page: %d %q", st, cc)
	}

	// Another member has no entitlement and gets no token.
	st, oa, body := other.downloadAuth(paidWork, 2)
	if st != 200 || oa.IsAuth || oa.Token != "" {
		t.Errorf("download-auth without entitlement: %d %s", st, body)
	}
	if st, _, body := s.visitor().downloadAuth(paidWork, 2); st != 401 {
		t.Errorf("visitor download-auth: %d %s", st, body)
	}
	forged := contract.SignContent([]byte("guessed-secret"), paidWork, 2, s.clock.Now().Add(time.Hour))
	flipped := []byte(auth.Token)
	flipped[len(flipped)-3] ^= 1
	exp, _, _ := strings.Cut(auth.Token, ".")
	for _, p := range []string{
		full,                           // no token
		full + "?t=",                   // empty token
		full + "?t=" + forged,          // signed with a guessed secret
		full + "?t=" + string(flipped), // one character changed
		full + "?t=" + exp + ".",       // expiry without MAC
		full + "?t=9999999999." + strings.SplitN(auth.Token, ".", 2)[1], // later expiry, old MAC
		s.pageURL(paidWork, 3, 5) + "?t=" + auth.Token,                  // another volume
		s.pageURL(adultWork, 2, 5) + "?t=" + auth.Token,                 // another work
	} {
		// 404 for the adult work: it does not exist in other's (teen) version.
		if st, _ := other.page(p); st != 403 && !(st == 404 && strings.Contains(p, adultWork)) {
			t.Errorf("%s: %d, want 403", p, st)
		}
	}
	// The preview is public.
	for _, n := range []int{1, 2} {
		if st, cc := other.page(s.pageURL(paidWork, 2, n)); st != 200 || !strings.HasPrefix(cc, "public") {
			t.Errorf("preview page %d: %d %q", n, st, cc)
		}
	}
	// The token expires (30 minutes); a fresh download-auth gives a new one.
	s.clock.Add(31 * time.Minute)
	if st, _ := buyer.page(full + "?t=" + auth.Token); st != 403 {
		t.Errorf("expired token: %d, want 403", st)
	}
	if _, again, body := buyer.downloadAuth(paidWork, 2); !again.IsAuth || again.Token == auth.Token {
		t.Fatalf("download-auth after expiry: %s", body)
	} else if st, _ := buyer.page(full + "?t=" + again.Token); st != 200 {
		t.Errorf("renewed token: %d", st)
	}
}

// No route shows the adult work to the teen version: visitors, verified
// teens and adults with the 19 toggle off, on the web and in the store apps.
// Lists are covered path by path in edge/server TestTeenVersionNeverShowsAdultWorks;
// here the routes that cross edge and writer: detail, volume and review
// lists, search, the content pages (preview and with a content token), zzim
// and recently viewed. A verified adult with the toggle on sees each, so the
// checks cannot pass vacuously.
func TestAdultWorkNeverReachesTheTeenVersion(t *testing.T) {
	s := startStack(t, options{})
	verify := func(c *client, birth string) {
		t.Helper()
		if st, b := c.verifyAdult("홍길동", birth); st != 200 {
			t.Fatalf("verify: %d %s", st, b)
		}
	}
	adultBirth := s.clock.Now().AddDate(-30, 0, 0).Format("2006-01-02")
	teen := s.member("teen@example.com")
	verify(teen, s.clock.Now().AddDate(-17, 0, 0).Format("2006-01-02"))
	off := s.member("adult-off@example.com")
	verify(off, adultBirth)
	if st, b := off.do("PUT", "/home/api/v1/auth/adult/toggle", map[string]any{"on": false}); st != 200 {
		t.Fatalf("toggle off: %d %s", st, b)
	}
	adult := s.member("adult-on@example.com")
	verify(adult, adultBirth)
	if st, b := adult.do("PUT", "/home/api/v1/auth/adult/toggle", map[string]any{"on": true}); st != 200 {
		t.Fatalf("toggle on: %d %s", st, b)
	}
	// A teen version member who once saw the work (zzim and recently viewed
	// hold it) keeps it in the database, never on screen.
	for _, c := range []*client{teen, off, adult} {
		c.do("POST", "/protocol/appapi/mb/user/info/zzim-add", form("pid="+adultWork))
		c.do("POST", "/home/api/v1/users/recent", map[string]any{"pid": adultWork, "vol": 1})
	}
	inApp := func(c *client, ch string) *client { return c.with(map[string]string{"X-Channel": ch}) }
	teens := map[string]*client{
		"visitor": s.visitor(), "member without verification": s.member("unverified@example.com"),
		"teen": teen, "adult with toggle off": off, "adult in the Play Store app": inApp(adult, "AA"), "adult in the App Store app": inApp(adult, "IA"),
	}
	_, tokAdult, body := adult.downloadAuth(adultWork, 1)
	if tokAdult.Token == "" {
		t.Fatalf("adult's download-auth of the free volume: %s", body)
	}
	keys := 0
	preview, paid := s.pageURL(adultWork, 1, 1), s.pageURL(adultWork, 1, 3)
	checks := []struct {
		name  string
		leaks func(c *client) (bool, string)
	}{
		{"detail", func(c *client) (bool, string) {
			st, b := c.get("/home/api/v1/products/" + adultWork)
			return st != 200 || bytes.Contains(b, []byte(adultName)) || !bytes.Contains(b, []byte(`"adultVerificationNeeded":true`)), string(b)
		}},
		{"volumes", func(c *client) (bool, string) {
			st, b := c.get("/home/api/v1/products/" + adultWork + "/volumes")
			return st != 403, string(b)
		}},
		{"reviews", func(c *client) (bool, string) {
			st, b := c.get("/home/api/v1/products/" + adultWork + "/reviews")
			return st != 403, string(b)
		}},
		{"search", func(c *client) (bool, string) {
			_, b := c.get("/home/api/v1/search?q=" + adultName)
			return bytes.Contains(b, []byte(adultWork)), string(b)
		}},
		{"preview page", func(c *client) (bool, string) {
			st, _ := c.page(preview)
			return st == 200, http.StatusText(st)
		}},
		{"page with an adult's content token", func(c *client) (bool, string) {
			st, _ := c.page(paid + "?t=" + tokAdult.Token)
			return st == 200, http.StatusText(st)
		}},
		{"page with its own content token", func(c *client) (bool, string) {
			_, d, _ := c.downloadAuth(adultWork, 1)
			if d.Token == "" {
				return false, "no token"
			}
			st, _ := c.page(paid + "?t=" + d.Token)
			return st == 200, http.StatusText(st)
		}},
		{"purchase", func(c *client) (bool, string) {
			// 200 bought, 402 would have bought with money: either way the
			// writer went on to sell the work (a visitor's 401 stops before).
			keys++
			k := c.with(map[string]string{"Idempotency-Key": fmt.Sprintf("adult-buy-%d", keys)})
			st, b := k.do("POST", "/home/api/v1/purchases", map[string]any{"pid": adultWork, "vols": []int{2}, "buyType": "B"})
			return st == 200 || st == http.StatusPaymentRequired, string(b)
		}},
		{"zzim", func(c *client) (bool, string) {
			_, b := c.do("POST", "/protocol/appapi/mb/user/info/zzim-list", form("section=all&zzim_type=prod"))
			return bytes.Contains(b, []byte(adultWork)), string(b)
		}},
		{"recently viewed", func(c *client) (bool, string) {
			_, b := c.get("/home/api/v1/users/recent")
			return bytes.Contains(b, []byte(adultWork)) || bytes.Contains(b, []byte(adultName)), string(b)
		}},
	}
	// What the adult version gets of the adult work must not be kept by a
	// shared cache (a CDN would hand it to the next reader, teen or not).
	resp := adult.req("GET", preview, nil)
	resp.Body.Close()
	if cc, vary := resp.Header.Get("Cache-Control"), resp.Header.Get("Vary"); resp.StatusCode != 200 ||
		!strings.HasPrefix(cc, "private") || !strings.Contains(vary, "Cookie") {
		t.Errorf("adult work's preview page for the adult version: %d Cache-Control %q Vary %q", resp.StatusCode, cc, vary)
	}
	for _, ch := range checks {
		if leak, b := ch.leaks(adult); !leak {
			t.Errorf("%s: the adult with the toggle on does not see the work, so the check proves nothing: %.300s", ch.name, b)
		}
		for who, c := range teens {
			if leak, b := ch.leaks(c); leak {
				t.Errorf("%s reaches the adult work through %s: %.300s", who, ch.name, b)
			}
		}
	}
}
