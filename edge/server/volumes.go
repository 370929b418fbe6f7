package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/edge/cache"
	"storefront/edge/catalog"
)

// Paged works' volumes (contract/volumes.go) are read from the volume page
// bucket by key into catalog.VolumePages: never under the catalog's lock. A
// render reads with the pages the cache has; when it wanted more, they are
// fetched here (one KV get per page however many requests miss it) and the
// answer is rendered again with them.

// msgPagesUnavailable answers a read whose volume pages could not be had
// (NATS unreachable, a page missing from the bucket): 503, never kept.
const msgPagesUnavailable = "일시적인 오류입니다. 잠시 후 다시 시도해 주세요."

// pageRenderAttempts bounds the renders of one answer: the first finds
// the missing pages, the second has them; a third covers a head replaced
// meanwhile.
const pageRenderAttempts = 3

// errPagesChanged: the pages an answer needs kept changing under it.
var errPagesChanged = errors.New("volume pages kept changing during the render")

// readPaged runs fn on a view, fetching the volume pages it misses and
// running it again with them; an error means the answer fn gave is
// incomplete and must not be served.
func (s *Server) readPaged(ctx context.Context, now time.Time, teen bool, fn func(v *catalog.View)) (refs []cache.Ref, until int64, err error) {
	var have catalog.PageSet
	for range pageRenderAttempts {
		var missing []catalog.PageKey
		refs, until, missing = s.store.ReadPages(now, teen, have, fn)
		if len(missing) == 0 {
			return refs, until, nil
		}
		if have == nil {
			have = make(catalog.PageSet, len(missing))
		}
		pages, err := s.getPages(ctx, missing)
		if err != nil {
			return nil, 0, err
		}
		for i, k := range missing {
			have[catalog.PageSlot{PID: k.PID, Index: k.Index}] = pages[i]
		}
	}
	return nil, 0, errPagesChanged
}

// getPages gets keys at once (a volume list of 1,000 spans 11 pages: one
// round trip, not eleven), failing with the first error.
func (s *Server) getPages(ctx context.Context, keys []catalog.PageKey) ([]*contract.VolumePage, error) {
	out := make([]*contract.VolumePage, len(keys))
	if len(keys) == 1 {
		pg, err := s.volPages.Get(ctx, keys[0])
		out[0] = pg
		return out, err
	}
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = s.volPages.Get(ctx, k)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// errNATSDown: no connection to fetch a page over.
var errNATSDown = errors.New("nats not connected")

// fetchVolumePage is the page cache's origin: one KV get.
func (s *Server) fetchVolumePage(ctx context.Context, key string) ([]byte, error) {
	if !s.nc.IsConnected() {
		// Answer the reader's 503 now rather than after the fetch timeout.
		return nil, errNATSDown
	}
	e, err := s.volKV.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, catalog.ErrPageMissing
	}
	if err != nil {
		return nil, fmt.Errorf("kv get: %w", err)
	}
	return e.Value(), nil
}

// pinEvery is how often the pinned pages are re-evaluated without a
// change of a paged head: the release window moves with the clock.
const pinEvery = time.Minute

// pinGap spaces re-evaluations prompted by head changes: a start-up
// replay applies thousands of heads.
const pinGap = time.Second

// pinVolumePages keeps the pages of the release minute in memory: those
// holding a volume released in the last hour or releasing within
// Config.VolumePinAhead, fetched ahead of time and never evicted, so at
// 23:00 the releasing works' detail, volume list and first pages cost no
// origin call.
func (s *Server) pinVolumePages(ctx context.Context) {
	// Not before the initial sync ends: every paged head it applies signals
	// PagedChanged, and until the sync's end files every work in the pin
	// index an evaluation walks every work under the read lock, which the
	// sync's applies then wait for (5% of a start at 150,000 works, for
	// pins of a catalog not yet whole). From then on PinnedPages reads only
	// the works releasing in its window (catalog/pinindex.go).
	select {
	case <-ctx.Done():
		return
	case <-s.syncDone:
	}
	// Then a gap, as after any head change (the pins of a start came a gap
	// after its first paged heads before): a reader's first requests do not
	// wait behind the first evaluation.
	select {
	case <-ctx.Done():
		return
	case <-time.After(pinGap):
	}
	t := time.NewTicker(pinEvery)
	defer t.Stop()
	for {
		s.pinOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.store.PagedChanged():
			select {
			case <-ctx.Done():
				return
			case <-time.After(pinGap):
			}
		}
	}
}

// pinFetches is how many pinned pages are fetched at once: a KV get is a
// round trip, and one at a time the pages of 1,400 works releasing at once
// were still arriving at their release (cmd/catalogbench).
const pinFetches = 16

// pinOnce pins the pages the window holds now and fetches those not cached.
func (s *Server) pinOnce(ctx context.Context) {
	keys := s.store.PinnedPages(s.cfg.Now(), s.cfg.VolumePinAhead)
	missing := s.volPages.SetPins(keys)
	next := make(chan catalog.PageKey)
	var wg sync.WaitGroup
	for range min(pinFetches, len(missing)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				if _, err := s.volPages.Get(ctx, k); err != nil && ctx.Err() == nil {
					s.log.Warn("pin volume page", "pid", k.PID, "page", k.Index, "err", err)
				}
			}
		}()
	}
	for _, k := range missing {
		if ctx.Err() != nil {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
}
