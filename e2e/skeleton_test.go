// Package e2e holds the walking-skeleton tests: each data path of the system run
// through the real programs (writer, analytics, edge) started in-process, against
// real PostgreSQL, NATS JetStream and ClickHouse.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	analyticsserver "storefront/analytics/server"
	"storefront/contract"
	"storefront/demo"
	"storefront/devstack/testenv"
	edgeserver "storefront/edge/server"
	"storefront/writer/catalogimport"
	writerserver "storefront/writer/server"
)

// stack is the three services running against fresh dependencies.
type stack struct {
	edgeURL       string
	clickhouseURL string
	catalog       *demo.Catalog
}

func startStack(t *testing.T) *stack {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	nats := testenv.NATS(t)
	chURL := testenv.ClickHouseURL(t)

	w, err := writerserver.New(ctx, writerserver.Config{Addr: "127.0.0.1:0", DatabaseURL: testenv.PostgresURL(t), NATSURL: nats.URL}, log)
	if err != nil {
		t.Fatalf("writer: %v", err)
	}
	a, err := analyticsserver.New(ctx, analyticsserver.Config{Addr: "127.0.0.1:0", NATSURL: nats.URL, ClickHouseURL: chURL}, log)
	if err != nil {
		t.Fatalf("analytics: %v", err)
	}
	cat := demo.Generate(demo.Options{Seed: 7, Works: 30, Now: time.Now()})
	if err := catalogimport.Import(ctx, w.Pool(), cat); err != nil {
		t.Fatalf("import demo catalog: %v", err)
	}
	e, err := edgeserver.New(ctx, edgeserver.Config{Addr: "127.0.0.1:0", NATSURL: nats.URL, WriterURL: "http://" + w.Addr(), StaticDir: t.TempDir()}, log)
	if err != nil {
		t.Fatalf("edge: %v", err)
	}
	done := make(chan error, 3)
	for _, run := range []func(context.Context) error{w.Run, a.Run, e.Run} {
		go func() { done <- run(ctx) }()
	}
	t.Cleanup(func() {
		cancel()
		for range 3 {
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("service stopped with %v", err)
			}
		}
	})
	return &stack{edgeURL: "http://" + e.Addr(), clickhouseURL: chURL, catalog: cat}
}

func (s *stack) do(t *testing.T, method, path, body string, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.edgeURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// phoneUA is the User-Agent of the Android phone the member tests play.
const phoneUA = "Mozilla/5.0 (Linux; Android 14; SM-S918N) Chrome/126.0 Mobile Safari/537.36"

// caller is one browser's calls to the edge: JSON bodies, the Android web
// channel, the phone's User-Agent and one cookie jar, so a member's session
// carries from call to call.
type caller func(method, path string, body any, header map[string]string) (int, []byte)

// browser returns a caller with its own cookie jar.
func (s *stack) browser(t *testing.T) (caller, *cookiejar.Jar) {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 60 * time.Second}
	return func(method, path string, body any, header map[string]string) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequest(method, s.edgeURL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(contract.HeaderChannel, "AW")
		req.Header.Set("User-Agent", phoneUA)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}, jar
}

// eventually retries check until it succeeds or 20 s pass.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *stack) title(t *testing.T, pid string) (string, error) {
	code, body := s.do(t, "GET", "/home/api/v1/products/"+pid, "", nil)
	if code != 200 {
		return "", errors.New("detail status " + http.StatusText(code) + ": " + string(body))
	}
	var d struct {
		ProdInfo struct {
			Title string `json:"title"`
		} `json:"prodInfo"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		return "", err
	}
	return d.ProdInfo.Title, nil
}

// An admin renames a work through the edge's front door: writer -> PostgreSQL ->
// outbox -> JetStream KV -> every edge serves the new title.
func TestAdminRenameReachesTheEdge(t *testing.T) {
	s := startStack(t)
	var p *contract.Product
	for i := range s.catalog.Products {
		if q := &s.catalog.Products[i]; !q.IsAdult() && !q.Hidden {
			p = q
			break
		}
	}
	eventually(t, "edge serves the imported work", func() error {
		title, err := s.title(t, p.PID)
		if err == nil && title != p.Title {
			return errors.New("title " + title + ", want " + p.Title)
		}
		return err
	})

	const renamed = "이름이 바뀐 작품"
	code, body := s.do(t, "PATCH", "/admin/api/v1/works/"+p.PID, `{"title":"`+renamed+`"}`,
		map[string]string{"Authorization": "Bearer dev-admin-token"})
	if code != 200 {
		t.Fatalf("rename: %d %s", code, body)
	}
	eventually(t, "edge serves the new title", func() error {
		title, err := s.title(t, p.PID)
		if err == nil && title != renamed {
			return errors.New("title still " + title)
		}
		return err
	})

	code, body = s.do(t, "PATCH", "/admin/api/v1/works/"+p.PID, `{"title":"x"}`, nil)
	if code != 401 || !bytes.Contains(body, []byte(`"code":401`)) {
		t.Fatalf("rename without admin token: %d %s", code, body)
	}
}

// A page view posted to the edge is in ClickHouse once: edge -> JetStream ->
// analytics -> ClickHouse.
func TestPageViewReachesClickHouse(t *testing.T) {
	s := startStack(t)
	code, body := s.do(t, "POST", "/home/api/v1/tracking/page-view", `{"curPageUrl":"/webtoon/weekday/mon"}`,
		map[string]string{contract.HeaderChannel: "AW"})
	if code != 200 {
		t.Fatalf("page view: %d %s", code, body)
	}
	var ans struct {
		EventID string `json:"event_id"`
	}
	if err := json.Unmarshal(body, &ans); err != nil || ans.EventID == "" {
		t.Fatalf("page view answer without event_id: %s", body)
	}
	opts, err := clickhouse.ParseDSN(s.clickhouseURL)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	eventually(t, "the page view is in ClickHouse", func() error {
		var n uint64
		var url, channel string
		row := ch.QueryRow(context.Background(), "SELECT count(), any(url), any(channel) FROM events FINAL WHERE id = ? AND type = 'page_view'", ans.EventID)
		if err := row.Scan(&n, &url, &channel); err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("%d rows for the event, want 1", n)
		}
		if url != "/webtoon/weekday/mon" || channel != "AW" {
			return fmt.Errorf("stored url %q channel %q", url, channel)
		}
		return nil
	})
}
