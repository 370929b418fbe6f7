package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/edge/server"
	"storefront/svc"
)

// refusal checks that an answer is the seed's envelope of want with a Korean
// message that repeats nothing of what the request carried (leak).
func refusal(t *testing.T, what string, status int, body []byte, want int, leak ...string) {
	t.Helper()
	var env contract.Envelope
	if status != want || json.Unmarshal(body, &env) != nil || env.Header.Code != want {
		t.Errorf("%s: %d %.300s, want a %d envelope", what, status, body, want)
		return
	}
	if !testenv.Korean(env.Header.Message) {
		t.Errorf("%s: message %q is not Korean", what, env.Header.Message)
	}
	for _, l := range leak {
		if strings.Contains(env.Header.Message, l) {
			t.Errorf("%s: message %q repeats %q from the request", what, env.Header.Message, l)
		}
	}
}

// rawAnswer writes req on a fresh connection and reads the answer.
func rawAnswer(t *testing.T, addr, req string) (int, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", req, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// Every refusal the edge itself sends a browser (bad query, unknown file,
// wrong method, bad tracking body, what fasthttp refuses before any handler)
// keeps its status and says why in Korean, like the writer's refusals.
func TestRefusalsAreKorean(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰"))
	g := startEdge(t, e, func(c *server.Config) { c.Timeouts = svc.Timeouts{Read: 500 * time.Millisecond} })
	g.waitReady()

	for _, c := range []struct {
		path string
		want int
		leak []string
	}{
		{"/home/api/v1/search?q=", 400, nil},
		{"/home/api/v1/search?q=" + strings.Repeat("가", 51), 400, []string{"가가"}},
		{"/home/api/v1/webtoon/weekday/someday", 400, []string{"someday"}},
		{"/home/api/v1/cs/faq?cid=99999", 400, []string{"99999"}},
		{"/home/api/v1/webtoon/best?genre=nope", 400, []string{"nope"}},
		{"/home/api/v1/home?section=xyz", 400, []string{"xyz"}},
		{"/home/api/v1/webtoon/genre/all?page=0", 400, nil},
		{"/home/api/v1/webtoon/genre/all?size=abc", 400, []string{"abc"}},
		{"/home/api/v1/products/nope", 404, []string{"nope"}},
		{"/img/cover/nope.svg", 404, []string{"nope"}},
		{"/img/other/w1.svg", 404, nil},
		{"/content/w1/9/1.svg", 404, nil},
		{"/content/w1/1/1.txt", 404, nil},
		{"/assets/missing-000.js", 404, []string{"missing"}},
		{"/favicon-nope.png", 404, nil},
	} {
		resp, b := g.get(c.path)
		refusal(t, "GET "+c.path, resp.StatusCode, b, c.want, c.leak...)
	}

	for _, c := range []struct{ method, path string }{
		{"DELETE", "/img/cover/w1.svg"},
		{"POST", "/content/w1/1/1.svg"},
		{"POST", "/webtoon/detail/w1"},
		{"PUT", "/"},
	} {
		req, _ := http.NewRequest(c.method, g.url+c.path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		refusal(t, c.method+" "+c.path, resp.StatusCode, b, 405)
	}

	const pv, evs = "/home/api/v1/tracking/page-view", "/home/api/v1/tracking/events"
	long := strings.Repeat("x", 3000)
	for _, c := range []struct {
		path, body string
		leak       []string
	}{
		{pv, `not json`, nil},
		{pv, `{}`, nil},
		{pv, `{"curPageUrl":""}`, nil},
		{pv, `{"curPageUrl":"/` + long + `"}`, []string{"xxx"}},
		{pv, `{"curPageUrl":"/","route":"` + long + `"}`, []string{"xxx"}},
		{pv, `{"curPageUrl":"/","props":{"k":"` + long + `"}}`, []string{"xxx"}},
		{pv, `{"curPageUrl":"/","pid":"../../etc"}`, []string{"../", "etc"}},
		{pv, `{"curPageUrl":"/","id":"short"}`, []string{"short"}},
		{evs, `not json`, nil},
		{evs, `{"events":[]}`, nil},
		{evs, `{"events":[` + strings.Repeat(`{"type":"page_view","curPageUrl":"/"},`, 100) + `{"type":"page_view","curPageUrl":"/"}]}`, nil},
		{evs, `{"events":[{"type":"purchase","curPageUrl":"/"}]}`, []string{"purchase"}},
		{evs, `{"events":[{"type":"member_profile","props":{"gender":"F"}}]}`, []string{"member_profile"}},
		{evs, `{"events":[{"type":"page_view","url":"/","id":"has spaces in the id!"}]}`, []string{"spaces"}},
	} {
		resp, err := http.Post(g.url+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		refusal(t, "POST "+c.path+" "+c.body[:min(len(c.body), 60)], resp.StatusCode, b, 400, c.leak...)
	}

	// What fasthttp refuses before any handler runs.
	addr := strings.TrimPrefix(g.url, "http://")
	st, b := rawAnswer(t, addr, "POST "+evs+" HTTP/1.1\r\nHost: store.example\r\nContent-Type: application/json\r\n"+
		"Content-Length: 5242880\r\n\r\n")
	refusal(t, "5 MiB body", st, b, 413)
	st, b = rawAnswer(t, addr, "GET /home/api/v1/home HTTP/1.1\r\nHost: store.example\r\nCookie: sf_x="+
		strings.Repeat("a", 64<<10)+"\r\n\r\n")
	refusal(t, "64 KiB header", st, b, 431)
	st, b = rawAnswer(t, addr, "GET /home/api/v1/home HTTP/1.1\r\nHost: store.example\r\nContent-Length: -5\r\n\r\n")
	refusal(t, "malformed request", st, b, 400)
	st, b = rawAnswer(t, addr, "POST "+pv+" HTTP/1.1\r\nHost: store.example\r\nContent-Type: application/json\r\n"+
		"Content-Length: 100\r\n\r\n{\"curPageUrl\":")
	refusal(t, "body cut off by the read timeout", st, b, 408)
}
