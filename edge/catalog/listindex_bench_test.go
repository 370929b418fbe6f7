package catalog

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

// listBenchStore is a store of n random works (randomProduct) and the
// updates that built it.
func listBenchStore(b *testing.B, n int) *Store {
	b.Helper()
	rng := rand.New(rand.NewPCG(35, 100))
	s := New(cache.NewTags())
	ups := make([]Update, n)
	for i := range ups {
		ups[i] = Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", i)), Value: randomProduct(rng, i, 1), Revision: uint64(i + 1)}
	}
	if errs := s.Apply(listBase, ups...); len(errs) > 0 {
		b.Fatal(errs[0])
	}
	return s
}

// BenchmarkList100k is one uncached list render (a body cache miss) at
// 100,000 works: scan is the full walk and sort lists did before the
// indexes (the test oracle scanList), indexed is List. Renders are at one
// instant, so the indexed lists are built once (the first op) and walked.
//
//	go test -run XXX -bench List100k -benchmem ./edge/catalog/
func BenchmarkList100k(b *testing.B) {
	s := listBenchStore(b, 100_000)
	now := listBase.Add(-time.Hour)
	cases := []struct {
		name  string
		f     Filter
		order string
	}{
		{"webtoon-popular", Filter{Section: contract.SectionWebtoon, Weekday: -1}, SortPopular},
		{"all-recent", Filter{Weekday: -1}, SortRecent},
		{"all-new-wff", Filter{Weekday: -1, Free: "wff"}, SortNew},
		{"webtoon-todayup", Filter{Section: contract.SectionWebtoon, Weekday: -1, TodayUp: true}, SortRecent},
		{"novel-keyword-zzim", Filter{Section: contract.SectionNovel, Weekday: -1, Keyword: "무협"}, SortZzim},
	}
	for _, c := range cases {
		for _, impl := range []string{"scan", "indexed"} {
			b.Run(c.name+"/"+impl, func(b *testing.B) {
				n := 0
				b.ReportAllocs()
				for b.Loop() {
					s.Read(now, false, func(v *View) {
						if impl == "scan" {
							n = len(v.scanList(c.f, c.order))
						} else {
							n = len(v.List(c.f, c.order))
						}
					})
				}
				b.ReportMetric(float64(n), "works")
			})
		}
	}
}

// BenchmarkReleaseInstant100k walks the catalog's release instants one by
// one (each op: the clock onto the whole store's next release) and renders
// the popular list of every work there. unprepared: the render finds no
// list for the instant and builds the recent list (its clock) itself, as
// before the flush ticker made them; prepared: the ticker's FlushCounters a
// second before made it (not timed), so the render only walks; prepare: the
// ticker's making of it alone (out of the store's lock but for one copy of the list).
//
//	go test -run XXX -bench ReleaseInstant100k -benchmem ./edge/catalog/
func BenchmarkReleaseInstant100k(b *testing.B) {
	s := listBenchStore(b, 100_000)
	for _, impl := range []string{"unprepared", "prepared", "prepare"} {
		b.Run(impl, func(b *testing.B) {
			now := listBase.Add(-time.Hour)
			list := func() {
				s.Read(now, false, func(v *View) { v.List(Filter{Weekday: -1}, SortPopular) })
			}
			list()
			next := func() time.Time { return s.lists.m[listKey{"", SortRecent}].next }
			b.ReportAllocs()
			for b.Loop() {
				switch impl {
				case "unprepared":
					now = next()
					list()
				case "prepared":
					b.StopTimer()
					now = next()
					s.FlushCounters(now.Add(-time.Second))
					b.StartTimer()
					list()
				case "prepare":
					b.StopTimer()
					now = next()
					b.StartTimer()
					s.FlushCounters(now.Add(-time.Second))
					b.StopTimer()
					list()
					b.StartTimer()
				}
			}
		})
	}
}

// BenchmarkCountersFlush100k is what a counters flush does to the lists
// ordered by counters (popular, zzim, rating of every section and of the
// whole store) at 100,000 works, after 1 changed work and after 1,500 (a
// zzim storm's 50 writes/s over the 30 s refresh): done by FlushCounters
// before it bumps TagCounters, out of the store's lock but for one copy of
// each list. Only the changed works move (a merge), the rest keep places.
//
//	go test -run XXX -bench CountersFlush100k -benchmem ./edge/catalog/
func BenchmarkCountersFlush100k(b *testing.B) {
	for _, changed := range []int{1, 1500} {
		b.Run(fmt.Sprintf("changed=%d", changed), func(b *testing.B) {
			s := listBenchStore(b, 100_000)
			s.CountersRefresh = time.Nanosecond
			now := listBase.Add(-time.Hour)
			for _, sec := range []string{"", contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel} {
				for _, o := range []string{SortPopular, SortRating, SortZzim} {
					s.Read(now, false, func(v *View) { v.List(Filter{Section: sec, Weekday: -1}, o) })
				}
			}
			i := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				for j := range changed {
					i++
					s.Apply(now, statUpdate(fmt.Sprintf("P%04d", (j*61)%100_000), 1000+i, uint64(300_000+i)))
				}
				b.StartTimer()
				if !s.FlushCounters(now.Add(time.Second)) {
					b.Fatal("no flush")
				}
			}
		})
	}
}

// BenchmarkApplyHead100k is Apply of one replaced head at 100,000 works:
// bare is a store whose lists were never rendered (what Apply cost before
// the indexes), indexed one whose 24 lists (every order of every section
// and of the whole store) are built, so the head moves in each. Each op
// replaces a random work with a new version of itself.
//
//	go test -run XXX -bench ApplyHead100k -benchmem ./edge/catalog/
func BenchmarkApplyHead100k(b *testing.B) {
	for _, impl := range []string{"bare", "indexed"} {
		b.Run(impl, func(b *testing.B) {
			s := listBenchStore(b, 100_000)
			now := listBase.Add(-time.Hour)
			if impl == "indexed" {
				for _, sec := range []string{"", contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel} {
					for _, o := range []string{SortRecent, SortPopular, SortNew, SortTitle, SortRating, SortZzim} {
						s.Read(now, false, func(v *View) { v.List(Filter{Section: sec, Weekday: -1}, o) })
					}
				}
			}
			rng := rand.New(rand.NewPCG(35, 7))
			ups := make([]Update, 1000)
			for i := range ups {
				w := rng.IntN(100_000)
				ups[i] = Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", w)), Value: randomProduct(rng, w, int64(2+i)), Revision: uint64(200_000 + i)}
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				s.Apply(now, ups[i%len(ups)])
				i++
			}
		})
	}
}
