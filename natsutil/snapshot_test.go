package natsutil_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/natsutil"
)

// applyAll is the bucket's contents after applying entries in order.
func applyAll(into map[string]string, es []natsutil.SnapshotEntry) {
	for _, e := range es {
		if e.Delete {
			delete(into, e.Key)
		} else {
			into[e.Key] = string(e.Value)
		}
	}
}

// A snapshot read back in batches gives the bucket's contents at its
// revision, delete markers included, and is refused when it is missing, of
// another format, or of a revision the bucket never reached.
func TestSnapshotRoundTrip(t *testing.T) {
	js := connect(t)
	ctx := context.Background()
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := natsutil.EnsureSnapshots(ctx, js, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := natsutil.LatestSnapshot(ctx, obs, kv.Bucket()); !errors.Is(err, natsutil.ErrNoSnapshot) {
		t.Fatalf("no snapshot yet: %v, want ErrNoSnapshot", err)
	}
	want := map[string]string{}
	for i := range 50 {
		k, v := fmt.Sprintf("prod.p%d", i), fmt.Sprintf(`{"pid":"p%d","n":%d}`, i, i)
		if _, err := kv.PutString(ctx, k, v); err != nil {
			t.Fatal(err)
		}
		want[k] = v
	}
	for i := range 5 {
		k := fmt.Sprintf("prod.p%d", i*7)
		if err := kv.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
		delete(want, k)
	}
	written, err := natsutil.WriteSnapshot(ctx, kv, obs)
	if err != nil {
		t.Fatal(err)
	}
	if written.Revision != 55 || written.Records != 50 {
		t.Fatalf("written %+v, want 50 records (45 values, 5 delete markers) up to revision 55", written)
	}
	got := map[string]string{}
	batches := 0
	info, err := natsutil.ReadSnapshot(ctx, kv, obs, 16, func(es []natsutil.SnapshotEntry) {
		if len(es) > 16 {
			t.Errorf("batch of %d, want at most 16", len(es))
		}
		batches++
		applyAll(got, es)
	})
	if err != nil {
		t.Fatal(err)
	}
	if info.Revision != 55 || !maps.Equal(got, want) || batches != 4 {
		t.Fatalf("read revision %d in %d batches: %v\nwant revision 55 in 4 batches: %v", info.Revision, batches, got, want)
	}

	oi, err := obs.GetInfo(ctx, natsutil.SnapshotObject)
	if err != nil {
		t.Fatal(err)
	}
	data, err := obs.GetBytes(ctx, natsutil.SnapshotObject)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, md map[string]string) {
		t.Helper()
		if _, err := obs.Put(ctx, jetstream.ObjectMeta{Name: natsutil.SnapshotObject, Metadata: md}, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		applied := 0
		_, err := natsutil.ReadSnapshot(ctx, kv, obs, 16, func(es []natsutil.SnapshotEntry) { applied += len(es) })
		if err == nil || applied != 0 {
			t.Fatalf("%s: read with %d entries applied, err %v; want refused, nothing applied", what, applied, err)
		}
	}
	with := func(k, v string) map[string]string {
		md := maps.Clone(oi.Metadata)
		md[k] = v
		return md
	}
	refused("another format", with("format", "2"))
	refused("another bucket", with("bucket", "other"))
	refused("a revision the bucket never reached", with("revision", "56"))
	refused("more records than it holds", with("records", "51"))
}
