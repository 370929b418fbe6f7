package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/svc"
	"storefront/writer/migrations"
)

// migrate is `writer migrate`: applies the PostgreSQL migrations and exits,
// for a migration Job or unit that runs before a rollout, through the
// database's direct URL (DATABASE_MIGRATE_URL, as the service migrates: a
// pooler in transaction mode cannot hold goose's session lock).
func migrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("writer migrate", flag.ContinueOnError)
	url := fs.String("database-url", "", "PostgreSQL URL, used when -database-migrate-url is not given (env DATABASE_URL)")
	direct := fs.String("database-migrate-url", "", "direct PostgreSQL URL for migrations, the primary and not a pooler (env DATABASE_MIGRATE_URL)")
	format, level := svc.LogFlags(fs)
	if err := svc.Parse(fs, args); err != nil {
		return err
	}
	// As the service does: migrations through the direct URL when there is one.
	if *direct != "" {
		url = direct
	}
	if *url == "" {
		return errors.New("DATABASE_MIGRATE_URL or DATABASE_URL is required")
	}
	log := svc.NewLogger(*format, *level)
	pool, err := pgxpool.New(ctx, *url)
	if err != nil {
		return fmt.Errorf("connect postgres: %w", err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool, log); err != nil {
		return err
	}
	log.Info("postgres migrations applied")
	return nil
}
