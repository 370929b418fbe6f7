package rankings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/analytics/chschema"
	"storefront/analytics/ingest"
	"storefront/analytics/rankings"
	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/natsutil"
)

func TestRankingsMatchHandComputedAnswer(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts, err := clickhouse.ParseDSN(testenv.ClickHouseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	if _, err := chschema.Migrate(ctx, ch, log); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(testenv.NATS(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}

	now := time.Date(2026, 11, 22, 12, 30, 0, 0, time.UTC)
	// The catalog knows A, B, D and a hidden H; C is known only from its events.
	for pid, p := range map[string]contract.Product{
		"A": {PID: "A", Section: "WT", GenreID: "21", RegisteredAt: now.AddDate(0, 0, -5)},
		"B": {PID: "B", Section: "CM", GenreID: "24", RegisteredAt: now.AddDate(0, 0, -10)},
		"D": {PID: "D", Section: "WT", GenreID: "05", RegisteredAt: now.AddDate(0, 0, -60)},
		"H": {PID: "H", Section: "WT", GenreID: "21", RegisteredAt: now.AddDate(0, 0, -1), Hidden: true},
	} {
		b, _ := json.Marshal(p)
		if _, err := kv.Put(ctx, contract.ProductKey(pid), b); err != nil {
			t.Fatal(err)
		}
	}
	var evs []contract.TrackedEvent
	n := 0
	add := func(typ, pid, section, genre string, ago time.Duration, times int) {
		for range times {
			n++
			evs = append(evs, contract.TrackedEvent{V: 1, ID: fmt.Sprintf("e%d", n), Type: typ, Time: now.Add(-ago),
				PID: pid, Section: section, GenreID: genre, Amount: 100})
		}
	}
	add(contract.EvViewContent, "A", "WT", "21", 30*time.Minute, 5)
	add(contract.EvPurchase, "A", "WT", "21", 20*time.Minute, 1)
	add(contract.EvViewContent, "B", "CM", "24", 2*time.Hour, 12)
	add(contract.EvViewContent, "C", "EB", "21", 20*time.Hour, 3)
	add(contract.EvRental, "C", "EB", "21", 20*time.Hour, 2)
	add(contract.EvViewContent, "D", "WT", "05", 72*time.Hour, 30)
	add(contract.EvViewContent, "E", "WT", "21", 8*24*time.Hour, 50) // older than a week
	add(contract.EvViewContent, "H", "WT", "21", time.Hour, 99)      // hidden work
	add(contract.EvPageView, "A", "WT", "21", time.Hour, 40)         // page views do not score
	if err := ingest.InsertEvents(ctx, ch, evs, now); err != nil {
		t.Fatal(err)
	}

	rc := rankings.New(ch, kv, rankings.Config{Now: func() time.Time { return now }}, log)
	if err := rc.LoadCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rc.ComputeAndPublish(ctx); err != nil {
		t.Fatal(err)
	}
	// Score = views + 10 × (purchases + rentals).
	want := map[string]string{
		"ranking.all.real":        "A:15 B:12",
		"ranking.wt.real":         "A:15",
		"ranking.cm.real":         "B:12",
		"ranking.eb.real":         "",
		"ranking.genre-21.real":   "A:15",
		"ranking.all.daily":       "C:23 A:15 B:12",
		"ranking.eb.daily":        "C:23",
		"ranking.genre-21.daily":  "C:23 A:15",
		"ranking.all.weekly":      "D:30 C:23 A:15 B:12",
		"ranking.wt.weekly":       "D:30 A:15",
		"ranking.genre-05.weekly": "D:30",
		"ranking.all.new":         "A:15 B:12",
		"ranking.genre-24.new":    "B:12",
		// New by section and genre: D (registered 60 days ago) is not new, H
		// is hidden, C is not in the catalog (no registration date).
		"ranking.wt.new":          "A:15",
		"ranking.cm.new":          "B:12",
		"ranking.eb.new":          "",
		"ranking.genre-21.new":    "A:15",
		"ranking.genre-05.new":    "",
		"ranking.genre-24.weekly": "B:12",
		"ranking.genre-05.daily":  "",
		"ranking.cm.daily":        "B:12",
	}
	for key, w := range want {
		if got := stored(t, kv, key); got != w {
			t.Errorf("%s = %q, want %q", key, got, w)
		}
	}

	// B overtakes A in real time: the deltas say who moved.
	evs = evs[:0]
	add(contract.EvViewContent, "B", "CM", "24", 10*time.Minute, 20)
	if err := ingest.InsertEvents(ctx, ch, evs, now); err != nil {
		t.Fatal(err)
	}
	if err := rc.ComputeAndPublish(ctx); err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get(ctx, "ranking.all.real")
	if err != nil {
		t.Fatal(err)
	}
	var r contract.Ranking
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Items) != 2 || r.Items[0].PID != "B" || r.Items[0].Delta != 1 || r.Items[1].PID != "A" || r.Items[1].Delta != -1 {
		t.Errorf("after B's views: %+v", r.Items)
	}
	if r.Scope != "all" || r.Tab != "real" || !r.ComputedAt.Equal(now) {
		t.Errorf("ranking header %q %q %v", r.Scope, r.Tab, r.ComputedAt)
	}
}

func stored(t *testing.T, kv jetstream.KeyValue, key string) string {
	t.Helper()
	e, err := kv.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	var r contract.Ranking
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		t.Fatal(err)
	}
	s := ""
	for i, it := range r.Items {
		if it.Rank != i+1 {
			t.Errorf("%s item %d has rank %d", key, i, it.Rank)
		}
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s:%g", it.PID, it.Score)
	}
	return s
}
