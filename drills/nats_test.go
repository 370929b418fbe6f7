package drills

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack/testenv"
)

// NATS (the only JetStream server) is stopped under read load and started
// again on the same port and file store. Asserted: every read, before, during
// and after the outage, answers 200 with the right content (no failover
// either: the edges never stop serving); during the outage the edges serve
// the catalog they had (the work renamed meanwhile keeps its old title) and
// say on /readyz that they are cut off; the rename, made through the edge
// during the outage, is accepted by the writer and waits in its outbox; after
// NATS is back every edge serves the new title (catch-up time measured), an
// edge never goes back to the old title once it served the new one, and the
// JetStream state (stream messages, KV keys) survived the restart.
func TestNATSRestartUnderLoad(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(3*time.Minute, 10*time.Minute))
	defer cancel()
	var (
		rate    = pick(150.0, 200.0)
		outage  = pick(4*time.Second, 30*time.Second)
		settle  = pick(5*time.Second, 15*time.Second)
		lead    = 2 * time.Second
		renamed = "정전 중에 바뀐 제목"
	)
	n := startNATS(t)
	dbURL := testenv.PostgresURL(t)
	w := startWriter(t, ctx, "writer", dbURL, n.URL)
	cat := importCatalog(t, ctx, dbURL, 30)
	edges := []*service{startEdge(t, ctx, "edge0", n.URL, w.URL()), startEdge(t, ctx, "edge1", n.URL, w.URL())}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	works := readableWorks(cat, 8)
	var pids, titles []string
	for _, p := range works {
		pids, titles = append(pids, p.PID), append(titles, p.Title)
	}
	rp := newReadPaths(t, pids, titles)
	target := "/home/api/v1/products/" + pids[0]
	old := titles[0]
	for i := range edges {
		for _, p := range rp.paths {
			eventually(t, 30*time.Second, fmt.Sprintf("edge%d serves %s", i, p), func() error {
				if msg := rp.check(newBalancer(edges[i].URL()).get(ctx, -1, p)); msg != "" {
					return fmt.Errorf("%s", msg)
				}
				return nil
			})
		}
	}
	// Some events in the stream, so that its surviving the restart means something.
	for i := range 20 {
		st, body, _, err := call(ctx, http.DefaultClient, "POST", edges[i%2].URL()+"/home/api/v1/tracking/page-view",
			map[string]string{"curPageUrl": fmt.Sprintf("/drill/nats/%d", i)}, nil)
		if err != nil || st != 200 {
			t.Fatalf("page view before the outage: %d %s %v", st, short(body), err)
		}
	}
	before := jetstreamState(t, ctx, n.URL)
	if before.msgs < 20 {
		t.Fatalf("EVENTS holds %d messages after 20 page views", before.msgs)
	}
	// The target's title may change once NATS is back: checked separately.
	delete(rp.titles, target)

	b := newBalancer(edges[0].URL(), edges[1].URL())
	var rec recorder[read]
	l := startLoad(ctx, rate, lead+outage+settle, func(ctx context.Context, seq int) {
		rec.add(b.get(ctx, seq, rp.paths[seq%len(rp.paths)]))
	})

	sleepCtx(ctx, lead)
	down := mark(n.Stop)
	t.Logf("NATS stopped at %s", down.before.Format("15:04:05.000"))
	for i, e := range edges {
		eventually(t, 10*time.Second, fmt.Sprintf("edge%d reports it is cut off", i), func() error {
			st, body, _, err := call(ctx, http.DefaultClient, "GET", e.URL()+"/readyz", nil, nil)
			if err != nil {
				return err
			}
			if st != 200 || !strings.Contains(string(body), "nats_connected false") {
				return fmt.Errorf("readyz %d %s", st, short(body))
			}
			return nil
		})
	}
	st, body, err := admin(ctx, edges[0].URL(), "PATCH", "/admin/api/v1/works/"+pids[0], map[string]string{"title": renamed})
	if err != nil || st != 200 {
		t.Fatalf("rename during the NATS outage: %d %s %v", st, short(body), err)
	}
	var pending int64
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM outbox WHERE sent_at IS NULL").Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending == 0 {
		t.Errorf("the rename is not waiting in the outbox during the outage")
	}
	sleepCtx(ctx, outage-time.Since(down.after))
	up := mark(func() {
		if err := n.Start(); err != nil {
			t.Errorf("restart nats: %v", err)
		}
	})
	t.Logf("NATS back after %s; %d outbox rows were waiting", up.after.Sub(down.before).Round(time.Millisecond), pending)

	// Catch-up: each edge, asked directly, serves the new title.
	catchUp := make([]time.Duration, len(edges))
	for i, e := range edges {
		waitTitle(t, ctx, e.URL(), target, renamed, fmt.Sprintf("edge%d serves the title changed during the outage", i))
		catchUp[i] = time.Since(up.after)
	}
	calls := l.Wait()
	reads := rec.all(func(a, b read) bool { return a.seq < b.seq })

	var failed, duringOutage int
	newSeen := map[int]time.Time{} // edge -> end of its first read with the new title
	for _, r := range reads {
		if msg := rp.check(r); msg != "" {
			failed++
			if failed <= 10 {
				t.Errorf("read %d %s on edge%d at %s failed: %s", r.seq, r.path, r.node, r.start.Format("15:04:05.000"), msg)
			}
			continue
		}
		if r.start.After(down.after) && r.end.Before(up.before) {
			duringOutage++
		}
		if r.path != target {
			continue
		}
		switch got := title(r.body); {
		case got == renamed && r.end.Before(up.before):
			t.Errorf("read %d served the new title before NATS was back", r.seq)
		case got == renamed:
			if at, ok := newSeen[r.node]; !ok || r.end.Before(at) {
				newSeen[r.node] = r.end
			}
		case got != old:
			t.Errorf("read %d of the target on edge%d: title %q", r.seq, r.node, got)
		}
	}
	for _, r := range reads {
		if at, ok := newSeen[r.node]; ok && r.path == target && r.start.After(at) && title(r.body) == old {
			t.Errorf("edge%d served the old title again at %s after serving the new one", r.node, r.start.Format("15:04:05.000"))
		}
	}
	if calls != len(reads) {
		t.Errorf("%d reads started, %d recorded", calls, len(reads))
	}
	if duringOutage == 0 {
		t.Errorf("no read ran during the outage: the drill proved nothing")
	}
	if fo := b.failovers.Load(); fo != 0 {
		t.Errorf("%d reads were refused by an edge", fo)
	}
	after := jetstreamState(t, ctx, n.URL)
	if after.msgs < before.msgs || after.keys < before.keys {
		t.Errorf("JetStream state lost in the restart: before %+v, after %+v", before, after)
	}
	t.Logf("NATS drill: %d reads at %.0f/s, %d during the %s outage, failed %d; catch-up after restart per edge %v; "+
		"JetStream before %+v after %+v", len(reads), rate, duringOutage, up.after.Sub(down.before).Round(time.Millisecond),
		failed, roundAll(catchUp), before, after)
}

// waitTitle waits up to a minute until the edge at base serves work path
// target with title want.
func waitTitle(t *testing.T, ctx context.Context, base, target, want, what string) {
	t.Helper()
	one := newBalancer(base)
	eventually(t, 60*time.Second, what, func() error {
		r := one.get(ctx, -1, target)
		if r.err != nil || r.status != 200 {
			return fmt.Errorf("%d %v", r.status, r.err)
		}
		if got := title(r.body); got != want {
			return fmt.Errorf("title still %q", got)
		}
		return nil
	})
}

type jsState struct {
	msgs uint64 // messages in EVENTS
	keys int    // keys in the catalog bucket
}

func jetstreamState(t *testing.T, ctx context.Context, url string) jsState {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, contract.CatalogBucket)
	if err != nil {
		t.Fatal(err)
	}
	kl, err := kv.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range kl.Keys() {
		n++
	}
	return jsState{msgs: info.State.Msgs, keys: n}
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}
