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
// for a migration Job or unit that runs before a rollout with the database's
// direct URL (a pooler in transaction mode cannot hold goose's session lock).
func migrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("writer migrate", flag.ContinueOnError)
	url := fs.String("database-url", "", "PostgreSQL URL, the primary directly, not a pooler (env DATABASE_URL)")
	format, level := svc.LogFlags(fs)
	if err := svc.Parse(fs, args); err != nil {
		return err
	}
	if *url == "" {
		return errors.New("DATABASE_URL is required")
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
