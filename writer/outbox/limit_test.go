package outbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"storefront/natsutil"
	"storefront/writer/internal/writertest"
	"storefront/writer/outbox"
)

// sized builds "ctr.<k>" documents of exactly n bytes, n being the row's value.
func sized(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	docs, err := counterDocs(ctx, tx, keys)
	if err != nil {
		return nil, err
	}
	for k := range docs {
		var n int
		if err := tx.QueryRow(ctx, `SELECT n FROM ctr WHERE k = $1`, k).Scan(&n); err != nil {
			return nil, err
		}
		docs[k] = []byte(`"` + strings.Repeat("x", n-2) + `"`)
	}
	return docs, nil
}

// setSize commits (or, when check refuses, rolls back) a change making the
// document of key n bytes, checked as the admin API checks its changes.
func setSize(ctx context.Context, t *testing.T, pool pgxBeginner, key string, n, max int) error {
	t.Helper()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO ctr VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET n = $2`, key, n); err != nil {
			return err
		}
		if err := outbox.Doc(ctx, tx, key); err != nil {
			return err
		}
		return outbox.CheckDocs(ctx, tx, sized, max)
	})
}

type pgxBeginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// The limit the writer reads from NATS at start-up is the one JetStream
// enforces: a document of exactly that size is checked in and reaches the
// bucket; one byte more is refused before the commit, nothing of it stays, and
// a document another transaction left pending is not this one's business.
func TestCheckDocsAtTheNATSLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, js, kv := setup(t)
	max, err := natsutil.CatalogValueLimit(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	if max != natsutil.DefaultCatalogValueBytes {
		// The test server allows 8 MiB messages; the bucket's value size is
		// the smaller limit.
		t.Fatalf("limit %d, want the bucket's %d", max, natsutil.DefaultCatalogValueBytes)
	}
	// Someone else's oversized document, pending (as a bulk import may
	// leave one): not counted against this transaction.
	if _, err := pool.Exec(ctx, `INSERT INTO ctr VALUES ('ctr.other', $1)`, 2*max); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO outbox (kind, key) VALUES ('kv', 'ctr.other')`); err != nil {
		t.Fatal(err)
	}

	err = setSize(ctx, t, pool, "ctr.edge", max+1, max)
	var tl *outbox.TooLargeError
	if !errors.As(err, &tl) || tl.Key != "ctr.edge" || tl.Size != max+1 || tl.Max != max {
		t.Fatalf("one byte over: %v, want TooLargeError for ctr.edge", err)
	}
	if n := countKey(t, pool, "ctr.edge"); n != 0 {
		t.Fatalf("refused change left %d outbox rows", n)
	}

	if err := setSize(ctx, t, pool, "ctr.edge", max, max); err != nil {
		t.Fatalf("exactly at the limit: %v", err)
	}
	r := outbox.New(pool, js, sized, outbox.Config{}, writertest.Log(), nil)
	if _, err := r.Once(ctx); err != nil {
		t.Fatalf("relay: %v", err)
	}
	got := writertest.WaitKV(t, kv, "ctr.edge", 5*time.Second, func([]byte) bool { return true })
	if len(got) != max {
		t.Fatalf("bucket holds %d bytes, want %d", len(got), max)
	}
	// The foreign row over the limit is what the relay refuses, and counts.
	if n := testutil.ToFloat64(r.Refused("kv")); n != 1 {
		t.Fatalf("refused %v, want 1 (ctr.other)", n)
	}
}

func countKey(t *testing.T, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, key string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE key = $1`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
