package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

// pagedWork is work pid with n volumes, numbered 1..n, volume i released
// n-i hours before now (the newest at now-1h), split as the writer does.
func pagedWork(pid string, n int, now time.Time) (head []byte, pages map[string][]byte) {
	p := contract.Product{PID: pid, Section: contract.SectionNovel, Title: "긴 연재 " + pid, Unit: "화", ServiceCode: 200, Version: 1,
		RegisteredAt: now.Add(-time.Duration(n+24) * time.Hour)}
	for i := 1; i <= n; i++ {
		p.Volumes = append(p.Volumes, contract.Volume{No: i, Title: fmt.Sprintf("제%d화", i), ReleaseAt: now.Add(-time.Duration(n-i+1) * time.Hour),
			IsFree: i <= 3, BuyPrice: 100, BuyPriceOrg: 100, Pages: 30, PreviewPages: 3, ContentBase: contract.ContentBase(pid, i),
			ContentVer: fmt.Sprintf("%016x", i)})
	}
	h, pgs := contract.SplitVolumes(&p, now)
	head, _ = json.Marshal(h)
	pages = make(map[string][]byte, len(pgs))
	for _, pg := range pgs {
		b, _ := json.Marshal(pg)
		pages[contract.VolumePageKey(pid, pg.Index)] = b
	}
	return head, pages
}

// Concurrent misses of one page are one fetch, and every caller gets it.
func TestVolumePagesCollapseMisses(t *testing.T) {
	now := time.Now()
	_, pages := pagedWork("N1", 250, now)
	var fetches atomic.Int64
	release := make(chan struct{})
	c := NewVolumePages(1<<20, func(ctx context.Context, key string) ([]byte, error) {
		fetches.Add(1)
		<-release
		return pages[key], nil
	})
	var pg contract.VolumePage
	_ = json.Unmarshal(pages[contract.VolumePageKey("N1", 1)], &pg)
	k := PageKey{PID: "N1", Index: 1, Hash: pg.Hash}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := c.Get(context.Background(), k)
			if err == nil && (got == nil || got.Volumes[0].No != 101) {
				err = fmt.Errorf("got page %+v", got)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	// Let every caller reach the wait before the one fetch answers.
	for c.Misses.Load() < 100 {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := fetches.Load(); n != 1 || c.Fetches.Load() != 1 {
		t.Fatalf("%d fetches for 100 concurrent misses, want 1", n)
	}
	if c.Peek(k) == nil {
		t.Fatal("page not cached after the fetch")
	}
}

// A caller whose context ends stops waiting; the fetch goes on for the
// others and is cached.
func TestVolumePagesCallerCancel(t *testing.T) {
	now := time.Now()
	_, pages := pagedWork("N1", 100, now)
	release := make(chan struct{})
	c := NewVolumePages(1<<20, func(ctx context.Context, key string) ([]byte, error) { <-release; return pages[key], nil })
	var pg contract.VolumePage
	_ = json.Unmarshal(pages[contract.VolumePageKey("N1", 0)], &pg)
	k := PageKey{PID: "N1", Index: 0, Hash: pg.Hash}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Get(ctx, k); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v", err)
	}
	close(release)
	if got, err := c.Get(context.Background(), k); err != nil || got == nil {
		t.Fatalf("second caller: %v", err)
	}
	if c.Fetches.Load() != 1 {
		t.Fatalf("%d fetches, want 1", c.Fetches.Load())
	}
}

// The cache stays within its byte budget, least recently used pages going
// first, and pinned pages are never evicted (they count in Bytes) while
// they fit in pinShare of the budget.
func TestVolumePagesBudgetAndPins(t *testing.T) {
	now := time.Now()
	_, pages := pagedWork("N1", 2000, now)
	c := NewVolumePages(1, func(ctx context.Context, key string) ([]byte, error) {
		if b, ok := pages[key]; ok {
			return b, nil
		}
		return nil, ErrPageMissing
	})
	keys := make([]PageKey, 20)
	for i := range keys {
		var pg contract.VolumePage
		_ = json.Unmarshal(pages[contract.VolumePageKey("N1", i)], &pg)
		keys[i] = PageKey{PID: "N1", Index: i, Hash: pg.Hash}
	}
	one := pageBytes(len(pages[contract.VolumePageKey("N1", 0)]), 100)
	c.budget = 3*one + one/2 // three pages
	ctx := context.Background()
	for _, k := range keys[:3] {
		if _, err := c.Get(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	c.Peek(keys[0]) // 0 is now the most recent: 1 goes first
	if _, err := c.Get(ctx, keys[3]); err != nil {
		t.Fatal(err)
	}
	if c.Peek(keys[1]) != nil || c.Peek(keys[0]) == nil || c.Peek(keys[3]) == nil {
		t.Fatal("eviction did not take the least recently used page")
	}
	for _, k := range keys {
		if _, err := c.Get(ctx, k); err != nil {
			t.Fatal(err)
		}
		if b := c.Bytes(); b > c.budget {
			t.Fatalf("cache holds %d bytes over its budget %d", b, c.budget)
		}
	}
	// Pin five pages, more than the budget: the first that fit in
	// pinShare of it (two of three and a half pages) are pinned, kept and
	// counted; the others are cached as ordinary pages, so the budget
	// holds whatever a release asks.
	missing := c.SetPins(keys[10:15])
	for _, k := range missing {
		if _, err := c.Get(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range keys {
		if _, err := c.Get(ctx, k); err != nil {
			t.Fatal(err)
		}
		if b := c.Bytes(); b > c.budget {
			t.Fatalf("cache holds %d bytes over its budget %d with pins", b, c.budget)
		}
	}
	for _, k := range keys[10:12] {
		if c.Peek(k) == nil {
			t.Fatalf("pinned page %d evicted", k.Index)
		}
	}
	var want int64
	for _, k := range keys[10:12] {
		want += pageBytes(len(pages[contract.VolumePageKey("N1", k.Index)]), 100)
	}
	if c.PinnedBytes() != want || c.Bytes() < c.PinnedBytes() {
		t.Fatalf("pinned %d bytes (want %d), total %d", c.PinnedBytes(), want, c.Bytes())
	}
	if c.PinsRefused.Load() < 3 {
		t.Fatalf("%d pins refused, want the three beyond the pinned share", c.PinsRefused.Load())
	}
	// Unpinned, they are ordinary pages again: the budget holds.
	c.SetPins(nil)
	if c.PinnedBytes() != 0 || c.Bytes() > c.budget {
		t.Fatalf("after unpinning: pinned %d, total %d, budget %d", c.PinnedBytes(), c.Bytes(), c.budget)
	}
	// A page missing from the bucket is an error, never a cached nil.
	if _, err := c.Get(ctx, PageKey{PID: "N1", Index: 99, Hash: "x"}); !errors.Is(err, ErrPageMissing) {
		t.Fatalf("missing page: %v", err)
	}
}

// pagedStore is a store holding one paged work of n volumes with every page
// cached.
func pagedStore(t testing.TB, n int, now time.Time) *Store {
	head, pages := pagedWork("N1", n, now)
	s := New(cache.NewTags())
	s.SetVolumePages(NewVolumePages(1<<30, func(ctx context.Context, key string) ([]byte, error) { return pages[key], nil }))
	if errs := s.Apply(now, Update{Key: contract.ProductKey("N1"), Value: head, Revision: 1}); len(errs) > 0 {
		t.Fatal(errs)
	}
	return s
}

// Content of a paged work asks for the page once and, with it cached,
// answers like an inline work; a volume of a page not cached is
// PageNotLoaded, never a wrong answer.
func TestContentPaged(t *testing.T) {
	now := time.Now()
	s := pagedStore(t, 10_000, now)
	ver := []byte(fmt.Sprintf("%016x", 9999))
	if a, _ := s.Content(now, false, []byte("N1"), 9999, ver, 5); a != PageNotLoaded {
		t.Fatalf("uncached page: %v, want PageNotLoaded", a)
	}
	pg, err := s.EnsureVolumePage(context.Background(), "N1", 9999)
	if err != nil || pg == nil || pg.Index != 99 {
		t.Fatalf("ensure page of 9999: %v %+v", err, pg)
	}
	if a, _ := s.Content(now, false, []byte("N1"), 9999, ver, 5); a != PagePaid {
		t.Fatalf("page 5 of volume 9999: %v, want PagePaid", a)
	}
	if a, _ := s.Content(now, false, []byte("N1"), 9999, ver, 2); a != PagePreview {
		t.Fatalf("page 2 of volume 9999: %v, want PagePreview", a)
	}
	if a, _ := s.Content(now, false, []byte("N1"), 9999, []byte("0000000000000001"), 2); a != PageMissing {
		t.Fatalf("another volume's version: %v, want PageMissing", a)
	}
	if a, _ := s.Content(now, false, []byte("N1"), 10_001, ver, 2); a != PageMissing {
		t.Fatalf("no such volume: %v, want PageMissing", a)
	}
}

// BenchmarkContentPaged: a content page of a paged work whose page is
// cached allocates nothing, like an inline one.
func BenchmarkContentPaged(b *testing.B) {
	now := time.Now()
	s := pagedStore(b, 10_000, now)
	if _, err := s.EnsureVolumePage(context.Background(), "N1", 9999); err != nil {
		b.Fatal(err)
	}
	pid, ver := []byte("N1"), []byte(fmt.Sprintf("%016x", 9999))
	b.ReportAllocs()
	for b.Loop() {
		if a, _ := s.Content(now, false, pid, 9999, ver, 5); a != PagePaid {
			b.Fatal(a)
		}
	}
}

// The release minute's pages: a long work's first page and the pages of
// its newest volumes; every page of a work the detail lists in full;
// nothing of works with no release in the window.
func TestPinnedPages(t *testing.T) {
	now := time.Now()
	s := New(cache.NewTags())
	put := func(pid string, n int, newest time.Time) {
		head, _ := pagedWork(pid, n, newest.Add(time.Hour)) // the newest volume out at newest
		if errs := s.Apply(now, Update{Key: contract.ProductKey(pid), Value: head}); len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	put("long", 10_000, now.Add(time.Hour))     // releases in an hour
	put("short", 250, now.Add(-30*time.Minute)) // released half an hour ago
	put("done", 250, now.Add(-2*time.Hour))     // beyond the hour behind
	put("later", 1, now.Add(5*time.Hour))       // beyond the 3 hours ahead
	put("old", 300, now.Add(-48*time.Hour))     // two days ago
	got := map[string][]int{}
	for _, k := range s.PinnedPages(now, 3*time.Hour) {
		got[k.PID] = append(got[k.PID], k.Index)
	}
	if fmt.Sprint(got["long"]) != "[0 89 90 91 92 93 94 95 96 97 98 99]" || fmt.Sprint(got["short"]) != "[0 1 2]" || len(got) != 2 {
		t.Fatalf("pinned %v, want long [0 89-99], short [0 1 2] and nothing else", got)
	}
}
