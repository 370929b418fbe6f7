package catalog

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

// pinWorkDoc is a paged work whose volumes release at the given instants
// (volume i+1 at at[i]), split at split (the writer's clock), of version.
func pinWorkDoc(t *testing.T, pid string, version int64, hidden bool, split time.Time, at ...time.Time) Update {
	t.Helper()
	p := contract.Product{PID: pid, Section: contract.SectionNovel, Title: "연재 " + pid, Unit: "화", Version: version, Hidden: hidden}
	for i, a := range at {
		p.Volumes = append(p.Volumes, contract.Volume{No: i + 1, Title: fmt.Sprintf("제%d화", i+1), ReleaseAt: a, Pages: 30,
			ContentBase: contract.ContentBase(pid, i+1), ContentVer: fmt.Sprintf("%016x", i+1)})
	}
	h, _ := contract.SplitVolumes(&p, split)
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return Update{Key: contract.ProductKey(pid), Value: b}
}

// pinnedPIDs is PinnedPages' works and pages as sorted "pid/index" keys.
func pinnedPIDs(keys []PageKey) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s/%d", k.PID, k.Index))
	}
	slices.Sort(out)
	return out
}

// A release scheduled before the edge started (its work came with the
// initial sync, while the store loaded) is pinned when its window comes,
// with no Apply in between: the load's end files every work.
func TestPinnedPagesScheduledBeforeStart(t *testing.T) {
	start := time.Date(2026, 11, 28, 20, 0, 0, 0, time.UTC)
	s := New(cache.NewTags())
	s.SetLoading(true)
	ups := []Update{
		pinWorkDoc(t, "soon", 1, false, start, start.Add(-48*time.Hour), start.Add(30*time.Minute)),
		pinWorkDoc(t, "later", 1, false, start, start.Add(-48*time.Hour), start.Add(5*time.Hour)),
		pinWorkDoc(t, "nextweek", 1, false, start, start.Add(-48*time.Hour), start.Add(7*24*time.Hour)),
		pinWorkDoc(t, "done", 1, false, start, start.Add(-3*time.Hour)),
		pinWorkDoc(t, "hidden", 1, true, start, start.Add(30*time.Minute)),
	}
	for i := range ups {
		ups[i].Revision = uint64(i + 1)
	}
	if errs := s.Apply(start, ups...); len(errs) > 0 {
		t.Fatal(errs)
	}
	s.SetLoading(false) // the initial sync ends
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{start, "[soon/0]"},
		{start.Add(time.Hour), "[soon/0]"},      // released half an hour ago
		{start.Add(2 * time.Hour), "[later/0]"}, // 3 hours ahead; soon is past the hour behind
		{start.Add(6*time.Hour - time.Minute), "[later/0]"},
		{start.Add(6*time.Hour + time.Minute), "[]"}, // later released over an hour ago
		{start.Add(7*24*time.Hour - time.Hour), "[nextweek/0]"},
	} {
		if got := fmt.Sprint(pinnedPIDs(s.PinnedPages(c.at, 3*time.Hour))); got != c.want {
			t.Fatalf("at start+%v: pinned %s, want %s", c.at.Sub(start), got, c.want)
		}
	}
}

// The pin index pins what a walk of every work pins, over random paged
// catalogs loaded, then changed (rescheduled, hidden, deleted, added)
// while the clock goes forward by minutes to hours.
func TestPinnedPagesMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 2))
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	s := New(cache.NewTags())
	s.SetLoading(true)
	const works = 120
	version := int64(0)
	var rev uint64
	doc := func(i int) Update {
		version++
		rev++
		// A few volumes an irregular stretch apart, the newest from two
		// days back to three days ahead of the clock.
		n := 1 + rng.IntN(6)
		last := now.Add(time.Duration(rng.IntN(5*24*60)-2*24*60) * time.Minute)
		at := make([]time.Time, n)
		for j := n - 1; j >= 0; j-- {
			at[j] = last
			last = last.Add(-time.Duration(1+rng.IntN(48*60)) * time.Minute)
		}
		u := pinWorkDoc(t, fmt.Sprintf("W%03d", i), version, rng.IntN(10) == 0, now, at...)
		u.Revision = rev
		return u
	}
	var ups []Update
	for i := range works {
		ups = append(ups, doc(i))
	}
	if errs := s.Apply(now, ups...); len(errs) > 0 {
		t.Fatal(errs)
	}
	compare := func(step int, ahead time.Duration) int {
		got := pinnedPIDs(s.PinnedPages(now, ahead))
		s.mu.RLock()
		want := pinnedPIDs(s.scanPinnedPages(now.Add(-PinBehind), now.Add(ahead)))
		s.mu.RUnlock()
		if !slices.Equal(got, want) {
			t.Fatalf("step %d at %v, %v ahead:\n got %v\nwant %v", step, now, ahead, got, want)
		}
		// What the query went past is filed again: nothing stays under an
		// hour before the window, and only works still pinnable are filed.
		filed := 0
		for h, set := range s.pins.hours {
			for pid := range set {
				p := s.products[pid]
				if h < pinHour(now.Add(-PinBehind)) || s.pins.at[pid] != h || p == nil || !p.paged || p.Hidden {
					t.Fatalf("step %d: %s filed under hour %d (window from hour %d), at %d, doc %v", step, pid, h, pinHour(now.Add(-PinBehind)), s.pins.at[pid], p != nil)
				}
				filed++
			}
		}
		if filed != len(s.pins.at) {
			t.Fatalf("step %d: %d works under hours, %d by pid", step, filed, len(s.pins.at))
		}
		return len(want)
	}
	// While loading PinnedPages walks: it answers the same.
	compare(-1, 3*time.Hour)
	s.SetLoading(false)
	pinned := 0
	for step := range 300 {
		for range rng.IntN(4) {
			i := rng.IntN(works + 20)
			if rng.IntN(6) == 0 {
				rev++
				if errs := s.Apply(now, Update{Key: contract.ProductKey(fmt.Sprintf("W%03d", i)), Delete: true, Revision: rev}); len(errs) > 0 {
					t.Fatal(errs)
				}
				continue
			}
			if errs := s.Apply(now, doc(i)); len(errs) > 0 {
				t.Fatal(errs)
			}
		}
		pinned += compare(step, time.Duration(1+rng.IntN(4))*time.Hour)
		now = now.Add(time.Duration(1+rng.IntN(120)) * time.Minute)
	}
	if pinned == 0 {
		t.Fatal("nothing was ever pinned: the test compares nothing")
	}
	t.Logf("%d pinned pages compared", pinned)
}

// What the pin index holds per work it files (edge/README.md, memory
// budget): a work is filed only while it has a release from an hour ago
// on (scheduled or just out), so the bytes scale with the releasing works,
// not the catalog. Measured as the heap after a collection, 20,000 works
// over two days of hours:
//
//	go test -count=1 -v -run TestPinIndexBytesEstimate ./edge/catalog/
func TestPinIndexBytesEstimate(t *testing.T) {
	const n = 20_000
	now := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
	pids := make([]string, n)
	prods := make([]*Prod, n)
	for i := range n {
		pids[i] = fmt.Sprintf("W%07d", i)
		prods[i] = &Prod{paged: true}
		prods[i].VolumeIndex = &contract.VolumeIndex{Recent: []contract.VolumeRelease{{No: 1, At: now.Add(time.Duration(i%48) * time.Hour)}}}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	ix := &pinIndex{}
	for i := range n {
		ix.file(pids[i], prods[i], now.Add(-time.Hour))
	}
	after := heap()
	if len(ix.at) != n || len(ix.hours) != 48 {
		t.Fatalf("filed %d works under %d hours, want %d under 48", len(ix.at), len(ix.hours), n)
	}
	per := float64(after-before) / n
	t.Logf("pin index: %d bytes for %d filed works, %.0f B per work", after-before, n, per)
	if per < 16 || per > 400 {
		t.Fatalf("%.0f B per filed work: the estimate or the index is off", per)
	}
	// What /metrics says (edge_catalog_bytes{model="pins"}) is the heap
	// within a factor of two.
	if est := float64(ix.bytes()); est < float64(after-before)/2 || est > float64(after-before)*2 {
		t.Fatalf("estimate %.0f B, heap %d B: bytes() is off by more than a factor of two", est, after-before)
	}
	runtime.KeepAlive(ix)
	runtime.KeepAlive(prods)
	runtime.KeepAlive(pids)
}
