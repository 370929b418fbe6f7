package natsutil

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// EnsureVolumesKV creates or updates the bucket of volume pages
// (contract.VolumesBucket): a work's head is in the catalog bucket and its
// volumes in pages here (contract/volumes.go). Same storage, replicas and
// value limit as the catalog bucket, so a page is refused exactly when a
// head of its size would be (CatalogValueLimit holds for both), and the
// replicas follow the catalog's (a catalog kept at R3 keeps its pages at R3).
// History 1: a page key's older values are never read.
func EnsureVolumesKV(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	replicas := 1
	if s, err := js.Stream(ctx, "KV_"+contract.CatalogBucket); err == nil {
		replicas = s.CachedInfo().Config.Replicas
	}
	if s, err := js.Stream(ctx, "KV_"+contract.VolumesBucket); err == nil {
		replicas = max(replicas, s.CachedInfo().Config.Replicas)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:       contract.VolumesBucket,
		Description:  "volume pages of the catalog's works, fetched by key by the edges",
		History:      1,
		Storage:      jetstream.FileStorage,
		Replicas:     max(replicas, 1),
		MaxValueSize: DefaultCatalogValueBytes,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure kv %s: %w", contract.VolumesBucket, err)
	}
	return kv, nil
}
