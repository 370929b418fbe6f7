package chschema_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"storefront/analytics/chschema"
	"storefront/devstack"
	"storefront/devstack/testenv"
)

// Two real replicas (ZooKeeper, cluster devstack.ClusterName): the
// replicated schema and the Distributed tables over it on both. A page view
// inserted on replica 1 while replica 2 fetches nothing is missing from
// replica 2's own events but is read through replica 2's Distributed table
// (the lagging local replica is skipped for the fresh one); with replica 1
// stopped, the Distributed tables of replica 2 answer from replica 2 alone.
// Distribute is idempotent and makes a table again when its columns changed.
func TestDistributedReadsTheCluster(t *testing.T) {
	c := testenv.ClickHouseCluster(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, r := range c.Replicas {
		conn := testenv.OpenClickHouse(t, r.URL)
		if _, err := chschema.MigrateReplicated(ctx, conn, log); err != nil {
			t.Fatal(err)
		}
		made, err := chschema.Distribute(ctx, conn, c.Name, log)
		if err != nil {
			t.Fatal(err)
		}
		if len(made) != 11 { // events, events_dead, six rollups, report_audit and two live rollups
			t.Fatalf("Distribute made %v, want the 11 replicated tables", made)
		}
		if again, err := chschema.Distribute(ctx, conn, c.Name, log); err != nil || len(again) != 0 {
			t.Fatalf("second Distribute made %v, %v; want nothing", again, err)
		}
		if _, err := chschema.Distribute(ctx, conn, "nosuchcluster", log); err == nil || !strings.Contains(err.Error(), "remote_servers") {
			t.Fatalf("Distribute on an unknown cluster: %v", err)
		}
	}
	r1, r2 := c.Replicas[0], c.Replicas[1]
	dist := chschema.ClusterDatabase("default")
	q := func(r *devstack.ClickHouse, sql string) string {
		t.Helper()
		var b bytes.Buffer
		if err := r.Query(ctx, sql, &b); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return strings.TrimSpace(b.String())
	}

	q(r2, "SYSTEM STOP FETCHES default.events")
	q(r2, "SYSTEM STOP FETCHES default.pageviews_hourly")
	q(r1, `INSERT INTO events (id, type, ts, kst_date, route, channel, ingested_at)
		VALUES ('d1', 'page_view', now(), today(), '/home', 'AW', now()), ('d2', 'page_view', now(), today(), '/home', 'AW', now())`)
	// The replica's delay counts from the part it has not fetched.
	time.Sleep(2 * time.Second)
	if got := q(r2, "SELECT count() FROM default.events"); got != "0" {
		t.Fatalf("replica 2 fetched while stopped: %s rows", got)
	}
	fresh := " SETTINGS max_replica_delay_for_distributed_queries = 1"
	for sql, want := range map[string]string{
		"SELECT count() FROM " + dist + ".events FINAL":                 "2",
		"SELECT uniqExact(id) FROM " + dist + ".events":                 "2",
		"SELECT sum(views) FROM " + dist + ".pageviews_hourly":          "2",
		"SELECT count() FROM " + dist + ".events_dead":                  "0",
		"SELECT count() FROM " + dist + ".work_daily":                   "0",
		"SELECT uniqMerge(actors) FROM " + dist + ".active_users_daily": "0",
		"SELECT count() FROM " + dist + ".funnel_daily":                 "0",
		"SELECT count() FROM " + dist + ".revenue_daily":                "0",
		"SELECT count() FROM " + dist + ".work_hourly":                  "0",
	} {
		if got := q(r2, sql+fresh); got != want {
			t.Errorf("replica 2, lagging: %s = %s, want %s", sql, got, want)
		}
	}
	q(r2, "SYSTEM START FETCHES default.events")
	q(r2, "SYSTEM START FETCHES default.pageviews_hourly")
	q(r2, "SYSTEM SYNC REPLICA default.events")

	if err := r1.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := q(r2, "SELECT count() FROM "+dist+".events FINAL"); got != "2" {
		t.Errorf("replica 1 down: %s events through replica 2's Distributed table, want 2", got)
	}
	if err := r1.Start(ctx); err != nil {
		t.Fatal(err)
	}

	// A migration that changes a table: its Distributed table follows.
	conn := testenv.OpenClickHouse(t, r2.URL)
	if err := conn.Exec(ctx, "ALTER TABLE events_dead ADD COLUMN note String"); err != nil {
		t.Fatal(err)
	}
	made, err := chschema.Distribute(ctx, conn, c.Name, log)
	if err != nil || fmt.Sprint(made) != "[events_dead]" {
		t.Fatalf("Distribute after a column was added made %v, %v; want [events_dead]", made, err)
	}
	if got := q(r2, "SELECT count() FROM system.columns WHERE database = '"+dist+"' AND table = 'events_dead' AND name = 'note'"); got != "1" {
		t.Errorf("Distributed events_dead lacks the new column")
	}
}
