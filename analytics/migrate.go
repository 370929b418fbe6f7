package main

import (
	"context"
	"flag"
	"fmt"

	"storefront/analytics/chschema"
	"storefront/analytics/server"
	"storefront/svc"
)

// migrate is `analytics migrate`: applies the ClickHouse migrations and
// exits, for a migration Job or unit that runs before a rollout. With
// -replicated it makes the replicated schema, once against each replica,
// before the service first starts (the service's own migration at start
// then finds every step applied). -cluster adds the Distributed tables.
func migrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("analytics migrate", flag.ContinueOnError)
	url := fs.String("clickhouse-url", "clickhouse://127.0.0.1:9000/default", "ClickHouse URL (env CLICKHOUSE_URL)")
	replicated := fs.Bool("replicated", false, "make the replicated schema (ReplicatedMergeTree through ZooKeeper, the server's {shard} and {replica} macros); run against each replica")
	cluster := fs.String("cluster", "", "with -replicated: also make the Distributed tables (database <db>_all) over this cluster of the servers' remote_servers (env CLICKHOUSE_CLUSTER)")
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
	if *cluster != "" && !*replicated {
		return fmt.Errorf("analytics migrate: -cluster needs -replicated")
	}
	apply := chschema.Migrate
	if *replicated {
		apply = chschema.MigrateReplicated
	}
	n, err := apply(ctx, conn, log)
	if err != nil {
		return err
	}
	log.Info("clickhouse migrations applied", "applied", n)
	if *cluster != "" {
		if _, err := chschema.Distribute(ctx, conn, *cluster, log); err != nil {
			return err
		}
	}
	return nil
}
