package natsutil_test

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/natsutil"
)

// Ensure makes the bucket of volume pages next to the catalog, shaped like
// it: the writer publishes a work's pages there before its head.
func TestEnsureMakesVolumesBucket(t *testing.T) {
	t.Parallel()
	js := connect(t)
	ctx := context.Background()
	if _, err := natsutil.Ensure(ctx, js, natsutil.Options{}); err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, contract.VolumesBucket)
	if err != nil {
		t.Fatalf("no %s bucket after Ensure: %v", contract.VolumesBucket, err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config
	if st.History() != 1 || cfg.MaxMsgSize != natsutil.DefaultCatalogValueBytes || cfg.Storage != jetstream.FileStorage {
		t.Fatalf("bucket history %d, max value %d, storage %v", st.History(), cfg.MaxMsgSize, cfg.Storage)
	}
	// Idempotent: a second Ensure (another service starting) changes nothing.
	if _, err := natsutil.EnsureVolumesKV(ctx, js); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, contract.VolumePageKey("P1", 0), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
}
