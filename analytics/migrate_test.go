package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"storefront/analytics/server"
	"storefront/devstack"
	"storefront/devstack/testenv"
)

// `analytics migrate` creates the ClickHouse schema and exits; run again it
// changes nothing.
func TestMigrateCommand(t *testing.T) {
	ctx := context.Background()
	url := testenv.ClickHouseURL(t)
	for range 2 {
		if err := migrate(ctx, []string{"-clickhouse-url", url}); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := server.OpenClickHouse(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var exists uint8
	if err := conn.QueryRow(ctx, "EXISTS TABLE events").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists != 1 {
		t.Fatal("after migrate: no events table")
	}
}

// `analytics migrate -replicated -cluster storefront` makes the replicated
// schema on a replica (ZooKeeper and one ClickHouse replica of shard 1) and
// the Distributed tables over it in m_all; -cluster alone is refused.
func TestMigrateCommandReplicated(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ZooKeeper and a ClickHouse replica")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := testenv.ClickHouseReplicas(t, 1)[0]
	if err := srv.Query(ctx, "CREATE DATABASE m", nil); err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("clickhouse://127.0.0.1:%d/m", srv.TCPPort)
	if err := migrate(ctx, []string{"-clickhouse-url", url, "-cluster", devstack.ClusterName}); err == nil || !strings.Contains(err.Error(), "-replicated") {
		t.Fatalf("migrate -cluster without -replicated: %v", err)
	}
	if err := migrate(ctx, []string{"-clickhouse-url", url, "-replicated", "-cluster", devstack.ClusterName}); err != nil {
		t.Fatal(err)
	}
	conn, err := server.OpenClickHouse(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var engine string
	if err := conn.QueryRow(ctx, "SELECT engine FROM system.tables WHERE database = 'm' AND name = 'events'").Scan(&engine); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(engine, "Replicated") {
		t.Fatalf("events engine %q after migrate -replicated, want Replicated...", engine)
	}
	if err := conn.QueryRow(ctx, "SELECT engine FROM system.tables WHERE database = 'm_all' AND name = 'events'").Scan(&engine); err != nil || engine != "Distributed" {
		t.Fatalf("m_all.events after migrate -cluster: %q %v, want Distributed", engine, err)
	}
}
