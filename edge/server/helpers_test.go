package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack"
	"storefront/devstack/testenv"
	"storefront/edge/server"
	"storefront/natsutil"
)

// clock is a movable clock for release-time tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// env is one NATS server with a catalog bucket and helpers to fill it.
type env struct {
	t    testing.TB
	nats *devstack.NATS
	nc   *nats.Conn
	js   jetstream.JetStream
	kv   jetstream.KeyValue
}

func newEnv(t *testing.T) *env { return newEnvB(t) }

func newEnvB(t testing.TB) *env {
	t.Helper()
	n := testenv.NATS(t)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, nats: n, nc: nc, js: js, kv: kv}
}

func (e *env) put(key string, doc any) uint64 {
	e.t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		e.t.Fatal(err)
	}
	rev, err := e.kv.Put(context.Background(), key, b)
	if err != nil {
		e.t.Fatalf("put %s: %v", key, err)
	}
	return rev
}

func (e *env) putProduct(p contract.Product) { e.put(contract.ProductKey(p.PID), p) }

type edge struct {
	t   testing.TB
	srv *server.Server
	url string
	cfg server.Config
}

type edgeOpt func(*server.Config)

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// startEdge starts an edge on a free port; it is stopped at cleanup.
func startEdge(t *testing.T, e *env, opts ...edgeOpt) *edge { return startEdgeB(t, e, opts...) }

func startEdgeB(t testing.TB, e *env, opts ...edgeOpt) *edge {
	t.Helper()
	static := t.TempDir()
	writeFile(t, filepath.Join(static, "index.html"), "<!doctype html><title>sf</title>")
	cfg := server.Config{Addr: "127.0.0.1:0", OpsAddr: "127.0.0.1:0", NATSURL: e.nats.URL, StaticDir: static, WriterURL: "http://127.0.0.1:1"}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, cfg, quietLog())
	if err != nil {
		cancel()
		t.Fatalf("start edge: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("edge run: %v", err)
		}
	})
	return &edge{t: t, srv: srv, url: "http://" + srv.Addr(), cfg: cfg}
}

func (g *edge) waitReady() {
	g.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(g.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	g.t.Fatal("edge not ready in 20s")
}

// opsGet fetches path from the operators' listener (Config.OpsAddr).
func (g *edge) opsGet(path string) (*http.Response, []byte) {
	g.t.Helper()
	resp, err := http.Get("http://" + g.srv.OpsAddr() + path)
	if err != nil {
		g.t.Fatalf("GET ops %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	return resp, b
}

// get fetches path with optional headers ("Name: value").
func (g *edge) get(path string, headers ...string) (*http.Response, []byte) {
	g.t.Helper()
	req, err := http.NewRequest("GET", g.url+path, nil)
	if err != nil {
		g.t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	return resp, b
}

// getJSON fetches path, checks the status and decodes into out.
func (g *edge) getJSON(path string, wantStatus int, out any, headers ...string) {
	g.t.Helper()
	resp, b := g.get(path, headers...)
	if resp.StatusCode != wantStatus {
		g.t.Fatalf("GET %s: status %d, want %d: %s", path, resp.StatusCode, wantStatus, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			g.t.Fatalf("GET %s: %v: %s", path, err, b)
		}
	}
}

// eventually retries f until it returns true or 10 s pass.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if f() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func writeFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

var t0 = time.Date(2026, 3, 2, 12, 0, 0, 0, contract.KST) // a Monday noon KST

// product makes a small valid product.
func product(pid, section, title string, mods ...func(*contract.Product)) contract.Product {
	p := contract.Product{
		PID: pid, Section: section, Title: title, Summary: "요약", Provider: "제공사",
		ThumbURL: "/img/cover/" + pid + ".svg", GenreID: "21", Category1: "romance", Unit: "화",
		Authors:  []contract.Author{{AuthorID: 1, AuthorName: "김작가", IsWriter: true}},
		Weekdays: []int{1}, ServiceCode: 200, ViewCnt: 100,
		RegisteredAt: t0.Add(-30 * 24 * time.Hour), UpdatedAt: t0.Add(-time.Hour), Version: 1,
	}
	for i := 1; i <= 3; i++ {
		p.Volumes = append(p.Volumes, contract.Volume{
			No: i, Title: title + " " + string(rune('0'+i)) + "화", ReleaseAt: t0.Add(-time.Duration(10-i) * 24 * time.Hour),
			IsFree: i == 1, BuyPrice: 300, BuyPriceOrg: 300, RentPrice: 100, RentPriceOrg: 100,
			Pages: 5, PreviewPages: 2, ContentBase: contract.ContentBase(pid, i),
		})
	}
	for _, m := range mods {
		m(&p)
	}
	return p
}

// newEnvAt connects to an already running NATS (after a restart).
func newEnvAt(t testing.TB, url string) *env {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(context.Background(), contract.CatalogBucket)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, nc: nc, js: js, kv: kv}
}
