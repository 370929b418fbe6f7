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
	"storefront/edge/cache"
)

// Episode comments (contract/comments.go) are never in the store: heads and
// pages of contract.CommentsBucket come into one bounded cache per edge,
// fetched by key on demand. A head is cached under its key and replaced in
// place by the watch of the heads (Comments.Update, newer versions only),
// so what an edge shows is current within the relay's delay; a page is
// cached under (key, version), so a head naming a new version misses and
// the old entry ages out. Heads of the release minute's episodes are pinned
// ahead (Store.ReleasingEpisodes). Each entry keeps the answer's body
// rendered once, so a read is a map lookup and a write of bytes.

// ErrCommentsMissing: a page a head names is not in the bucket.
var ErrCommentsMissing = errors.New("comment document missing")

// CommentFetcher reads the raw document under key, or ErrCommentsMissing
// when the bucket has none. It is the cache's one origin: never PostgreSQL.
type CommentFetcher func(ctx context.Context, key string) ([]byte, error)

// CommentKey names a cached document: a head (Version 0) or one version of a page.
type CommentKey struct {
	Key     string
	Version int64
}

// CommentDoc is one cached head or page with its rendered answer.
type CommentDoc struct {
	Head *contract.CommentHead // heads only
	// Version of the document (0: the bucket had no head yet).
	Version int64
	// Entry is the answer (seed envelope), rendered and signed once: the
	// same for every reader allowed to see the work.
	Entry *cache.Entry
}

func newCommentDoc(h *contract.CommentHead, version int64, raw []byte) *CommentDoc {
	e := cache.NewPlainEntry(200, renderComments(raw), 0, nil)
	e.Sign()
	return &CommentDoc{Head: h, Version: version, Entry: e}
}

type commentEntry struct {
	key        CommentKey
	doc        *CommentDoc
	size       int64
	pinned     bool
	prev, next *commentEntry
}

type commentCall struct {
	done chan struct{}
	doc  *CommentDoc
	err  error
	// newer is a head the watch delivered while the fetch was under way.
	newer *CommentDoc
}

// Comments is the bounded cache of comment heads and pages: LRU by
// estimated bytes over unpinned entries, pinned heads counted but never
// evicted, concurrent misses of one key collapsed into one fetch.
type Comments struct {
	fetch  CommentFetcher
	budget int64

	mu       sync.Mutex
	entries  map[CommentKey]*commentEntry
	inflight map[CommentKey]*commentCall
	pins     map[CommentKey]struct{}
	head     *commentEntry
	tail     *commentEntry
	bytes    int64

	// Hits, Misses, Fetches (KV gets) and Updates (heads replaced by the watch).
	Hits, Misses, Fetches, Updates atomic.Int64
}

// NewComments returns a cache of at most budget bytes (pinned heads beyond it).
func NewComments(budget int64, fetch CommentFetcher) *Comments {
	return &Comments{fetch: fetch, budget: budget, entries: make(map[CommentKey]*commentEntry),
		inflight: make(map[CommentKey]*commentCall), pins: make(map[CommentKey]struct{})}
}

// Bytes is the estimated bytes held; Len the entries; MaxBytes the budget.
func (c *Comments) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is the number of cached documents.
func (c *Comments) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// MaxBytes is the budget.
func (c *Comments) MaxBytes() int64 { return c.budget }

// Per entry: the rendered body, the decoded head (about its JSON size again,
// measured by TestCommentBytesEstimate) and the entry's own bookkeeping.
const commentEntryFixed = 300

func commentBytes(doc *CommentDoc, raw int) int64 {
	n := int64(len(doc.Entry.Body)) + commentEntryFixed
	if doc.Head != nil {
		n += int64(raw)
	}
	return n
}

var commentsHeader = []byte(`{"header":{"code":200,"message":""},"data":`)

// renderComments wraps a document's JSON in the seed's envelope.
func renderComments(raw []byte) []byte {
	b := make([]byte, 0, len(commentsHeader)+len(raw)+1)
	b = append(b, commentsHeader...)
	b = append(b, raw...)
	return append(b, '}')
}

// decodeHead makes the cached doc of a head's raw JSON.
func decodeHead(key string, raw []byte) (*CommentDoc, error) {
	var h contract.CommentHead
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("decode comment head %s: %w", key, err)
	}
	if contract.CommentHeadKey(h.PID, h.Vol) != key {
		return nil, fmt.Errorf("comment head %s names %s.%d", key, h.PID, h.Vol)
	}
	return newCommentDoc(&h, h.Version, raw), nil
}

// emptyHead is the head of an episode nobody commented on yet.
func emptyHead(key string) *CommentDoc {
	pid, vol, _ := contract.ParseCommentHeadKey(key)
	h := contract.CommentHead{PID: pid, Vol: vol, Best: []contract.Comment{}, Newest: []contract.Comment{}, Pages: []contract.CommentPageRef{}}
	raw, _ := json.Marshal(h)
	return newCommentDoc(&h, 0, raw)
}

// Head returns the head of pid's episode vol, fetching it once however many
// callers miss it together.
func (c *Comments) Head(ctx context.Context, pid string, vol int) (*CommentDoc, error) {
	return c.get(ctx, CommentKey{Key: contract.CommentHeadKey(pid, vol)})
}

// Page returns the version of page index a head names (or a newer one).
func (c *Comments) Page(ctx context.Context, pid string, vol, index int, version int64) (*CommentDoc, error) {
	return c.get(ctx, CommentKey{Key: contract.CommentPageKey(pid, vol, index), Version: version})
}

func (c *Comments) get(ctx context.Context, k CommentKey) (*CommentDoc, error) {
	c.mu.Lock()
	if e := c.entries[k]; e != nil {
		c.touch(e)
		c.mu.Unlock()
		c.Hits.Add(1)
		return e.doc, nil
	}
	c.Misses.Add(1)
	call := c.inflight[k]
	if call == nil {
		call = &commentCall{done: make(chan struct{})}
		c.inflight[k] = call
		go c.load(k, call)
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.doc, call.err
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for %s: %w", k.Key, ctx.Err())
	}
}

// load is the one fetch of k's callers.
func (c *Comments) load(k CommentKey, call *commentCall) {
	ctx, cancel := context.WithTimeout(context.Background(), pageFetchTimeout)
	defer cancel()
	c.Fetches.Add(1)
	raw, err := c.fetch(ctx, k.Key)
	var doc *CommentDoc
	head := k.Version == 0
	switch {
	case head && errors.Is(err, ErrCommentsMissing):
		doc, err = emptyHead(k.Key), nil
	case err != nil:
		err = fmt.Errorf("get %s: %w", k.Key, err)
	case head:
		doc, err = decodeHead(k.Key, raw)
	default:
		var pg contract.CommentPage
		if err = json.Unmarshal(raw, &pg); err != nil {
			err = fmt.Errorf("decode %s: %w", k.Key, err)
			break
		}
		doc = newCommentDoc(nil, pg.Version, raw)
	}
	c.mu.Lock()
	delete(c.inflight, k)
	if err == nil {
		if call.newer != nil && call.newer.Version > doc.Version {
			doc = call.newer
		}
		// A page older than the head names (the head's publish overtook
		// the page's) is served to these callers but not kept.
		if head || doc.Version >= k.Version {
			c.put(k, doc, len(raw))
		}
	}
	c.mu.Unlock()
	call.doc, call.err = doc, err
	close(call.done)
}

// Update applies a head the watch delivered: it replaces the cached head
// (or the one being fetched) when newer, and is dropped otherwise: an edge
// holds only the heads it was asked for.
func (c *Comments) Update(key string, raw []byte) error {
	k := CommentKey{Key: key}
	c.mu.Lock()
	e, call := c.entries[k], c.inflight[k]
	c.mu.Unlock()
	if e == nil && call == nil {
		return nil
	}
	var doc *CommentDoc
	if raw == nil {
		doc = emptyHead(key) // the head was deleted (its work is gone)
	} else {
		var err error
		if doc, err = decodeHead(key, raw); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if call := c.inflight[k]; call != nil {
		if call.newer == nil || doc.Version > call.newer.Version {
			call.newer = doc
		}
		return nil
	}
	e = c.entries[k]
	if e == nil || (raw != nil && doc.Version <= e.doc.Version) {
		return nil
	}
	c.Updates.Add(1)
	c.bytes -= e.size
	e.doc, e.size = doc, commentBytes(doc, len(raw))
	c.bytes += e.size
	c.evict()
	return nil
}

// put caches doc under k. Caller holds c.mu.
func (c *Comments) put(k CommentKey, doc *CommentDoc, raw int) {
	if k.Version != 0 {
		k.Version = doc.Version
	}
	if old := c.entries[k]; old != nil {
		return
	}
	e := &commentEntry{key: k, doc: doc, size: commentBytes(doc, raw)}
	c.entries[k] = e
	c.bytes += e.size
	if _, ok := c.pins[k]; ok {
		e.pinned = true
	} else {
		c.pushFront(e)
	}
	c.evict()
}

func (c *Comments) evict() {
	for c.bytes > c.budget && c.tail != nil {
		e := c.tail
		c.unlink(e)
		delete(c.entries, e.key)
		c.bytes -= e.size
	}
}

// SetPins makes the heads of episodes the pinned set and returns those not
// cached yet, for the caller to fetch.
func (c *Comments) SetPins(eps []Episode) (missing []Episode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := make(map[CommentKey]struct{}, len(eps))
	for _, ep := range eps {
		next[CommentKey{Key: contract.CommentHeadKey(ep.PID, ep.Vol)}] = struct{}{}
	}
	for k := range c.pins {
		if _, ok := next[k]; ok {
			continue
		}
		if e := c.entries[k]; e != nil && e.pinned {
			e.pinned = false
			c.pushFront(e)
		}
	}
	c.pins = next
	for _, ep := range eps {
		k := CommentKey{Key: contract.CommentHeadKey(ep.PID, ep.Vol)}
		e := c.entries[k]
		if e == nil {
			missing = append(missing, ep)
			continue
		}
		if !e.pinned {
			c.unlink(e)
			e.pinned = true
		}
	}
	c.evict()
	return missing
}

func (c *Comments) touch(e *commentEntry) {
	if e.pinned || c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}

func (c *Comments) pushFront(e *commentEntry) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *Comments) unlink(e *commentEntry) {
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

// Episode names one episode of a work.
type Episode struct {
	PID string
	Vol int
}

// ReleasingEpisodes are the episodes of paged works released in the last
// PinBehind or releasing within ahead: their comment heads are pinned, so
// the release minute's comment reads cost no origin call.
func (s *Store) ReleasingEpisodes(now time.Time, ahead time.Duration) []Episode {
	from, to := now.Add(-PinBehind), now.Add(ahead)
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Episode
	for _, p := range s.products {
		if !p.paged || p.Hidden || p.VolumeIndex == nil {
			continue
		}
		for _, x := range p.VolumeIndex.Recent {
			if x.At.After(from) && !x.At.After(to) {
				out = append(out, Episode{PID: p.PID, Vol: x.No})
			}
		}
	}
	return out
}

// EpisodeAudience tells whether pid is a visible work and, if so, whether
// this audience may see it (an adult work: not to teens and visitors).
func (s *Store) EpisodeAudience(pid string, teen bool) (found, allowed bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.products[pid]
	if p == nil || p.Hidden {
		return false, false
	}
	return true, !(teen && p.IsAdult())
}
