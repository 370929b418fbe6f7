package server_test

import (
	"bytes"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/server"
)

// A zzim reaches the edge as the work's small counters document (stat.<pid>):
// the detail shows the new count at once, and the lists of its section stay
// cached (no cache entry found invalid), where the work's whole document
// republished, as before, drops them (issue 35).
func TestCountersUpdateDetailWithoutDroppingLists(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("a", contract.SectionWebtoon, "에이", func(p *contract.Product) { p.ZzimCount = 7 }))
	e.putProduct(product("b", contract.SectionWebtoon, "비"))
	g := startEdge(t, e, func(c *server.Config) { c.CountersRefresh = time.Hour })
	g.waitReady()
	lists := []string{"/home/api/v1/webtoon/best", "/home/api/v1/webtoon/weekday/mon", "/home/api/v1/search?q=%EC%97%90%EC%9D%B4"}
	for _, p := range append([]string{"/home/api/v1/products/a"}, lists...) {
		eventually(t, p+" cached", func() bool {
			h := metric(t, g, "edge_cache_hits_total")
			g.get(p)
			return metric(t, g, "edge_cache_hits_total") > h
		})
	}

	e.put(contract.StatKey("a"), contract.ProductStat{PID: "a", ViewCnt: 100, ZzimCount: 8})
	eventually(t, "detail shows the new zzim count", func() bool {
		_, b := g.get("/home/api/v1/products/a")
		return bytes.Contains(b, []byte(`"zzimCount":8`))
	})
	stale := metric(t, g, "edge_cache_invalidated_total")
	for _, p := range lists {
		h, m := metric(t, g, "edge_cache_hits_total"), metric(t, g, "edge_cache_misses_total")
		g.get(p)
		if metric(t, g, "edge_cache_hits_total") != h+1 || metric(t, g, "edge_cache_misses_total") != m {
			t.Errorf("%s was not served from the cache after a zzim", p)
		}
	}
	if d := metric(t, g, "edge_cache_invalidated_total") - stale; d != 0 {
		t.Errorf("a zzim invalidated %v list entries", d)
	}

	// Counters of a work the edge does not hold are dropped; a deleted
	// counters document changes nothing.
	e.put(contract.StatKey("nope"), contract.ProductStat{PID: "nope", ZzimCount: 1})
	if err := e.kv.Delete(t.Context(), contract.StatKey("a")); err != nil {
		t.Fatal(err)
	}
	// The old way, for comparison: the whole document republished for a
	// counter drops the section's lists.
	e.putProduct(product("a", contract.SectionWebtoon, "에이", func(p *contract.Product) { p.ZzimCount = 9; p.Version = 2 }))
	eventually(t, "detail shows the full document's count", func() bool {
		_, b := g.get("/home/api/v1/products/a")
		return bytes.Contains(b, []byte(`"zzimCount":9`))
	})
	stale = metric(t, g, "edge_cache_invalidated_total")
	g.get(lists[0])
	if d := metric(t, g, "edge_cache_invalidated_total") - stale; d != 1 {
		t.Errorf("a full document invalidated %v entries of the section's list, want 1", d)
	}
}

// A counters flush makes the lists ordered by counters out of date: the
// first read after it is answered with the list as it was (lists show
// counters late by design), while one background render replaces it; the
// reads after that see the new order. No reader waits behind the render.
func TestCountersFlushServesListWhileItRerenders(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("a", contract.SectionWebtoon, "에이", func(p *contract.Product) { p.ZzimCount = 7 }))
	e.putProduct(product("b", contract.SectionWebtoon, "비", func(p *contract.Product) { p.ZzimCount = 1 }))
	g := startEdge(t, e, func(c *server.Config) {
		c.CountersRefresh = time.Nanosecond
		c.StaleRender = time.Hour // never runs out in the test: no timing
	})
	g.waitReady()
	const list = "/home/api/v1/webtoon/genre/all?sort=zzim"
	aFirst := func(b []byte) bool {
		i, j := bytes.Index(b, []byte(`"pid":"a"`)), bytes.Index(b, []byte(`"pid":"b"`))
		if i < 0 || j < 0 {
			t.Fatalf("list without both works: %s", b)
		}
		return i < j
	}
	eventually(t, list+" cached", func() bool {
		h := metric(t, g, "edge_cache_hits_total")
		g.get(list)
		return metric(t, g, "edge_cache_hits_total") > h
	})
	if _, b := g.get(list); !aFirst(b) {
		t.Fatalf("a (7 zzims) not before b (1): %s", b)
	}

	e.put(contract.StatKey("b"), contract.ProductStat{PID: "b", ViewCnt: 100, ZzimCount: 100})
	eventually(t, "the flush's list served as it was", func() bool {
		served := metric(t, g, "edge_cache_stale_served_total")
		_, b := g.get(list)
		if metric(t, g, "edge_cache_stale_served_total") == served {
			return false
		}
		if !aFirst(b) {
			t.Fatalf("the stale answer is not the list as it was: %s", b)
		}
		return true
	})
	eventually(t, "the background render's new order", func() bool {
		_, b := g.get(list)
		return !aFirst(b)
	})
}
