package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"storefront/analytics/chschema"
	"storefront/analytics/server"
	"storefront/devstack/testenv"
)

// A service started with CLICKHOUSE_REPLICATED on a fresh replica makes the
// replicated schema itself (not single-node tables a later migrate could
// not replace), and its ingester retries by identical blocks. With
// CLICKHOUSE_CLUSTER it makes the Distributed tables too; a cluster without
// replicated tables is refused.
func TestReplicatedServiceMakesReplicatedTables(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ZooKeeper and a ClickHouse replica")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cluster := testenv.ClickHouseCluster(t, 1)
	ch := cluster.Replicas[0]
	nurl := testenv.NATS(t).URL
	if _, err := server.New(ctx, server.Config{Addr: "127.0.0.1:0", NATSURL: nurl, ClickHouseURL: ch.URL,
		ClickHouseCluster: cluster.Name}, testLog()); err == nil || !strings.Contains(err.Error(), "CLICKHOUSE_REPLICATED") {
		t.Fatalf("a cluster without replicated tables: %v", err)
	}
	s, err := server.New(ctx, server.Config{Addr: "127.0.0.1:0", NATSURL: nurl, ClickHouseURL: ch.URL,
		ClickHouseReplicated: true, ClickHouseCluster: cluster.Name}, testLog())
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(runCtx) }()
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	conn, err := server.OpenClickHouse(ch.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if dedup, err := chschema.BlockDedup(ctx, conn); err != nil || !dedup {
		t.Fatalf("events after a replicated start: block dedup %v (%v)", dedup, err)
	}
	var engine string
	if err := conn.QueryRow(ctx, "SELECT engine FROM system.tables WHERE database = 'default_all' AND name = 'work_daily'").Scan(&engine); err != nil || engine != "Distributed" {
		t.Fatalf("default_all.work_daily after a start with a cluster: %q %v, want Distributed", engine, err)
	}
}
