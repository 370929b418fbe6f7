package main

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"storefront/devstack/testenv"
)

// `writer migrate` leaves a migrated schema behind and exits; run again it
// changes nothing. Without a URL it refuses.
func TestMigrateCommand(t *testing.T) {
	ctx := context.Background()
	url := testenv.PostgresURL(t)
	for range 2 {
		if err := migrate(ctx, []string{"-database-url", url}); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var outbox, wallets *string
	if err := conn.QueryRow(ctx, `SELECT to_regclass('outbox')::text, to_regclass('wallets')::text`).Scan(&outbox, &wallets); err != nil {
		t.Fatal(err)
	}
	if outbox == nil || wallets == nil {
		t.Fatalf("after migrate: outbox %v, wallets %v; want both tables", outbox, wallets)
	}
	// The direct URL wins over DATABASE_URL (here one that refuses).
	t.Setenv("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	t.Setenv("DATABASE_MIGRATE_URL", url)
	if err := migrate(ctx, nil); err != nil {
		t.Fatalf("migrate through DATABASE_MIGRATE_URL: %v", err)
	}
	t.Setenv("DATABASE_MIGRATE_URL", "")
	if err := migrate(ctx, nil); err == nil {
		t.Fatal("migrate through the refusing DATABASE_URL succeeded")
	}
	t.Setenv("DATABASE_URL", "")
	if err := migrate(ctx, nil); err == nil {
		t.Fatal("migrate without a URL succeeded")
	}
}
