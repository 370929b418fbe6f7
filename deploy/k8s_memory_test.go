package deploy

import (
	"strconv"
	"testing"
)

// The edge's caches fit its container with room for the read models: in
// every overlay, the body, media and volume page caches (EDGE_CACHE_MB,
// EDGE_MEDIA_CACHE_MB, EDGE_VOLUME_PAGES_BYTES, or the edge's defaults 256
// MiB, 512 MiB and 64 MiB) take at most 30% of the memory limit,
// whose 90% is the edge's GOMEMLIMIT (svc.SetMemoryLimit). Issue 35: the
// production edge had 2 GiB and 768 MB of caches by default.
func TestEdgeCachesFitItsMemoryLimit(t *testing.T) {
	for _, overlay := range []string{"dev", "production"} {
		r, err := decode(render(t, overlay))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range r.deployments {
			if d.Name != "edge" {
				continue
			}
			c := d.Spec.Template.Spec.Containers[0]
			limit := c.Resources.Limits.Memory().Value()
			if limit == 0 {
				t.Errorf("%s: the edge has no memory limit (GOMEMLIMIT is derived from it)", overlay)
				continue
			}
			mb := map[string]int64{"EDGE_CACHE_MB": 256, "EDGE_MEDIA_CACHE_MB": 512, "EDGE_VOLUME_PAGES_BYTES": 64 << 20}
			for _, from := range c.EnvFrom {
				for k, v := range r.configMaps[from.ConfigMapRef.Name].Data {
					if _, ok := mb[k]; ok {
						n, err := strconv.ParseInt(v, 10, 64)
						if err != nil {
							t.Fatalf("%s: %s=%q", overlay, k, v)
						}
						mb[k] = n
					}
				}
			}
			caches := (mb["EDGE_CACHE_MB"]+mb["EDGE_MEDIA_CACHE_MB"])<<20 + mb["EDGE_VOLUME_PAGES_BYTES"]
			t.Logf("%s: limit %d MiB, GOMEMLIMIT %d MiB, caches %d MiB", overlay, limit>>20, limit*9/10>>20, caches>>20)
			if caches*10 > limit*3 {
				t.Errorf("%s: caches of %d MiB take over 30%% of the edge's %d MiB", overlay, caches>>20, limit>>20)
			}
		}
	}
}
