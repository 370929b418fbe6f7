package auth_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

// analystCookie reads the Set-Cookie of sf_analyst from a response.
func analystCookie(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == contract.AnalystCookie {
			return c
		}
	}
	return nil
}

// An analyst logs in like any member; the role, set by the catalog admin,
// adds the signed analyst cookie analytics checks, and nothing else: the
// catalog admin API stays closed to the analyst's session.
func TestAnalystRole(t *testing.T) {
	t.Parallel()
	e := start(t, func(c *server.Config) { c.AnalystSecret = "ana" })
	b := e.Browser()
	m := signup(t, b, "analyst@example.com")
	if b.Cookie(contract.AnalystCookie) != nil {
		t.Fatal("a member without the role got the analyst cookie")
	}

	// Only the admin token sets roles; bad input changes nothing.
	for _, c := range []struct {
		client *writertest.Client
		path   string
		body   any
		want   int
	}{
		{b, "/admin/api/v1/users/" + m.AuthInfo.UID + "/role", map[string]string{"role": "analyst"}, 401},
		{e.Admin, "/admin/api/v1/users/" + m.AuthInfo.UID + "/role", map[string]string{"role": "admin"}, 400},
		{e.Admin, "/admin/api/v1/users/" + m.AuthInfo.UID + "/role", map[string]string{}, 400},
		{e.Admin, "/admin/api/v1/users/x/role", map[string]string{"role": "analyst"}, 400},
		{e.Admin, "/admin/api/v1/users/999999999/role", map[string]string{"role": "analyst"}, 404},
	} {
		st, body := c.client.Do("PUT", c.path, c.body)
		if st != c.want || writertest.Code(t, body) != c.want {
			t.Errorf("PUT %s %v: %d %s, want %d", c.path, c.body, st, body, c.want)
		}
		if c.want == 400 && !strings.ContainsAny(writertest.Message(t, body), "가나다라마바사아자차카타파하요니다") {
			t.Errorf("400 message not Korean: %s", body)
		}
	}
	if n := e.Count(`SELECT count(*) FROM users WHERE role <> 'member'`); n != 0 {
		t.Fatalf("refused role changes changed %d members", n)
	}
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/users/"+m.AuthInfo.UID+"/role", map[string]string{"role": "analyst"}); st != 200 {
		t.Fatalf("grant analyst: %d %s", st, body)
	}

	// The next /me (the SPA asks it at start) hands the cookie out.
	resp, _ := b.Req("GET", "/home/api/v1/auth/me", nil)
	k := analystCookie(resp)
	if k == nil || !k.HttpOnly || k.SameSite != http.SameSiteStrictMode || k.MaxAge != 8*3600 {
		t.Fatalf("analyst cookie = %+v, want HttpOnly, SameSite=Strict, 8 hours", k)
	}
	uid, err := contract.VerifyAnalyst([]byte("ana"), k.Value, fixedNow)
	if err != nil || uid != m.AuthInfo.UID {
		t.Fatalf("analyst token names %q (%v), want %s", uid, err, m.AuthInfo.UID)
	}
	if _, err := contract.VerifyAnalyst([]byte("ana"), k.Value, fixedNow.Add(8*time.Hour)); err == nil {
		t.Error("the analyst token outlives 8 hours")
	}

	// A fresh login of the analyst gets it too.
	b2 := e.Browser()
	if st, body := b2.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "analyst@example.com", "password": "correct horse"}); st != 200 {
		t.Fatalf("login: %d %s", st, body)
	}
	if b2.Cookie(contract.AnalystCookie) == nil {
		t.Fatal("login of an analyst set no analyst cookie")
	}

	// The analyst's session opens no catalog-admin route.
	for _, r := range []struct{ method, path string }{{"POST", "/admin/api/v1/works"}, {"GET", "/admin/api/v1/works/P1"}, {"PUT", "/admin/api/v1/users/" + m.AuthInfo.UID + "/role"}} {
		st, body := b2.Do(r.method, r.path, map[string]any{"role": "analyst", "title": "x"})
		if st != 401 {
			t.Errorf("%s %s with an analyst session: %d %s, want 401", r.method, r.path, st, body)
		}
	}

	// The role withdrawn: the next /me takes the cookie back; logout too.
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/users/"+m.AuthInfo.UID+"/role", map[string]string{"role": "member"}); st != 200 {
		t.Fatalf("withdraw: %d %s", st, body)
	}
	resp, _ = b.Req("GET", "/home/api/v1/auth/me", nil)
	if k := analystCookie(resp); k == nil || k.MaxAge >= 0 {
		t.Errorf("withdrawn role: cookie %+v, want it cleared", k)
	}
	resp, _ = b2.Req("POST", "/home/api/v1/auth/logout", nil)
	if k := analystCookie(resp); k == nil || k.MaxAge >= 0 {
		t.Errorf("logout: cookie %+v, want it cleared", k)
	}
	// Guests cannot be analysts.
	g := e.Browser()
	resp, body := g.Req("POST", "/home/api/v1/auth/guest", nil)
	if resp.StatusCode != 201 {
		t.Fatalf("guest: %s", body)
	}
	var gid string
	if err := e.Pool.QueryRow(t.Context(), `SELECT uid::text FROM users WHERE login_type = 'D'`).Scan(&gid); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.Admin.Do("PUT", "/admin/api/v1/users/"+gid+"/role", map[string]string{"role": "analyst"}); st != 404 {
		t.Errorf("guest made analyst: %d", st)
	}
}
