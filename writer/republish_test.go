package main

import (
	"context"
	"testing"

	"storefront/writer/internal/writertest"
)

// `writer republish` enqueues every work, hidden ones too, and exits;
// without a URL it refuses.
func TestRepublishCommand(t *testing.T) {
	ctx := context.Background()
	pool, url := writertest.Pool(t)
	if _, err := pool.Exec(ctx, `INSERT INTO works (pid, section, title, hidden) VALUES ('W1', 'WT', 'a', false), ('W2', 'EB', 'b', true)`); err != nil {
		t.Fatal(err)
	}
	if err := republish(ctx, []string{"-database-url", url}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE sent_at IS NULL AND kind = 'kv' AND key IN ('prod.W1', 'prod.W2')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("%d works enqueued, want 2", n)
	}
	t.Setenv("DATABASE_URL", "")
	if err := republish(ctx, nil); err == nil {
		t.Fatal("republish without a URL succeeded")
	}
}
