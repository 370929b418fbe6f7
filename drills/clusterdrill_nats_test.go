package drills

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/cluster"
	"storefront/contract"
	"storefront/devstack"
)

// readLoad reads rp's paths in turn through the cluster's balancer at rate for d.
func readLoad(ctx context.Context, base string, rp readPaths, rate float64, d time.Duration) (*load, *recorder[read]) {
	b := newBalancer(base)
	var rec recorder[read]
	l := startLoad(ctx, rate, d, func(ctx context.Context, seq int) {
		rec.add(b.get(ctx, seq, rp.paths[seq%len(rp.paths)]))
	})
	return l, &rec
}

// rollupsBefore reads every replica's page-view rollup before a drill's load.
func rollupsBefore(t *testing.T, ctx context.Context, c *cluster.Cluster) []int {
	var out []int
	for _, ch := range c.ClickHouse.Replicas {
		out = append(out, rollupViews(t, ctx, ch))
	}
	return out
}

// everyReplicaOnce checks that the accepted page views of tag are on every
// ClickHouse replica exactly once.
func everyReplicaOnce(t *testing.T, ctx context.Context, c *cluster.Cluster, tag string, acked map[string]bool, before []int, limit time.Duration) []map[string]int {
	t.Helper()
	var out []map[string]int
	for i, ch := range c.ClickHouse.Replicas {
		out = append(out, onceInClickHouse(t, ctx, ch, tag, acked, before[i], limit))
	}
	return out
}

// The NATS server that leads the EVENTS stream (asked of JetStream: stream
// info's cluster leader) is killed with SIGKILL under a mixed load through
// the balancer: reads, purchases through both writers, page views. Asserted:
// every read answers 200 with the right content (the edges keep serving);
// a work renamed through the balancer after the kill is served with its
// new title by both edges (catch-up measured); the stream gets a new leader;
// every purchase answers 200 or a clean 503 envelope, and after retries with
// the same keys the reconciliation holds, including exactly one purchase
// event per purchase in EVENTS (the outbox kept publishing; none lost or
// doubled); every page view is accepted and lands exactly once on both
// ClickHouse replicas. The killed server is started again and catches up
// (three current copies of the stream and both buckets).
func TestClusterNATSStreamLeaderKill(t *testing.T) {
	c, cat := sharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(4*time.Minute, 10*time.Minute))
	defer cancel()
	var (
		readRate = pick(100.0, 200.0)
		buyRate  = pick(20.0, 40.0)
		viewRate = pick(50.0, 100.0)
		lead     = 2 * time.Second
		d        = pick(10*time.Second, 60*time.Second)
		renamed  = fmt.Sprintf("스트림 리더가 죽은 뒤의 제목 %d", time.Now().UnixNano()%10000)
	)
	rp := clusterReadPaths(t, cat)
	wholeJetStream(t, ctx, c, 60*time.Second)
	servedEverywhere(t, ctx, c, rp, 60*time.Second)
	// The work renamed is not among the reads, which later drills check
	// against the catalog's titles.
	works := readableWorks(cat, 9)
	if len(works) < 9 {
		t.Fatalf("the demo catalog has %d readable works", len(works))
	}
	pid := works[8].PID
	target := "/home/api/v1/products/" + pid
	before := rollupsBefore(t, ctx, c)
	s, purchases := startPurchases(t, ctx, c.URL, pick(6, 10), buyRate, d)
	lr, rrec := readLoad(ctx, c.URL, rp, readRate, d)
	lv, vrec := pageViewLoad(ctx, c.URL, "natsleader", viewRate, d, true)
	sleepCtx(ctx, lead)
	leader, err := c.StreamLeader(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	victim := c.NATS[leader]
	killed := mark(victim.Kill)
	// The cluster stays whole for the next drill, however this one ends.
	defer func() {
		if !victim.Alive() {
			_ = victim.Start(context.Background())
		}
	}()
	t.Logf("%s, leader of %s, killed with SIGKILL at %s", victim.Name, contract.EventsStream, killed.before.Format("15:04:05.000"))

	// A catalog change after the kill reaches both edges.
	st, body, err := admin(ctx, c.URL, "PATCH", "/admin/api/v1/works/"+pid, map[string]string{"title": renamed})
	if err != nil || st != 200 {
		t.Fatalf("rename after the kill: %d %s %v", st, short(body), err)
	}
	renamedAt := time.Now()
	catchUp := make([]time.Duration, len(c.Edges))
	for i, e := range c.Edges {
		waitTitle(t, ctx, e.URL(), target, renamed, e.Name+" serves the title changed after the kill")
		catchUp[i] = time.Since(renamedAt)
	}
	nReads, buys, nViews := lr.Wait(), purchases(), lv.Wait()
	var newLeader int
	eventually(t, 2*time.Minute, "EVENTS has a new leader", func() error {
		var err error
		if newLeader, err = c.StreamLeader(ctx, contract.EventsStream); err != nil {
			return err
		}
		if newLeader == leader {
			return fmt.Errorf("still led by the killed %s", victim.Name)
		}
		return nil
	})
	elected := time.Since(killed.after)

	restarted := mark(func() {
		if err := victim.Start(ctx); err != nil {
			t.Errorf("restart %s: %v", victim.Name, err)
		}
	})
	reads := rrec.all(func(a, b read) bool { return a.seq < b.seq })
	var failed, afterKill int
	for _, r := range reads {
		if r.start.After(killed.after) {
			afterKill++
		}
		if msg := rp.check(r); msg != "" {
			failed++
			if failed <= 10 {
				t.Errorf("read %d %s at %s failed: %s", r.seq, r.path, r.start.Format("15:04:05.000"), msg)
			}
		}
	}
	if nReads != len(reads) || afterKill == 0 {
		t.Errorf("%d reads started, %d recorded, %d after the kill", nReads, len(reads), afterKill)
	}

	ans := countAnswers(t, buys, 503)
	done := s.settle(t, ctx, buys)
	reconcileOnEveryReplica(t, ctx, c, s, done)

	evs := vrec.all(func(a, b event) bool { return a.seq < b.seq })
	acked, viewsFailed, viewsAfter := accepted(t, evs, func(ev event) bool { return ev.start.After(killed.after) })
	if nViews != len(evs) || viewsAfter == 0 {
		t.Errorf("%d page views started, %d recorded, %d accepted after the kill", nViews, len(evs), viewsAfter)
	}
	var retried int
	for _, ev := range evs {
		if ev.retries > 0 {
			retried++
		}
	}
	got := everyReplicaOnce(t, ctx, c, "natsleader", acked, before, pick(90*time.Second, 5*time.Minute))
	wholeJetStream(t, ctx, c, 60*time.Second)
	t.Logf("NATS leader drill: killed %s (EVENTS leader), %s leading when asked after the load (%s after the kill); %d reads at %.0f/s, failed %d; "+
		"rename after the kill served by the edges after %v; %d purchases at %.0f/s: %d answered 200, %d answered 503, "+
		"reconciled %d whole; %d page views at %.0f/s, %d accepted (%d after the kill; %d sent again after a 503 during the election), failed %d, on the replicas %v; "+
		"killed server restarted in %s and current again",
		victim.Name, c.NATS[newLeader].Name, elected.Round(time.Millisecond), len(reads), readRate, failed, roundAll(catchUp),
		len(buys), buyRate, ans.ok, ans.clean[503], len(done), len(evs), viewRate, len(acked), viewsAfter, retried, viewsFailed, got,
		restarted.after.Sub(restarted.before).Round(time.Millisecond))
}

// purchaseEventsIn counts, once ch holds at least want of them, the
// purchase events of work pid that analytics stored in ClickHouse replica
// ch, by purchase id, every stored row counted (no FINAL): what the outbox
// published once is stored once.
func purchaseEventsIn(ch *devstack.ClickHouse, pid string) func(t *testing.T, ctx context.Context, want int) (map[int64]int, string) {
	return func(t *testing.T, ctx context.Context, want int) (map[int64]int, string) {
		t.Helper()
		where := fmt.Sprintf("type = '%s' AND pid = '%s'", contract.EvPurchase, pid)
		eventually(t, 90*time.Second, "the purchase events in ClickHouse "+ch.HTTPURL, func() error {
			n, err := chCount(ctx, ch, "SELECT count() FROM events FINAL WHERE "+where)
			if err != nil {
				return err
			}
			if n < want {
				return fmt.Errorf("%d of %d", n, want)
			}
			return nil
		})
		// Let late duplicates show up before counting.
		time.Sleep(2 * time.Second)
		rows, err := chQuery(ctx, ch, "SELECT props_values[indexOf(props_keys, 'purchaseId')] FROM events WHERE "+where+" FORMAT TSV")
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]int{}
		for _, f := range strings.Fields(rows) {
			id, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("purchase event with purchaseId %q", f)
			}
			out[id]++
		}
		return out, "ClickHouse " + ch.HTTPURL
	}
}

// reconcileOnEveryReplica runs the purchase reconciliation once per
// ClickHouse replica, the purchase events counted on that replica.
func reconcileOnEveryReplica(t *testing.T, ctx context.Context, c *cluster.Cluster, s *shop, done []settled) {
	t.Helper()
	for _, ch := range c.ClickHouse.Replicas {
		s.events = purchaseEventsIn(ch, s.pid)
		s.reconcile(t, ctx, c.DatabaseURL, c.NATSURL, done)
	}
}
