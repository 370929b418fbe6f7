package drills

import (
	"context"
	"fmt"
	"testing"
	"time"

	"storefront/devstack/testenv"
)

// readPaths are the reads of the drills: details (checked by title), a volume
// list and the home page, with the answer each must give.
type readPaths struct {
	paths  []string
	titles map[string]string // path -> expected prodInfo.title (details only)
}

func newReadPaths(t *testing.T, works []string, titles []string) readPaths {
	t.Helper()
	rp := readPaths{titles: map[string]string{}}
	for i, pid := range works {
		p := "/home/api/v1/products/" + pid
		rp.paths = append(rp.paths, p)
		rp.titles[p] = titles[i]
	}
	rp.paths = append(rp.paths, "/home/api/v1/products/"+works[0]+"/volumes", "/home/api/v1/home")
	return rp
}

// check says what is wrong with a read's answer ("" when it is right).
func (rp readPaths) check(r read) string {
	switch {
	case r.err != nil:
		return r.err.Error()
	case r.status != 200:
		return fmt.Sprintf("status %d: %s", r.status, short(r.body))
	case headerCode(r.body) != 200:
		return "envelope code is not 200: " + short(r.body)
	}
	if want, ok := rp.titles[r.path]; ok && title(r.body) != want {
		return fmt.Sprintf("title %q, want %q", title(r.body), want)
	}
	return ""
}

// kill is one kill -9 of an edge during the edge drill.
type edgeKill struct {
	victim int
	at     instant
}

// Two edges serve reads under a steady load; one is killed with SIGKILL.
//
// What "no failed reads beyond those in flight" means here: the clients use
// the balancer of balancer_test.go (round robin, kept-alive connections,
// resend only on a refused connection). A read fails when it gets no 200 with
// the right content. Every failed read must have been addressed to the killed
// edge and been in flight at the kill instant (started before the kill had
// completed, not finished before it began); every read that started after the
// kill is answered, by the survivor. The long variant also restarts the killed
// edge, waits until the balancer takes it back, and then kills the other one.
func TestEdgeKillUnderLoad(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(3*time.Minute, 10*time.Minute))
	defer cancel()
	var (
		rate     = pick(200.0, 300.0)
		duration = pick(7*time.Second, 60*time.Second)
	)
	nats := startNATS(t)
	dbURL := testenv.PostgresURL(t)
	w := startWriter(t, ctx, "writer", dbURL, nats.URL)
	cat := importCatalog(t, ctx, dbURL, 30)
	edges := []*service{startEdge(t, ctx, "edge0", nats.URL, w.URL()), startEdge(t, ctx, "edge1", nats.URL, w.URL())}

	var pids, titles []string
	for _, p := range readableWorks(cat, 8) {
		pids, titles = append(pids, p.PID), append(titles, p.Title)
	}
	rp := newReadPaths(t, pids, titles)
	b := newBalancer(edges[0].URL(), edges[1].URL())
	for i := range edges {
		for _, p := range rp.paths {
			eventually(t, 30*time.Second, "edge"+fmt.Sprint(i)+" serves "+p, func() error {
				r := newBalancer(edges[i].URL()).get(ctx, -1, p)
				if msg := rp.check(r); msg != "" {
					return fmt.Errorf("%s", msg)
				}
				return nil
			})
		}
	}

	hctx, stopHealth := context.WithCancel(ctx)
	defer stopHealth()
	go b.healthCheck(hctx)
	var rec recorder[read]
	l := startLoad(ctx, rate, duration, func(ctx context.Context, seq int) {
		rec.add(b.get(ctx, seq, rp.paths[seq%len(rp.paths)]))
	})
	var kills []edgeKill
	killEdge := func(i int) {
		whenBusy(ctx, b.busy[i].Load, time.Second)
		kills = append(kills, edgeKill{victim: i, at: mark(edges[i].Kill)})
		t.Logf("edge%d killed with SIGKILL at %s", i, kills[len(kills)-1].at.before.Format("15:04:05.000"))
	}
	began := time.Now()
	if !long() {
		sleepCtx(ctx, 2*time.Second)
		killEdge(1)
	} else {
		sleepCtx(ctx, 15*time.Second)
		killEdge(1)
		sleepCtx(ctx, 10*time.Second)
		if err := edges[1].Start(ctx); err != nil {
			t.Fatalf("restart edge1: %v", err)
		}
		eventually(t, 10*time.Second, "balancer takes edge1 back", func() error {
			if b.down[1].Load() {
				return fmt.Errorf("still marked down")
			}
			return nil
		})
		t.Logf("edge1 restarted and back in the balancer at +%s", time.Since(began).Round(time.Millisecond))
		sleepCtx(ctx, 10*time.Second)
		killEdge(0)
	}
	calls := l.Wait()
	stopHealth()
	reads := rec.all(func(a, b read) bool { return a.seq < b.seq })

	// Every failure must be a read in flight on the killed edge at its kill.
	var failed, unexplained int
	inFlight := make([]int, len(kills))
	for _, r := range reads {
		for k, kl := range kills {
			if r.first == kl.victim && kl.at.inFlight(r.start, r.end) {
				inFlight[k]++
			}
		}
		msg := rp.check(r)
		if msg == "" {
			continue
		}
		failed++
		explained := false
		for _, kl := range kills {
			if r.node == kl.victim && kl.at.inFlight(r.start, r.end) {
				explained = true
				t.Logf("read %d %s in flight on edge%d at the kill failed: %s", r.seq, r.path, r.node, msg)
			}
		}
		if !explained {
			unexplained++
			if unexplained <= 10 {
				t.Errorf("read %d %s on edge%d (started %s, took %s) failed and was not in flight at a kill: %s",
					r.seq, r.path, r.node, r.start.Format("15:04:05.000"), r.end.Sub(r.start).Round(time.Microsecond), msg)
			}
		}
	}
	perNode := make([]int, len(edges))
	var afterKill, afterKillOK int
	for _, r := range reads {
		perNode[r.node]++
		if r.start.After(kills[0].at.after) && (len(kills) == 1 || r.start.Before(kills[1].at.before)) {
			afterKill++
			if rp.check(r) == "" {
				afterKillOK++
			}
		}
	}
	if calls != len(reads) {
		t.Errorf("%d reads started, %d recorded", calls, len(reads))
	}
	for i, n := range perNode {
		if n == 0 {
			t.Errorf("edge%d answered no read: the drill did not exercise both edges", i)
		}
	}
	if afterKill == 0 || afterKill != afterKillOK {
		t.Errorf("after the first kill: %d reads, %d answered", afterKill, afterKillOK)
	}
	t.Logf("edge drill: %d reads at %.0f/s over %s; per edge %v; failed %d (unexplained %d); in flight at each kill %v; "+
		"refused connections failed over %d", len(reads), rate, duration, perNode, failed, unexplained, inFlight, b.failovers.Load())
}
