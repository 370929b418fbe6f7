package catalog

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
	"storefront/edge/search"
)

// scanSearch is Search as it was before the search index: every work of the
// store walked and matched. The index must give exactly its hits (the exact
// ones; typo hits are new) in the same order. Alternative titles are new
// too: here they score as the title does (the best of them).
func (v *View) scanSearch(q, section string) []Match {
	v.Depend(TagAllProducts)
	v.Depend(TagCounters) // ties go to the most viewed
	qk := search.Key(q)
	if len(qk) == 0 {
		return nil
	}
	var out []Match
	for _, p := range v.s.products {
		if section != "" && p.Section != section || !v.Visible(p) {
			continue
		}
		score := 0
		for _, k := range append([][]rune{p.titleKey}, p.altKeys...) {
			if i := search.Match(k, qk); i == 0 {
				score = 3
			} else if i > 0 {
				score = max(score, 2)
			}
		}
		if score == 0 {
			for _, ak := range p.authorKeys {
				if search.Match(ak, qk) >= 0 {
					score = 1
					break
				}
			}
		}
		if score > 0 {
			out = append(out, Match{P: p, Score: score})
		}
	}
	slices.SortFunc(out, func(a, b Match) int {
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		if c := compareInt(b.P.ViewCnt(), a.P.ViewCnt()); c != 0 {
			return c
		}
		return strings.Compare(a.P.PID, b.P.PID)
	})
	return out
}

// scanTypo is the typo hits by brute force: every visible work not an
// exact hit whose title is within one jamo edit of q, when the query gets
// tolerance and has fewer than typoBelow exact hits.
func (v *View) scanTypo(q, section string, exact int) []Match {
	qk := search.Key(q)
	if exact >= typoBelow || !search.TypoQuery(qk) {
		return nil
	}
	qj := search.AppendJamo(nil, qk)
	var out []Match
	for _, p := range v.s.products {
		if section != "" && p.Section != section || !v.Visible(p) {
			continue
		}
		if exactScore(p, qk, true, true) > 0 {
			continue
		}
		for _, k := range append([][]rune{p.titleKey}, p.altKeys...) {
			if search.WithinOneEdit(search.AppendJamo(nil, k), qj) {
				out = append(out, Match{P: p, Score: ScoreTypo})
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b Match) int {
		if c := compareInt(b.P.ViewCnt(), a.P.ViewCnt()); c != 0 {
			return c
		}
		return strings.Compare(a.P.PID, b.P.PID)
	})
	return out
}

// randomSearchProduct is a work whose title and author come from a few
// syllables, consonants and Latin letters, so queries hit often and titles
// share runes.
func randomSearchProduct(rng *rand.Rand, i int, version int64) []byte {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	title := ""
	for range 1 + rng.IntN(4) {
		title += pick("가", "각", "나", "날", "칼", "귀", "멸", "의", "ㅋ", "a", "B", " ", "!", "검", "감")
	}
	p := contract.Product{PID: fmt.Sprintf("P%04d", i), Version: version,
		Section: pick(contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel),
		Title:   title,
		Age:     []int{0, 12, 15, 19}[rng.IntN(4)],
		Hidden:  rng.IntN(10) == 0,
		Authors: []contract.Author{{AuthorID: int64(rng.IntN(8)), AuthorName: pick("김가", "나검", "Kal", "귀멸", ""), IsWriter: true}},
		ViewCnt: int64(rng.IntN(4)),
	}
	if rng.IntN(4) == 0 {
		p.AltTitles = []string{pick("칼날", "ab 검", "날가각", "의귀멸")}
		if rng.IntN(2) == 0 {
			p.AltTitles = append(p.AltTitles, pick("나각", "Kal"))
		}
	}
	if rng.IntN(3) == 0 {
		p.Authors = append(p.Authors, contract.Author{AuthorID: 9, AuthorName: pick("의날", "감")})
	}
	b, _ := json.Marshal(p)
	return b
}

func searchQueries() []string {
	return []string{"가", "ㄱ", "ㄴ", "ㅋ", "칼날", "ㅋㄴ", "귀멸의", "귀ㅁ", "a", "ab", "A b", "의날", "김가", "kal", "!", "ㄱㄱ",
		"귀멸의칼날", "귀멸의칼랄", "각나날칼", "감나날", "검의귀", "없다", "가 나", "ㅋㅋ", "ㄱㅏ",
		"가나가", "각날가", "칼날의", "귀멸의가", "날칼날", "감가갸"}
}

func searchPIDs(ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s:%d", m.P.PID, m.Score)
	}
	return out
}

// The index answers as the scan over random catalogs changed by Apply
// (replaced, added, deleted works; counters), for both audiences, every
// section, and pages of the answer are slices of it.
func TestSearchIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	s := New(cache.NewTags())
	const works = 400
	version := int64(0)
	var rev uint64
	put := func(i int) Update {
		version++
		rev++
		return Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", i)), Value: randomSearchProduct(rng, i, version), Revision: rev}
	}
	var ups []Update
	for i := range works {
		ups = append(ups, put(i))
	}
	if errs := s.Apply(listBase, ups...); len(errs) > 0 {
		t.Fatal(errs)
	}
	checks, typos := 0, 0
	for step := range 60 {
		for range rng.IntN(12) {
			rev++
			switch rng.IntN(4) {
			case 0, 1:
				s.Apply(listBase, put(rng.IntN(works+30)))
			case 2:
				s.Apply(listBase, Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", rng.IntN(works+30))), Delete: true, Revision: rev})
			case 3:
				pid := fmt.Sprintf("P%04d", rng.IntN(works))
				b, _ := json.Marshal(contract.ProductStat{PID: pid, ViewCnt: int64(rng.IntN(4))})
				s.Apply(listBase, Update{Key: contract.StatKey(pid), Value: b, Revision: rev})
			}
		}
		for _, teen := range []bool{false, true} {
			for _, sec := range []string{"", contract.SectionWebtoon, contract.SectionNovel} {
				for _, q := range searchQueries() {
					var want, got, page []Match
					total := 0
					lo, hi := rng.IntN(5), rng.IntN(20)
					s.Read(listBase, teen, func(v *View) {
						want = v.scanSearch(q, sec)
						got = v.Search(q, sec)
						page, total = v.SearchPage(q, sec, lo, hi)
					})
					exact := slices.DeleteFunc(slices.Clone(got), func(m Match) bool { return m.Score == ScoreTypo })
					if !slices.Equal(searchPIDs(exact), searchPIDs(want)) {
						t.Fatalf("step %d teen %v section %q query %q:\n got %v\nwant %v", step, teen, sec, q, searchPIDs(exact), searchPIDs(want))
					}
					// Typo hits follow the exact ones, and are the scan's.
					var wantTypo []Match
					s.Read(listBase, teen, func(v *View) { wantTypo = v.scanTypo(q, sec, len(want)) })
					if !slices.Equal(searchPIDs(got[len(exact):]), searchPIDs(wantTypo)) {
						t.Fatalf("step %d teen %v section %q query %q typo hits:\n got %v\nwant %v", step, teen, sec, q, searchPIDs(got[len(exact):]), searchPIDs(wantTypo))
					}
					typos += len(wantTypo)
					wantPage := got[min(lo, len(got)):min(max(lo, hi), len(got))]
					if total != len(got) || !slices.Equal(searchPIDs(page), searchPIDs(wantPage)) {
						t.Fatalf("query %q page [%d,%d): got %v (total %d), want %v (total %d)", q, lo, hi, searchPIDs(page), total, searchPIDs(wantPage), len(got))
					}
					checks++
				}
			}
		}
	}
	if typos == 0 {
		t.Fatal("no typo hit in any answer: the test does not exercise them")
	}
	t.Logf("%d search answers compared, %d typo hits checked", checks, typos)
}

// Typo hits: a title one jamo away is found below the exact hits, and a
// typo in a short or consonant query finds nothing.
func TestSearchTypoRanksBelowExact(t *testing.T) {
	s := New(cache.NewTags())
	var ups []Update
	for i, w := range []struct {
		title string
		views int64
	}{{"귀멸의 칼날", 10}, {"귀멸의 칼랄", 1}, {"칼날의 귀멸", 99}, {"귀멸", 5}} {
		p := contract.Product{PID: fmt.Sprintf("P%d", i), Title: w.title, Section: contract.SectionComic, ViewCnt: w.views}
		b, _ := json.Marshal(p)
		ups = append(ups, Update{Key: contract.ProductKey(p.PID), Value: b, Revision: uint64(i + 1)})
	}
	s.Apply(listBase, ups...)
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"귀멸의칼랄", []string{"P1:3", "P0:0"}},
		{"귀멸의 칼날", []string{"P0:3", "P1:0"}},
		{"귀멸의칼닐", []string{"P0:0"}}, // 칼랄 is two jamo from 칼닐
		{"칼랄", []string{"P1:2"}},
		{"ㄱㅁㅇㅋㄹ", []string{"P1:3"}},
	} {
		s.Read(listBase, false, func(v *View) {
			if got := searchPIDs(v.Search(c.q, "")); !slices.Equal(got, c.want) {
				t.Errorf("Search(%q) = %v, want %v", c.q, got, c.want)
			}
		})
	}
}

// The index's bytes per work at the benchmark's titles (edge/README.md):
//
//	go test -count=1 -run SearchIndexBytes -v ./edge/catalog/
func TestSearchIndexBytes(t *testing.T) {
	s := searchBenchStore(t, 20_000)
	n := s.Bytes()[modelSearch]
	per := float64(n) / 20_000
	t.Logf("search index: %d bytes for 20,000 works, %.0f B per work", n, per)
	if per < 20 || per > 400 {
		t.Fatalf("%.0f B per work: the estimate or the index is off", per)
	}
	// Deleting every work leaves nothing in the lists.
	var dels []Update
	for i := range 20_000 {
		dels = append(dels, Update{Key: contract.ProductKey(fmt.Sprintf("P%06d", i)), Delete: true, Revision: uint64(30_000 + i)})
	}
	s.Apply(listBase, dels...)
	if len(s.search.title) != 0 || len(s.search.author) != 0 || len(s.search.free) != 20_000 {
		t.Fatalf("after deleting every work: %d title terms, %d author terms, %d free slots", len(s.search.title), len(s.search.author), len(s.search.free))
	}
}

// Searches run under the read lock while Apply changes the index under
// the write lock, each with its own pooled scratch:
//
//	go test -race -run SearchIndexConcurrent ./edge/catalog/
func TestSearchIndexConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 5))
	s := New(cache.NewTags())
	var ups []Update
	for i := range 200 {
		ups = append(ups, Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", i)), Value: randomSearchProduct(rng, i, 1), Revision: uint64(i + 1)})
	}
	s.Apply(listBase, ups...)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			qs := searchQueries()
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				s.Read(listBase, r%2 == 0, func(v *View) { v.SearchPage(qs[n%len(qs)], "", 0, 5) })
			}
		}()
	}
	for i := range 300 {
		w := rng.IntN(220)
		pid := fmt.Sprintf("P%04d", w)
		if i%5 == 0 {
			s.Apply(listBase, Update{Key: contract.ProductKey(pid), Delete: true, Revision: uint64(1000 + i)})
			continue
		}
		s.Apply(listBase, Update{Key: contract.ProductKey(pid), Value: randomSearchProduct(rng, w, int64(2+i)), Revision: uint64(1000 + i)})
	}
	close(done)
	wg.Wait()
}

// A store filled while loading (SetLoading: the edge's initial sync, whose
// Applies leave the search index alone) and indexed in bulk at the load's
// end answers every search exactly as one indexed work by work: while it
// loads (it scans then), from the built index (asked directly, so an index
// not built or built wrong fails), and after live changes to the built
// index. Random catalogs with replaced, deleted and re-added works, and
// counters.
func TestSearchBulkBuildMatchesIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	inc, bulk := New(cache.NewTags()), New(cache.NewTags())
	bulk.SetLoading(true)
	const works = 400
	version := int64(0)
	var rev uint64
	change := func() Update {
		rev++
		i := rng.IntN(works + 30)
		pid := fmt.Sprintf("P%04d", i)
		switch rng.IntN(5) {
		case 0:
			return Update{Key: contract.ProductKey(pid), Delete: true, Revision: rev}
		case 1:
			b, _ := json.Marshal(contract.ProductStat{PID: pid, ViewCnt: int64(rng.IntN(4))})
			return Update{Key: contract.StatKey(pid), Value: b, Revision: rev}
		}
		version++
		return Update{Key: contract.ProductKey(pid), Value: randomSearchProduct(rng, i, version), Revision: rev}
	}
	apply := func(ups []Update) {
		// Stats apply in their own batches, as the watch's come mostly.
		for _, u := range ups {
			for _, s := range []*Store{inc, bulk} {
				if errs := s.Apply(listBase, u); len(errs) > 0 {
					t.Fatal(errs)
				}
			}
		}
	}
	compare := func(stage string, indexed bool) int {
		n := 0
		for _, teen := range []bool{false, true} {
			for _, sec := range []string{"", contract.SectionWebtoon, contract.SectionComic} {
				for _, q := range searchQueries() {
					lo, hi := rng.IntN(5), 5+rng.IntN(40)
					var want, got []Match
					var wantN, gotN int
					inc.Read(listBase, teen, func(v *View) { want, wantN = v.SearchPage(q, sec, lo, hi) })
					bulk.Read(listBase, teen, func(v *View) {
						if !indexed {
							got, gotN = v.SearchPage(q, sec, lo, hi)
							return
						}
						if qk := search.Key(q); len(qk) > 0 { // SearchPage answers nothing for no key
							got, gotN = v.indexPage(new(searchScratch), qk, sec, lo, hi)
						}
					})
					if gotN != wantN || !slices.Equal(searchPIDs(got), searchPIDs(want)) {
						t.Fatalf("%s: teen %v section %q query %q [%d,%d):\n got %v (total %d)\nwant %v (total %d)",
							stage, teen, sec, q, lo, hi, searchPIDs(got), gotN, searchPIDs(want), wantN)
					}
					n += wantN
				}
			}
		}
		return n
	}
	// The initial sync: batches of new works, with some changed or
	// deleted again within it.
	for round := range 8 {
		var ups []Update
		for i := range works / 8 {
			version++
			rev++
			w := round*works/8 + i
			ups = append(ups, Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", w)), Value: randomSearchProduct(rng, w, version), Revision: rev})
		}
		for range 10 {
			ups = append(ups, change())
		}
		apply(ups)
		compare(fmt.Sprintf("loading, round %d", round), false)
	}
	if len(bulk.search.prods) != 0 {
		t.Fatalf("the search index took %d works while loading", len(bulk.search.prods))
	}
	bulk.SetLoading(false)
	if hits := compare("bulk-built", true); hits == 0 {
		t.Fatal("no search hit at all: the test compares nothing")
	}
	// Live changes after the sync update the built index in place.
	for step := range 20 {
		var ups []Update
		for range 1 + rng.IntN(15) {
			ups = append(ups, change())
		}
		apply(ups)
		compare(fmt.Sprintf("live, step %d", step), true)
	}
}

// Searches and pin evaluations run while the store loads, while the load's
// end builds the indexes and after, each under the store's locks:
//
//	go test -race -run SearchConcurrentWithBulkBuild ./edge/catalog/
func TestSearchConcurrentWithBulkBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	s := New(cache.NewTags())
	s.SetLoading(true)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			qs := searchQueries()
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				if r == 2 {
					s.PinnedPages(listBase, 3*time.Hour)
					continue
				}
				s.Read(listBase, r == 0, func(v *View) { v.SearchPage(qs[n%len(qs)], "", 0, 5) })
			}
		}()
	}
	for i := range 400 {
		if i == 200 {
			s.SetLoading(false)
		}
		w := rng.IntN(220)
		s.Apply(listBase, Update{Key: contract.ProductKey(fmt.Sprintf("P%04d", w)), Value: randomSearchProduct(rng, w, int64(1+i)), Revision: uint64(1 + i)})
	}
	close(done)
	wg.Wait()
	if s.loading.Load() || len(s.search.prods) == 0 {
		t.Fatalf("after the load: still loading %v, %d works indexed", s.loading.Load(), len(s.search.prods))
	}
}
