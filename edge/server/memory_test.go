package server_test

import (
	"strings"
	"testing"

	"storefront/contract"
	"storefront/edge/server"
)

// /metrics states what each cache and the read models hold, next to each
// cache's bound from its flag: the figures of the memory budget
// (edge/README.md).
func TestMetricsStateMemoryBytes(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("a", contract.SectionWebtoon, "에이"))
	e.putProduct(product("b", contract.SectionWebtoon, "비"))
	g := startEdge(t, e, func(c *server.Config) {
		c.CacheBytes, c.MediaCacheBytes, c.AudienceCacheEntries = 64<<20, 32<<20, 1000
	})
	g.waitReady()
	if n := metric(t, g, `edge_cache_max_bytes{cache="bodies"}`); n != 64<<20 {
		t.Errorf("bodies bound %v, want 64 MiB", n)
	}
	if n := metric(t, g, `edge_cache_max_bytes{cache="media"}`); n != 32<<20 {
		t.Errorf("media bound %v, want 32 MiB", n)
	}
	if n := metric(t, g, `edge_cache_max_bytes{cache="audiences"}`); n != 1000*160 {
		t.Errorf("audiences bound %v, want 160,000", n)
	}
	products := metric(t, g, `edge_catalog_bytes{model="products"}`)
	if products < 2*1000 || products > 2*20000 {
		t.Errorf("two products estimated at %v bytes", products)
	}
	bodies := metric(t, g, `edge_cache_bytes{cache="bodies"}`)
	r, body := g.get("/home/api/v1/products/a")
	if r.StatusCode != 200 {
		t.Fatalf("detail: %d", r.StatusCode)
	}
	eventually(t, "the rendered body counted", func() bool {
		return metric(t, g, `edge_cache_bytes{cache="bodies"}`) >= bodies+float64(len(body))
	})
	_, b := g.opsGet("/metrics")
	for _, m := range []string{`edge_cache_bytes{cache="media"}`, `edge_cache_bytes{cache="audiences"}`, `edge_catalog_bytes{model="reviews"}`,
		`edge_catalog_bytes{model="rankings"}`, `edge_catalog_bytes{model="other"}`} {
		if !strings.Contains(string(b), m+" ") {
			t.Errorf("/metrics lacks %s", m)
		}
	}
}
