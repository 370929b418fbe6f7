package cache

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
)

// Objects holds media objects (encoded pictures, text chunks) by object key,
// bounded by their bytes, least recently used out first. Keys are content
// hashes, so an object never goes stale: there are no tags.
//
// Not ristretto, unlike rendered bodies: ristretto applies a Set later, in
// its own goroutine, and may refuse it; on a busy machine the readers of a
// fresh release would all miss and all go to the object store for the same
// strips. Here a Set is visible to the next Get. Sixteen shards keep the
// lock of a Get (which moves the object to the front) short and rarely shared.
type Objects struct {
	shards [objectShards]objectShard
	// Counters for /metrics, tests and benchmarks.
	Hits, Misses atomic.Uint64
}

const objectShards = 16

type objectShard struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	m     map[string]*list.Element
	lru   list.List // of *object, most recent at the front
}

type object struct {
	key  string
	data []byte
}

// objectOverhead is what one cached object costs beside its bytes (map
// entry, list element, key).
const objectOverhead = 200

// NewObjects returns a cache holding about maxBytes of objects.
func NewObjects(maxBytes int64) (*Objects, error) {
	if maxBytes <= 0 {
		maxBytes = 256 << 20
	}
	c := &Objects{}
	for i := range c.shards {
		c.shards[i].max = maxBytes / objectShards
		c.shards[i].m = make(map[string]*list.Element)
	}
	return c, nil
}

func (c *Objects) shard(key string) *objectShard {
	return &c.shards[xxhash.Sum64String(key)%objectShards]
}

// Get returns the bytes of object key, or nil. It does not allocate.
func (c *Objects) Get(key string) []byte {
	s := c.shard(key)
	s.mu.Lock()
	e := s.m[key]
	if e == nil {
		s.mu.Unlock()
		c.Misses.Add(1)
		return nil
	}
	s.lru.MoveToFront(e)
	data := e.Value.(*object).data
	s.mu.Unlock()
	c.Hits.Add(1)
	return data
}

// Set keeps data under key, dropping the least recently used objects of its
// shard to make room; an object larger than a shard is not kept. data must
// not be modified after.
func (c *Objects) Set(key string, data []byte) {
	s := c.shard(key)
	cost := int64(len(data) + len(key) + objectOverhead)
	if cost > s.max {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.m[key]; e != nil {
		s.lru.MoveToFront(e)
		return // same key, same bytes
	}
	for s.bytes+cost > s.max {
		old := s.lru.Back()
		o := old.Value.(*object)
		s.lru.Remove(old)
		delete(s.m, o.key)
		s.bytes -= int64(len(o.data) + len(o.key) + objectOverhead)
	}
	s.m[key] = s.lru.PushFront(&object{key: key, data: data})
	s.bytes += cost
}

// Bytes is what the cache holds, overhead included.
func (c *Objects) Bytes() int64 {
	var n int64
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += s.bytes
		s.mu.Unlock()
	}
	return n
}

// MaxBytes is the cache's bound.
func (c *Objects) MaxBytes() int64 {
	var n int64
	for i := range c.shards {
		n += c.shards[i].max
	}
	return n
}

// Close releases the cache's objects.
func (c *Objects) Close() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.m = make(map[string]*list.Element)
		s.lru.Init()
		s.bytes = 0
		s.mu.Unlock()
	}
}
