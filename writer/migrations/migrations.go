// Package migrations holds the writer's PostgreSQL schema as goose migrations,
// embedded so the binary applies them at start. Numbers 0001-0099 belong to the
// writer core, 0100-0199 to writer/money.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS

// Up applies every pending migration. Several writer nodes may start at once:
// a PostgreSQL advisory lock lets one migrate while the others wait.
func Up(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	// Out of order: the money migrations (0100-) and ours (0001-) are written
	// side by side, so a database may have seen a later number first.
	p, err := goose.NewProvider(goose.DialectPostgres, db, FS,
		goose.WithSessionLocker(locker), goose.WithAllowOutofOrder(true))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	for _, r := range res {
		log.Info("migration applied", "source", r.Source.Path, "took", r.Duration)
	}
	return nil
}
