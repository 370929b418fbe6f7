package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/analytics/server"
	"storefront/contract"
	"storefront/devstack/testenv"
)

func testLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type env struct {
	srv *server.Server
	js  jetstream.JetStream
	ch  driver.Conn
}

func start(t *testing.T) *env { return startWith(t, nil) }

// startWith is start with edit applied to the config first.
func startWith(t *testing.T, edit func(*server.Config)) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	n := testenv.NATS(t)
	chURL := testenv.ClickHouseURL(t)
	cfg := server.Config{Addr: "127.0.0.1:0", NATSURL: n.URL, ClickHouseURL: chURL}
	cfg.Ingest.FlushInterval = 50 * time.Millisecond
	if edit != nil {
		edit(&cfg)
	}
	s, err := server.New(ctx, cfg, testLog())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := server.OpenClickHouse(chURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	return &env{srv: s, js: js, ch: ch}
}

func publish(t *testing.T, js jetstream.JetStream, ev contract.TrackedEvent) {
	t.Helper()
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(context.Background(), contract.TrackSubject(ev.Type), b, jetstream.WithMsgID(ev.ID)); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, ch driver.Conn, q string) uint64 {
	t.Helper()
	var n uint64
	if err := ch.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func waitCount(t *testing.T, ch driver.Conn, q string, want uint64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		n := count(t, ch, q)
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %d, want %d", q, n, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestEventBecomesOneRow(t *testing.T) {
	e := start(t)
	ts := time.Date(2026, 11, 21, 23, 30, 0, 123e6, time.UTC) // 08:30 KST on the 22nd
	ev := contract.TrackedEvent{V: 1, ID: "ev-one", Type: contract.EvPageView, Time: ts, Channel: "AW",
		SessionID: "s1", Route: "/webtoon", URL: "/webtoon?x=1", Props: map[string]string{"b": "2", "a": "1"}}
	publish(t, e.js, ev)
	waitCount(t, e.ch, "SELECT count() FROM events", 1)

	var (
		id, route, channel string
		gotTS, day         time.Time
		ms                 uint16
		keys, vals         []string
	)
	err := e.ch.QueryRow(context.Background(),
		"SELECT id, route, channel, ts, ts_ms, kst_date, props_keys, props_values FROM events").
		Scan(&id, &route, &channel, &gotTS, &ms, &day, &keys, &vals)
	if err != nil {
		t.Fatal(err)
	}
	if id != "ev-one" || route != "/webtoon" || channel != "AW" || !gotTS.Equal(ts.Truncate(time.Second)) || ms != 123 {
		t.Errorf("row = %s %s %s %v %d", id, route, channel, gotTS, ms)
	}
	if day.Format("2006-01-02") != "2026-11-22" {
		t.Errorf("kst_date = %v, want the KST day 2026-11-22", day)
	}
	if fmt.Sprint(keys, vals) != "[a b] [1 2]" {
		t.Errorf("props = %v %v", keys, vals)
	}

	// The same event published again (a re-sent batch) stays one row.
	publish(t, e.js, ev)
	time.Sleep(300 * time.Millisecond)
	waitCount(t, e.ch, "SELECT count() FROM events", 1)
	waitCount(t, e.ch, "SELECT sum(views) FROM pageviews_hourly", 1)
}

func TestPoisonIsParked(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	if _, err := e.js.Publish(ctx, contract.TrackSubject("page_view"), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.js.Publish(ctx, contract.TrackSubject("page_view"), []byte(`{"v":1,"id":"","type":"page_view"}`)); err != nil {
		t.Fatal(err)
	}
	good := contract.TrackedEvent{V: 1, ID: "after-poison", Type: contract.EvPageView, Time: time.Now()}
	publish(t, e.js, good)
	waitCount(t, e.ch, "SELECT count() FROM events_dead", 2)
	waitCount(t, e.ch, "SELECT count() FROM events", 1)
	// Terminated, not redelivered: the consumer has nothing pending.
	cons, err := e.js.Consumer(ctx, contract.EventsStream, contract.AnalyticsConsumer)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending == 0 && info.NumPending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer still has %d pending, %d unacked", info.NumPending, info.NumAckPending)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestOpsEndpoints(t *testing.T) {
	e := start(t)
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		resp, err := http.Get("http://" + e.srv.Addr() + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", p, resp.StatusCode, b)
		}
	}
}
