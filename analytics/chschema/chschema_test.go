package chschema_test

import (
	"context"
	"log/slog"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"

	"storefront/analytics/chschema"
	"storefront/devstack/testenv"
)

func TestSplit(t *testing.T) {
	got := chschema.Split("-- c\nCREATE TABLE a (x String);\n\nSELECT 'a;b' AS x\nFROM t;\nSELECT 1")
	want := []string{"CREATE TABLE a (x String)", "SELECT 'a;b' AS x\nFROM t", "SELECT 1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Split = %q, want %q", got, want)
	}
}

func TestMigrateTwiceAndConcurrently(t *testing.T) {
	ctx := context.Background()
	opts, err := clickhouse.ParseDSN(testenv.ClickHouseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ms, err := chschema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	// Two analytics processes starting at once both succeed.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = chschema.Migrate(ctx, conn, log) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	n, err := chschema.Migrate(ctx, conn, log)
	if err != nil || n != 0 {
		t.Fatalf("second migrate applied %d (%v), want 0", n, err)
	}
	done, err := chschema.Applied(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != len(ms) {
		t.Fatalf("applied %v, want %d versions", done, len(ms))
	}
	for _, table := range []string{"events", "events_dead", "pageviews_hourly", "work_daily", "work_hourly", "active_users_daily", "funnel_daily", "revenue_daily"} {
		var c uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = '"+table+"'").Scan(&c); err != nil || c != 1 {
			t.Errorf("table %s: %d %v", table, c, err)
		}
	}
}
