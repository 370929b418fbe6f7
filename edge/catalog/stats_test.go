package catalog

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

func statUpdate(pid string, zzims int64, rev uint64) Update {
	b, _ := json.Marshal(contract.ProductStat{PID: pid, ViewCnt: 100, ZzimCount: zzims})
	return Update{Key: contract.StatKey(pid), Value: b, Revision: rev}
}

// answer is a cached answer: what it was rendered from.
type answer struct {
	refs  []cache.Ref
	until int64
}

func (a answer) valid(now time.Time) bool {
	return cache.NewPlainEntry(200, nil, a.until, a.refs).Valid(now.UnixNano())
}

// Counters change the detail at once; the lists ordered by them follow once
// per CountersRefresh after the first change of a burst, however many
// changes the burst holds.
func TestCountersReachListsOncePerRefresh(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, contract.KST)
	s := New(cache.NewTags())
	s.CountersRefresh = 30 * time.Second
	var ups []Update
	for i := range 3 {
		ups = append(ups, Update{Key: contract.ProductKey(fmt.Sprintf("P%06d", i)), Value: sampleProduct(i, 3), Revision: uint64(i + 1)})
	}
	if errs := s.Apply(now, ups...); len(errs) > 0 {
		t.Fatal(errs)
	}
	read := func(f func(v *View)) answer {
		refs, until := s.Read(now, false, f)
		return answer{refs, until}
	}
	detail := read(func(v *View) { v.Product("P000000") })
	popular := read(func(v *View) { v.List(Filter{Section: contract.SectionNovel, Weekday: -1}, SortPopular) })
	newest := read(func(v *View) { v.List(Filter{Section: contract.SectionNovel, Weekday: -1}, SortNew) })

	s.Apply(now, statUpdate("P000000", 1000, 10))
	if detail.valid(now) {
		t.Fatal("detail still valid after its counters changed")
	}
	if p := s.products["P000000"]; p.ZzimCount() != 1000 || len(p.Volumes) != 3 || p.Title == "" {
		t.Fatalf("counters not applied in place: %+v", p.Product)
	}
	if !popular.valid(now) || !newest.valid(now) {
		t.Fatal("a counters change dropped the lists at once")
	}
	for i := range 50 { // the rest of the storm
		s.Apply(now.Add(time.Duration(i)*100*time.Millisecond), statUpdate("P000000", int64(1001+i), uint64(11+i)))
	}
	if s.FlushCounters(now.Add(29 * time.Second)) {
		t.Fatal("flushed before CountersRefresh passed")
	}
	if !s.FlushCounters(now.Add(30 * time.Second)) {
		t.Fatal("not flushed once CountersRefresh passed")
	}
	if popular.valid(now) {
		t.Fatal("popular list still valid after the flush")
	}
	if s.FlushCounters(now.Add(time.Hour)) {
		t.Fatal("flushed again without a change")
	}
	// Ordered by something else, the list itself does not depend on
	// counters (its rendered items do: render.NewItem shows view counts).
	if !newest.valid(now) {
		t.Fatal("the newest list depends on counters")
	}
	// A counters document for a work this edge does not hold yet is dropped.
	s.Apply(now, statUpdate("unknown", 5, 100))
	if s.products["unknown"] != nil {
		t.Fatal("counters made a work")
	}
}

// A batch of counters documents applies under the read lock: it completes
// while a render is in progress, and reads go on meanwhile, where a work's
// whole document waits for the render to finish (issue 35: a zzim made
// every read wait behind the full-scan renders it caused).
func TestCountersDoNotWaitBehindARender(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, contract.KST)
	s := New(cache.NewTags())
	if errs := s.Apply(now, Update{Key: contract.ProductKey("P000000"), Value: sampleProduct(0, 3), Revision: 1}); len(errs) > 0 {
		t.Fatal(errs)
	}
	rendering, release := make(chan struct{}), make(chan struct{})
	renderDone := make(chan struct{})
	go func() {
		defer close(renderDone)
		s.Read(now, false, func(v *View) {
			close(rendering)
			<-release // a long render: a full scan of a big catalog
		})
	}()
	<-rendering
	applied := make(chan struct{})
	go func() {
		s.Apply(now, statUpdate("P000000", 4242, 2))
		close(applied)
	}()
	select {
	case <-applied:
	case <-renderDone:
		t.Fatal("render ended first")
	case <-time.After(10 * time.Second): // a deadlock detector, not a timing
		close(release)
		t.Fatal("a counters update waited behind a render")
	}
	// Another read, while the render still holds the read lock.
	var got int64
	s.Read(now, false, func(v *View) { got = v.Product("P000000").ZzimCount() })
	if got != 4242 {
		t.Fatalf("zzim count %d, want 4242", got)
	}
	if rev, _, _, _ := s.Stats(); rev != 2 {
		t.Fatalf("revision %d, want 2", rev)
	}
	close(release)
	<-renderDone
}
