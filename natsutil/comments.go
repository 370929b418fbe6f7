package natsutil

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// EnsureCommentsKV creates or updates the bucket of episode comments
// (contract.CommentsBucket): heads and pages the edges get by key and whose
// heads they watch with updates only. Replicas follow the catalog's, like
// the volume pages (EnsureVolumesKV); history 1: older values are never read.
func EnsureCommentsKV(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	replicas := 1
	if s, err := js.Stream(ctx, "KV_"+contract.CatalogBucket); err == nil {
		replicas = s.CachedInfo().Config.Replicas
	}
	if s, err := js.Stream(ctx, "KV_"+contract.CommentsBucket); err == nil {
		replicas = max(replicas, s.CachedInfo().Config.Replicas)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:       contract.CommentsBucket,
		Description:  "episode comment heads and pages, fetched by key by the edges",
		History:      1,
		Storage:      jetstream.FileStorage,
		Replicas:     max(replicas, 1),
		MaxValueSize: DefaultCatalogValueBytes,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure kv %s: %w", contract.CommentsBucket, err)
	}
	return kv, nil
}
