package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/svc"
	"storefront/writer/catalog"
)

// republish is `writer republish`: enqueues every work for the running
// writers' relays to publish again (catalog.RepublishAll) and exits. For a
// catalog bucket that lost its data or was restored from an old backup, and
// after a rolling upgrade to check every work is in the paged shape
// (docs/operations.md "Paged volumes"). Progress: writer_outbox_pending.
func republish(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("writer republish", flag.ContinueOnError)
	url := fs.String("database-url", "", "PostgreSQL URL (env DATABASE_URL)")
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
	var n int64
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		n, err = catalog.RepublishAll(ctx, tx)
		return err
	}); err != nil {
		return err
	}
	log.Info("every work enqueued for the relays to republish", "works", n)
	return nil
}
