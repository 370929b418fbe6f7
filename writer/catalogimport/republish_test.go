package catalogimport_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/demo"
	"storefront/natsutil"
	"storefront/writer/catalog"
	"storefront/writer/catalogimport"
	"storefront/writer/internal/writertest"
	"storefront/writer/outbox"
)

// drain runs relay until no row is pending.
func drain(t testing.TB, relay *outbox.Relay) {
	t.Helper()
	for {
		n, err := relay.Once(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

func republishAll(t testing.TB, pool *pgxpool.Pool) int64 {
	t.Helper()
	var n int64
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) (err error) {
		n, err = catalog.RepublishAll(context.Background(), tx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// revisions is the bucket revision of every key of kv.
func revisions(t testing.TB, kv jetstream.KeyValue) map[string]uint64 {
	t.Helper()
	ctx := context.Background()
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = e.Revision()
	}
	return out
}

// The full rebuild (catalog.RepublishAll, `writer republish`) publishes every
// work's head again and, over a complete bucket, no page; over a bucket that
// lost its pages, every page again.
func TestRepublishAll(t *testing.T) {
	t.Parallel()
	pool, _ := writertest.Pool(t)
	_, js, kv := writertest.JS(t)
	vols := writertest.VolumesKV(t, kv)
	ctx := context.Background()
	if err := catalogimport.Import(ctx, pool, synth(30, 250)); err != nil {
		t.Fatal(err)
	}
	relay := outbox.New(pool, js, outbox.Route(catalog.Builders()), outbox.Config{}, writertest.Log(), nil)
	drain(t, relay)
	heads, pages := revisions(t, kv), revisions(t, vols)
	if len(pages) != 90 {
		t.Fatalf("%d pages, want 30 works x 3", len(pages))
	}
	if n := republishAll(t, pool); n != 30 {
		t.Fatalf("enqueued %d works, want 30", n)
	}
	drain(t, relay)
	heads2, pages2 := revisions(t, kv), revisions(t, vols)
	for k, r := range pages {
		if pages2[k] != r {
			t.Fatalf("page %s rewritten by a rebuild over a complete bucket", k)
		}
	}
	for k, r := range heads {
		if len(k) > 5 && k[:5] == contract.KeyProduct && heads2[k] == r {
			t.Fatalf("head %s not republished", k)
		}
	}
	// The pages bucket lost (a restore of the catalog alone): the heads
	// still name its pages, and the rebuild sends every one again.
	s, err := js.Stream(ctx, "KV_"+contract.VolumesBucket)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	republishAll(t, pool)
	drain(t, relay)
	if got := revisions(t, vols); len(got) != 90 {
		t.Fatalf("after losing both buckets, the rebuild stored %d pages, want 90", len(got))
	}
	e, err := kv.Get(ctx, contract.ProductKey("100007"))
	if err != nil {
		t.Fatal(err)
	}
	if p := writertest.MustWork(t, kv, e.Value()); len(p.Volumes) != 250 {
		t.Fatalf("rebuilt work: %d volumes", len(p.Volumes))
	}
}

// benchRebuild measures the writer's full rebuild of a demo catalog of the
// given size: every work enqueued (catalog.RepublishAll) and published by one
// relay (default batch), first into empty buckets (every head and page: a
// fresh NATS, or the move from inline documents), then again over the
// complete buckets (heads only). Reported: works/s, KV values (heads, pages,
// deletes) written per second, and MB and MB/s sent to NATS (the relay's
// connection's bytes out: the values and the relay's requests).
func benchRebuild(b *testing.B, works int) {
	pool, _ := writertest.Pool(b)
	n, _, kv := writertest.JS(b)
	nc, err := natsutil.Connect(n.URL, natsutil.Auth{}, "rebuild", writertest.Log())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	cat := demo.Generate(demo.Options{Seed: 1, Works: works, Now: time.Now()})
	vols := 0
	for i := range cat.Products {
		vols += len(cat.Products[i].Volumes)
	}
	ctx := context.Background()
	if err := catalogimport.Import(ctx, pool, cat); err != nil {
		b.Fatal(err)
	}
	for _, sql := range []string{`UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL`, `VACUUM ANALYZE outbox`} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	relay := outbox.New(pool, js, outbox.Route(catalog.Builders()), outbox.Config{}, writertest.Log(), nil)
	volsKV := writertest.VolumesKV(b, kv)
	b.ResetTimer()
	for b.Loop() {
		for _, pass := range []string{"cold", "warm"} {
			if pass == "cold" {
				b.StopTimer()
				for _, bk := range []jetstream.KeyValue{kv, volsKV} {
					keys, _ := bk.ListKeys(ctx)
					for k := range keys.Keys() {
						_ = bk.Purge(ctx, k)
					}
				}
				b.StartTimer()
			}
			before, seq0 := nc.Stats(), lastSeqs(b, js)
			t0 := time.Now()
			republishAll(b, pool)
			drain(b, relay)
			d := time.Since(t0).Seconds()
			st := nc.Stats()
			msgs, bytes := lastSeqs(b, js)-seq0, st.OutBytes-before.OutBytes
			b.ReportMetric(float64(works)/d, pass+"-works/s")
			b.ReportMetric(float64(msgs)/d, pass+"-values/s")
			b.ReportMetric(float64(bytes)/d/1e6, pass+"-MB/s")
			b.ReportMetric(float64(bytes)/1e6, pass+"-MB")
			b.ReportMetric(d, pass+"-s")
		}
	}
	b.ReportMetric(float64(vols), "volumes")
}

// lastSeqs is the sum of the catalog's and the volumes bucket's last
// sequence numbers: the difference is how many values were written.
func lastSeqs(b *testing.B, js jetstream.JetStream) uint64 {
	var sum uint64
	for _, name := range []string{contract.CatalogBucket, contract.VolumesBucket} {
		s, err := js.Stream(context.Background(), "KV_"+name)
		if err != nil {
			b.Fatal(err)
		}
		info, err := s.Info(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		sum += info.State.LastSeq
	}
	return sum
}

// BenchmarkRebuild3000 is the default demo catalog (3,000 works, ~100,000 volumes).
func BenchmarkRebuild3000(b *testing.B) { benchRebuild(b, 3000) }

// BenchmarkRebuild10k is a generated catalog of 10,000 works.
func BenchmarkRebuild10k(b *testing.B) { benchRebuild(b, 10000) }
