package outbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/writer/internal/writertest"
	"storefront/writer/outbox"
)

// pagedDocs builds prod.<k> from the ctr table as a work of n volumes split
// into a head and pages (contract.SplitVolumes), as catalog.BuildProducts does.
func pagedDocs(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, k := range keys {
		var n int64
		err := tx.QueryRow(ctx, `SELECT n FROM ctr WHERE k = $1`, k).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		p := contract.Product{PID: strings.TrimPrefix(k, contract.KeyProduct), Title: "t"}
		for no := 1; no <= int(n); no++ {
			p.Volumes = append(p.Volumes, contract.Volume{No: no, BuyPrice: 100, ReleaseAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		}
		head, pages := contract.SplitVolumes(&p, time.Now())
		out[k], _ = json.Marshal(head)
		for _, pg := range pages {
			out[contract.VolumePageKey(p.PID, pg.Index)], _ = json.Marshal(pg)
		}
	}
	return out, nil
}

// A head goes out only once its pages are stored: with the volumes bucket
// missing (its stream gone), the head's row stays pending and the catalog
// keeps nothing; once the bucket is back, pages and head arrive together.
func TestHeadWaitsForItsPages(t *testing.T) {
	t.Parallel()
	pool, js, kv := setup(t)
	ctx := context.Background()
	if err := js.DeleteKeyValue(ctx, contract.VolumesBucket); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO ctr VALUES ('prod.W1', 250)`); err != nil {
		t.Fatal(err)
	}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return outbox.Doc(ctx, tx, "prod.W1") }); err != nil {
		t.Fatal(err)
	}
	r := outbox.New(pool, js, pagedDocs, outbox.Config{AckTimeout: time.Second}, writertest.Log(), nil)
	if _, err := r.Once(ctx); err == nil {
		t.Fatal("published a head whose pages have no bucket")
	}
	if p, _ := r.Pending(ctx); p != 1 {
		t.Fatalf("pending %d, want the head's row", p)
	}
	if _, err := kv.Get(ctx, "prod.W1"); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("head in the bucket before its pages: %v", err)
	}
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: contract.VolumesBucket, History: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Once(ctx); err != nil {
		t.Fatal(err)
	}
	b := writertest.WaitKV(t, kv, "prod.W1", time.Second, func([]byte) bool { return true })
	if p := writertest.MustWork(t, kv, b); len(p.Volumes) != 250 {
		t.Fatalf("work of %d volumes", len(p.Volumes))
	}
}
