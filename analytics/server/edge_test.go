package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"storefront/analytics/server"
	"storefront/contract"
	"storefront/devstack/testenv"
	edgeserver "storefront/edge/server"
)

// edgeStack is an edge and an analytics process on one NATS, analytics
// writing to chURL.
type edgeStack struct {
	edgeURL string
	e       *env
}

func startEdgeStack(t *testing.T, chURL string) *edgeStack {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	n := testenv.NATS(t)
	cfg := server.Config{Addr: "127.0.0.1:0", NATSURL: n.URL, ClickHouseURL: chURL}
	cfg.Ingest.FlushInterval = 20 * time.Millisecond
	cfg.Ingest.BatchSize = 200 // many inserts, so the outage hits some in flight
	a, err := server.New(ctx, cfg, testLog())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	g, err := edgeserver.New(ctx, edgeserver.Config{Addr: "127.0.0.1:0", NATSURL: n.URL, StaticDir: t.TempDir(),
		WriterURL: "http://127.0.0.1:1", AnalyticsURL: "http://" + a.Addr()}, testLog())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() { done <- a.Run(ctx) }()
	go func() { done <- g.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
		}
	})
	ch, err := server.OpenClickHouse(chURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	return &edgeStack{edgeURL: "http://" + g.Addr(), e: &env{srv: a, ch: ch}}
}

// post sends a batch to the edge as a page does and returns the status and the
// event ids of the answer.
func (s *edgeStack) post(t *testing.T, sid string, events []map[string]any) (int, []string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"events": events})
	req, _ := http.NewRequest("POST", s.edgeURL+"/home/api/v1/tracking/events", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(contract.HeaderChannel, "AW")
	req.AddCookie(&http.Cookie{Name: "sf_sid", Value: sid})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("post batch: %v", err)
		return 0, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var ans struct {
		EventIDs []string `json:"event_ids"`
	}
	_ = json.Unmarshal(raw, &ans)
	return resp.StatusCode, ans.EventIDs
}

// Events posted to the edge are in ClickHouse exactly once, although every
// batch is sent twice (the page re-sends with the same ids) and ClickHouse is
// stopped and started again in the middle of ingestion; the raw table and the
// rollups agree.
func TestEdgeEventsLandOnceThroughResendsAndAClickHouseRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private ClickHouse")
	}
	ch := testenv.StartClickHouse(t)
	s := startEdgeStack(t, ch.URL)
	const batches, per = 40, 50
	batch := func(i int, retry bool) []map[string]any {
		evs := make([]map[string]any, per)
		for j := range evs {
			evs[j] = map[string]any{"id": fmt.Sprintf("page-%03d-%03d-0123456789", i, j), "type": "page_view", "curPageUrl": fmt.Sprintf("/webtoon?b=%d", i)}
			if retry {
				evs[j]["retry"] = true
			}
		}
		return evs
	}
	send := func(lo, hi int, again bool) {
		for i := lo; i < hi; i++ {
			// Every batch twice: a page that never saw the first answer sends
			// it again, marked as a retry (frontend/app/shell/tracking.ts).
			for try := range 2 {
				code, ids := s.post(t, fmt.Sprintf("session-%04d-abcdef", i), batch(i, again || try > 0))
				if code != 200 || len(ids) != per || ids[0] != fmt.Sprintf("page-%03d-000-0123456789", i) {
					t.Errorf("batch %d try %d: %d %v", i, try, code, ids)
				}
			}
		}
	}
	send(0, 10, false)
	waitCount(t, s.e.ch, "SELECT count() FROM events", 10*per)

	// ClickHouse goes away while pages keep posting: the edge still answers
	// (JetStream has the events) and analytics keeps them until it is back.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); send(10, 25, false) }()
	time.Sleep(30 * time.Millisecond)
	if err := ch.Stop(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	send(25, batches, false)
	time.Sleep(time.Second)
	if err := ch.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A page re-sends an early batch after the restart: still once.
	send(3, 4, true)

	total := uint64(batches * per)
	deadline := time.Now().Add(90 * time.Second)
	for {
		var n uint64
		err := s.e.ch.QueryRow(context.Background(), "SELECT count() FROM events").Scan(&n)
		if err == nil && n >= total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events = %d (%v), want %d", n, err, total)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // anything still arriving would be a copy
	for q, want := range map[string]uint64{
		"SELECT count() FROM events":                                                          total,
		"SELECT uniqExact(id) FROM events":                                                    total,
		"SELECT count() FROM events WHERE id LIKE 'page-%' AND channel = 'AW'":                total,
		"SELECT sum(views) FROM pageviews_hourly WHERE route = '/webtoon'":                    total,
		"SELECT uniqExact(session_id) FROM events":                                            batches,
		"SELECT uniqMerge(actors) FROM active_users_daily":                                    batches,
		"SELECT count() FROM (SELECT actor FROM funnel_daily GROUP BY actor)":                 batches,
		"SELECT count() FROM events_dead":                                                     0,
		"SELECT countIf(kst_date != toDate(ts + 9 * 3600)) FROM events":                       0,
		"SELECT countIf(length(ip_hash) != 32 OR ua_class = '') FROM events":                  0,
		"SELECT countIf(url NOT LIKE '/webtoon?b=%' OR member_type != 'visitor') FROM events": 0,
	} {
		if n := count(t, s.e.ch, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
}

// Page views posted to the edge carry only curPageUrl: analytics derives the
// route, so pages group by screen and the funnel finds the viewer step.
func TestEdgePageViewsFeedTheFunnel(t *testing.T) {
	s := startEdgeStack(t, testenv.ClickHouseURL(t))
	code, _ := s.post(t, "session-funnel-0001", []map[string]any{
		{"type": "page_view", "curPageUrl": "/webtoon/weekday/mon"},
		{"type": "view_content", "url": "/webtoon/detail/wt1", "pid": "wt1", "section": "WT", "genreId": "21"},
		{"type": "page_view", "curPageUrl": "/viewer/?pid=wt1&no=2"},
	})
	if code != 200 {
		t.Fatalf("post: %d", code)
	}
	if code, _ := s.post(t, "session-funnel-0002", []map[string]any{{"type": "page_view", "curPageUrl": "https://store.example/comic/detail/cm1?tab=R"}}); code != 200 {
		t.Fatalf("post: %d", code)
	}
	waitCount(t, s.e.ch, "SELECT count() FROM events", 4)
	waitCount(t, s.e.ch, "SELECT sum(views) FROM pageviews_hourly WHERE route IN ('/webtoon/weekday/mon', '/viewer/', '/comic/detail/{pid}')", 3)
	// s1 reached list, detail and viewer; s2 only detail (a detail page).
	var list, detail, viewer uint64
	err := s.e.ch.QueryRow(context.Background(), `SELECT countIf(bitAnd(s, 1) = 1), countIf(bitAnd(s, 3) = 3), countIf(bitAnd(s, 7) = 7)
 FROM (SELECT actor, groupBitOrMerge(steps) AS s FROM funnel_daily GROUP BY actor)`).Scan(&list, &detail, &viewer)
	if err != nil || list != 1 || detail != 1 || viewer != 1 {
		t.Fatalf("funnel through list/detail/viewer = %d/%d/%d (%v), want 1/1/1", list, detail, viewer, err)
	}
	waitCount(t, s.e.ch, "SELECT count() FROM (SELECT actor FROM funnel_daily GROUP BY actor HAVING groupBitOrMerge(steps) = 2)", 1)
}
