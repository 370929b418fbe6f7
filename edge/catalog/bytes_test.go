package catalog

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

func sampleProduct(i, volumes int) []byte {
	p := contract.Product{PID: fmt.Sprintf("P%06d", i), Section: contract.SectionNovel, Title: fmt.Sprintf("회귀한 검술 천재 %d", i),
		Summary: "몰락한 가문의 막내가 검 한 자루로 다시 일어서는 이야기. 회귀 후 열 살의 몸으로 눈을 뜬 그는 " +
			"이번 생에는 누구도 잃지 않겠다고 다짐한다.", GenreID: "05", Age: 15, Unit: "화", ServiceCode: 200,
		ThumbURL: "/covers/none.svg", ThumbWideURL: "/covers/none-wide.svg", Weekdays: []int{1, 4}, Keywords: []string{"회귀", "무협"},
		Authors:      []contract.Author{{AuthorID: int64(i), AuthorName: "무명", IsWriter: true}},
		RegisteredAt: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), UpdatedAt: time.Now().UTC(), Version: int64(i + 1),
		ViewCnt: 123456, ZzimCount: 789, ReviewCount: 12, PointSum: 55}
	for n := 1; n <= volumes; n++ {
		p.Volumes = append(p.Volumes, contract.Volume{No: n, Title: fmt.Sprintf("제%d화", n), BuyPrice: 100, BuyPriceOrg: 100,
			Pages: 30, PreviewPages: 3, ReleaseAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Hour),
			ContentBase: contract.ContentBase(p.PID, n)})
	}
	b, _ := json.Marshal(p)
	return b
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The read models' byte estimate (edge_catalog_bytes on /metrics, the memory
// budget of edge/README.md) is within a third of what decoded products really
// hold on the heap, for works of no, few, usual and thousands of volumes.
// Not parallel: it measures the heap.
func TestReadModelBytesEstimate(t *testing.T) {
	for _, vols := range []int{0, 10, 100, 2000} {
		n := max(2000/max(vols, 1), 20)
		docs := make([]Update, n)
		var jsonBytes int
		for i := range docs {
			docs[i] = Update{Key: contract.ProductKey(fmt.Sprintf("P%06d", i)), Value: sampleProduct(i, vols), Revision: uint64(i + 1)}
			jsonBytes += len(docs[i].Value)
		}
		s := New(cache.NewTags())
		before := heap()
		if errs := s.Apply(time.Now(), docs...); len(errs) > 0 {
			t.Fatal(errs)
		}
		measured := int64(heap() - before)
		runtime.KeepAlive(docs) // the JSON was on the heap before: not the models' bytes
		est := s.Bytes()[modelProducts]
		t.Logf("%4d volumes: %d works, %6d JSON bytes/work, measured %6d bytes/work, estimated %6d", vols, n, jsonBytes/n, measured/int64(n), est/int64(n))
		if r := float64(est) / float64(measured); r < 0.67 || r > 1.5 {
			t.Errorf("%d volumes: estimate %d is %.2f of the measured %d", vols, est, r, measured)
		}
		runtime.KeepAlive(s)
	}
}

// The same for paged heads (contract.SplitVolumes): a head holds no
// volume, only its page references and recent releases, whatever the
// work's length; TestVolumePageBytesEstimate covers the pages.
func TestPagedHeadBytesEstimate(t *testing.T) {
	now := time.Now()
	for _, vols := range []int{10, 100, 2000, 10_000} {
		n := max(100_000/max(vols, 1), 20)
		n = min(n, 2000)
		docs := make([]Update, n)
		var jsonBytes int
		for i := range docs {
			var p contract.Product
			if err := json.Unmarshal(sampleProduct(i, vols), &p); err != nil {
				t.Fatal(err)
			}
			head, _ := contract.SplitVolumes(&p, now)
			b, _ := json.Marshal(head)
			docs[i] = Update{Key: contract.ProductKey(p.PID), Value: b, Revision: uint64(i + 1)}
			jsonBytes += len(b)
		}
		s := New(cache.NewTags())
		before := heap()
		if errs := s.Apply(now, docs...); len(errs) > 0 {
			t.Fatal(errs)
		}
		measured := int64(heap() - before)
		runtime.KeepAlive(docs)
		est := s.Bytes()[modelProducts]
		t.Logf("paged, %5d volumes: %d works, %6d JSON bytes/head, measured %6d bytes/head, estimated %6d", vols, n, jsonBytes/n, measured/int64(n), est/int64(n))
		if r := float64(est) / float64(measured); r < 0.67 || r > 1.5 {
			t.Errorf("%d volumes: estimate %d is %.2f of the measured %d", vols, est, r, measured)
		}
		runtime.KeepAlive(s)
	}
}

// A cached page's estimate (edge_cache_bytes{cache="volume_pages"}) is
// within a third of what it holds decoded.
func TestVolumePageBytesEstimate(t *testing.T) {
	now := time.Now()
	_, pages := pagedWork("N1", 20_000, now)
	raw := make([][]byte, 0, len(pages))
	for _, b := range pages {
		raw = append(raw, b)
	}
	c := NewVolumePages(1<<40, nil)
	var jsonBytes int
	before := heap()
	for _, b := range raw {
		var pg contract.VolumePage
		if err := json.Unmarshal(b, &pg); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		c.put(&pg, int64(len(b)))
		c.mu.Unlock()
		jsonBytes += len(b)
	}
	measured := int64(heap() - before)
	runtime.KeepAlive(raw)
	est := c.Bytes()
	t.Logf("%d pages of 100 volumes: %d JSON bytes/page, measured %d bytes/page, estimated %d", len(raw), jsonBytes/len(raw), measured/int64(len(raw)), est/int64(len(raw)))
	if r := float64(est) / float64(measured); r < 0.67 || r > 1.5 {
		t.Errorf("estimate %d is %.2f of the measured %d", est, r, measured)
	}
	runtime.KeepAlive(c)
}
