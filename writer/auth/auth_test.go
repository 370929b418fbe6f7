package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/writer/auth"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

var fixedNow = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func start(t *testing.T, edit func(*server.Config)) *writertest.Env {
	return writertest.StartWriter(t, func(c *server.Config) {
		c.Now = func() time.Time { return fixedNow }
		c.AudienceSecret = "aud"
		c.Providers = map[string]auth.Provider{}
		c.LoginPerMinute = 5
		if edit != nil {
			edit(c)
		}
	})
}

type me struct {
	AuthInfo  *auth.AuthInfo `json:"authInfo"`
	AdultInfo auth.AdultInfo `json:"adultInfo"`
	EncID     string         `json:"encId"`
}

func getMe(t *testing.T, c *writertest.Client) me {
	t.Helper()
	st, body := c.Do("GET", "/home/api/v1/auth/me", nil)
	if st != 200 {
		t.Fatalf("me: %d %s", st, body)
	}
	var m me
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func audienceLevel(t *testing.T, c *writertest.Client) int {
	t.Helper()
	k := c.Cookie(contract.AudienceCookie)
	if k == nil {
		t.Fatal("no audience cookie")
	}
	a, err := contract.VerifyAudience([]byte("aud"), k.Value, fixedNow)
	if err != nil {
		t.Fatalf("audience cookie: %v", err)
	}
	return a.AdultLevel
}

func signup(t *testing.T, c *writertest.Client, email string) me {
	t.Helper()
	st, body := c.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	var m me
	_ = json.Unmarshal(body, &m)
	return m
}

func TestSignupLoginLogout(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	b := e.Browser()
	m := signup(t, b, "reader@example.com")
	if m.AuthInfo == nil || m.AuthInfo.LoginType != "N" || m.AuthInfo.DisplayName != "reader@example.com" || m.AuthInfo.LoginPrefix != "" || m.AuthInfo.BID == "" {
		t.Fatalf("auth info after signup: %+v", m.AuthInfo)
	}
	if b.Cookie(auth.SessionCookie) == nil || b.Cookie(auth.WebIDCookie).Value != m.AuthInfo.BID {
		t.Fatalf("session or web id cookie missing")
	}
	if audienceLevel(t, b) != 0 {
		t.Fatalf("unverified member must get level 0")
	}
	var hash string
	_ = e.Pool.QueryRow(context.Background(), `SELECT password_hash FROM users WHERE email = 'reader@example.com'`).Scan(&hash)
	if !strings.HasPrefix(hash, "$argon2id$") {
		t.Fatalf("password stored as %q", hash)
	}
	// The signup and login events reach the EVENTS stream through the outbox.
	cons, err := e.JS.OrderedConsumer(context.Background(), contract.EventsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{"events.biz.>"}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	writertest.Eventually(t, 5*time.Second, "signup and login events", func() bool {
		batch, err := cons.FetchNoWait(10)
		if err != nil {
			return false
		}
		for msg := range batch.Messages() {
			var ev contract.TrackedEvent
			_ = json.Unmarshal(msg.Data(), &ev)
			if ev.UID == m.AuthInfo.UID && msg.Headers().Get("Nats-Msg-Id") == ev.ID {
				seen[ev.Type] = true
			}
		}
		return seen["signup"] && seen["login"]
	})

	// A second browser logs in; wrong passwords are refused.
	b2 := e.Browser()
	if st, body := b2.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "READER@example.com", "password": "wrong password"}); st != 401 || writertest.Code(t, body) != 401 {
		t.Fatalf("wrong password: %d %s", st, body)
	}
	if st, body := b2.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "nobody@example.com", "password": "wrong password"}); st != 401 {
		t.Fatalf("unknown email: %d %s", st, body)
	}
	if st, body := b2.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "reader@example.com", "password": "correct horse"}); st != 200 {
		t.Fatalf("login: %d %s", st, body)
	}
	if got := getMe(t, b2); got.AuthInfo == nil || got.AuthInfo.UID != m.AuthInfo.UID || got.EncID == "" {
		t.Fatalf("me after login: %+v", got)
	}
	if n := e.Count(`SELECT login_count FROM users WHERE email = 'reader@example.com'`); n != 2 {
		t.Fatalf("login_count %d, want 2", n)
	}
	if st, _ := b2.Do("POST", "/home/api/v1/auth/logout", nil); st != 200 {
		t.Fatalf("logout: %d", st)
	}
	if got := getMe(t, b2); got.AuthInfo != nil {
		t.Fatalf("still logged in after logout: %+v", got.AuthInfo)
	}
	if b2.Cookie(auth.WebIDCookie) != nil {
		t.Fatalf("web id cookie kept after logout")
	}
	// The first browser's session is independent.
	if got := getMe(t, b); got.AuthInfo == nil {
		t.Fatalf("other session lost")
	}
}

func TestSessionCookieFlags(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	resp, body := e.Browser().Req("POST", "/home/api/v1/auth/signup", map[string]any{"email": "flags@example.com", "password": "correct horse"})
	if resp.StatusCode != 201 {
		t.Fatalf("signup: %s", body)
	}
	found := map[string]*http.Cookie{}
	for _, c := range resp.Cookies() {
		found[c.Name] = c
	}
	for _, name := range []string{auth.SessionCookie, contract.AudienceCookie} {
		c := found[name]
		if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
			t.Fatalf("%s cookie flags: %+v", name, c)
		}
	}
	// Behind TLS (the edge says so), cookies are Secure.
	c := e.Browser()
	c.Headers = map[string]string{"X-Forwarded-Proto": "https"}
	resp, _ = c.Req("POST", "/home/api/v1/auth/signup", map[string]any{"email": "tls@example.com", "password": "correct horse"})
	for _, k := range resp.Cookies() {
		if k.Name == contract.AudienceCookie && !k.Secure {
			t.Fatalf("audience cookie not Secure over TLS")
		}
	}
}

func TestSignupBadInput(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	signup(t, e.Browser(), "taken@example.com")
	before := e.Count(`SELECT count(*) FROM users`)
	b := e.Browser()
	for name, body := range map[string]any{
		"malformed":      `{"email":`,
		"unknown field":  `{"email":"a@example.com","password":"12345678","admin":true}`,
		"wrong type":     `{"email":5,"password":"12345678"}`,
		"bad email":      `{"email":"not-an-email","password":"12345678"}`,
		"long tld":       `{"email":"a@example.comcom","password":"12345678"}`,
		"short password": `{"email":"a@example.com","password":"1234"}`,
		"missing":        `{}`,
		"duplicate":      `{"email":"TAKEN@example.com","password":"12345678"}`,
		"oversized":      `{"email":"a@example.com","password":"` + strings.Repeat("x", 2<<20) + `"}`,
	} {
		st, resp := b.Do("POST", "/home/api/v1/auth/signup", body)
		if st < 400 || st >= 500 || writertest.Code(t, resp) != st {
			t.Errorf("%s: %d %.200s", name, st, resp)
		}
		// Readers see the message: Korean, and for some cases these words.
		want := map[string]string{
			"unknown field":  `알 수 없는 항목입니다. ("admin")`,
			"bad email":      "이메일 형식이 올바르지 않습니다.",
			"short password": "비밀번호는 8자 이상 72자 이하로 입력해 주세요.",
			"duplicate":      "이미 가입된 이메일입니다.",
			"oversized":      "요청 내용이 너무 큽니다.",
		}[name]
		if msg := writertest.Message(t, resp); !testenv.Korean(msg) || !strings.Contains(msg, want) {
			t.Errorf("%s: message %q, want Korean holding %q", name, msg, want)
		}
	}
	if after := e.Count(`SELECT count(*) FROM users`); after != before {
		t.Fatalf("bad sign-ups created users: %d -> %d", before, after)
	}
}

func TestGuest(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	b := e.Browser()
	st, body := b.Do("POST", "/home/api/v1/auth/guest", nil)
	if st != 201 {
		t.Fatalf("guest: %d %s", st, body)
	}
	m := getMe(t, b)
	if m.AuthInfo.LoginType != "D" || m.AuthInfo.LoginPrefix != "D" || m.AuthInfo.DisplayName != m.AuthInfo.UID || m.AuthInfo.Email != "" {
		t.Fatalf("guest auth info: %+v", m.AuthInfo)
	}
}

func TestSaveLoginAndAutoLogin(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	signup(t, e.Browser(), "saved@example.com")
	b := e.Browser()
	if st, body := b.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "saved@example.com", "password": "correct horse", "saveLogin": true}); st != 200 {
		t.Fatalf("login: %d %s", st, body)
	}
	rec := b.Cookie(auth.SaveLoginCookie)
	secret := b.Cookie(auth.AutoLoginCookie)
	if rec == nil || secret == nil {
		t.Fatal("save-login cookies missing")
	}
	v, _ := url.ParseQuery(rec.Value)
	if v.Get("id") == "" || v.Get("password") == "" || v.Get("expiry") == "" {
		t.Fatalf("save-login record %q lacks id, password or expiry", rec.Value)
	}
	if strings.Contains(rec.Value, "correct") {
		t.Fatal("the save-login record holds the password")
	}
	// A browser that only has the save-login secret (session expired).
	fresh := e.Browser()
	fresh.Headers = map[string]string{"Cookie": auth.AutoLoginCookie + "=" + secret.Value}
	resp, _ := fresh.Req("GET", "/api/v-1/user/login_auto.asp?new_url="+url.QueryEscape("/webtoon/detail/1"), nil)
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "/webtoon/detail/1" {
		t.Fatalf("auto-login: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	fresh.Headers = nil
	if m := getMe(t, fresh); m.AuthInfo == nil || m.AuthInfo.Email != "saved@example.com" {
		t.Fatalf("auto-login did not log in: %+v", m.AuthInfo)
	}
	// The used secret is spent; a replay goes to the login entry.
	replay := e.Browser()
	replay.Headers = map[string]string{"Cookie": auth.AutoLoginCookie + "=" + secret.Value}
	resp, _ = replay.Req("GET", "/api/v-1/user/login_auto.asp?new_url=/cs", nil)
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "/nuxgin?url=%2Fcs" {
		t.Fatalf("replayed secret: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Off-site targets are not followed, however disguised: browsers read "\\"
	// as "/" and drop tabs, and the redirect cleans "/./" away.
	for _, evil := range []string{"https://evil.example/", "//evil.example", "/\\evil.example", "/./\\evil.example",
		"/.\\/evil.example", "/\t/evil.example", "/../..//evil.example"} {
		resp, _ = fresh.Req("GET", "/api/v-1/user/login_auto.asp?new_url="+url.QueryEscape(evil), nil)
		// What the browser makes of the Location must be a path on our site.
		loc := strings.ReplaceAll(resp.Header.Get("Location"), `\`, "/")
		if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.ContainsAny(loc, "\t\r\n") {
			t.Errorf("off-site new_url %q followed: %s", evil, resp.Header.Get("Location"))
		}
	}
	// A return page with a query (spaces and Korean included) is kept.
	resp, _ = fresh.Req("GET", "/api/v-1/user/login_auto.asp?new_url="+url.QueryEscape("/search?keyword=달빛 조각사"), nil)
	if loc, _ := url.QueryUnescape(resp.Header.Get("Location")); loc != "/search?keyword=달빛 조각사" {
		t.Errorf("return page lost: %q", resp.Header.Get("Location"))
	}
}

func TestAdultVerificationAndToggle(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	adult := e.Browser()
	signup(t, adult, "adult@example.com")
	verify := func(c *writertest.Client, name, birth string) (int, me) {
		st, b := c.VerifyAdult(name, birth)
		var m me
		_ = json.Unmarshal(b, &m)
		return st, m
	}
	// Real-name mismatch at the provider: refused, nothing stored.
	if st, _ := verify(adult, "홍길동불일치", "1990-01-01"); st != 400 {
		t.Fatalf("mismatch: %d", st)
	}
	if e.Count(`SELECT count(*) FROM users WHERE auth_real`) != 0 {
		t.Fatal("mismatch stored a verification")
	}
	for name, body := range map[string]string{
		"missing id": `{}`, "typed name": `{"name":"홍길동","birthDate":"1990-01-01"}`,
		"id and birth date": `{"identityVerificationId":"iv-x","birthDate":"1990-01-01"}`, "wrong type": `{"identityVerificationId":1}`,
	} {
		if st, _ := adult.Do("POST", "/home/api/v1/auth/adult/verify", body); st != 400 {
			t.Errorf("%s: %d", name, st)
		}
	}
	// Born 2007-11-22: 19 today in Korea (fixedNow is 12:00 KST on 2026-11-22).
	st, m := verify(adult, "홍길동", "2007-11-22")
	if st != 200 || m.AdultInfo.Age != 19 || !m.AdultInfo.AuthAdult || !m.AdultInfo.AuthReal || m.AdultInfo.AdultLevel != 2 {
		t.Fatalf("adult verification: %d %+v", st, m.AdultInfo)
	}
	if audienceLevel(t, adult) != 2 || adult.Cookie(auth.AdultModeCookie).Value != "Y" {
		t.Fatalf("adult cookies not set")
	}
	st, b := adult.Do("PUT", "/home/api/v1/auth/adult/toggle", map[string]any{"on": false})
	if st != 200 || audienceLevel(t, adult) != 3 || adult.Cookie(auth.AdultModeCookie).Value != "N" ||
		!strings.Contains(adult.Cookie(auth.MemberCookie).Value, "19Toggle=OFF") {
		t.Fatalf("toggle off: %d %s", st, b)
	}
	if st, _ := adult.Do("PUT", "/home/api/v1/auth/adult/toggle", `{}`); st != 400 {
		t.Fatalf("toggle without on: %d", st)
	}
	// A teen is verified (level 1) but may not toggle.
	teen := e.Browser()
	signup(t, teen, "teen@example.com")
	st, m = verify(teen, "김철수", "2007-11-23")
	if st != 200 || m.AdultInfo.Age != 18 || m.AdultInfo.AuthAdult || m.AdultInfo.AdultLevel != 1 || audienceLevel(t, teen) != 1 {
		t.Fatalf("teen verification: %d %+v", st, m.AdultInfo)
	}
	if st, _ := teen.Do("PUT", "/home/api/v1/auth/adult/toggle", map[string]any{"on": true}); st != 403 {
		t.Fatalf("teen toggle: %d", st)
	}
	// Visitors must log in first; logout resets the audience to level 0.
	if st, _ := e.Browser().Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": "iv-x"}); st != 401 {
		t.Fatalf("visitor verify: %d", st)
	}
	adult.Do("POST", "/home/api/v1/auth/logout", nil)
	if audienceLevel(t, adult) != 0 {
		t.Fatal("logout kept the adult audience")
	}
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	b := e.Browser()
	signup(t, b, "csrf@example.com")
	b.Headers = map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
	st, body := b.Do("POST", "/home/api/v1/auth/logout", nil)
	if st != 403 || writertest.Code(t, body) != 403 {
		t.Fatalf("cross-site logout: %d %s", st, body)
	}
	b.Headers = map[string]string{"Origin": "https://evil.example"}
	if st, _ := b.Do("POST", "/home/api/v1/auth/logout", nil); st != 403 {
		t.Fatalf("foreign origin: %d", st)
	}
	if getMe(t, &writertest.Client{T: t, Base: b.Base, HTTP: b.HTTP}).AuthInfo == nil {
		t.Fatal("refused call logged out")
	}
	// Same origin through the edge (X-Forwarded-Host) passes.
	b.Headers = map[string]string{"Origin": "https://store.example", "X-Forwarded-Host": "store.example", "Sec-Fetch-Site": "same-origin"}
	if st, _ := b.Do("POST", "/home/api/v1/auth/logout", nil); st != 200 {
		t.Fatalf("same-origin logout: %d", st)
	}
}

// The startup resolution's {hash} call: the session's id maps to its web id,
// anything else (or no session) to "".
func TestHashForStartupResolution(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	b := e.Browser()
	m := signup(t, b, "hash@example.com")
	if !strings.Contains(b.Cookie(auth.MemberCookie).Value, "mode=dev") {
		t.Fatalf("member cookie without mode: %s", b.Cookie(auth.MemberCookie).Value)
	}
	type ans struct {
		EncryptList []string `json:"encryptList"`
	}
	st, body := b.Do("POST", "/home/api/v1/auth/hash", map[string]any{"ids": []string{m.AuthInfo.UID, "12345"}})
	var a ans
	_ = json.Unmarshal(body, &a)
	if st != 200 || len(a.EncryptList) != 2 || a.EncryptList[0] != b.Cookie(auth.WebIDCookie).Value || a.EncryptList[1] != "" {
		t.Fatalf("hash: %d %s", st, body)
	}
	st, body = e.Browser().Do("POST", "/home/api/v1/auth/hash", writertest.Form("id="+m.AuthInfo.UID))
	_ = json.Unmarshal(body, &a)
	if st != 200 || a.EncryptList[0] != "" {
		t.Fatalf("hash without session: %d %s", st, body)
	}
	if st, _ := b.Do("POST", "/home/api/v1/auth/hash", map[string]any{}); st != 400 {
		t.Fatalf("hash without id: %d", st)
	}
}

// The audience token the edge reads is signed and expires: a month after it
// was set it no longer verifies, and a wrong secret never does.
func TestAudienceTokenExpires(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	b := e.Browser()
	signup(t, b, "aud@example.com")
	k := b.Cookie(contract.AudienceCookie)
	if k == nil {
		t.Fatal("no audience cookie")
	}
	if _, err := contract.VerifyAudience([]byte("aud"), k.Value, fixedNow.Add(29*24*time.Hour)); err != nil {
		t.Fatalf("token rejected within its month: %v", err)
	}
	if _, err := contract.VerifyAudience([]byte("aud"), k.Value, fixedNow.Add(31*24*time.Hour)); err == nil {
		t.Fatal("token accepted after it expired")
	}
	if _, err := contract.VerifyAudience([]byte("other"), k.Value, fixedNow); err == nil {
		t.Fatal("token accepted with another secret")
	}
}

// Sessions live in PostgreSQL: a session started on one writer node is
// known to another on the same database, and a logout on either ends it.
func TestSessionSharedAcrossNodes(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	b := start(t, func(c *server.Config) {
		c.DatabaseURL = a.DatabaseURL
		c.NATSURL = a.NATS.URL
	})
	onA := a.Browser()
	signup(t, onA, "nodes@example.com")
	if n := a.Count(`SELECT count(*) FROM sessions`); n != 1 {
		t.Fatalf("%d sessions in PostgreSQL", n)
	}
	// Cookies do not tell ports apart: the same browser, now talking to B.
	onB := &writertest.Client{T: t, Base: b.Base, HTTP: onA.HTTP}
	if m := getMe(t, onB); m.AuthInfo == nil || m.AuthInfo.Email != "nodes@example.com" {
		t.Fatalf("node B does not know the session: %+v", m.AuthInfo)
	}
	// Logout on B ends the session for A too, even for a client that kept
	// the old session cookie.
	kept := onA.Cookie(auth.SessionCookie)
	if kept == nil {
		t.Fatal("no session cookie")
	}
	replay := &writertest.Client{T: t, Base: a.Base, Headers: map[string]string{"Cookie": auth.SessionCookie + "=" + kept.Value}}
	if m := getMe(t, replay); m.AuthInfo == nil {
		t.Fatal("the kept cookie does not carry the session")
	}
	if st, _ := onB.Do("POST", "/home/api/v1/auth/logout", nil); st != 200 {
		t.Fatalf("logout on B: %d", st)
	}
	if m := getMe(t, replay); m.AuthInfo != nil {
		t.Fatalf("node A still honours the session after logout on B: %+v", m.AuthInfo)
	}
}
