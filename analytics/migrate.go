package main

import (
	"context"
	"flag"

	"storefront/analytics/chschema"
	"storefront/analytics/server"
	"storefront/svc"
)

// migrate is `analytics migrate`: applies the ClickHouse migrations and
// exits, for a migration Job or unit that runs before a rollout.
func migrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("analytics migrate", flag.ContinueOnError)
	url := fs.String("clickhouse-url", "clickhouse://127.0.0.1:9000/default", "ClickHouse URL (env CLICKHOUSE_URL)")
	format, level := svc.LogFlags(fs)
	if err := svc.Parse(fs, args); err != nil {
		return err
	}
	log := svc.NewLogger(*format, *level)
	conn, err := server.OpenClickHouse(*url)
	if err != nil {
		return err
	}
	defer conn.Close()
	n, err := chschema.Migrate(ctx, conn, log)
	if err != nil {
		return err
	}
	log.Info("clickhouse migrations applied", "applied", n)
	return nil
}
