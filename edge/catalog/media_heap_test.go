package catalog_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"storefront/contract"
	"storefront/demo"
	"storefront/edge/cache"
	"storefront/edge/catalog"
)

// BenchmarkVolumeMediaBytes measures what a volume's processed content costs
// in the KV and in an edge's heap, with the demo's 3,000 works (the figures
// in edge/README.md, "Media derived, not enumerated"):
//
//   - kv-B/vol, heap-B/vol: today's shape, a content version in the volume
//     (contract.Volume.ContentVer) of the work's document;
//
//   - old-kv-B/vol, old-heap-B/vol: the shape before (MediaSchema 1), a
//     media.vol.<pid>.<no> document per volume listing every page's
//     variants (3 widths x 3 formats, the demo's page counts), decoded
//     and kept as the edge kept them.
//
//     go test -run XXX -bench BenchmarkVolumeMediaBytes -benchtime 1x ./edge/catalog/
func BenchmarkVolumeMediaBytes(b *testing.B) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	cat := demo.Generate(demo.Options{Seed: 1, Works: 3000, Now: now})
	vols := 0
	for _, p := range cat.Products {
		vols += len(p.Volumes)
	}
	for range b.N {
		plainKV, plainHeap := loadProducts(b, now, cat.Products, false)
		withKV, withHeap := loadProducts(b, now, cat.Products, true)
		b.ReportMetric(float64(withKV-plainKV)/float64(vols), "kv-B/vol")
		b.ReportMetric(float64(withHeap-plainHeap)/float64(vols), "heap-B/vol")
		oldKV, oldHeap := legacyDocs(b, cat.Products)
		b.ReportMetric(float64(oldKV)/float64(vols), "old-kv-B/vol")
		b.ReportMetric(float64(oldHeap)/float64(vols), "old-heap-B/vol")
	}
	b.ReportMetric(float64(vols), "volumes")
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// loadProducts applies the works to a new store and returns the bytes of
// their documents and what the store holds.
func loadProducts(b *testing.B, now time.Time, ps []contract.Product, versioned bool) (kv, held int64) {
	ups := make([]catalog.Update, len(ps))
	for i := range ps {
		p := ps[i]
		p.Volumes = append([]contract.Volume(nil), p.Volumes...)
		if versioned {
			for j := range p.Volumes {
				p.Volumes[j].ContentVer = fmt.Sprintf("%016x", i*1000+j)
			}
		}
		v, _ := json.Marshal(&p)
		kv += int64(len(v))
		ups[i] = catalog.Update{Key: contract.ProductKey(p.PID), Value: v}
	}
	before := heap()
	s := catalog.New(cache.NewTags())
	if errs := s.Apply(now, ups...); len(errs) > 0 {
		b.Fatal(errs[0])
	}
	ups = nil
	held = int64(heap() - before)
	runtime.KeepAlive(s)
	return kv, held
}

// legacyDocs builds the per-volume documents of before and returns their
// bytes and what decoding them into maps by pid and number holds.
func legacyDocs(b *testing.B, ps []contract.Product) (kv, held int64) {
	raw := make([][]byte, 0, 1024)
	keys := make([][2]any, 0, 1024)
	for i := range ps {
		p := &ps[i]
		for _, v := range p.Volumes {
			vm := contract.VolumeMedia{PID: p.PID, No: v.No, Version: 1, Current: contract.VolumeMediaVersion{Ver: "0123456789abcdef", Kind: contract.MediaKindImages}}
			if p.Section == contract.SectionNovel {
				vm.Current.Kind = contract.MediaKindText
				for n := range demo.PoolPages(p.Section) {
					vm.Current.Texts = append(vm.Current.Texts, contract.MediaText{Key: fmt.Sprintf("%064x", n), Size: 4000})
				}
			} else {
				for n := range demo.PoolPages(p.Section) {
					img := contract.MediaImage{ID: fmt.Sprintf("%064x", n), Width: 1080, Height: 1600}
					for _, w := range []int{360, 720, 1080} {
						for _, f := range []string{contract.FormatAVIF, contract.FormatWebP, contract.FormatJPEG} {
							img.Variants = append(img.Variants, contract.MediaVariant{Width: w, Height: 1600 * w / 1080, Format: f, Key: fmt.Sprintf("%064x", n*100+w+len(f)), Size: 150_000})
						}
					}
					vm.Current.Pages = append(vm.Current.Pages, img)
				}
			}
			d, _ := json.Marshal(vm)
			kv += int64(len(d))
			raw = append(raw, d)
			keys = append(keys, [2]any{p.PID, v.No})
		}
	}
	before := heap()
	m := map[string]map[int]*contract.VolumeMedia{}
	for i, d := range raw {
		var vm contract.VolumeMedia
		if err := json.Unmarshal(d, &vm); err != nil {
			b.Fatal(err)
		}
		pid, no := keys[i][0].(string), keys[i][1].(int)
		if m[pid] == nil {
			m[pid] = map[int]*contract.VolumeMedia{}
		}
		m[pid][no] = &vm
	}
	held = int64(heap() - before)
	runtime.KeepAlive(m)
	runtime.KeepAlive(raw)
	return kv, held
}
