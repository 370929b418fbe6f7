package drills

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"storefront/analytics/chschema"
	"storefront/contract"
	"storefront/devsecrets"
	"storefront/devstack"
)

// ingestionPlan is the load of the ClickHouse drills: page views per
// second, and how long the load runs before the stop, the stop, and after.
func ingestionPlan() (rate float64, lead, outage, tail time.Duration) {
	return pick(100.0, 200.0), pick(2*time.Second, 10*time.Second), pick(5*time.Second, 60*time.Second), pick(3*time.Second, 20*time.Second)
}

// reportCall is one traffic report asked of an analytics node during the stop.
type reportCall struct {
	node   string
	start  time.Time
	status int
	views  uint64
	err    error
}

// One of two ClickHouse replicas (ZooKeeper, ReplicatedMergeTree, cluster
// storefront with Distributed tables) is stopped while page views keep
// coming in through the edge, and started again (5 s short, 60 s long).
// Two analytics nodes share the consumer, one per replica
// (CLICKHOUSE_REPLICATED, CLICKHOUSE_CLUSTER): each inserts into its own
// replica, the other one while its own is down, and reads reports through
// the Distributed tables. Asserted: the edge accepts every event; both
// analytics nodes stay alive; the traffic report of each node answers 200
// throughout the stop; afterwards every accepted event is stored exactly
// once read through the Distributed tables of either replica and read on
// each replica's own tables (raw rows, FINAL, distinct ids, the page-view
// rollup, the id sets; no poison), the stopped replica having caught up
// (time measured from its restart).
func TestClickHouseReplicaStopUnderIngestion(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(4*time.Minute, 10*time.Minute))
	defer cancel()
	rate, lead, outage, tail := ingestionPlan()
	cl, err := devstack.StartClickHouseCluster(ctx, t.TempDir(), 2, 0, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Stop() })
	r1, r2 := cl.Replicas[0], cl.Replicas[1]
	n := startNATS(t)
	dist := chschema.ClusterDatabase("default")
	node := func(label string, own int) *service {
		u := cl.URLFrom(own)
		return newService(t, "analytics", label, freePort(t), "-nats-url", n.URL, "-clickhouse-url", u,
			"-clickhouse-replicated", "-clickhouse-cluster", cl.Name,
			"-clickhouse-read-url", devstack.WithDatabase(u, dist), "-rank-interval", "1h")
	}
	an1, an2 := node("analytics1", 0), node("analytics2", 1)
	// One after the other: each migrates its own replica, the second finds
	// the replicated tables' ZooKeeper paths made by the first.
	for _, an := range []*service{an1, an2} {
		if err := an.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	e := startEdge(t, ctx, "edge", n.URL, "http://127.0.0.1:1")
	analystYes(t, n.URL)

	l, rec := pageViewLoad(ctx, e.URL(), "replica", rate, lead+outage+tail, false)
	sleepCtx(ctx, lead)

	// Reports of both nodes, from before the stop until replica 1 is back.
	var reports []reportCall
	var wg sync.WaitGroup
	stopReports := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		c := &http.Client{Timeout: 20 * time.Second}
		// Reports ask the writer whether the session behind the analyst
		// cookie is live (issue 31); there is no writer here, so a stand-in
		// answers yes for the drill's session.
		analyst := map[string]string{"Cookie": contract.AnalystCookie + "=" +
			contract.SignAnalyst([]byte(devsecrets.AnalystSecret), "1000001", time.Now().Add(time.Hour)) +
			"; " + contract.MemberSessionCookie + "=drill"}
		q := "traffic?at=" + url.QueryEscape(time.Now().UTC().Format(time.RFC3339)) + "&before=1h&after=1h&step=1h"
		for {
			for _, an := range []*service{an1, an2} {
				r := reportCall{node: an.Name, start: time.Now()}
				var b []byte
				r.status, b, _, r.err = call(ctx, c, "GET", an.URL()+"/analytics/api/v1/reports/"+q, nil, analyst)
				var ans struct {
					Points []struct {
						PageViews uint64 `json:"pageViews"`
					} `json:"points"`
				}
				if r.err == nil && json.Unmarshal(b, &ans) == nil {
					for _, p := range ans.Points {
						r.views += p.PageViews
					}
				}
				if r.status != 200 && r.err == nil {
					r.err = fmt.Errorf("%s", short(b))
				}
				reports = append(reports, r)
			}
			select {
			case <-stopReports:
				return
			case <-tick.C:
			}
		}
	}()
	sleepCtx(ctx, time.Second)
	down := mark(func() {
		if err := r1.Stop(); err != nil {
			t.Errorf("stop replica 1: %v", err)
		}
	})
	t.Logf("replica 1 stopped at %s (took %s)", down.before.Format("15:04:05.000"), down.after.Sub(down.before).Round(time.Millisecond))
	sleepCtx(ctx, outage-time.Since(down.after))
	// The survivor's page views when replica 1 comes back: what it must fetch.
	behind, err := chCount(ctx, r2, "SELECT count() FROM default.events WHERE type = 'page_view'")
	if err != nil {
		t.Fatal(err)
	}
	up := mark(func() {
		if err := r1.Start(ctx); err != nil {
			t.Fatalf("restart replica 1: %v", err)
		}
	})
	t.Logf("replica 1 back after %s", up.after.Sub(down.before).Round(time.Millisecond))
	sleepCtx(ctx, time.Second)
	close(stopReports)
	wg.Wait()
	var caughtUp time.Duration
	eventually(t, pick(90*time.Second, 5*time.Minute), "replica 1 fetched what replica 2 had at its restart", func() error {
		got, err := chCount(ctx, r1, "SELECT count() FROM default.events WHERE type = 'page_view'")
		if err != nil {
			return err
		}
		if got < behind {
			return fmt.Errorf("%d of %d events", got, behind)
		}
		caughtUp = time.Since(up.before)
		return nil
	})
	calls := l.Wait()
	evs := rec.all(func(a, b event) bool { return a.seq < b.seq })
	acked, failed, during := accepted(t, evs, func(ev event) bool { return ev.start.After(down.before) && ev.end.Before(up.after) })
	if during == 0 {
		t.Errorf("no event was accepted during the stop: the drill proved nothing")
	}
	if calls != len(evs) {
		t.Errorf("%d calls started, %d recorded", calls, len(evs))
	}
	for _, an := range []*service{an1, an2} {
		if !an.Alive() {
			t.Errorf("%s died during the replica stop", an.Name)
		}
	}
	// Every report answers; some of each node's were asked while replica 1
	// was down for good (stopped, not yet started again).
	answered := map[string]int{}
	for _, r := range reports {
		if r.err != nil || r.status != 200 {
			t.Errorf("%s's traffic report at %s: %d %v", r.node, r.start.Format("15:04:05.000"), r.status, r.err)
			continue
		}
		if r.start.After(down.after) && r.start.Before(up.before) {
			answered[r.node]++
		}
	}
	if answered[an1.Name] == 0 || answered[an2.Name] == 0 {
		t.Errorf("reports answered while replica 1 was down: %v, want some from both nodes", answered)
	}

	want := len(acked)
	drained := time.Now()
	for _, r := range cl.Replicas {
		eventually(t, pick(90*time.Second, 5*time.Minute), "every accepted event and its rollup on "+r.HTTPURL, func() error {
			got, err := chQuery(ctx, r, "SELECT (SELECT count() FROM default.events FINAL WHERE type = 'page_view'), (SELECT sum(views) FROM default.pageviews_hourly)")
			if err != nil {
				return err
			}
			var evs, views int
			if _, err := fmt.Sscan(got, &evs, &views); err != nil {
				return err
			}
			if evs < want || views < want {
				return fmt.Errorf("%d events and %d in the rollup, want %d", evs, views, want)
			}
			return nil
		})
	}
	t.Logf("both replicas complete, with their rollups, %s after the load ended", time.Since(drained).Round(time.Millisecond))
	if t.Failed() {
		for i, r := range cl.Replicas {
			for _, sql := range []string{
				"SELECT table, name, rows, active FROM system.parts WHERE database = 'default' AND table IN ('events', 'pageviews_hourly') ORDER BY table, name FORMAT TSV",
				"SELECT table, type, new_part_name, last_exception, num_tries FROM system.replication_queue FORMAT TSV",
			} {
				out, err := chQuery(ctx, r, sql)
				t.Logf("r%d %s:\n%s %v", i+1, sql, out, err)
			}
		}
	}
	var counts []string
	for _, db := range []string{dist, "default"} {
		for i, r := range cl.Replicas {
			got := onceInDatabase(t, ctx, r, db, "replica", acked, 0, 30*time.Second)
			counts = append(counts, fmt.Sprintf("%s on r%d %v", db, i+1, got))
		}
	}
	t.Logf("ClickHouse replica drill: %d page views at %.0f/s, accepted %d (%d during the %s stop of replica 1), failed %d; "+
		"replica 1 caught up %s after its restart (%d events); reports answered during the stop %v; %s; "+
		"copies dropped as already stored: analytics1 %s, analytics2 %s",
		len(evs), rate, len(acked), during, up.after.Sub(down.before).Round(time.Millisecond), failed,
		caughtUp.Round(time.Millisecond), behind, answered, strings.Join(counts, "; "),
		metric(ctx, an1.URL(), "analytics_events_duplicate_total"), metric(ctx, an2.URL(), "analytics_events_duplicate_total"))
}

// analystYes answers the reports' analyst check (contract.AnalystCheckSubject)
// with yes for the member session "drill", as the writer would for a live
// analyst: the drills that run analytics without a writer read reports.
func analystYes(t *testing.T, natsURL string) {
	t.Helper()
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if _, err := nc.Subscribe(contract.AnalystCheckSubject, func(m *nats.Msg) {
		var q contract.AnalystCheck
		_ = json.Unmarshal(m.Data, &q)
		a := contract.AnalystAnswer{OK: q.Session == "drill", Who: q.UID}
		b, _ := json.Marshal(a)
		_ = m.Respond(b)
	}); err != nil {
		t.Fatal(err)
	}
}
