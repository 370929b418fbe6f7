package server_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/server"
)

// fakeWriter is a real HTTP server standing in for a writer node.
func fakeWriter(t *testing.T, name string, hits *atomic.Int64) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		c, _ := r.Cookie("session")
		body, _ := io.ReadAll(r.Body)
		http.SetCookie(w, &http.Cookie{Name: "from", Value: name})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Writer", name)
		fmt.Fprintf(w, `{"header":{"code":200,"message":""},"node":%q,"method":%q,"path":%q,"cookie":%q,"body":%q,"xff":%q,"channel":%q}`,
			name, r.Method, r.URL.RequestURI(), cookieVal(c), body, r.Header.Get("X-Forwarded-For"), r.Header.Get(contract.HeaderChannel))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func cookieVal(c *http.Cookie) string {
	if c == nil {
		return ""
	}
	return c.Value
}

func TestForwardsMemberCallsRoundRobinAndSignsThem(t *testing.T) {
	e := newEnv(t)
	var h1, h2 atomic.Int64
	w1, w2 := fakeWriter(t, "w1", &h1), fakeWriter(t, "w2", &h2)
	g := startEdge(t, e, func(c *server.Config) { c.WriterURL = w1.URL + ", " + w2.URL })
	g.waitReady()
	paths := []struct{ method, path string }{
		{"POST", "/protocol/appapi/mb/user/info/zzim-add"},
		{"GET", "/home/api/v1/users/interests/genres"},
		{"PUT", "/home/api/v1/users/interests/genres"},
		{"POST", "/api/v-1/user/login_auto.asp?new_url=/"},
		{"GET", "/iam/v2/user-info"},
		{"POST", "/admin/api/v1/products"},
		{"GET", "/pc/api/awards/"},
		{"POST", "/home/api/v1/products/p1/reviews"},
	}
	for i, p := range paths {
		req, _ := http.NewRequest(p.method, g.url+p.path, strings.NewReader(`{"x":1}`))
		req.AddCookie(&http.Cookie{Name: "session", Value: "s3cr3t"})
		req.Header.Set(contract.HeaderChannel, "IW")
		req.Header.Set(contract.HeaderRequestToken, "rt-"+p.method)
		v2 := i%2 == 0 // half the callers ask for SFS2, the others are old clients
		if v2 {
			req.Header.Set(contract.HeaderSignatureVersion, "2")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw := readAll(t, resp)
		if resp.StatusCode != 200 || !bytes.Contains(raw, []byte(`"path":"`+p.path+`"`)) ||
			!bytes.Contains(raw, []byte(`"cookie":"s3cr3t"`)) || !bytes.Contains(raw, []byte(`"method":"`+p.method+`"`)) ||
			!bytes.Contains(raw, []byte(`"channel":"IW"`)) || !bytes.Contains(raw, []byte(`"xff":"127.0.0.1"`)) {
			t.Fatalf("%s %s: %d %s", p.method, p.path, resp.StatusCode, raw)
		}
		if p.method != "GET" && !bytes.Contains(raw, []byte(`"body":"{\"x\":1}"`)) {
			t.Fatalf("body not passed: %s", raw)
		}
		if resp.Header.Get("Set-Cookie") == "" || resp.Header.Get("X-Writer") == "" {
			t.Fatalf("writer headers not passed back: %v", resp.Header)
		}
		want := contract.Signature(200, "rt-"+p.method, raw)
		if v2 {
			want = contract.SignatureV2(200, "rt-"+p.method, raw)
		}
		if got := resp.Header.Get("Authorization"); got != want {
			t.Fatalf("forwarded answer signature %q, want %q", got, want)
		}
	}
	if h1.Load() != 4 || h2.Load() != 4 {
		t.Fatalf("round robin: w1 %d, w2 %d", h1.Load(), h2.Load())
	}
	// A dead node is skipped.
	w1.Close()
	for range 4 {
		resp, _ := g.get("/iam/v2/user-info")
		if resp.StatusCode != 200 {
			t.Fatalf("with one node down: %d", resp.StatusCode)
		}
	}
	// Every node down: 502 envelope.
	w2.Close()
	resp, b := g.get("/iam/v2/user-info")
	if resp.StatusCode != 502 || !bytes.Contains(b, []byte(`"code":502`)) {
		t.Fatalf("all writers down: %d %s", resp.StatusCode, b)
	}
}

func TestServesTheSPA(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	const page = "<!doctype html><title>store</title><script>boot()</script><script src=\"/assets/app-abc123.js\"></script>"
	writeFile(t, filepath.Join(dir, "index.html"), page)
	js := strings.Repeat("console.log('hello');", 100)
	writeFile(t, filepath.Join(dir, "assets", "app-abc123.js"), js)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(js))
	zw.Close()
	writeFile(t, filepath.Join(dir, "assets", "app-abc123.js.gz"), gz.String())
	writeFile(t, filepath.Join(dir, "favicon.ico"), "icon")
	writeFile(t, filepath.Join(dir, "sw.js"), "self.addEventListener('fetch',()=>{})")
	writeFile(t, filepath.Join(dir, "manifest.webmanifest"), `{"name":"블루페이지"}`)
	g := startEdge(t, e, func(c *server.Config) { c.StaticDir = dir })
	g.waitReady()
	for _, p := range []string{"/", "/webtoon/best", "/comic/detail/p1", "/novel/genre/21/romance/2", "/cs/notice/closingprod", "/nuxgin?url=/", "/join/event.asp", "/payment/recharge.asp"} {
		resp, b := g.get(p)
		if resp.StatusCode != 200 || string(b) != page || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Fatalf("%s: %d %q %v", p, resp.StatusCode, b, resp.Header)
		}
		// Only the build's own inline script may run: its hash, nothing inline else.
		sum := sha256.Sum256([]byte("boot()"))
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "; script-src 'self' 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"';") ||
			!strings.Contains(csp, "object-src 'none'") || !strings.Contains(csp, "frame-ancestors 'self'") {
			t.Fatalf("%s: content security policy %q", p, csp)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s: no nosniff: %v", p, resp.Header)
		}
	}
	// API answers and art are never sniffed into something runnable either.
	for _, p := range []string{"/home/api/v1/quick-links", "/home/api/v1/nope", "/img/cover/nope.svg"} {
		if resp, _ := g.get(p); resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") == "" {
			t.Fatalf("%s: %v", p, resp.Header)
		}
	}
	// Hashed assets: immutable, precompressed variant when accepted.
	req, _ := http.NewRequest("GET", g.url+"/assets/app-abc123.js", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	raw := readAll(t, resp)
	if resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(raw, gz.Bytes()) ||
		!strings.Contains(resp.Header.Get("Cache-Control"), "immutable") || !strings.Contains(resp.Header.Get("Content-Type"), "javascript") {
		t.Fatalf("asset: %v", resp.Header)
	}
	resp, b := g.get("/assets/app-abc123.js", "Accept-Encoding: identity")
	if string(b) != js || resp.Header.Get("Content-Encoding") != "" {
		t.Fatal("plain asset")
	}
	// The service worker and the manifest are checked for a new release on
	// every visit, each with its own type; other root files keep a short cache.
	for p, want := range map[string][2]string{
		"/sw.js":                {"no-cache", "javascript"},
		"/manifest.webmanifest": {"no-cache", "application/manifest+json"},
		"/favicon.ico":          {"public, max-age=3600", ""},
	} {
		resp, _ := g.get(p)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != want[0] || !strings.Contains(resp.Header.Get("Content-Type"), want[1]) {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, resp.Header)
		}
	}
	// A missing asset is a 404, never index.html.
	if resp, _ := g.get("/assets/missing-000.js"); resp.StatusCode != 404 {
		t.Fatalf("missing asset: %d", resp.StatusCode)
	}
}

// The edge draws nothing (issue 16): covers and pages come only from what
// processing published (media_test.go). The addresses the demo's drawings
// had are not found, previews and token holders alike.
func TestGeneratedArtAddressesAreGone(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰"))
	e.putProduct(product("n1", contract.SectionNovel, "소설"))
	g := startEdge(t, e)
	g.waitReady()
	tok := contract.SignContent([]byte("dev-content-secret"), "w1", 1, time.Now().Add(time.Hour))
	for _, path := range []string{"/img/cover/w1.svg", "/img/wide/w1.svg", "/img/banner/1.svg", "/img/banner/join-bonus.svg", "/img/icon/cs.svg",
		"/content/w1/1/1.svg", "/content/w1/1/3.svg?t=" + tok, "/content/n1/1/1.txt"} {
		resp, b := g.get(path)
		if resp.StatusCode != 404 {
			t.Fatalf("%s: %d want 404: %.100s", path, resp.StatusCode, b)
		}
		envelopeMsg(t, path, b, 404)
	}
}

func TestAPIAnswersAreSignedAndCompressed(t *testing.T) {
	e := newEnv(t)
	for i := range 30 {
		e.putProduct(product(fmt.Sprintf("s%02d", i), contract.SectionWebtoon, fmt.Sprintf("긴 제목의 작품 %d", i)))
	}
	g := startEdge(t, e)
	g.waitReady()
	for _, enc := range []string{"", "gzip", "br"} {
		// A fresh answer goes out plain; its compressed variants follow.
		var resp *http.Response
		var raw []byte
		eventually(t, enc+" variant", func() bool {
			req, _ := http.NewRequest("GET", g.url+"/home/api/v1/home?section=wt", nil)
			req.Header.Set(contract.HeaderRequestToken, "abc")
			if enc != "" {
				req.Header.Set("Accept-Encoding", enc)
			}
			var err error
			resp, err = http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			raw = readAll(t, resp)
			return resp.Header.Get("Content-Encoding") == enc
		})
		plain := raw
		if enc == "gzip" {
			zr, _ := gzip.NewReader(bytes.NewReader(raw))
			plain, _ = io.ReadAll(zr)
		}
		if enc == "br" {
			continue // the signature is over the same plain body as the others
		}
		if got, want := resp.Header.Get("Authorization"), contract.Signature(200, "abc", plain); got != want {
			t.Fatalf("%s: signature %q, want %q", enc, got, want)
		}
		// SFS2 of the cached answer (from the state kept with the body) covers the same plain body.
		req, _ := http.NewRequest("GET", g.url+"/home/api/v1/home?section=wt", nil)
		req.Header.Set(contract.HeaderRequestToken, "abc2")
		req.Header.Set(contract.HeaderSignatureVersion, "2")
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		resp2, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if raw2 := readAll(t, resp2); !bytes.Equal(raw2, raw) || resp2.Header.Get("Authorization") != contract.SignatureV2(200, "abc2", plain) {
			t.Fatalf("%s: SFS2 signature %q of %d bytes, want %q", enc, resp2.Header.Get("Authorization"), len(raw2), contract.SignatureV2(200, "abc2", plain))
		}
	}
	// Errors are signed envelopes with the same status.
	req, _ := http.NewRequest("GET", g.url+"/home/api/v1/home?section=zz", nil)
	req.Header.Set(contract.HeaderRequestToken, "t2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw := readAll(t, resp)
	if resp.StatusCode != 400 || !bytes.Contains(raw, []byte(`"code":400`)) || resp.Header.Get("Authorization") != contract.Signature(400, "t2", raw) {
		t.Fatalf("bad section: %d %s", resp.StatusCode, raw)
	}
	req.Header.Set(contract.HeaderSignatureVersion, "2")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw = readAll(t, resp)
	if resp.StatusCode != 400 || resp.Header.Get("Authorization") != contract.SignatureV2(400, "t2", raw) {
		t.Fatalf("bad section, SFS2: %d %s %s", resp.StatusCode, raw, resp.Header.Get("Authorization"))
	}
}

// fakeAnalytics stands in for an analytics node: the reports API behind a
// bearer token.
func fakeAnalytics(t *testing.T, name string, hits *atomic.Int64) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"header":{"code":401,"message":"admin token required"}}`)
			return
		}
		fmt.Fprintf(w, `{"header":{"code":200,"message":""},"node":%q,"path":%q}`, name, r.URL.RequestURI())
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestForwardsReportsToAnalyticsNodes(t *testing.T) {
	e := newEnv(t)
	var h1, h2, hw atomic.Int64
	a1, a2 := fakeAnalytics(t, "a1", &h1), fakeAnalytics(t, "a2", &h2)
	w := fakeWriter(t, "w", &hw)
	g := startEdge(t, e, func(c *server.Config) { c.AnalyticsURL = a1.URL + "," + a2.URL; c.WriterURL = w.URL })
	g.waitReady()
	const path = "/analytics/api/v1/reports/funnel?from=2026-11-01&to=2026-11-07"
	for i := range 4 {
		tok := fmt.Sprintf("rt%d", i)
		resp, b := g.get(path, "Authorization: Bearer good", contract.HeaderRequestToken+": "+tok)
		if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"path":"`+path+`"`)) {
			t.Fatalf("report: %d %s", resp.StatusCode, b)
		}
		if got, want := resp.Header.Get("Authorization"), contract.Signature(200, tok, b); got != want {
			t.Fatalf("report signature %q, want %q", got, want)
		}
	}
	if h1.Load() != 2 || h2.Load() != 2 || hw.Load() != 0 {
		t.Fatalf("round robin: a1 %d, a2 %d, writer %d", h1.Load(), h2.Load(), hw.Load())
	}
	// A wrong token is the node's 401, passed through.
	resp, b := g.get(path, "Authorization: Bearer bad")
	if resp.StatusCode != 401 || !bytes.Contains(b, []byte(`"code":401`)) {
		t.Fatalf("wrong token: %d %s", resp.StatusCode, b)
	}
	// The SPA's admin screen is the edge's index.html, not a writer call;
	// the writer's admin API is still forwarded.
	resp, b = g.get("/admin/analytics")
	if resp.StatusCode != 200 || !strings.Contains(string(b), "<title>sf</title>") {
		t.Fatalf("/admin/analytics: %d %s", resp.StatusCode, b)
	}
	resp, b = g.get("/admin/api/v1/works/p1")
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"node":"w"`)) {
		t.Fatalf("/admin/api: %d %s", resp.StatusCode, b)
	}
	// One node down: the other answers; both down: 502 envelope.
	a1.Close()
	for range 3 {
		if resp, b := g.get(path, "Authorization: Bearer good"); resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"node":"a2"`)) {
			t.Fatalf("with a1 down: %d %s", resp.StatusCode, b)
		}
	}
	a2.Close()
	if resp, b := g.get(path, "Authorization: Bearer good"); resp.StatusCode != 502 || !bytes.Contains(b, []byte(`"code":502`)) {
		t.Fatalf("all analytics down: %d %s", resp.StatusCode, b)
	}
}

func TestReportsWithoutAnalyticsNodesAre502(t *testing.T) {
	e := newEnv(t)
	g := startEdge(t, e)
	g.waitReady()
	resp, b := g.get("/analytics/api/v1/reports/funnel", "Authorization: Bearer good")
	if resp.StatusCode != 502 || !bytes.Contains(b, []byte(`"code":502`)) {
		t.Fatalf("no analytics configured: %d %s", resp.StatusCode, b)
	}
}
