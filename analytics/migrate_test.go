package main

import (
	"context"
	"testing"

	"storefront/analytics/server"
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
