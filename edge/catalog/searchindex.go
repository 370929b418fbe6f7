package catalog

import (
	"math"
	"slices"
	"strings"
	"sync"

	"storefront/edge/search"
)

// The search index answers the search screen without walking every work
// (issue 34: a scan cost 0.3–1.3 s per query at 150,000 works). Each work
// has a slot; for every rune a title can be matched on (its runes, and for
// each syllable its initial consonant, since a consonant in the query
// matches any syllable starting with it) the index keeps the ascending
// slots of the works whose title holds it, and the same for author names.
// A work matching query q holds every rune of q in those terms, so the
// intersection of q's runes' lists is a superset of the hits, and each
// candidate is confirmed by the same match the scan used: the answer is the
// scan's (TestSearchIndexMatchesScan).
//
// Apply keeps it in place: a changed work's slot stays, only the runes its
// new title gained or lost are inserted into or taken out of their lists.
// What it holds per work is measured by TestSearchIndexBytes (edge/README.md).
type searchIndex struct {
	prods  []*Prod // by slot; nil: free
	free   []int32
	title  map[rune][]int32
	author map[rune][]int32
}

func newSearchIndex() searchIndex {
	return searchIndex{title: make(map[rune][]int32), author: make(map[rune][]int32)}
}

// Match scores, best first. ScoreTypo hits (see search.WithinOneEdit) rank
// below every exact hit.
const (
	ScoreTitlePrefix = 3
	ScoreTitle       = 2
	ScoreAuthor      = 1
	ScoreTypo        = 0
)

// terms returns the distinct runes a key can be matched on, ascending.
func terms(dst []rune, keys ...[]rune) []rune {
	for _, k := range keys {
		for _, r := range k {
			dst = append(dst, r)
			if c := search.Initial(r); c != 0 {
				dst = append(dst, c)
			}
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// update moves a work from old to nw (either may be nil). Caller holds the
// store's write lock.
func (ix *searchIndex) update(old, nw *Prod) {
	var slot int32 = -1
	var oldT, oldA []rune
	if old != nil && old.searchSlot > 0 {
		slot = old.searchSlot - 1
		oldT = terms(nil, old.titleKey)
		oldA = terms(nil, old.authorKeys...)
	}
	var newT, newA []rune
	if nw != nil {
		if slot < 0 {
			if n := len(ix.free); n > 0 {
				slot, ix.free = ix.free[n-1], ix.free[:n-1]
			} else {
				slot = int32(len(ix.prods))
				ix.prods = append(ix.prods, nil)
			}
		}
		nw.searchSlot = slot + 1
		ix.prods[slot] = nw
		newT = terms(nil, nw.titleKey)
		newA = terms(nil, nw.authorKeys...)
	} else if slot >= 0 {
		ix.prods[slot] = nil
		ix.free = append(ix.free, slot)
	}
	if slot < 0 {
		return
	}
	moveTerms(ix.title, slot, oldT, newT)
	moveTerms(ix.author, slot, oldA, newA)
}

// moveTerms takes slot out of the lists of the terms only in old and puts
// it in those only in nw (both ascending).
func moveTerms(m map[rune][]int32, slot int32, old, nw []rune) {
	i, j := 0, 0
	for i < len(old) || j < len(nw) {
		switch {
		case j == len(nw) || i < len(old) && old[i] < nw[j]:
			l := m[old[i]]
			if k, ok := slices.BinarySearch(l, slot); ok {
				l = slices.Delete(l, k, k+1)
			}
			if len(l) == 0 {
				delete(m, old[i])
			} else {
				m[old[i]] = l
			}
			i++
		case i == len(old) || nw[j] < old[i]:
			l := m[nw[j]]
			if k, ok := slices.BinarySearch(l, slot); !ok {
				m[nw[j]] = slices.Insert(l, k, slot)
			}
			j++
		default:
			i++
			j++
		}
	}
}

// bytes is what the index holds: its slot table and its lists' arrays
// (with their spare capacity) and map entries.
func (ix *searchIndex) bytes() int64 {
	n := int64(cap(ix.prods))*8 + int64(cap(ix.free))*4
	for _, m := range []map[rune][]int32{ix.title, ix.author} {
		for _, l := range m {
			n += int64(cap(l))*4 + 24 + 4 + 16 // array, slice header, key, map slot overhead
		}
	}
	return n
}

// searchScratch is one query's working memory, reused across queries so a
// search allocates only the page it returns.
type searchScratch struct {
	lists     [][]int32
	tl, al, t []int32
	hits      []hit
	cnt       []uint8
	tj, qj    []rune
}

var scratchPool = sync.Pool{New: func() any { return new(searchScratch) }}

type hit struct {
	p     *Prod
	score int
	views int64
}

// before reports whether a is listed before b: score, then the most
// viewed, then pid (the scan's order).
func (a *hit) before(b *hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.views != b.views {
		return a.views > b.views
	}
	return strings.Compare(a.p.PID, b.p.PID) < 0
}

// intersect returns the slots in every list of m for the runes of q, into
// dst; nil lists make it empty.
func intersect(dst []int32, lists [][]int32, m map[rune][]int32, q []rune) ([]int32, [][]int32) {
	lists = lists[:0]
	for _, r := range q {
		l, ok := m[r]
		if !ok {
			return dst[:0], lists
		}
		if !slices.ContainsFunc(lists, func(x []int32) bool { return len(x) > 0 && len(l) > 0 && &x[0] == &l[0] }) {
			lists = append(lists, l)
		}
	}
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	dst = append(dst[:0], lists[0]...)
	for _, l := range lists[1:] {
		out := dst[:0]
		k := 0
		for _, s := range dst {
			// Galloping would help lists of very different sizes; the
			// smallest list leads, so a binary search on the rest will do.
			k += sort32(l[k:], s)
			if k < len(l) && l[k] == s {
				out = append(out, s)
			}
		}
		dst = out
		if len(dst) == 0 {
			break
		}
	}
	return dst, lists
}

// sort32 is the index of the first element of l not below s.
func sort32(l []int32, s int32) int {
	i, _ := slices.BinarySearch(l, s)
	return i
}

// Search finds visible works whose title or author matches q (spaces and
// case ignored, Hangul initial consonants allowed), then titles within one
// jamo edit of q (search.TypoQuery), in score order. section "" searches
// everything.
func (v *View) Search(q, section string) []Match {
	ms, _ := v.SearchPage(q, section, 0, math.MaxInt)
	return ms
}

// SearchPage returns hits [lo, hi) of Search's answer and how many hits
// there are, sorting only the first hi.
func (v *View) SearchPage(q, section string, lo, hi int) ([]Match, int) {
	v.Depend(TagAllProducts)
	v.Depend(TagCounters) // ties go to the most viewed
	qk := search.Key(q)
	if len(qk) == 0 {
		return nil, 0
	}
	ix := &v.s.search
	sc := scratchPool.Get().(*searchScratch)
	defer scratchPool.Put(sc)
	sc.tl, sc.lists = intersect(sc.tl, sc.lists, ix.title, qk)
	sc.al, sc.lists = intersect(sc.al, sc.lists, ix.author, qk)
	top := topHits{max: hi, h: sc.hits[:0]}
	total := 0
	i, j := 0, 0
	for i < len(sc.tl) || j < len(sc.al) {
		var slot int32
		inTitle, inAuthor := false, false
		switch {
		case j == len(sc.al) || i < len(sc.tl) && sc.tl[i] < sc.al[j]:
			slot, inTitle = sc.tl[i], true
			i++
		case i == len(sc.tl) || sc.al[j] < sc.tl[i]:
			slot, inAuthor = sc.al[j], true
			j++
		default:
			slot, inTitle, inAuthor = sc.tl[i], true, true
			i++
			j++
		}
		p := ix.prods[slot]
		if section != "" && p.Section != section || !v.Visible(p) {
			continue
		}
		score := exactScore(p, qk, inTitle, inAuthor)
		if score > 0 {
			total++
			top.add(hit{p: p, score: score, views: p.ViewCnt()})
		}
	}
	if search.TypoQuery(qk) {
		total += v.typoHits(sc, &top, qk, section)
	}
	sc.hits = top.h
	out := top.sorted(lo)
	return out, total
}

// exactScore is the scan's score of p for qk (0: no exact hit); inTitle,
// inAuthor: whether p's title or authors hold every rune of qk.
func exactScore(p *Prod, qk []rune, inTitle, inAuthor bool) int {
	if inTitle {
		if i := search.Match(p.titleKey, qk); i == 0 {
			return ScoreTitlePrefix
		} else if i > 0 {
			return ScoreTitle
		}
	}
	if inAuthor {
		for _, ak := range p.authorKeys {
			if search.Match(ak, qk) >= 0 {
				return ScoreAuthor
			}
		}
	}
	return 0
}

// typoHits adds the works whose title is within one jamo edit of qk and
// not an exact hit. One edit changes at most two syllables, so such a
// title holds all but two of qk's distinct syllables: counting them over
// the syllables' lists leaves few titles to run the edit distance on.
func (v *View) typoHits(sc *searchScratch, top *topHits, qk []rune, section string) int {
	ix := &v.s.search
	var syl [search.MaxTypoJamo]rune
	n := 0
	for _, r := range qk {
		if search.IsSyllable(r) && !slices.Contains(syl[:n], r) && n < len(syl) {
			syl[n] = r
			n++
		}
	}
	need := n - 2
	if need < 1 {
		return 0
	}
	sc.qj = search.AppendJamo(sc.qj[:0], qk)
	if len(sc.qj) > search.MaxTypoJamo {
		return 0
	}
	if cap(sc.cnt) < len(ix.prods) {
		sc.cnt = make([]uint8, len(ix.prods))
	}
	cnt := sc.cnt[:len(ix.prods)]
	clear(cnt)
	cands := sc.t[:0]
	for _, r := range syl[:n] {
		for _, s := range ix.title[r] {
			cnt[s]++
			if int(cnt[s]) == need {
				cands = append(cands, s)
			}
		}
	}
	sc.t = cands
	total := 0
	for _, s := range cands {
		p := ix.prods[s]
		if section != "" && p.Section != section || !v.Visible(p) {
			continue
		}
		sc.tj = search.AppendJamo(sc.tj[:0], p.titleKey)
		if !search.WithinOneEdit(sc.tj, sc.qj) || exactScore(p, qk, true, true) > 0 {
			continue
		}
		total++
		top.add(hit{p: p, score: ScoreTypo, views: p.ViewCnt()})
	}
	return total
}

// topHits keeps the first max hits seen, as a heap with the last of them
// on top, so a query matching most of the catalog sorts only one page.
type topHits struct {
	max int
	h   []hit
}

func (t *topHits) add(x hit) {
	if t.max <= 0 {
		return
	}
	if len(t.h) < t.max {
		t.h = append(t.h, x)
		t.up(len(t.h) - 1)
		return
	}
	if !x.before(&t.h[0]) {
		return
	}
	t.h[0] = x
	t.down(0)
}

// The heap's order: a parent comes after its children in the list.
func (t *topHits) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.h[p].before(&t.h[i]) {
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topHits) down(i int) {
	n := len(t.h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && t.h[c].before(&t.h[c+1]) {
			c++
		}
		if !t.h[i].before(&t.h[c]) {
			return
		}
		t.h[i], t.h[c] = t.h[c], t.h[i]
		i = c
	}
}

// sorted returns the kept hits from lo on, in list order.
func (t *topHits) sorted(lo int) []Match {
	slices.SortFunc(t.h, func(a, b hit) int {
		if a.before(&b) {
			return -1
		}
		if b.before(&a) {
			return 1
		}
		return 0
	})
	if lo >= len(t.h) {
		clear(t.h)
		return nil
	}
	out := make([]Match, 0, len(t.h)-lo)
	for _, h := range t.h[lo:] {
		out = append(out, Match{P: h.p, Score: h.score})
	}
	// Drop the pointers so the pooled scratch does not keep deleted works.
	clear(t.h)
	return out
}
