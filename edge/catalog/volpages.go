package catalog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/go-json-experiment/json"

	"storefront/contract"
)

// A paged work's volumes (contract/volumes.go) are not in the head the store
// holds: they come in pages of contract.VolumesBucket, fetched on demand into
// one bounded cache per edge. A page is cached under (pid, index, hash), so
// a head naming a new hash simply misses and the old entry ages out: nothing
// is ever purged. Pages holding the release minute's volumes are pinned
// (never evicted) and fetched ahead of time (pins.go).

// PageKey names one version of one page.
type PageKey struct {
	PID   string
	Index int
	Hash  string
}

// ErrPageMissing: the bucket has no page under the key a head names (a
// writer that failed half-way, an operator's purge). Answered 503.
var ErrPageMissing = errors.New("volume page missing")

// PageFetcher reads the raw page document under key from the bucket, or
// ErrPageMissing. It is the cache's one origin: never PostgreSQL.
type PageFetcher func(ctx context.Context, key string) ([]byte, error)

// pageFetchTimeout bounds one KV get: the fetch serves every caller that
// waits for it, so it runs on a context of its own, not the first caller's
// (whose request may end first, and whose context may be a server's
// request object, reused once its handler returns).
const pageFetchTimeout = 5 * time.Second

// VolumePages is the bounded cache of volume pages: LRU by estimated bytes
// over the unpinned entries, pinned entries counted but never evicted, and
// concurrent misses of one key collapsed into one fetch.
type VolumePages struct {
	fetch  PageFetcher
	budget int64

	mu       sync.Mutex
	entries  map[PageKey]*pageEntry
	inflight map[PageKey]*pageCall
	pins     map[PageKey]struct{}
	// head/tail of the LRU list of unpinned entries (head = most recent).
	head, tail *pageEntry
	bytes      int64
	pinned     int64

	// Hits counts lookups answered from memory, Misses those that waited
	// for a fetch (their own or another caller's), Fetches the KV gets
	// (origin calls). PinsRefused counts pages that were to be pinned but
	// found the pinned share of the budget full: they are cached as
	// ordinary pages.
	Hits, Misses, Fetches, PinsRefused atomic.Int64
}

// pinShare is the part of the budget pinned pages may take: a release
// bigger than the cache (a misconfigured budget, a day of thousands of
// long works) must not pin the cache past its bound, and a quarter stays
// for the back catalog's reads.
const pinShare = 0.75

// pinRoom reports whether a page of size more may be pinned. Caller holds
// c.mu.
func (c *VolumePages) pinRoom(size int64) bool {
	if c.pinned+size <= int64(float64(c.budget)*pinShare) {
		return true
	}
	c.PinsRefused.Add(1)
	return false
}

type pageEntry struct {
	key        PageKey
	page       *contract.VolumePage
	size       int64
	pinned     bool
	prev, next *pageEntry
}

type pageCall struct {
	done chan struct{}
	page *contract.VolumePage
	err  error
}

// NewVolumePages returns a cache of at most budget bytes (estimated, plus
// pinned pages beyond it) reading pages through fetch.
func NewVolumePages(budget int64, fetch PageFetcher) *VolumePages {
	return &VolumePages{fetch: fetch, budget: budget, entries: make(map[PageKey]*pageEntry),
		inflight: make(map[PageKey]*pageCall), pins: make(map[PageKey]struct{})}
}

// Bytes is the estimated bytes held, pinned pages included; Pinned is the
// pinned part; MaxBytes the budget.
func (c *VolumePages) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// PinnedBytes is the estimated bytes of pinned pages.
func (c *VolumePages) PinnedBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pinned
}

// MaxBytes is the budget.
func (c *VolumePages) MaxBytes() int64 { return c.budget }

// Len is the number of cached pages.
func (c *VolumePages) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Peek returns the cached page of k, or nil; it never fetches and
// allocates nothing (it runs under the store's read lock, on every content
// page).
func (c *VolumePages) Peek(k PageKey) *contract.VolumePage {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	e := c.entries[k]
	if e != nil {
		c.touch(e)
	}
	c.mu.Unlock()
	if e == nil {
		// Not a miss yet: the caller gets it with Get, which counts it.
		return nil
	}
	c.Hits.Add(1)
	return e.page
}

// Get returns the page of k, fetching it once however many callers miss it
// together; each caller waits no longer than its ctx. The page got may be
// newer than k (the writer publishes pages before heads): it is cached
// under its own hash and returned.
func (c *VolumePages) Get(ctx context.Context, k PageKey) (*contract.VolumePage, error) {
	c.mu.Lock()
	if e := c.entries[k]; e != nil {
		c.touch(e)
		c.mu.Unlock()
		c.Hits.Add(1)
		return e.page, nil
	}
	c.Misses.Add(1)
	call := c.inflight[k]
	if call == nil {
		call = &pageCall{done: make(chan struct{})}
		c.inflight[k] = call
		go c.load(k, call)
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.page, call.err
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for volume page %s: %w", contract.VolumePageKey(k.PID, k.Index), ctx.Err())
	}
}

// load is the one fetch of k's callers.
func (c *VolumePages) load(k PageKey, call *pageCall) {
	ctx, cancel := context.WithTimeout(context.Background(), pageFetchTimeout)
	defer cancel()
	key := contract.VolumePageKey(k.PID, k.Index)
	c.Fetches.Add(1)
	raw, err := c.fetch(ctx, key)
	var pg *contract.VolumePage
	if err == nil {
		pg, err = decodePage(k, raw)
	} else {
		err = fmt.Errorf("get volume page %s: %w", key, err)
	}
	c.mu.Lock()
	delete(c.inflight, k)
	if err == nil {
		c.put(pg, int64(len(raw)))
	}
	c.mu.Unlock()
	call.page, call.err = pg, err
	close(call.done)
}

func decodePage(k PageKey, raw []byte) (*contract.VolumePage, error) {
	key := contract.VolumePageKey(k.PID, k.Index)
	var pg contract.VolumePage
	if err := json.Unmarshal(raw, &pg); err != nil {
		return nil, fmt.Errorf("decode volume page %s: %w", key, err)
	}
	if pg.PID != k.PID || pg.Index != k.Index {
		return nil, fmt.Errorf("volume page %s names %s.%d", key, pg.PID, pg.Index)
	}
	if pg.Hash == "" {
		pg.Hash = k.Hash
	}
	return &pg, nil
}

// Per-page estimate of what a decoded page holds, from its JSON: measured
// by TestVolumePageBytesEstimate, a page of 100 volumes (25 KB of JSON)
// holds 27 KB decoded: the struct's fixed fields take about the room their
// names took in the JSON.
const (
	pageBytesPerJSONByte = 1.0
	pageBytesPerVolume   = 20
	pageBytesFixed       = 400 // entry, map slot, page header
)

func pageBytes(jsonBytes, volumes int) int64 {
	return int64(float64(jsonBytes)*pageBytesPerJSONByte) + int64(volumes)*pageBytesPerVolume + pageBytesFixed
}

// put caches pg under its own hash. Caller holds c.mu.
func (c *VolumePages) put(pg *contract.VolumePage, jsonBytes int64) {
	k := PageKey{PID: pg.PID, Index: pg.Index, Hash: pg.Hash}
	if old := c.entries[k]; old != nil {
		return
	}
	e := &pageEntry{key: k, page: pg, size: pageBytes(int(jsonBytes), len(pg.Volumes))}
	c.entries[k] = e
	c.bytes += e.size
	if _, ok := c.pins[k]; ok && c.pinRoom(e.size) {
		e.pinned = true
		c.pinned += e.size
	} else {
		c.pushFront(e)
	}
	c.evict()
}

// evict drops least recently used unpinned pages until the cache is within
// its budget (or only pinned pages are left). Caller holds c.mu.
func (c *VolumePages) evict() {
	for c.bytes > c.budget && c.tail != nil {
		e := c.tail
		c.unlink(e)
		delete(c.entries, e.key)
		c.bytes -= e.size
	}
}

// SetPins makes keys the pinned set: cached pages among them leave the LRU
// (never evicted), pages pinned before and not now go back to it, while
// the pinned pages fit in pinShare of the budget (keys first in the slice
// first). It returns the keys not cached yet, for the caller to fetch.
func (c *VolumePages) SetPins(keys []PageKey) (missing []PageKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := make(map[PageKey]struct{}, len(keys))
	order := keys[:0:0]
	for _, k := range keys {
		if _, dup := next[k]; !dup {
			next[k] = struct{}{}
			order = append(order, k)
		}
	}
	for k := range c.pins {
		if _, ok := next[k]; ok {
			continue
		}
		if e := c.entries[k]; e != nil && e.pinned {
			e.pinned = false
			c.pinned -= e.size
			c.pushFront(e)
		}
	}
	c.pins = next
	for _, k := range order {
		e := c.entries[k]
		if e == nil {
			missing = append(missing, k)
			continue
		}
		if !e.pinned && c.pinRoom(e.size) {
			c.unlink(e)
			e.pinned = true
			c.pinned += e.size
		}
	}
	c.evict()
	return missing
}

func (c *VolumePages) touch(e *pageEntry) {
	if e.pinned || c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}

func (c *VolumePages) pushFront(e *pageEntry) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *VolumePages) unlink(e *pageEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else if c.head == e {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else if c.tail == e {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}
