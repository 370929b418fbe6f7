package natsutil

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// DefaultCatalogValueBytes is the catalog bucket's MaxValueSize (see Ensure),
// which is also NATS's default max_payload: the largest catalog document the
// edges can ever receive unless both are raised.
const DefaultCatalogValueBytes = 1 << 20

// CatalogValueLimit is the largest catalog document NATS accepts: the smallest
// of the server's max_payload (as the connection learnt it) and the catalog
// and volume pages buckets' MaxValueSize. A KV put carries no headers, so a document of
// exactly this many bytes still goes through; one byte more is refused for
// good ("message size exceeds maximum allowed"). Read it once at start-up,
// after Ensure: the writer refuses larger changes to their author instead of
// accepting them and then failing to publish them.
func CatalogValueLimit(ctx context.Context, js jetstream.JetStream) (int, error) {
	s, err := js.Stream(ctx, "KV_"+contract.CatalogBucket)
	if err != nil {
		return 0, fmt.Errorf("read catalog bucket limits: %w", err)
	}
	limit := int64(s.CachedInfo().Config.MaxMsgSize)
	if limit <= 0 {
		limit = 1<<31 - 1
	}
	// A work's volume pages (contract.VolumesBucket) are catalog documents
	// too: the smaller bucket limit holds for both.
	if v, err := js.Stream(ctx, "KV_"+contract.VolumesBucket); err == nil {
		if m := int64(v.CachedInfo().Config.MaxMsgSize); m > 0 && m < limit {
			limit = m
		}
	}
	if nc := js.Conn(); nc != nil {
		if p := nc.MaxPayload(); p > 0 && p < limit {
			limit = p
		}
	}
	return int(limit), nil
}
