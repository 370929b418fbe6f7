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
// few seconds for the same few works. A work's head (CatalogSchema 2) lists
// its recent releases, which is what the live view asks for; an older
// volume's time comes from the page holding it, in vols (nil: none). A work
// of the inline shape (schema 1) carries every volume.
func catalogReleases(kv, vols jetstream.KeyValue, now func() time.Time) reports.ReleaseTimes {
	type entry struct {
		at    map[int]time.Time
		pages []contract.VolumePageRef // of a head; each read at most once
		read  map[int]bool
		exp   time.Time
	}
	var mu sync.Mutex
	cache := map[string]*entry{}
	return func(ctx context.Context, pid string, no int) (time.Time, bool) {
		mu.Lock()
		e, hit := cache[pid]
		mu.Unlock()
		if !hit || now().After(e.exp) {
			e = &entry{at: map[int]time.Time{}, read: map[int]bool{}, exp: now().Add(30 * time.Second)}
			if v, err := kv.Get(ctx, contract.ProductKey(pid)); err == nil {
				var p contract.Product
				if json.Unmarshal(v.Value(), &p) == nil {
					for _, vol := range p.Volumes {
						if !vol.ReleaseAt.IsZero() {
							e.at[vol.No] = vol.ReleaseAt
						}
					}
					if p.VolumeIndex != nil {
						for _, r := range p.VolumeIndex.Recent {
							e.at[r.No] = r.At
						}
						e.pages = p.VolumeIndex.Pages
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
		mu.Lock()
		at, ok := e.at[no]
		var page *contract.VolumePageRef
		if !ok && vols != nil {
			for i := range e.pages {
				if r := &e.pages[i]; r.First <= no && no <= r.Last && !e.read[r.Index] {
					page = r
					e.read[r.Index] = true
				}
			}
		}
		mu.Unlock()
		if page == nil {
			return at, ok
		}
		v, err := vols.Get(ctx, contract.VolumePageKey(pid, page.Index))
		if err != nil {
			return time.Time{}, false
		}
		var pg contract.VolumePage
		if json.Unmarshal(v.Value(), &pg) != nil {
			return time.Time{}, false
		}
		mu.Lock()
		defer mu.Unlock()
		for _, vol := range pg.Volumes {
			if !vol.ReleaseAt.IsZero() {
				e.at[vol.No] = vol.ReleaseAt
			}
		}
		at, ok = e.at[no]
		return at, ok
	}
}
