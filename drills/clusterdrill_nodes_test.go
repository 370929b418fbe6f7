package drills

import (
	"context"
	"fmt"
	"testing"
	"time"

	"storefront/cluster"
)

// rankingsLeader returns the index of the analytics node that says it holds
// the rankings lease (-1: none does).
func rankingsLeader(ctx context.Context, c *cluster.Cluster) int {
	for i, a := range c.Analytics {
		if a.Alive() && metric(ctx, a.URL(), "analytics_rankings_leader") == "1" {
			return i
		}
	}
	return -1
}

// One node of each stateless tier is killed with SIGKILL, one after the
// other, under a mixed load through the balancer: first an edge (reads and
// purchases), then a writer (purchases go on through the other), then the
// analytics node holding the rankings lease (page views, posted from after
// the edge kill on, go on being ingested by the other node). Asserted:
// every read answers 200 with the right content, except reads in flight on
// the killed edge at its kill (the balancer answers them 502 or the
// connection closes); every purchase answers 200, a 502 envelope (no edge or
// no writer reached) or a 503 envelope, and after retries with the same keys
// the reconciliation holds (one purchase event each in EVENTS); every page
// view is accepted and lands exactly once on both ClickHouse replicas (the
// killed node's unacknowledged messages are delivered again to the other);
// the other analytics node takes the rankings lease over within a minute.
// The killed nodes are started again at the end.
func TestClusterNodeKills(t *testing.T) {
	c, cat := sharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(4*time.Minute, 10*time.Minute))
	defer cancel()
	var (
		readRate = pick(100.0, 200.0)
		buyRate  = pick(25.0, 40.0)
		viewRate = pick(50.0, 100.0)
		d        = pick(12*time.Second, 60*time.Second)
		at       = pick([]time.Duration{2 * time.Second, 5 * time.Second, 8 * time.Second},
			[]time.Duration{10 * time.Second, 25 * time.Second, 40 * time.Second})
		viewStart = at[0] + time.Second
	)
	rp := clusterReadPaths(t, cat)
	servedEverywhere(t, ctx, c, rp, 60*time.Second)
	before := rollupsBefore(t, ctx, c)
	lease := -1
	eventually(t, 60*time.Second, "an analytics node holds the rankings lease", func() error {
		if lease = rankingsLeader(ctx, c); lease < 0 {
			return fmt.Errorf("none says so")
		}
		return nil
	})
	edge, writer, analytics := c.Edges[1], c.Writers[1], c.Analytics[lease]
	// The cluster stays whole for the next drill, however this one ends.
	defer func() {
		for _, p := range []*cluster.Proc{edge, writer, analytics} {
			if !p.Alive() {
				if err := p.Start(context.Background()); err != nil {
					t.Errorf("restart %s: %v", p.Name, err)
				}
			}
		}
	}()

	s, purchases := startPurchases(t, ctx, c.URL, pick(6, 10), buyRate, d)
	began := time.Now()
	lr, rrec := readLoad(ctx, c.URL, rp, readRate, d)
	sleepCtx(ctx, at[0])
	edgeKill := mark(edge.Kill)
	t.Logf("%s killed with SIGKILL at +%s", edge.Name, edgeKill.before.Sub(began).Round(time.Millisecond))
	sleepCtx(ctx, viewStart-time.Since(began))
	lv, vrec := pageViewLoad(ctx, c.URL, "nodekills", viewRate, d-viewStart, true)
	sleepCtx(ctx, at[1]-time.Since(began))
	whenBusy(ctx, s.busy.Load, time.Second)
	writerKill := mark(writer.Kill)
	t.Logf("%s killed with SIGKILL at +%s", writer.Name, writerKill.before.Sub(began).Round(time.Millisecond))
	sleepCtx(ctx, at[2]-time.Since(began))
	analyticsKill := mark(analytics.Kill)
	t.Logf("%s (rankings lease holder) killed with SIGKILL at +%s", analytics.Name, analyticsKill.before.Sub(began).Round(time.Millisecond))
	var takeover time.Duration
	eventually(t, 60*time.Second, "the other analytics node takes the rankings lease over", func() error {
		if l := rankingsLeader(ctx, c); l < 0 || l == lease {
			return fmt.Errorf("leader %d", l)
		}
		takeover = time.Since(analyticsKill.after)
		return nil
	})
	nReads, buys, nViews := lr.Wait(), purchases(), lv.Wait()

	reads := rrec.all(func(a, b read) bool { return a.seq < b.seq })
	var failed, inFlight, afterKill int
	for _, r := range reads {
		msg := rp.check(r)
		if r.start.After(edgeKill.after) {
			afterKill++
		}
		if msg == "" {
			continue
		}
		failed++
		if edgeKill.inFlight(r.start, r.end) && (r.err != nil || r.status == 502) {
			inFlight++
			continue
		}
		if failed-inFlight <= 10 {
			t.Errorf("read %d %s at %s (took %s) failed and was not in flight at the edge kill: %s", r.seq, r.path,
				r.start.Format("15:04:05.000"), r.end.Sub(r.start).Round(time.Millisecond), msg)
		}
	}
	if nReads != len(reads) || afterKill == 0 {
		t.Errorf("%d reads started, %d recorded, %d after the edge kill", nReads, len(reads), afterKill)
	}

	ans := countAnswers(t, buys, 502, 503)
	done := s.settle(t, ctx, buys)
	reconcileOnEveryReplica(t, ctx, c, s, done)

	evs := vrec.all(func(a, b event) bool { return a.seq < b.seq })
	acked, viewsFailed, viewsAfter := accepted(t, evs, func(ev event) bool { return ev.start.After(analyticsKill.after) })
	if nViews != len(evs) || viewsAfter == 0 {
		t.Errorf("%d page views started, %d recorded, %d accepted after the analytics kill", nViews, len(evs), viewsAfter)
	}
	got := everyReplicaOnce(t, ctx, c, "nodekills", acked, before, pick(2*time.Minute, 5*time.Minute))
	t.Logf("node kills drill: %s, %s, %s killed; %d reads at %.0f/s, failed %d (all in flight at the edge kill: %d); "+
		"%d purchases at %.0f/s: %d answered 200, %d answered 502/503, reconciled %d whole; %d page views at %.0f/s, "+
		"%d accepted (%d after the analytics kill), failed %d, on the replicas %v; rankings lease taken over %s after the kill; "+
		"balancer failovers %d", edge.Name, writer.Name, analytics.Name, len(reads), readRate, failed, inFlight,
		len(buys), buyRate, ans.ok, ans.clean[502]+ans.clean[503], len(done), len(evs), viewRate, len(acked), viewsAfter, viewsFailed, got,
		takeover.Round(time.Millisecond), c.Balancer.Failovers.Load())
}
