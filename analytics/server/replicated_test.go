package server_test

import (
	"context"
	"testing"
	"time"

	"storefront/analytics/chschema"
	"storefront/analytics/server"
	"storefront/devstack/testenv"
)

// A service started with CLICKHOUSE_REPLICATED on a fresh replica makes the
// replicated schema itself (not single-node tables a later migrate could
// not replace), and its ingester retries by identical blocks.
func TestReplicatedServiceMakesReplicatedTables(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ZooKeeper and a ClickHouse replica")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ch := testenv.ClickHouseReplicas(t, 1)[0]
	s, err := server.New(ctx, server.Config{Addr: "127.0.0.1:0", NATSURL: testenv.NATS(t).URL, ClickHouseURL: ch.URL,
		ClickHouseReplicated: true}, testLog())
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
}
