package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

// scanList is List as it was before the list indexes: every work of the
// store walked, each one's next release watched, the matches sorted. The
// indexed List must answer exactly as it does.
func (v *View) scanList(f Filter, order string) []*Prod {
	if f.Section != "" {
		v.Depend(TagSection(f.Section))
	} else {
		v.Depend(TagAllProducts)
	}
	if f.TodayUp {
		v.Until(contract.NextReleaseDay(v.Now))
	}
	var out []*Prod
	for _, p := range v.s.products {
		if f.Section != "" && p.Section != f.Section {
			continue
		}
		v.watch(p)
		if v.match(p, &f) {
			out = append(out, p)
		}
	}
	if f.TodayUp && len(out) == 0 {
		out = v.scanUpdatedInLastDay(f)
	}
	v.SortProds(out, order)
	return out
}

func (v *View) scanUpdatedInLastDay(f Filter) []*Prod {
	f.TodayUp = false
	since := v.Now.Add(-24 * time.Hour)
	var out []*Prod
	for _, p := range v.s.products {
		if f.Section != "" && p.Section != f.Section {
			continue
		}
		lu, ok := v.lastRelease(p)
		if !ok || !lu.After(since) || !v.match(p, &f) {
			continue
		}
		v.Until(lu.Add(24 * time.Hour))
		out = append(out, p)
	}
	return out
}

// scanAuthorWorks is AuthorWorks before the author index.
func (v *View) scanAuthorWorks(p *Prod, limit int) []*Prod {
	seen := map[string]bool{p.PID: true}
	var out []*Prod
	for _, a := range p.Authors {
		v.Depend(TagAuthor(a.AuthorID))
	}
	for _, q := range v.s.products {
		if seen[q.PID] || !v.Visible(q) {
			continue
		}
		for _, a := range p.Authors {
			if slices.ContainsFunc(q.Authors, func(b contract.Author) bool { return b.AuthorID == a.AuthorID }) {
				seen[q.PID] = true
				out = append(out, q)
				break
			}
		}
	}
	v.SortProds(out, SortPopular)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// listBase is the instant random catalogs release around.
var listBase = time.Date(2026, 3, 2, 23, 0, 0, 0, contract.KST)

// randomProduct is work i with random fields every filter looks at and
// releases within three days of listBase (past and future), inline or paged.
func randomProduct(rng *rand.Rand, i int, version int64) []byte {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	p := contract.Product{PID: fmt.Sprintf("P%04d", i), Version: version,
		Section:  pick(contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel),
		Title:    pick("가", "나", "다", "라") + pick("", " 검", " 마법"),
		GenreID:  pick("01", "02", "05"),
		SubGenre: pick("", "a", "b"), Category1: pick("", "romance", "fantasy"),
		Age:    []int{0, 12, 15, 19}[rng.IntN(4)],
		Hidden: rng.IntN(10) == 0, FlagEnd: rng.IntN(3) == 0,
		IsOriginal: rng.IntN(2) == 0, IsShortStory: rng.IntN(4) == 0,
		IsPackage: rng.IntN(5) == 0, IsSpecialPriceSet: rng.IntN(8) == 0,
		WaitForFree: rng.IntN(2) == 0, Gift: rng.IntN(3) == 0, JumpingPass: rng.IntN(3) == 0,
		Keywords: []string{pick("회귀", "무협", "로맨스")},
		Authors:  []contract.Author{{AuthorID: int64(rng.IntN(8)), AuthorName: "작가", IsWriter: true}},
		// Few distinct values so ties (broken by pid) are common.
		ViewCnt: int64(rng.IntN(5)), ZzimCount: int64(rng.IntN(5)), ReviewCount: rng.IntN(3), PointSum: int64(rng.IntN(10)),
	}
	if rng.IntN(3) == 0 {
		p.Weekdays = []int{rng.IntN(7)}
	}
	if rng.IntN(4) == 0 {
		p.DiscountRate = 10
	}
	if rng.IntN(10) > 0 {
		p.RegisteredAt = listBase.Add(time.Duration(rng.IntN(240)-200) * time.Hour)
	}
	// Releases on the hour (many works share an instant) or anywhere.
	release := func() time.Time {
		if rng.IntN(2) == 0 {
			return listBase.Add(time.Duration(rng.IntN(144)-96) * time.Hour)
		}
		return listBase.Add(time.Duration(rng.Int64N(int64(144*time.Hour))) - 96*time.Hour)
	}
	n := rng.IntN(5)
	if rng.IntN(4) == 0 && n > 0 {
		// Paged head: every release in Recent, one page.
		ix := &contract.VolumeIndex{Count: n}
		var at []time.Time
		for range n {
			at = append(at, release())
		}
		slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
		for k, t := range at {
			free := rng.IntN(2) == 0
			if free {
				ix.Free++
			}
			ix.Recent = append(ix.Recent, contract.VolumeRelease{No: k + 1, At: t, Free: free})
		}
		ix.Pages = []contract.VolumePageRef{{Index: 0, Hash: "h", First: 1, Last: n, Count: n, Free: ix.Free, FirstRelease: at[0], LastRelease: at[n-1]}}
		p.VolumeIndex = ix
	} else {
		for k := range n {
			p.Volumes = append(p.Volumes, contract.Volume{No: k + 1, IsFree: rng.IntN(2) == 0, ReleaseAt: release(), BuyPrice: 100})
		}
	}
	b, _ := json.Marshal(p)
	return b
}

// listFilters is every filter the routes and the home page build, over
// every section and the whole store.
func listFilters() []Filter {
	var out []Filter
	for _, sec := range []string{"", contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel} {
		base := Filter{Section: sec, Weekday: -1}
		mods := []func(f *Filter){
			func(f *Filter) {},
			func(f *Filter) { f.TodayUp = true },
			func(f *Filter) { f.Weekday = 2; f.End = "N" },
			func(f *Filter) { f.End = "Y" },
			func(f *Filter) { f.End = "N" },
			func(f *Filter) { f.Original = true },
			func(f *Filter) { f.ShortStory = true },
			func(f *Filter) { f.Discount = true },
			func(f *Filter) { f.Package = true },
			func(f *Filter) { f.Package = true; f.GenreID = "02" },
			func(f *Filter) { f.Category = "romance" },
			func(f *Filter) { f.GenreID = "05"; f.SubGenre = "a" },
			func(f *Filter) { f.AdultOnly = true },
			func(f *Filter) { f.Keyword = "무협" },
			func(f *Filter) { f.AuthorID = 3 },
			func(f *Filter) { f.Free = "wff" },
			func(f *Filter) { f.Free = "gift" },
			func(f *Filter) { f.Free = "jumping" },
			func(f *Filter) { f.Free = "freevol" },
			func(f *Filter) { f.Free = "freevol"; f.TodayUp = true },
		}
		for _, m := range mods {
			f := base
			m(&f)
			out = append(out, f)
		}
	}
	return out
}

// listAnswer is what a list read answers and depends on.
type listAnswer struct {
	pids  []string
	tags  map[string]struct{}
	until time.Time
}

func readList(s *Store, now time.Time, teen bool, fn func(v *View) []*Prod) listAnswer {
	var a listAnswer
	s.Read(now, teen, func(v *View) {
		for _, p := range fn(v) {
			a.pids = append(a.pids, p.PID)
		}
		a.tags = maps.Clone(v.tags)
		a.until = v.until
	})
	return a
}

// The indexed List answers exactly as the full scan did (same works, same
// order and ties, same tags and change instant) for every filter and order
// the routes use, over a random catalog changed by random applies, deletes
// and counters at random clock instants, before and across releases.
func TestListIndexMatchesScan(t *testing.T) {
	for _, size := range []int{4, 512} {
		t.Run(fmt.Sprintf("chunk%d", size), func(t *testing.T) {
			defer func(was int) { chunkMax = was }(chunkMax)
			chunkMax = size
			testListIndexMatchesScan(t)
		})
	}
}

func testListIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	s := New(cache.NewTags())
	s.CountersRefresh = time.Nanosecond
	const works = 300
	version := int64(0)
	var rev uint64
	put := func(i int) Update {
		version++
		rev++
		return Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", i)), Value: randomProduct(rng, i, version), Revision: rev}
	}
	var ups []Update
	for i := range works {
		ups = append(ups, put(i))
	}
	if errs := s.Apply(listBase, ups...); len(errs) > 0 {
		t.Fatal(errs)
	}
	orders := []string{SortRecent, SortPopular, SortNew, SortTitle, SortRating, SortZzim, ""}
	filters := listFilters()
	now := listBase.Add(-30 * time.Hour)
	checks := 0
	for step := range 40 {
		// Change the catalog: replace, add, delete works; change counters.
		for range rng.IntN(6) {
			rev++
			switch op := rng.IntN(4); op {
			case 0, 1:
				s.Apply(now, put(rng.IntN(works+20)))
			case 2:
				s.Apply(now, Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", rng.IntN(works+20))), Delete: true, Revision: rev})
			case 3:
				pid := fmt.Sprintf("P%04d", rng.IntN(works))
				b, _ := json.Marshal(contract.ProductStat{PID: pid, ViewCnt: int64(rng.IntN(5)), ZzimCount: int64(rng.IntN(5)), ReviewCount: rng.IntN(3), PointSum: int64(rng.IntN(10))})
				s.Apply(now, Update{Key: contract.StatKey(pid), Value: b, Revision: rev})
			}
		}
		// Counters orders follow the counters at the flush, as lists did.
		s.FlushCounters(now.Add(time.Second))
		// The clock: on, back, or onto a release instant.
		switch rng.IntN(4) {
		case 0:
			now = now.Add(time.Duration(rng.Int64N(int64(6 * time.Hour))))
		case 1:
			now = now.Add(-time.Duration(rng.Int64N(int64(3 * time.Hour))))
		case 2:
			now = now.Truncate(time.Hour).Add(time.Hour)
		default:
			now = now.Add(time.Minute)
		}
		// The ticker's flush a moment before: lists for a release coming
		// within prepareAhead are made then, and used now.
		s.FlushCounters(now.Add(-time.Duration(rng.Int64N(int64(prepareAhead)))))
		for _, teen := range []bool{false, true} {
			for _, f := range filters {
				for _, order := range orders {
					want := readList(s, now, teen, func(v *View) []*Prod { return v.scanList(f, order) })
					got := readList(s, now, teen, func(v *View) []*Prod { return v.List(f, order) })
					if !slices.Equal(got.pids, want.pids) || !maps.Equal(got.tags, want.tags) || !got.until.Equal(want.until) {
						t.Fatalf("step %d now %v teen %v filter %+v order %q:\n got %v %v until %v\nwant %v %v until %v",
							step, now, teen, f, order, got.pids, slices.Collect(maps.Keys(got.tags)), got.until,
							want.pids, slices.Collect(maps.Keys(want.tags)), want.until)
					}
					checks++
					// A ranking's top: the first n of the same walk.
					top := readList(s, now, teen, func(v *View) []*Prod { return v.ListN(f, order, 7) })
					if w := want.pids[:min(7, len(want.pids))]; !slices.Equal(top.pids, w) || !maps.Equal(top.tags, want.tags) {
						t.Fatalf("step %d now %v teen %v filter %+v order %q: top 7 %v, want %v", step, now, teen, f, order, top.pids, w)
					}
				}
			}
			for i := 0; i < works; i += 17 {
				pid := fmt.Sprintf("P%04d", i)
				want := readList(s, now, teen, func(v *View) []*Prod {
					if p := v.s.products[pid]; p != nil {
						return v.scanAuthorWorks(p, 12)
					}
					return nil
				})
				got := readList(s, now, teen, func(v *View) []*Prod {
					if p := v.s.products[pid]; p != nil {
						return v.AuthorWorks(p, 12)
					}
					return nil
				})
				if !slices.Equal(got.pids, want.pids) || !maps.Equal(got.tags, want.tags) {
					t.Fatalf("step %d author works of %s: got %v want %v", step, pid, got.pids, want.pids)
				}
			}
		}
	}
	t.Logf("%d list answers compared", checks)
}

// Between two counters flushes a counters order keeps the order it was
// built in, and a flush re-sorts it: a zzim storm does not re-sort a list
// per zzim.
func TestListCountersOrderFollowsFlush(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, contract.KST)
	s := New(cache.NewTags())
	s.CountersRefresh = time.Second // before the first Apply
	var ups []Update
	for i := range 3 {
		ups = append(ups, Update{Key: contract.ProductKey(fmt.Sprintf("P%06d", i)), Value: sampleProduct(i, 1), Revision: uint64(i + 1)})
	}
	s.Apply(now, ups...)
	zzim := func() []string {
		return readList(s, now, false, func(v *View) []*Prod { return v.List(Filter{Weekday: -1}, SortZzim) }).pids
	}
	if got := zzim(); !slices.Equal(got, []string{"P000000", "P000001", "P000002"}) {
		t.Fatalf("ties not by pid: %v", got)
	}
	s.Apply(now, statUpdate("P000002", 5000, 10))
	if got := zzim(); got[0] != "P000000" {
		t.Fatalf("re-sorted before the flush: %v", got)
	}
	if !s.FlushCounters(now.Add(time.Second)) {
		t.Fatal("no flush")
	}
	// The flush sorted the list before it bumped the tag: no render does.
	if l := s.lists.m[listKey{"", SortZzim}]; l.ctrGen != s.lists.ctrGen || l.cs[0][0].p.PID != "P000002" {
		t.Fatalf("flush did not re-sort the list: generation %d of %d", l.ctrGen, s.lists.ctrGen)
	}
	if got := zzim(); got[0] != "P000002" {
		t.Fatalf("not re-sorted after the flush: %v", got)
	}
}

// The recent list for a section's next release is made ahead of it by the
// flush ticker, and the renders at the release instant use it as it is.
func TestRecentListMadeAheadOfRelease(t *testing.T) {
	now := time.Date(2025, 1, 1, 1, 0, 0, 0, time.UTC) // sampleProduct's first release
	s := sampleStore(now, 3, 3)
	before := now.Add(-5 * time.Second)
	a := readList(s, before, false, func(v *View) []*Prod { return v.List(Filter{Weekday: -1}, SortRecent) })
	if !a.until.Equal(now) {
		t.Fatalf("list until %v, want the release at %v", a.until, now)
	}
	s.FlushCounters(before)
	made := s.lists.m[listKey{"", SortRecent}].after
	if made == nil || !made.from.Equal(now) || !made.next.Equal(now.Add(time.Hour)) {
		t.Fatalf("no list made ahead of the release: %+v", made)
	}
	readList(s, now, false, func(v *View) []*Prod { return v.List(Filter{Weekday: -1}, SortRecent) })
	if s.lists.m[listKey{"", SortRecent}] != made {
		t.Fatal("the release's render did not use the list made ahead")
	}
	// A render whose clock was read a moment before the release uses the
	// list it replaced, and does not put an older one back.
	late := readList(s, now.Add(-time.Millisecond), false, func(v *View) []*Prod { return v.List(Filter{Weekday: -1}, SortRecent) })
	if !late.until.Equal(now) || s.lists.m[listKey{"", SortRecent}] != made || made.before == nil {
		t.Fatalf("late render: until %v, list replaced %v", late.until, s.lists.m[listKey{"", SortRecent}] != made)
	}
	// One from before that builds its own and leaves the newest in place.
	readList(s, now.Add(-time.Hour), false, func(v *View) []*Prod { return v.List(Filter{Weekday: -1}, SortRecent) })
	if s.lists.m[listKey{"", SortRecent}] != made {
		t.Fatal("an older render replaced the newest list")
	}
}

// Renders building and walking lists, Apply moving works in them and the
// flush re-sorting and making them run at once without a data race (run
// with -race) and every render answers as the scan does at the end.
func TestListIndexConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 9))
	s := New(cache.NewTags())
	s.CountersRefresh = time.Nanosecond
	var ups []Update
	for i := range 200 {
		ups = append(ups, Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", i)), Value: randomProduct(rng, i, 1), Revision: uint64(i + 1)})
	}
	s.Apply(listBase, ups...)
	var updates []Update
	for i := range 200 {
		updates = append(updates, Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", rng.IntN(220))), Value: randomProduct(rng, i, int64(2+i)), Revision: uint64(1000 + i)})
	}
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Go(func() {
			for i := range 200 {
				now := listBase.Add(time.Duration(i*r) * time.Minute)
				for _, o := range []string{SortRecent, SortPopular, SortNew} {
					readList(s, now, r%2 == 0, func(v *View) []*Prod { return v.List(Filter{Weekday: -1, End: "N"}, o) })
				}
			}
		})
	}
	wg.Go(func() {
		for i, u := range updates {
			// Counters in place under the read lock, heads under the write lock.
			pid := fmt.Sprintf("P%04d", i%200)
			s.Apply(listBase, statUpdate(pid, int64(i), uint64(2000+i)))
			u.Key = contract.ProductKey(fmt.Sprintf("P%04d", (i*7)%220))
			s.Apply(listBase, u)
		}
	})
	wg.Go(func() {
		for i := range 400 {
			s.FlushCounters(listBase.Add(time.Duration(i) * time.Minute))
		}
	})
	wg.Wait()
	now := listBase.Add(time.Hour)
	s.FlushCounters(now.Add(time.Second))
	for _, o := range []string{SortRecent, SortPopular, SortNew} {
		f := Filter{Weekday: -1, End: "N"}
		want := readList(s, now, false, func(v *View) []*Prod { return v.scanList(f, o) })
		got := readList(s, now, false, func(v *View) []*Prod { return v.List(f, o) })
		if !slices.Equal(got.pids, want.pids) || !got.until.Equal(want.until) {
			t.Fatalf("order %s after the race: got %v want %v", o, got.pids, want.pids)
		}
	}
}

// The lists' bytes are reported with the read models' (edge_catalog_bytes
// on /metrics): one entry per work per list built.
func TestListIndexBytes(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, contract.KST)
	s := sampleStore(now, 1000, 1)
	if n := s.Bytes()[modelLists]; n != 0 {
		t.Fatalf("lists hold %d bytes before any render", n)
	}
	readList(s, now, false, func(v *View) []*Prod { return v.List(Filter{Weekday: -1}, SortZzim) })
	// The zzim list and the recent one (every list's clock): 2,000 entries.
	if n, min := s.Bytes()[modelLists], 2000*listEntryBytes; n < min || n > 2*min {
		t.Fatalf("lists hold %d bytes, want about %d", n, min)
	}
}

// An edge that has just loaded the store has the release minute's lists
// made (WarmLists): the first ranking and list renders after it walk them
// and make none, and they are the lists a render would have made.
func TestWarmListsMakesReleaseMinuteLists(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, contract.KST)
	s := sampleStore(now, 1000, 1)
	s.WarmLists(now)
	for _, sec := range warmSections {
		for _, o := range warmOrders {
			l, _ := s.lists.get(listKey{sec, o}, now)
			if l == nil {
				t.Fatalf("list %q/%s not made", sec, o)
			}
			want := 0
			for _, p := range s.products {
				if sec == "" || p.Section == sec {
					want++
				}
			}
			if got := len(slices.Concat(l.cs...)); got != want {
				t.Fatalf("list %q/%s holds %d works, want %d", sec, o, got, want)
			}
		}
	}
	before := len(s.lists.m)
	for _, scope := range []string{"all", "wt", "cm", "eb", "genre-" + contract.Genres[0].ID} {
		for _, tab := range []string{contract.RankReal, contract.RankNew} {
			s.Read(now, true, func(v *View) { v.Ranking(scope, tab) })
		}
	}
	if len(s.lists.m) != before {
		t.Fatalf("rankings made %d more lists after WarmLists", len(s.lists.m)-before)
	}
}

// A render ahead of a release (MarkAhead) reads the recent list made for
// the release without making it the store's list: the present's renders
// keep theirs, and an Apply in between cannot leave them without one. With
// no list made for the instant it sorts one for itself and keeps none. Its
// answer is the one the release's own render gives.
func TestListReadAheadChangesNoList(t *testing.T) {
	now := time.Date(2025, 1, 1, 1, 0, 0, 0, time.UTC) // sampleProduct's first release
	s := sampleStore(now, 3, 3)
	before := now.Add(-5 * time.Second)
	recent := func(v *View) []*Prod { return v.List(Filter{Weekday: -1}, SortRecent) }
	ahead := func(v *View) []*Prod { v.MarkAhead(); return recent(v) }
	k := listKey{"", SortRecent}

	// No list made for the instant yet: one for this render only.
	readList(s, before, false, recent)
	present := s.lists.m[k]
	got := readList(s, now, false, ahead)
	if s.lists.m[k] != present || present.after != nil {
		t.Fatal("a render ahead changed the store's recent list")
	}
	// The list made ahead (prepareRecent) is read, not promoted.
	s.FlushCounters(before)
	made := s.lists.m[k].after
	if made == nil {
		t.Fatal("no list made ahead of the release")
	}
	got2 := readList(s, now, false, ahead)
	if s.lists.m[k] != present || present.after != made {
		t.Fatal("a render ahead promoted the list made for the release")
	}
	want := readList(s, now, false, recent)
	if !slices.Equal(got.pids, want.pids) || !slices.Equal(got2.pids, want.pids) || !got.until.Equal(want.until) || !got2.until.Equal(want.until) {
		t.Fatalf("ahead %v / %v (until %v), at the release %v (until %v)", got.pids, got2.pids, got.until, want.pids, want.until)
	}
}

// sampleStore is a store of n works (sampleProduct with volumes vols each)
// applied at now.
func sampleStore(now time.Time, n, vols int) *Store {
	s := New(cache.NewTags())
	ups := make([]Update, 0, n)
	for i := range n {
		ups = append(ups, Update{Key: contract.ProductKey(fmt.Sprintf("P%06d", i)), Value: sampleProduct(i, vols), Revision: uint64(i + 1)})
	}
	s.Apply(now, ups...)
	return s
}
