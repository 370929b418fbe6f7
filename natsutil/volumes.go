package natsutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// EnsureVolumesKV opens the bucket of volume pages (contract.VolumesBucket),
// creating it when missing. Like Ensure it is idempotent and safe to call
// from any number of services at once: the writer publishes pages into it,
// edges get pages from it by key (never watching it). An existing bucket is
// left as it is (replicas only grow by an operator's act).
func EnsureVolumesKV(ctx context.Context, js jetstream.JetStream, o Options) (jetstream.KeyValue, error) {
	o = o.withDefaults()
	kv, err := js.KeyValue(ctx, contract.VolumesBucket)
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("open kv %s: %w", contract.VolumesBucket, err)
	}
	kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      contract.VolumesBucket,
		Description: "pages of works' volumes, read by key by the edges",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    o.Replicas,
		// A page of contract.VolumePageSize volumes is 12-25 KB.
		MaxValueSize: 1 << 20,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		// Another service created it meanwhile.
		kv, err = js.KeyValue(ctx, contract.VolumesBucket)
	}
	if err != nil {
		return nil, fmt.Errorf("ensure kv %s: %w", contract.VolumesBucket, err)
	}
	return kv, nil
}
