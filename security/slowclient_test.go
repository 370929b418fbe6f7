package security

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	analyticsserver "storefront/analytics/server"
	"storefront/devstack/testenv"
	edgeserver "storefront/edge/server"
	"storefront/svc"
	writerserver "storefront/writer/server"
)

// Short timeouts so the test is quick; the mechanism is the one the defaults
// (svc.Timeouts in each service) use.
var shortTimeouts = svc.Timeouts{ReadHeader: time.Second, Read: 2 * time.Second, Write: 5 * time.Second, Idle: time.Second}

// cutOff dials addr, writes prefix, then trickles one byte of filler every
// 100 ms (a slowloris client), and reports how long the server kept the
// connection open (an early answer does not count: a server that answers but
// keeps reading the trickle still holds the connection). It gives up after limit.
func cutOff(t *testing.T, addr, prefix string, filler byte, limit time.Duration) (time.Duration, bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, conn) // until EOF or reset
		close(closed)
	}()
	if _, err := conn.Write([]byte(prefix)); err != nil {
		return time.Since(start), true
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-closed:
			return time.Since(start), true
		case <-tick.C:
			if time.Since(start) > limit {
				return time.Since(start), false
			}
			if _, err := conn.Write([]byte{filler}); err != nil {
				<-closed
				return time.Since(start), true
			}
		}
	}
}

// idleCut sends one whole request on a kept-alive connection, reads the
// answer, then waits: the server must close the idle connection.
func idleCut(t *testing.T, addr, path string, limit time.Duration) (time.Duration, bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: store.example\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	status, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("%s %s: %q %v", addr, path, status, err)
	}
	// Drain the answer (headers and a small body) and wait for EOF.
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	start := time.Now()
	buf := make([]byte, 4096)
	for {
		if _, err := r.Read(buf); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return time.Since(start), false
			}
			return time.Since(start), true
		}
	}
}

// Every server (edge, writer, analytics) cuts off a client that sends its
// headers a byte at a time, one that sends its body a byte at a time, and a
// kept-alive connection left idle. Without read, read-header and idle
// timeouts any of these holds a connection (and its goroutine) forever.
func TestSlowClientsAreCutOff(t *testing.T) {
	s := startStack(t, options{
		writer: func(c *writerserver.Config) { c.Timeouts = shortTimeouts },
		edge:   func(c *edgeserver.Config) { c.Timeouts = shortTimeouts },
	})
	ctx, cancel := context.WithCancel(context.Background())
	a, err := analyticsserver.New(ctx, analyticsserver.Config{Addr: "127.0.0.1:0", NATSURL: testenv.NATS(t).URL,
		ClickHouseURL: testenv.ClickHouseURL(t), Timeouts: shortTimeouts}, quietLog())
	if err != nil {
		cancel()
		t.Fatalf("analytics: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("analytics: %v", err)
		}
	})

	const limit = 12 * time.Second // the cut-off must come long before this
	servers := []struct{ name, addr, post, ok string }{
		{"edge", s.edgeAddr, "/home/api/v1/tracking/page-view", "/healthz"},
		{"writer", s.writerAddr, "/home/api/v1/auth/login", "/healthz"},
		{"analytics", a.Addr(), "/analytics/api/v1/reports/overview", "/healthz"},
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			// The bounds are the servers' timeouts (1 s and 2 s) with seconds of
			// room: what a cut-off waits on is a timer, not the CPU.
			hd, ok := cutOff(t, srv.addr, "GET / HTTP/1.1\r\nHost: store.example\r\nX-Slow: ", 'a', limit)
			if !ok || hd > 6*time.Second {
				t.Errorf("slow headers held the connection %v (cut off: %v)", hd, ok)
			}
			body := "POST " + srv.post + " HTTP/1.1\r\nHost: store.example\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"email\":\""
			bd, ok := cutOff(t, srv.addr, body, 'a', limit)
			if !ok || bd > 6*time.Second {
				t.Errorf("slow body held the connection %v (cut off: %v)", bd, ok)
			}
			id, ok := idleCut(t, srv.addr, srv.ok, limit)
			if !ok || id > 5*time.Second {
				t.Errorf("idle connection held %v (closed: %v)", id, ok)
			}
			t.Logf("cut off after: slow headers %s, slow body %s (bound 6s), idle %s (bound 5s)",
				hd.Round(time.Millisecond), bd.Round(time.Millisecond), id.Round(time.Millisecond))
		})
	}
}
