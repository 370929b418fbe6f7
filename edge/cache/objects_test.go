package cache

import (
	"bytes"
	"fmt"
	"testing"
)

// TestObjectsBoundedLRU: a Set is visible to the next Get; the cache never
// holds more than its bytes; the least recently used object goes first; an
// object larger than a shard is not kept.
func TestObjectsBoundedLRU(t *testing.T) {
	c, _ := NewObjects(objectShards * 10_000)
	keyIn := func(shard int, i int) string {
		for j := 0; ; j++ {
			k := fmt.Sprintf("k%d-%d", i, j)
			if c.shard(k) == &c.shards[shard] {
				return k
			}
		}
	}
	// Four objects of ~3 KB in one 10 KB shard: the fourth pushes out the
	// least recently used, which is not the first (read just before).
	ks := []string{keyIn(3, 1), keyIn(3, 2), keyIn(3, 3), keyIn(3, 4)}
	for i, k := range ks[:3] {
		c.Set(k, bytes.Repeat([]byte{byte('a' + i)}, 3000))
		if got := c.Get(k); len(got) != 3000 || got[0] != byte('a'+i) {
			t.Fatalf("Get right after Set of %s: %d bytes", k, len(got))
		}
	}
	c.Get(ks[0])
	c.Set(ks[3], bytes.Repeat([]byte{'d'}, 3000))
	if c.Get(ks[1]) != nil {
		t.Error("the least recently used object was kept past the bound")
	}
	for _, k := range []string{ks[0], ks[2], ks[3]} {
		if c.Get(k) == nil {
			t.Errorf("%s dropped, though more recently used", k)
		}
	}
	if b := c.Bytes(); b > 10_000 {
		t.Errorf("holds %d bytes, bound 10,000 per shard", b)
	}
	big := keyIn(5, 9)
	c.Set(big, make([]byte, 20_000))
	if c.Get(big) != nil {
		t.Error("an object larger than its shard was kept")
	}
	if c.Hits.Load() == 0 || c.Misses.Load() == 0 {
		t.Errorf("counters: %d hits %d misses", c.Hits.Load(), c.Misses.Load())
	}
}

func TestObjectsGetAllocatesNothing(t *testing.T) {
	c, _ := NewObjects(1 << 20)
	c.Set("key", []byte("bytes"))
	if n := testing.AllocsPerRun(100, func() { c.Get("key"); c.Get("nope") }); n != 0 {
		t.Errorf("Get allocates %.1f times", n)
	}
}
