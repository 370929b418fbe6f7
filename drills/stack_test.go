package drills

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/demo"
	"storefront/devstack"
	"storefront/writer/catalogimport"
)

const adminToken = "drills-admin-token"

// long reports whether the long variants run (DRILLS_LONG=1, scripts/drills.sh).
func long() bool { return os.Getenv("DRILLS_LONG") == "1" }

// pick returns short or long by the variant being run.
func pick[T any](short, lng T) T {
	if long() {
		return lng
	}
	return short
}

func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("drills start real processes and break them; skipped with -short")
	}
}

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := devstack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openDir makes a temporary folder other users can traverse (PostgreSQL runs as
// the postgres user when tests run as root; t.TempDir is private), removed
// when the test ends.
func openDir(t *testing.T, prefix string) string {
	t.Helper()
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// startNATS starts an in-process JetStream server on a fixed port with a
// file store, so the drill can stop it and start it again with its state.
func startNATS(t *testing.T) *devstack.NATS {
	t.Helper()
	n, err := devstack.StartNATS(t.TempDir(), freePort(t))
	if err != nil {
		t.Fatalf("start nats: %v", err)
	}
	t.Cleanup(n.Stop)
	return n
}

// startWriter starts a writer on dbURL and natsURL; extra are more flags.
func startWriter(t *testing.T, ctx context.Context, label, dbURL, natsURL string, extra ...string) *service {
	t.Helper()
	args := append([]string{"-database-url", dbURL, "-nats-url", natsURL,
		"-admin-token", adminToken, "-payment-sandbox=true", "-shutdown-grace", "5s"}, extra...)
	w := newService(t, "writer", label, freePort(t), args...)
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return w
}

func startEdge(t *testing.T, ctx context.Context, label, natsURL, writerURL string) *service {
	t.Helper()
	e := newService(t, "edge", label, freePort(t), "-nats", natsURL, "-writer", writerURL,
		"-static", t.TempDir(), "-cache-mb", "32", "-forward-timeout", "20s")
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// importCatalog loads a small demo catalog into the writer's database (after
// the writer migrated it); the writer's relay publishes it to the KV bucket.
func importCatalog(t *testing.T, ctx context.Context, dbURL string, works int) *demo.Catalog {
	t.Helper()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	cat := demo.Generate(demo.Options{Seed: 9, Works: works, Now: time.Now()})
	if err := catalogimport.Import(ctx, pool, cat); err != nil {
		t.Fatalf("import demo catalog: %v", err)
	}
	waitOutboxDrained(t, ctx, pool, 60*time.Second)
	return cat
}

// waitOutboxDrained waits until the relay published every outbox row.
func waitOutboxDrained(t *testing.T, ctx context.Context, pool *pgxpool.Pool, limit time.Duration) {
	t.Helper()
	eventually(t, limit, "outbox drained", func() error {
		var n int64
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM outbox WHERE sent_at IS NULL").Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%d rows unsent", n)
		}
		return nil
	})
}

// eventually retries check every 50 ms until it succeeds or limit passes.
func eventually(t *testing.T, limit time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (waited %s): %v", what, limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readableWorks returns up to n works every audience sees, with a title.
func readableWorks(cat *demo.Catalog, n int) []contract.Product {
	var out []contract.Product
	for _, p := range cat.Products {
		if !p.IsAdult() && !p.Hidden && p.Title != "" {
			out = append(out, p)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// call makes one HTTP call with a JSON body (nil: none) and returns the status,
// the body and the headers.
func call(ctx context.Context, c *http.Client, method, url string, body any, hdr map[string]string) (int, []byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

// headerCode is header.code of a seed envelope (0 when the body is not one).
func headerCode(b []byte) int {
	var env struct {
		Header struct {
			Code int `json:"code"`
		} `json:"header"`
	}
	if json.Unmarshal(b, &env) != nil {
		return 0
	}
	return env.Header.Code
}

// title reads prodInfo.title of a product detail answer.
func title(b []byte) string {
	var d struct {
		ProdInfo struct {
			Title string `json:"title"`
		} `json:"prodInfo"`
	}
	_ = json.Unmarshal(b, &d)
	return d.ProdInfo.Title
}

func admin(ctx context.Context, base, method, path string, body any) (int, []byte, error) {
	c := &http.Client{Timeout: 20 * time.Second}
	st, b, _, err := call(ctx, c, method, base+path, body, map[string]string{"Authorization": "Bearer " + adminToken})
	return st, b, err
}

func short(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
