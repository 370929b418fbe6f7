// Package cache holds rendered response bodies (plain, gzip and brotli) for the
// edge, keyed by request shape and audience variant.
//
// It is not the source of truth: the read models live in package catalog, and a
// body here is only a copy that can be thrown away. Ristretto may drop a Set
// (full buffers, admission policy); that only costs a re-render on the next
// request, never a wrong answer.
//
// Invalidation is by dependency tags. A body records the version of every tag it
// was rendered from (a product, a section's lists, a work's reviews, ...) and the
// instant it stops being true by the clock (a scheduled release, an event start).
// A catalog update bumps exactly the tags it touches, which makes exactly the
// bodies built from them invalid: Get never returns them again and they are
// deleted when next looked up. Versions are read and bumped while the catalog
// lock is held, so a body rendered from old data can never carry new versions.
package cache

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"
	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/ristretto/v2"

	"storefront/contract"
)

// Tags maps tag names to version counters. The zero value is not usable; use NewTags.
// Safe for concurrent use.
type Tags struct {
	mu sync.Mutex
	m  map[string]*tagCtr
}

// tagCtr is one tag's version; soft tags (Soften) make a body stale in a
// way that may be served while one render replaces it (Cache.GetStale).
type tagCtr struct {
	v    atomic.Uint64
	soft atomic.Bool
}

// NewTags returns an empty tag table.
func NewTags() *Tags { return &Tags{m: make(map[string]*tagCtr)} }

// Ref is a tag's counter together with the version a body was rendered at.
type Ref struct {
	ctr *tagCtr
	ver uint64
}

func (t *Tags) ctr(tag string) *tagCtr {
	t.mu.Lock()
	c := t.m[tag]
	if c == nil {
		c = new(tagCtr)
		t.m[tag] = c
	}
	t.mu.Unlock()
	return c
}

// Current returns a reference to tag's current version.
func (t *Tags) Current(tag string) Ref {
	c := t.ctr(tag)
	return Ref{ctr: c, ver: c.v.Load()}
}

// Soften marks tag as one whose bump leaves its bodies servable for a
// bounded while, until one render replaces them: a tag whose data readers
// already see late by design (the counters of lists, catalog.TagCounters).
func (t *Tags) Soften(tag string) { t.ctr(tag).soft.Store(true) }

// Bump invalidates every body rendered from tag. A tag nobody rendered from
// costs nothing.
func (t *Tags) Bump(tag string) {
	t.mu.Lock()
	c := t.m[tag]
	t.mu.Unlock()
	if c != nil {
		c.v.Add(1)
	}
}

// Entry is one rendered answer.
type Entry struct {
	Status int
	// CType is the content type (empty means JSON).
	CType string
	// Private marks content that needs the caller's authorization check on
	// every hit (volume pages beyond the preview).
	Private bool
	// SigNoToken is the SFS1 response signature for a request without a
	// request token, computed once (SFS1 with a token hashes the body per
	// request).
	SigNoToken []byte
	// SigState is the body's part of an SFS2 signature, computed once: a
	// request adds its status and token to it (one SHA-256 block).
	SigState contract.BodyState
	Body     []byte
	Gzip     []byte // nil when compression does not pay
	Brotli   []byte
	// Until is the unix nanosecond instant the body stops being true by the
	// clock (0 = never): a scheduled release or an event boundary.
	Until int64
	// From is the unix nanosecond instant the body starts being true (0 =
	// always): an answer rendered ahead for a release instant.
	From int64
	refs []Ref
	key  string
	// staleAt: when (unix ns) a lookup first found the entry stale by soft
	// tags only (StaleSince); shared by the entry's compressed copy.
	staleAt *atomic.Int64
}

// Valid reports whether the entry may still be served at unix-nano now.
func (e *Entry) Valid(now int64) bool {
	if e.Until != 0 && now >= e.Until || now < e.From {
		return false
	}
	for i := range e.refs {
		if e.refs[i].ctr.v.Load() != e.refs[i].ver {
			return false
		}
	}
	return true
}

// softStale reports whether the entry, not Valid at now, is out of date
// only by soft tags (Tags.Soften) and not by the clock.
func (e *Entry) softStale(now int64) bool {
	if e.Until != 0 && now >= e.Until || e.staleAt == nil {
		return false
	}
	for i := range e.refs {
		if r := &e.refs[i]; r.ctr.v.Load() != r.ver && !r.ctr.soft.Load() {
			return false
		}
	}
	return true
}

// ValidOrSoftStale reports whether the entry may be served at now, as
// it is (Valid) or while a render replaces it (out of date only by soft
// tags: GetStale).
func (e *Entry) ValidOrSoftStale(now int64) bool {
	return e.Valid(now) || now >= e.From && e.softStale(now)
}

// StaleSince is when (unix ns) a lookup first found e stale by soft tags
// only: now for the first caller, the same instant for every later one.
func (e *Entry) StaleSince(now int64) int64 {
	if e.staleAt.CompareAndSwap(0, now) {
		return now
	}
	return e.staleAt.Load()
}

// minCompress is the size under which compressing costs more than it saves.
const minCompress = 512

// NewEntry builds an entry and its compressed variants.
func NewEntry(status int, body []byte, until int64, refs []Ref) *Entry {
	e := NewPlainEntry(status, body, until, refs)
	e.compress()
	return e
}

// NewPlainEntry builds an entry without compressed variants; Compressed makes them.
func NewPlainEntry(status int, body []byte, until int64, refs []Ref) *Entry {
	return &Entry{Status: status, Body: body, Until: until, refs: refs, staleAt: new(atomic.Int64)}
}

// Sign computes what the entry keeps for signing its answers (before the
// entry is shared: it is not safe to call concurrently with readers).
func (e *Entry) Sign() {
	e.SigNoToken = []byte(contract.Signature(e.Status, "", e.Body))
	e.SigState = contract.NewBodyState(e.Body)
}

// NeedsCompression reports whether compressed variants would pay.
func (e *Entry) NeedsCompression() bool {
	return len(e.Body) >= minCompress && e.Gzip == nil && e.Brotli == nil
}

// Compressed returns a copy of e with its compressed variants.
func (e *Entry) Compressed() *Entry {
	c := *e
	c.compress()
	return &c
}

// WithoutPlain returns a copy of e without its plain body when it has a
// gzip variant to restore it from (WithPlain): an answer held a while
// before it is served (rendered ahead of a release) takes a fifth of the
// room. Its signing state is kept, so Sign must have been called.
func (e *Entry) WithoutPlain() *Entry {
	c := *e
	if c.Gzip != nil {
		c.Body = nil
	}
	return &c
}

// WithPlain returns e, or a copy of it with the plain body restored from
// its gzip variant when WithoutPlain dropped it.
func (e *Entry) WithPlain() (*Entry, error) {
	if e.Body != nil || e.Gzip == nil {
		return e, nil
	}
	if len(e.Gzip) < 18 { // a gzip header and trailer
		return nil, fmt.Errorf("restore a plain body: %d bytes of gzip", len(e.Gzip))
	}
	zr, err := gzip.NewReader(bytes.NewReader(e.Gzip))
	if err != nil {
		return nil, fmt.Errorf("restore a plain body: %w", err)
	}
	// gzip's trailer ends with the plain size (RFC 1952, ISIZE): one
	// allocation of the body, not ReadAll's run of growing copies at a
	// release instant's thousands of answers.
	n := binary.LittleEndian.Uint32(e.Gzip[len(e.Gzip)-4:])
	body := make([]byte, n)
	if _, err := io.ReadFull(zr, body); err != nil {
		return nil, fmt.Errorf("restore a plain body: %w", err)
	}
	c := *e
	c.Body = body
	return &c, nil
}

// Compressors are pooled: a new gzip writer allocates ~800 KB and a brotli
// one its hash tables (~1 MB at level 5), which the runtime must zero. Made
// per entry, at a release burst of updates that was most of the edge's CPU
// (memclr and GC), taken from the reads it serves.
var (
	gzipPool = sync.Pool{New: func() any {
		zw, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression)
		return zw
	}}
	brotliPool = sync.Pool{New: func() any { return brotli.NewWriterLevel(io.Discard, 5) }}
	bufPool    = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

func (e *Entry) compress() {
	body := e.Body
	if len(body) < minCompress {
		return
	}
	b := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(b)
	b.Reset()
	zw := gzipPool.Get().(*gzip.Writer)
	zw.Reset(b)
	zw.Write(body)
	zw.Close()
	gzipPool.Put(zw)
	if b.Len() < len(body) {
		e.Gzip = bytes.Clone(b.Bytes())
	}
	b.Reset()
	bw := brotliPool.Get().(*brotli.Writer)
	bw.Reset(b)
	bw.Write(body)
	bw.Close()
	brotliPool.Put(bw)
	if b.Len() < len(body) {
		e.Brotli = bytes.Clone(b.Bytes())
	}
}

// Cache is a bounded cache of entries. Safe for concurrent use.
type Cache struct {
	// Keys are our own 64-bit hashes; the entry keeps the full key so a
	// collision is a miss, never another answer.
	rc *ristretto.Cache[uint64, *Entry]
	// Counters for /metrics and tests. SoftStale counts lookups that found
	// an entry stale by soft tags only (GetStale returned it).
	Hits, Misses, Stale, SoftStale atomic.Uint64
}

// New returns a cache holding about maxBytes of bodies.
func New(maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		maxBytes = 256 << 20
	}
	rc, err := ristretto.NewCache(&ristretto.Config[uint64, *Entry]{
		// Ten counters per expected entry (entries of ~8 KiB).
		NumCounters:        max(maxBytes/800, 10_000),
		MaxCost:            maxBytes,
		BufferItems:        64,
		IgnoreInternalCost: true,
	})
	if err != nil {
		return nil, err
	}
	return &Cache{rc: rc}, nil
}

// Get returns a valid entry for key at unix-nano now. It does not allocate.
func (c *Cache) Get(key []byte, now int64) *Entry {
	h := xxhash.Sum64(key)
	e, ok := c.rc.Get(h)
	if !ok || e == nil || e.key != string(key) {
		c.Misses.Add(1)
		return nil
	}
	if !e.Valid(now) {
		c.Stale.Add(1)
		c.rc.Del(h)
		return nil
	}
	c.Hits.Add(1)
	return e
}

// GetStale is Get, but an entry out of date only by soft tags (Tags.Soften)
// is returned with stale true and kept: the caller may serve it while one
// render replaces it (bounded by StaleSince). It does not allocate.
func (c *Cache) GetStale(key []byte, now int64) (e *Entry, stale bool) {
	h := xxhash.Sum64(key)
	e, ok := c.rc.Get(h)
	if !ok || e == nil || e.key != string(key) {
		c.Misses.Add(1)
		return nil, false
	}
	if !e.Valid(now) {
		if e.softStale(now) {
			c.SoftStale.Add(1)
			return e, true
		}
		c.Stale.Add(1)
		c.rc.Del(h)
		return nil, false
	}
	c.Hits.Add(1)
	return e, false
}

// Set stores e under key; it may be dropped.
func (c *Cache) Set(key []byte, e *Entry) {
	e.key = string(key)
	c.rc.Set(xxhash.Sum64(key), e, int64(len(e.Body)+len(e.Gzip)+len(e.Brotli)+64))
}

// Bytes is what the cached entries cost (bodies and their compressed
// variants, 64 bytes each beside), as ristretto counts it against MaxBytes.
func (c *Cache) Bytes() int64 { return c.rc.MaxCost() - c.rc.RemainingCost() }

// MaxBytes is the cache's bound.
func (c *Cache) MaxBytes() int64 { return c.rc.MaxCost() }

// Wait blocks until buffered Sets are applied (tests and benchmarks).
func (c *Cache) Wait() { c.rc.Wait() }

// Clear drops every entry.
func (c *Cache) Clear() { c.rc.Clear() }

// Close stops the cache's goroutines.
func (c *Cache) Close() { c.rc.Close() }
