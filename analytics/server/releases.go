package server

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/analytics/reports"
	"storefront/contract"
)

// catalogReleases reads volumes' release times from the catalog bucket for
// the live view, keeping each work's for a short while: the view asks every
// few seconds for the same few works.
func catalogReleases(kv jetstream.KeyValue, now func() time.Time) reports.ReleaseTimes {
	type entry struct {
		at  map[int]time.Time
		exp time.Time
	}
	var mu sync.Mutex
	cache := map[string]entry{}
	return func(ctx context.Context, pid string, no int) (time.Time, bool) {
		mu.Lock()
		e, hit := cache[pid]
		mu.Unlock()
		if !hit || now().After(e.exp) {
			e = entry{at: map[int]time.Time{}, exp: now().Add(30 * time.Second)}
			if v, err := kv.Get(ctx, contract.ProductKey(pid)); err == nil {
				var p contract.Product
				if json.Unmarshal(v.Value(), &p) == nil {
					for _, vol := range p.Volumes {
						if !vol.ReleaseAt.IsZero() {
							e.at[vol.No] = vol.ReleaseAt
						}
					}
				}
			}
			mu.Lock()
			if len(cache) > 10000 {
				clear(cache)
			}
			cache[pid] = e
			mu.Unlock()
		}
		at, ok := e.at[no]
		return at, ok
	}
}
