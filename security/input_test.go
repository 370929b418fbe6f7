package security

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack/testenv"
	edgeserver "storefront/edge/server"
	writerserver "storefront/writer/server"
)

// The admin API, reached through the edge, refuses every call without the
// exact bearer token (no token, a wrong one, another scheme, the token in
// the query or a cookie, a prefix of it) with a 401 envelope and changes
// nothing; the right token works.
func TestAdminAPINeedsItsToken(t *testing.T) {
	s := startStack(t, options{})
	before := s.fingerprint()
	c := s.visitor()
	patch := map[string]any{"title": "관리자가 아닌 사람이 바꾼 제목"}
	for name, h := range map[string]map[string]string{
		"no token":          nil,
		"wrong token":       {"Authorization": "Bearer wrong-token"},
		"empty bearer":      {"Authorization": "Bearer "},
		"prefix":            {"Authorization": "Bearer " + adminToken[:len(adminToken)-1]},
		"longer":            {"Authorization": "Bearer " + adminToken + "x"},
		"lower-case scheme": {"Authorization": "bearer " + adminToken},
		"basic":             {"Authorization": "Basic " + adminToken},
		"token only":        {"Authorization": adminToken},
		"dev default":       {"Authorization": "Bearer dev-admin-token"},
		"cookie":            {"Cookie": "Authorization=Bearer " + adminToken},
		"other header":      {"X-Admin-Token": adminToken},
	} {
		cl := c.with(h)
		st, b := cl.do("PATCH", "/admin/api/v1/works/"+paidWork, patch)
		envelope(t, "PATCH "+name, st, b, 401)
		st, b = cl.do("GET", "/admin/api/v1/works/"+paidWork+"?token="+adminToken+"&access_token="+adminToken, nil)
		envelope(t, "GET "+name, st, b, 401)
		st, b = cl.do("POST", "/admin/api/v1/users/1/coupons", map[string]any{"kind": "read", "pid": paidWork, "count": 100})
		envelope(t, "grant "+name, st, b, 401)
	}
	if after := s.fingerprint(); after != before {
		t.Error("refused admin calls changed the database")
	}
	if st, b := s.admin("GET", "/admin/api/v1/works/"+paidWork, nil); st != 200 {
		t.Errorf("right token: %d %s", st, b)
	}
}

// Login attempts are limited per account and per client address, and the
// address is the one the edge saw: made-up X-Forwarded-For entries, a new one
// per attempt, do not open a fresh allowance. Charging calls are limited per
// member through the edge as well.
func TestRateLimitsThroughTheEdge(t *testing.T) {
	s := startStack(t, options{writer: func(c *writerserver.Config) { c.LoginPerMinute, c.ChargePerMinute = 2, 2 }})
	// Per client: LOGIN_PER_MINUTE (2) attempts a minute over any accounts.
	c := s.visitor()
	var codes []int
	for i := range 4 {
		h := c.with(map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i+1), "X-Real-IP": fmt.Sprintf("198.51.100.%d", i+1)})
		st, _ := h.do("POST", "/home/api/v1/auth/login", map[string]any{"email": fmt.Sprintf("nobody%d@example.com", i), "password": "guess"})
		codes = append(codes, st)
	}
	if fmt.Sprint(codes) != "[401 401 429 429]" {
		t.Errorf("login codes over 4 accounts with spoofed addresses: %v, want 401 twice, then 429", codes)
	}
	// Per account: the third attempt in a minute is refused even with the
	// right password (a minute later, so the client's allowance is back).
	s.member("limited@example.com")
	s.clock.Add(2 * time.Minute)
	for i, want := range []int{401, 401, 429} {
		other := s.visitor().with(map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i+1)})
		pw := "wrong"
		if i == 2 {
			pw = "correct horse"
		}
		st, b := other.do("POST", "/home/api/v1/auth/login", map[string]any{"email": "limited@example.com", "password": pw})
		if st != want {
			t.Errorf("attempt %d on one account: %d %s, want %d", i+1, st, b, want)
		}
		if st == 429 {
			envelope(t, "limited login", st, b, 429)
		}
	}
	// Charging: 2 calls a minute per member.
	m := s.member("charger@example.com")
	for i, want := range []int{200, 200, 429} {
		k := m.with(map[string]string{"Idempotency-Key": fmt.Sprintf("rate-%d", i)})
		st, b := k.do("POST", "/home/api/v1/charge/requests", map[string]any{"amount": 1000})
		if st != want {
			t.Errorf("charge request %d: %d %s, want %d", i+1, st, b, want)
		}
	}
	if n := s.count(`SELECT count(*) FROM charges WHERE uid = $1`, m.uid); n != 2 {
		t.Errorf("%d charge orders, want 2", n)
	}
}

// SQL and markup in every text a reader can send are data: refused as
// invalid where the field has a format, stored and shown literally where it
// is free text, JSON-escaped wherever it is served, and no table is harmed.
func TestInjectionIsData(t *testing.T) {
	s := startStack(t, options{})
	m := s.member("inject@example.com")
	const sqlText = `'); DROP TABLE reviews; --`
	const markup = `<img src=x onerror=window.__xss=1>"><script>window.__xss=1</script>`
	users := s.count(`SELECT count(*) FROM users`)

	// Formatted fields refuse both.
	for _, c := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"login email", "POST", "/home/api/v1/auth/login", map[string]any{"email": `' OR '1'='1' --`, "password": `' OR '1'='1`}, 401},
		{"login email sql", "POST", "/home/api/v1/auth/login", map[string]any{"email": "inject@example.com' --", "password": "x"}, 401},
		{"signup email", "POST", "/home/api/v1/auth/signup", map[string]any{"email": "a'; DROP TABLE users;--@x.com", "password": "correct horse"}, 400},
		{"zzim pid", "POST", "/protocol/appapi/mb/user/info/zzim-add", form("pid=" + url.QueryEscape(paidWork+"' OR '1'='1")), 0},
		{"recent pid", "POST", "/home/api/v1/users/recent", map[string]any{"pid": "x'; DELETE FROM works;--", "vol": 1}, 400},
		{"purchase pid", "POST", "/home/api/v1/purchases", map[string]any{"pid": "x' OR 1=1--", "vols": []int{1}, "buyType": "B"}, 400},
		{"review pid", "POST", "/home/api/v1/products/" + url.PathEscape("x' OR 1=1--") + "/reviews", map[string]any{"body": "x", "point": 5}, 0},
		{"download pid", "POST", "/protocol/api/v-1/product/download-auth.asp", form("pid=" + url.QueryEscape("x' UNION SELECT password_hash FROM users--") + "&vol=1"), 0},
	} {
		cl := m.with(map[string]string{"Idempotency-Key": "inj-" + c.name})
		if strings.HasPrefix(c.name, "login") {
			cl = s.visitor()
		}
		st, b := cl.do(c.method, c.path, c.body)
		if st < 400 || st >= 500 || (c.want != 0 && st != c.want) {
			t.Errorf("%s: %d %.200s, want a 4xx", c.name, st, b)
		}
		if bytes.Contains(b, []byte("argon2")) || bytes.Contains(b, []byte("SQLSTATE")) || bytes.Contains(b, []byte("syntax error")) {
			t.Errorf("%s leaks database detail: %s", c.name, b)
		}
	}

	// Free text is stored as written.
	if st, b := m.do("POST", "/home/api/v1/products/"+paidWork+"/reviews", map[string]any{"body": sqlText + markup, "point": 8}); st != 201 {
		t.Fatalf("review: %d %s", st, b)
	}
	if st, b := m.do("POST", "/home/api/v1/cs/qna", map[string]any{"category": "etc", "title": sqlText, "body": markup}); st != 201 {
		t.Fatalf("qna: %d %s", st, b)
	}
	if st, b := s.admin("PATCH", "/admin/api/v1/works/"+paidWork, map[string]any{"title": "제목 " + markup}); st != 200 {
		t.Fatalf("admin title: %d %s", st, b)
	}
	shown := func(path string) []byte {
		t.Helper()
		var b []byte
		s.eventually(path+" shows the text", func() error {
			var st int
			st, b = m.get(path)
			var v any
			if st != 200 || json.Unmarshal(b, &v) != nil || !strings.Contains(fmt.Sprint(v), "window.__xss=1") {
				return fmt.Errorf("%d %.200s", st, b)
			}
			return nil
		})
		return b
	}
	for _, path := range []string{
		"/home/api/v1/products/" + paidWork + "/reviews?sort=recent",
		"/home/api/v1/products/" + paidWork + "/reviews/v2?sort=recent",
		"/home/api/v1/products/" + paidWork,
		"/home/api/v1/cs/qna",
		"/home/api/v1/search?q=" + url.QueryEscape("제목"),
	} {
		b := shown(path)
		// JSON carries the text escaped: a browser sniffing it finds no tag.
		if bytes.ContainsAny(b, "<>") {
			t.Errorf("%s serves raw markup: %.300s", path, b)
		}
	}
	// The edge's search treats SQL as a search term.
	if st, b := m.get("/home/api/v1/search?q=" + url.QueryEscape(`' OR 1=1--`)); st != 200 || bytes.Contains(b, []byte(paidWork)) {
		t.Errorf("search for SQL: %d %.200s", st, b)
	}
	if n := s.count(`SELECT count(*) FROM reviews WHERE body = $1`, sqlText+markup); n != 1 {
		t.Errorf("review stored %d times as written", n)
	}
	if n := s.count(`SELECT count(*) FROM users`); n != users {
		t.Errorf("users %d, want %d", n, users)
	}
	if n := s.count(`SELECT count(*) FROM works`); n != 2 {
		t.Errorf("works %d, want 2", n)
	}
}

// rawGet sends path exactly as written (no client-side clean-up) and answers
// the status line and the body.
func rawGet(t *testing.T, addr, path string) (string, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: store.example\r\nConnection: close\r\n\r\n", path)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return "unreadable: " + err.Error(), nil
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.Status, b.Bytes()
}

// rawRequest writes head (a request without its body) and reads the answer.
func rawRequest(t *testing.T, addr, head string) (string, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(head)); err != nil {
		return "write failed: " + err.Error(), nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return "unreadable: " + err.Error(), nil
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.Status, b.Bytes()
}

// koreanMessage checks that a refusal's envelope says why in Korean (a
// Hangul syllable; parameter names may stay Latin): the reader sees it.
func koreanMessage(t *testing.T, what string, b []byte) {
	t.Helper()
	var e contract.Envelope
	_ = json.Unmarshal(b, &e)
	if !testenv.Korean(e.Header.Message) {
		t.Errorf("%s: message %q is not Korean", what, e.Header.Message)
	}
}

func statusCode(status string) int {
	var n int
	fmt.Sscanf(status, "%d", &n)
	return n
}

// Path traversal: no path, however encoded, reads a file outside the built
// SPA (the edge serves it from memory) or reaches content it names by a
// detour; /content and /img paths that are not exactly a page or a picture
// are 404s.
func TestPathTraversal(t *testing.T) {
	root := t.TempDir()
	static := filepath.Join(root, "client")
	const secret = "OUTSIDE-THE-BUILD-7f3a"
	for name, body := range map[string]string{
		filepath.Join(static, "index.html"):       "<!doctype html><title>store</title>",
		filepath.Join(static, "assets", "app.js"): "console.log('app')",
		filepath.Join(root, "secret.txt"):         secret,
		filepath.Join(root, "secret.svg"):         secret,
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startStack(t, options{edge: func(c *edgeserver.Config) { c.StaticDir = static }})
	tok := contract.SignContent([]byte("dev-content-secret"), paidWork, 1, s.clock.Now().Add(time.Hour))
	// Volume 3's last page (past the preview) by detours from volume 1,
	// with volume 1's token.
	v3 := strings.TrimPrefix(s.pageURL(paidWork, 3, 5), contract.ContentBase(paidWork, 3)) // "/<ver>/5"
	detours := map[string]bool{
		"/content/" + paidWork + "/1/../3" + v3 + "?t=" + tok:                                             true,
		"/content/" + paidWork + "/1/%2e%2e%2f3" + strings.ReplaceAll(v3, "/", "%2f") + "?t=" + tok:       true,
		"/content/" + paidWork + "/1" + strings.TrimSuffix(v3, "/5") + "/1/../../../3" + v3 + "?t=" + tok: true,
		"/content/" + paidWork + "/1/%2e%2e%2f3%2f5.svg?t=" + tok:                                         true, "/content/" + paidWork + "/1/../3/5.svg?t=" + tok: true,
	}
	paths := []string{
		"/../secret.txt", "/..%2fsecret.txt", "/%2e%2e/secret.txt", "/%2e%2e%2fsecret.txt", "/assets/../../secret.txt",
		"/assets/..%2f..%2fsecret.txt", "/assets/%2e%2e/%2e%2e/secret.txt", "/..\\secret.txt", "/.%2e/secret.txt",
		"/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/index.html/../../secret.txt",
		"/content/../../secret.txt", "/content/" + paidWork + "/1/../../../../secret.svg", "/content/" + paidWork + "/1/..%2f..%2f..%2fsecret.svg",
		"/content/..%2f..%2fsecret/1/1.svg", "/content/" + paidWork + "/1/1.svg/../../../../secret.svg",
		"/img/cover/..%2f..%2f..%2fsecret.svg", "/img/cover/../../secret.svg", "/img/../secret.svg", "/img/icon/..%2f..%2fsecret.svg",
		"/home/api/v1/products/..%2f..%2f..%2fsecret.txt", "/home/api/v1/products/%2e%2e/volumes",
		"/api/../admin/api/v1/works/" + paidWork, "/home/api/v1/../../admin/api/v1/works/" + paidWork,
	}
	for p := range detours {
		paths = append(paths, p)
	}
	for _, p := range paths {
		status, b := rawGet(t, s.edgeAddr, p)
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("root:x:0:0")) {
			t.Errorf("%s read a file outside the build: %s", p, status)
		}
		if detours[p] && strings.HasPrefix(status, "200") {
			t.Errorf("%s: a token for volume 1 opened volume 3 by a detour", p)
		}
		// A detour to the admin API gets its 401, a redirect to the clean
		// path (which is a 401), or the SPA: never an admin answer.
		if strings.Contains(p, "admin/api") && !strings.HasPrefix(status, "401") && !strings.HasPrefix(status, "307") &&
			!(strings.HasPrefix(status, "200") && bytes.Contains(b, []byte("<title>store</title>"))) {
			t.Errorf("%s: %s, want no admin answer without a token: %.200s", p, status, b)
		}
		if strings.HasPrefix(status, "5") {
			t.Errorf("%s: %s", p, status)
		}
	}
}

// Oversize bodies and headers get a 4xx in the seed envelope, from the edge
// or the writer, and change nothing.
func TestOversizeInput(t *testing.T) {
	s := startStack(t, options{})
	m := s.member("big@example.com")
	before := s.fingerprint()
	big := func(n int) string { return `{"pid":"` + paidWork + `","body":"` + strings.Repeat("가", n/3) + `"}` }
	for _, c := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"member payload over 1 MiB", "POST", "/protocol/appapi/mb/user/info/zzim-add", big(2 << 20), 413},
		{"review over 1 MiB", "POST", "/home/api/v1/products/" + paidWork + "/reviews", big(2 << 20), 413},
		{"money payload over 16 KiB", "POST", "/home/api/v1/purchases", big(20 << 10), 413},
		{"signup over 1 MiB", "POST", "/home/api/v1/auth/signup", big(3 << 20), 413},
		{"tracking event with a 2 MiB prop", "POST", "/home/api/v1/tracking/page-view",
			`{"curPageUrl":"/","props":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`, 400},
		{"tracking event with a 100 KiB route", "POST", "/home/api/v1/tracking/events",
			`{"events":[{"type":"page_view","curPageUrl":"/","route":"` + strings.Repeat("r", 100<<10) + `"}]}`, 400},
	} {
		cl := m.with(map[string]string{"Idempotency-Key": "big-" + c.name})
		st, b := cl.do(c.method, c.path, c.body)
		envelope(t, c.name, st, b, c.want)
		if strings.Contains(c.path, "/tracking/") {
			koreanMessage(t, c.name, b) // the edge's own refusal
		}
	}
	// Over the edge's own limits: a 5 MiB body (announced, the way an
	// upload starts) and a 64 KiB header. The edge answers before reading on.
	status, b := rawRequest(t, s.edgeAddr, "POST /home/api/v1/tracking/events HTTP/1.1\r\nHost: store.example\r\n"+
		"Content-Type: application/json\r\nContent-Length: 5242880\r\n\r\n")
	envelope(t, "5 MiB body: "+status, statusCode(status), b, 413)
	koreanMessage(t, "5 MiB body", b)
	status, b = rawRequest(t, s.edgeAddr, "GET /home/api/v1/home HTTP/1.1\r\nHost: store.example\r\nCookie: sf_x="+
		strings.Repeat("a", 64<<10)+"\r\n\r\n")
	envelope(t, "64 KiB header: "+status, statusCode(status), b, 431)
	koreanMessage(t, "64 KiB header", b)
	if after := s.fingerprint(); after != before {
		t.Error("oversize calls changed the database")
	}
}
