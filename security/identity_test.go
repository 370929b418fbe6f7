package security

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// me answers the uid /me reports for c ("" for a visitor).
func (c *client) me() string {
	c.t.Helper()
	st, b := c.get("/home/api/v1/auth/me")
	if st != 200 {
		c.t.Fatalf("/me: %d %s", st, b)
	}
	var m struct {
		AuthInfo *struct{ UID string } `json:"authInfo"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("/me answer: %s", b)
	}
	if m.AuthInfo == nil {
		return ""
	}
	return m.AuthInfo.UID
}

// withSession is a fresh browser holding only the given session cookie value.
func (s *stack) withSession(token string) *client {
	c := s.visitor()
	u, _ := url.Parse(s.edgeURL)
	c.http.Jar.SetCookies(u, []*http.Cookie{{Name: "sf_session", Value: token, Path: "/"}})
	return c
}

// A seed payload's uid that is not the session's is refused with 403 on every
// route that takes one, through the edge, and changes nothing.
func TestPayloadUIDMustBeTheSessions(t *testing.T) {
	s := startStack(t, options{})
	a, b := s.member("uid-a@example.com"), s.member("uid-b@example.com")
	if st, body := b.do("POST", "/protocol/appapi/mb/user/info/zzim-add", form("uid="+b.uid+"&pid="+paidWork)); st != 200 {
		t.Fatalf("b's own zzim entry: %d %s", st, body)
	}
	b.charge(1000)
	before := s.fingerprint()
	key := func(k string) *client { return a.with(map[string]string{"Idempotency-Key": k}) }
	for _, c := range []struct {
		name string
		c    *client
		path string
		body any
	}{
		{"zzim-add", a, "/protocol/appapi/mb/user/info/zzim-add", form("uid=" + b.uid + "&pid=" + paidWork)},
		{"zzim-add json number", a, "/protocol/appapi/mb/user/info/zzim-add", `{"uid":` + b.uid + `,"pid":"` + paidWork + `"}`},
		{"zzim-del", a, "/protocol/appapi/mb/user/info/zzim-del", form("uid=" + b.uid + "&idxs=1,2,3")},
		{"zzim-list", a, "/protocol/appapi/mb/user/info/zzim-list", form("uid=" + b.uid + "&section=all")},
		{"alarm-set", a, "/protocol/appapi/mb/user/info/alarm-set", form("uid=" + b.uid + "&pid=" + paidWork + "&isAlarm=Y")},
		{"user-get-info", a, "/protocol/appapi/mb/user/info/user-get-info", form("uid=" + b.uid + "&channel=AW")},
		{"qna_list", a, "/protocol/appapi/mb/helpdesk/qna_list", form("uid=" + b.uid + "&page=1")},
		{"ticket-info", a, "/protocol/appapi/mb/user/info/ticket-info", form("uid=" + b.uid)},
		{"getinfo", a, "/protocol/appapi/mb/user/info/getinfo", form("uid=" + b.uid)},
		{"purchase", key("p1"), "/home/api/v1/purchases", map[string]any{"uid": b.uid, "pid": paidWork, "vols": []int{2}, "buyType": "B"}},
		{"coupon use", key("c1"), "/home/api/v1/coupons/use", map[string]any{"uid": b.uid, "pid": paidWork, "vol": 2, "kind": "read"}},
		{"charge", key("ch1"), "/home/api/v1/charge/requests", map[string]any{"uid": b.uid, "amount": 1000}},
		{"download-auth", a, "/protocol/api/v-1/product/download-auth.asp", form("uid=" + b.uid + "&pid=" + paidWork + "&vol=2")},
		{"download-auth json", a, "/protocol/api/v-1/product/download-auth.asp", `{"uid":"` + b.uid + `","pid":"` + paidWork + `","vol":2}`},
	} {
		st, body := c.c.do("POST", c.path, c.body)
		envelope(t, c.name+" with another member's uid", st, body, 403)
	}
	if after := s.fingerprint(); after != before {
		t.Errorf("refused calls changed the database:\n%s\n%s", before, after)
	}
	// The same calls with a's own uid pass: the 403 above is about the uid.
	if st, body := a.do("POST", "/protocol/appapi/mb/user/info/zzim-add", form("uid="+a.uid+"&pid="+paidWork)); st != 200 {
		t.Errorf("own uid refused: %d %s", st, body)
	}
	if st, body := a.do("POST", "/protocol/api/v-1/product/download-auth.asp", form("uid="+a.uid+"&pid="+paidWork+"&vol=2")); st != 200 ||
		!bytes.Contains(body, []byte(`"isAuth":false`)) {
		t.Errorf("own download-auth: %d %s", st, body)
	}
}

// Session fixation: a session id planted in the browser before login (made
// up, or the attacker's own real session) never becomes the victim's session;
// logout ends the session on the server, not only in the browser.
func TestSessionFixation(t *testing.T) {
	s := startStack(t, options{})
	s.member("victim@example.com").do("POST", "/home/api/v1/auth/logout", nil)
	login := func(c *client) {
		t.Helper()
		if st, b := c.do("POST", "/home/api/v1/auth/login", map[string]any{"email": "victim@example.com", "password": "correct horse"}); st != 200 {
			t.Fatalf("login: %d %s", st, b)
		}
	}

	// A made-up id.
	const planted = "attacker-chosen-session-id-0123456789abcdef"
	v := s.withSession(planted)
	login(v)
	if got := v.cookie("sf_session"); got == "" || got == planted {
		t.Errorf("session cookie after login %q: the planted id survived", got)
	}
	victim := v.me()
	if victim == "" {
		t.Fatal("victim not logged in")
	}
	if uid := s.withSession(planted).me(); uid != "" {
		t.Errorf("the planted id is member %s's session after login", uid)
	}

	// The attacker's own real session, planted in the victim's browser.
	att := s.member("attacker@example.com")
	attTok := att.cookie("sf_session")
	v = s.withSession(attTok)
	login(v)
	if got := v.cookie("sf_session"); got == attTok {
		t.Error("login kept the planted session id")
	}
	if uid := v.me(); uid != victim {
		t.Errorf("victim's browser is member %q after login, want %s", uid, victim)
	}
	if uid := s.withSession(attTok).me(); uid == victim {
		t.Error("the attacker's planted session now belongs to the victim")
	}

	// A guest session upgraded by login gets a new id too.
	g := s.visitor()
	if st, b := g.do("POST", "/home/api/v1/auth/guest", nil); st != 201 {
		t.Fatalf("guest: %d %s", st, b)
	}
	guestTok := g.cookie("sf_session")
	login(g)
	if g.cookie("sf_session") == guestTok || s.withSession(guestTok).me() == victim {
		t.Error("the guest session id survived login")
	}

	// Logout: the old id is dead on the server, even if a copy was kept.
	tok := g.cookie("sf_session")
	if st, b := g.do("POST", "/home/api/v1/auth/logout", nil); st != 200 {
		t.Fatalf("logout: %d %s", st, b)
	}
	if uid := s.withSession(tok).me(); uid != "" {
		t.Errorf("session id still logged in as %s after logout", uid)
	}
}

// CSRF through the edge: a browser call from another site carrying the
// member's cookies is refused and changes nothing; the same call from the
// store's own pages passes. (writer/auth TestCSRF covers the writer alone.)
func TestCSRFThroughTheEdge(t *testing.T) {
	s := startStack(t, options{})
	m := s.member("csrf@example.com")
	m.charge(1000)
	before := s.fingerprint()
	evil := []map[string]string{
		{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
		{"Origin": "https://evil.example"},
		{"Origin": "null"},
		{"Origin": "http://" + s.edgeAddr + ".evil.example", "Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site", "Origin": "https://sub." + strings.Split(s.edgeAddr, ":")[0]},
	}
	for i, h := range evil {
		c := m.with(h).with(map[string]string{"Idempotency-Key": "csrf-" + string(rune('a'+i))})
		for _, call := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/protocol/appapi/mb/user/info/zzim-add", form("pid=" + paidWork)},
			{"POST", "/home/api/v1/purchases", map[string]any{"pid": paidWork, "vols": []int{2}, "buyType": "B"}},
			{"POST", "/home/api/v1/products/" + paidWork + "/reviews", map[string]any{"body": "csrf", "point": 10}},
			{"PUT", "/home/api/v1/auth/adult/toggle", map[string]any{"on": true}},
			{"POST", "/home/api/v1/auth/logout", form("")},
		} {
			st, body := c.do(call.method, call.path, call.body)
			envelope(t, call.path+" cross-site "+strings.Join(mapKeys(h), ","), st, body, 403)
		}
	}
	if after := s.fingerprint(); after != before {
		t.Errorf("cross-site calls changed the database")
	}
	if m.me() != m.uid {
		t.Error("a cross-site logout logged the member out")
	}
	same := m.with(map[string]string{"Origin": s.edgeURL, "Sec-Fetch-Site": "same-origin"})
	if st, body := same.do("POST", "/protocol/appapi/mb/user/info/zzim-add", form("pid="+paidWork)); st != 200 {
		t.Errorf("same-origin call refused: %d %s", st, body)
	}
}

func mapKeys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

// Cookie flags as a browser receives them through the edge: the session, the
// audience token and the save-login secret are HttpOnly and SameSite=Lax; the
// page-readable cookies carry no secret; the tracking id is HttpOnly.
func TestCookieFlagsThroughTheEdge(t *testing.T) {
	s := startStack(t, options{})
	s.member("flags@example.com")
	c := s.visitor()
	resp := c.req("POST", "/home/api/v1/auth/login", map[string]any{"email": "flags@example.com", "password": "correct horse", "saveLogin": true})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	got := map[string]*http.Cookie{}
	for _, k := range resp.Cookies() {
		got[k.Name] = k
	}
	for _, name := range []string{"sf_session", "sf_aud", "sf_autologin"} {
		k := got[name]
		if k == nil || !k.HttpOnly || k.SameSite != http.SameSiteLaxMode || k.Path != "/" || k.Value == "" {
			t.Errorf("%s: %+v, want HttpOnly, SameSite=Lax, Path=/", name, k)
		}
	}
	for _, name := range []string{"sf_member", "sf_bid", "sf_adult", "sf_save"} {
		k := got[name]
		if k == nil || k.SameSite != http.SameSiteLaxMode {
			t.Errorf("%s: %+v, want SameSite=Lax", name, k)
			continue
		}
		for _, secret := range []string{got["sf_session"].Value, got["sf_autologin"].Value, got["sf_aud"].Value, "correct horse"} {
			if secret != "" && strings.Contains(k.Value, secret) {
				t.Errorf("page-readable cookie %s carries a secret: %q", name, k.Value)
			}
		}
	}
	resp = c.req("POST", "/home/api/v1/tracking/page-view", map[string]any{"curPageUrl": "/"})
	resp.Body.Close()
	var sid *http.Cookie
	for _, k := range resp.Cookies() {
		if k.Name == "sf_sid" {
			sid = k
		}
	}
	if resp.StatusCode != 200 || sid == nil || !sid.HttpOnly || sid.SameSite != http.SameSiteLaxMode {
		t.Errorf("tracking cookie: %d %+v", resp.StatusCode, sid)
	}
}
