package migrations_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"storefront/devstack/testenv"
	"storefront/writer/migrations"
)

// 0135 moves a running store to paged volumes: every work, hidden ones
// included, is enqueued once for the relay to republish as head and pages.
func TestVolumePagesMigrationEnqueuesEveryWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { _ = db.Close() })
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithAllowOutofOrder(true))
	if err != nil {
		t.Fatal(err)
	}
	// The store as it ran before: three works, one hidden, their documents sent.
	if _, err := p.UpTo(ctx, 134); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO works (pid, section, title, hidden) VALUES ('W1', 'WT', 'a', false), ('W2', 'EB', 'b', false), ('W3', 'CM', 'c', true);
		INSERT INTO outbox (kind, key, sent_at) SELECT 'kv', 'prod.' || pid, now() FROM works`); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT key FROM outbox WHERE sent_at IS NULL AND kind = 'kv' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for rows.Next() {
		var k string
		_ = rows.Scan(&k)
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0] != "prod.W1" || keys[1] != "prod.W2" || keys[2] != "prod.W3" {
		t.Fatalf("pending after 0135: %v, want prod.W1..W3", keys)
	}
}
