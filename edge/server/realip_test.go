package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/server"
)

// Behind a load balancer (here: the test's loopback address, declared a
// trusted proxy) the edge takes each reader's address from the balancer's
// X-Forwarded-For and sends the writer that one address: two readers stay
// two addresses, for the login limiter and in the IP hash of their events.
// Before, the edge appended its peer (the balancer) and the writer read the
// last entry: every reader was the balancer. Without the setting, a made-up
// header changes nothing.
func TestReaderAddressFromTrustedBalancerOnly(t *testing.T) {
	e := newEnv(t)
	var hits atomic.Int64
	w := fakeWriter(t, "w1", &hits)
	const salt = "realip-salt"
	call := func(g *edge, xff string) (writerSaw, ipHash string) {
		t.Helper()
		req, _ := http.NewRequest("GET", g.url+"/iam/v2/user-info", nil)
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var ans struct {
			XFF string `json:"xff"`
		}
		if raw := readAll(t, resp); json.Unmarshal(raw, &ans) != nil {
			t.Fatalf("forwarded: %s", raw)
		}
		req, _ = http.NewRequest("POST", g.url+"/home/api/v1/tracking/page-view", strings.NewReader(`{"curPageUrl":"https://store.example/"}`))
		req.Header.Set("X-Forwarded-For", xff)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if raw := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("page-view: %d %s", resp.StatusCode, raw)
		}
		s, err := e.js.Stream(context.Background(), contract.EventsStream)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.GetLastMsgForSubject(context.Background(), contract.TrackBundleSubject)
		if err != nil {
			t.Fatal(err)
		}
		var ev contract.TrackedEvent
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			t.Fatal(err)
		}
		return ans.XFF, ev.IPHash
	}
	hash := func(ip string) string { return contract.IPHash([]byte(salt), ip) }

	behind := startEdge(t, e, func(c *server.Config) {
		c.WriterURL, c.IPSalt, c.TrustedProxies = w.URL, salt, "127.0.0.0/8, ::1"
	})
	behind.waitReady()
	for _, c := range []struct{ xff, reader string }{
		{"198.51.100.7", "198.51.100.7"},
		{"203.0.113.9", "203.0.113.9"},
		// The reader's own made-up entries come before what the balancer appended.
		{"10.0.0.1, 1.2.3.4, 198.51.100.8", "198.51.100.8"},
	} {
		saw, h := call(behind, c.xff)
		if saw != c.reader || h != hash(c.reader) {
			t.Errorf("behind a trusted balancer, X-Forwarded-For %q: writer saw %q, event hash of %q; want %q", c.xff, saw,
				map[bool]string{true: c.reader, false: "another address"}[h == hash(c.reader)], c.reader)
		}
	}

	front := startEdge(t, e, func(c *server.Config) { c.WriterURL, c.IPSalt = w.URL, salt })
	front.waitReady()
	if saw, h := call(front, "198.51.100.7"); saw != "127.0.0.1" || h != hash("127.0.0.1") {
		t.Errorf("front door: a reader's made-up X-Forwarded-For reached the writer as %q (hash of the peer: %v)", saw, h == hash("127.0.0.1"))
	}
}

func TestTrustedProxiesRefusesMalformedRanges(t *testing.T) {
	_, err := server.New(context.Background(), server.Config{TrustedProxies: "10.0.0.0/40"}, quietLog())
	if err == nil || !strings.Contains(err.Error(), "10.0.0.0/40") {
		t.Fatalf("malformed range: %v", err)
	}
}

// A TCP balancer cannot write X-Forwarded-For; with -proxy-protocol it sends
// a PROXY header naming the reader, believed from the trusted balancers only.
func TestProxyProtocolFromTrustedBalancerOnly(t *testing.T) {
	e := newEnv(t)
	var hits atomic.Int64
	w := fakeWriter(t, "w1", &hits)
	call := func(g *edge, proxyLine string) (int, string) {
		t.Helper()
		c, err := net.Dial("tcp", strings.TrimPrefix(g.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "%sGET /iam/v2/user-info HTTP/1.1\r\nHost: store.example\r\nX-Forwarded-For: 203.0.113.66\r\nConnection: close\r\n\r\n", proxyLine)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, err.Error()
		}
		var ans struct {
			XFF string `json:"xff"`
		}
		_ = json.Unmarshal(readAll(t, resp), &ans)
		return resp.StatusCode, ans.XFF
	}
	const header = "PROXY TCP4 198.51.100.7 10.0.0.1 51234 443\r\n"

	behind := startEdge(t, e, func(c *server.Config) { c.WriterURL, c.TrustedProxies, c.ProxyProtocol = w.URL, "127.0.0.0/8", true })
	behind.waitReady()
	if st, saw := call(behind, header); st != 200 || saw != "198.51.100.7" {
		t.Fatalf("PROXY header from a trusted balancer: %d, writer saw %q; want the reader 198.51.100.7", st, saw)
	}
	// It may also connect plainly (health checks), and an HTTP balancer's
	// X-Forwarded-For is then believed as without the PROXY protocol; a
	// PROXY header's reader is not a trusted proxy, so the header the
	// reader wrote behind it was ignored above.
	if st, saw := call(behind, ""); st != 200 || saw != "203.0.113.66" {
		t.Fatalf("plain connection from the balancer: %d %q", st, saw)
	}

	others := startEdge(t, e, func(c *server.Config) { c.WriterURL, c.TrustedProxies, c.ProxyProtocol = w.URL, "10.0.0.0/8", true })
	others.waitReady()
	if st, saw := call(others, header); st == 200 {
		t.Fatalf("a PROXY header from an untrusted peer was accepted (writer saw %q)", saw)
	}

	if _, err := server.New(context.Background(), server.Config{ProxyProtocol: true}, quietLog()); err == nil ||
		!strings.Contains(err.Error(), "EDGE_TRUSTED_PROXIES") {
		t.Fatalf("PROXY protocol without trusted balancers: %v", err)
	}
}
