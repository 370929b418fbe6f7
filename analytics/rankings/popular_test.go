package rankings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
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

// popularEnv is a migrated ClickHouse database and a catalog bucket.
func popularEnv(t *testing.T) (clickhouse.Conn, jetstream.KeyValue) {
	t.Helper()
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
	t.Cleanup(func() { ch.Close() })
	if _, err := chschema.Migrate(ctx, ch, log); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(testenv.NATS(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return ch, kv
}

// TestPopularSearches: keywords ranked by distinct searchers over the last
// 24 hours, with the floor of 5 searchers, spacing ignored, and keywords
// whose top hit is an adult work marked so the edge keeps them from teens.
func TestPopularSearches(t *testing.T) {
	ctx := context.Background()
	ch, kv := popularEnv(t)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	now := time.Date(2026, 11, 22, 12, 30, 0, 0, time.UTC)
	for pid, p := range map[string]contract.Product{
		"SOLO":  {PID: "SOLO", Section: "WT", Age: 0},
		"NIGHT": {PID: "NIGHT", Section: "WT", Age: 19},
		"TEEN":  {PID: "TEEN", Section: "CM", Age: 15},
	} {
		b, _ := json.Marshal(p)
		if _, err := kv.Put(ctx, contract.ProductKey(pid), b); err != nil {
			t.Fatal(err)
		}
	}
	var evs []contract.TrackedEvent
	search := func(q, top, session, uid string, ago time.Duration) {
		props := map[string]string{contract.PropSearchQuery: q}
		if top != "" {
			props[contract.PropSearchTop] = top
		}
		evs = append(evs, contract.TrackedEvent{V: 1, ID: fmt.Sprintf("s%d", len(evs)), Type: contract.EvSearch,
			Time: now.Add(-ago), SessionID: session, UID: uid, Props: props})
	}
	// 나 혼자: 7 devices, two of them typing it without the space.
	for i := range 7 {
		q := "나 혼자"
		if i < 2 {
			q = "나혼자"
		}
		search(q, "SOLO", fmt.Sprintf("dev-solo-%d", i), "", time.Duration(i)*time.Hour)
	}
	// 밤의: an adult work's title, searched on 6 devices.
	for i := range 6 {
		search("밤의", "NIGHT", fmt.Sprintf("dev-night-%d", i), "", time.Minute)
	}
	// 소년: 5 devices (the floor exactly), its top hit a 15+ work (not adult).
	for i := range 5 {
		search("소년", "TEEN", fmt.Sprintf("dev-teen-%d", i), "", time.Minute)
	}
	// One device searching 200 times, and one member on 9 devices: each one searcher.
	for range 200 {
		search("도배", "", "dev-spammer", "", time.Minute)
	}
	for i := range 9 {
		search("한 사람", "", fmt.Sprintf("dev-member-%d", i), "u-42", time.Minute)
	}
	// 4 devices: under the floor.
	for i := range 4 {
		search("넷", "SOLO", fmt.Sprintf("dev-four-%d", i), "", time.Minute)
	}
	// 20 devices, but a day and an hour ago: outside the window.
	for i := range 20 {
		search("어제", "SOLO", fmt.Sprintf("dev-old-%d", i), "", 25*time.Hour)
	}
	// Page views carry no keyword.
	evs = append(evs, contract.TrackedEvent{V: 1, ID: "pv", Type: contract.EvPageView, Time: now, SessionID: "x", Props: map[string]string{"q": "페이지"}})
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
	e, err := kv.Get(ctx, contract.KeyPopularSearches)
	if err != nil {
		t.Fatal(err)
	}
	var got contract.PopularSearches
	if err := json.Unmarshal(e.Value(), &got); err != nil {
		t.Fatal(err)
	}
	var list []string
	for i, it := range got.Items {
		if it.Rank != i+1 {
			t.Errorf("item %d has rank %d", i, it.Rank)
		}
		s := fmt.Sprintf("%s:%d", it.Keyword, it.Searchers)
		if it.Adult {
			s += ":adult"
		}
		list = append(list, s)
	}
	if want := "나 혼자:7 밤의:6:adult 소년:5"; strings.Join(list, " ") != want {
		t.Errorf("popular = %q, want %q", strings.Join(list, " "), want)
	}
	if got.Window != 24*3600 || !got.ComputedAt.Equal(now) {
		t.Errorf("window %d computed %v", got.Window, got.ComputedAt)
	}

	// The same keywords again (one more searcher of 나 혼자): nothing is rewritten.
	evs = evs[:0]
	search("나 혼자", "SOLO", "dev-solo-new", "", time.Minute)
	if err := ingest.InsertEvents(ctx, ch, evs, now); err != nil {
		t.Fatal(err)
	}
	if err := rc.ComputeAndPublish(ctx); err != nil {
		t.Fatal(err)
	}
	e2, err := kv.Get(ctx, contract.KeyPopularSearches)
	if err != nil {
		t.Fatal(err)
	}
	if e2.Revision() != e.Revision() {
		t.Errorf("unchanged keywords rewritten: revision %d -> %d", e.Revision(), e2.Revision())
	}

	// A fifth searcher lifts 넷 to the floor; the document changes. Ties go
	// to the keyword first in order: 넷 before 소년.
	evs = evs[:0]
	search("넷", "SOLO", "dev-four-4", "", time.Minute)
	if err := ingest.InsertEvents(ctx, ch, evs, now); err != nil {
		t.Fatal(err)
	}
	if err := rc.ComputeAndPublish(ctx); err != nil {
		t.Fatal(err)
	}
	e3, err := kv.Get(ctx, contract.KeyPopularSearches)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(e3.Value(), &got); err != nil {
		t.Fatal(err)
	}
	if n := len(got.Items); n != 4 || got.Items[2].Keyword != "넷" || got.Items[2].Searchers != 5 || got.Items[3].Keyword != "소년" {
		t.Errorf("after a fifth searcher of 넷: %+v", got.Items)
	}
}

// TestPopularSearchesAdultFollowsCatalog: the adult mark is the catalog's
// word at computation time: a work rated 19 later makes its keyword adult.
func TestPopularSearchesAdultFollowsCatalog(t *testing.T) {
	ctx := context.Background()
	ch, kv := popularEnv(t)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	now := time.Date(2026, 11, 22, 12, 30, 0, 0, time.UTC)
	var evs []contract.TrackedEvent
	for i := range 3 {
		evs = append(evs, contract.TrackedEvent{V: 1, ID: fmt.Sprintf("s%d", i), Type: contract.EvSearch, Time: now.Add(-time.Minute),
			SessionID: fmt.Sprintf("d%d", i), Props: map[string]string{contract.PropSearchQuery: "붉은 달", contract.PropSearchTop: "MOON"}})
	}
	if err := ingest.InsertEvents(ctx, ch, evs, now); err != nil {
		t.Fatal(err)
	}
	rc := rankings.New(ch, kv, rankings.Config{Now: func() time.Time { return now }, Popular: rankings.PopularConfig{MinSearchers: 3}}, log)
	rc.SetWork("MOON", rankings.Work{Section: "WT", Age: 15})
	p, err := rc.ComputePopular(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 1 || p.Items[0].Adult {
		t.Fatalf("15+ work: %+v", p.Items)
	}
	rc.SetWork("MOON", rankings.Work{Section: "WT", Age: 19})
	if p, err = rc.ComputePopular(ctx); err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 1 || !p.Items[0].Adult {
		t.Fatalf("rated 19: %+v", p.Items)
	}
}
