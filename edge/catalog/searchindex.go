package catalog

import (
	"math"
	"slices"
	"strings"
	"sync"

	"storefront/contract"
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
// Not while the store loads (Store.SetLoading): one work at a time, each
// insertion into lists of tens of thousands of slots, was ~5 CPU-seconds of
// a 150,000-work start (issue 35); the load's end builds it once from every
// work (build), and until then a search scans the works (scanPage), so it
// answers what the store holds, as the lists do.
// What it holds per work is measured by TestSearchIndexBytes (edge/README.md).
type searchIndex struct {
	prods []*Prod // by slot; nil: free
	// meta and first, by slot: what filters and ranks a hit without
	// touching its Prod (a cache miss each, at 100,000 hits a query): the
	// audience and section bits, and the title key's first rune.
	meta   []uint8
	first  []rune
	free   []int32
	title  map[term][]int32
	author map[term][]int32
}

func newSearchIndex() searchIndex {
	return searchIndex{title: make(map[term][]int32), author: make(map[term][]int32)}
}

// meta bits.
const (
	metaHidden  = 1 << 0
	metaAdult   = 1 << 1
	metaSection = 3 << 2 // sectionCode << 2
	metaAlt     = 1 << 4 // has alternative titles: first is not enough
)

// sectionCode numbers the sections a query may be limited to (0: any
// other, compared by name).
func sectionCode(s string) uint8 {
	switch s {
	case contract.SectionWebtoon:
		return 1
	case contract.SectionComic:
		return 2
	case contract.SectionNovel:
		return 3
	}
	return 0
}

func metaOf(p *Prod) uint8 {
	m := sectionCode(p.Section) << 2
	if p.Hidden {
		m |= metaHidden
	}
	if p.IsAdult() {
		m |= metaAdult
	}
	if len(p.altKeys) > 0 {
		m |= metaAlt
	}
	return m
}

// Match scores, best first. ScoreTypo hits (see search.WithinOneEdit) rank
// below every exact hit.
const (
	ScoreTitlePrefix = 3
	ScoreTitle       = 2
	ScoreAuthor      = 1
	ScoreTypo        = 0
)

// A term is what a list is kept for: one rune, or two adjacent runes in
// initial form (a syllable as its initial consonant): a query of two or
// more runes intersects its pairs' lists, far shorter than its runes'
// when they are initial consonants (19 of them, each in most titles).
type term uint64

const pairBit = 1 << 42

func runeTerm(r rune) term { return term(r) }

// initialForm is the rune a pair term holds for r: its initial consonant
// when r is a syllable, else r (a consonant in a query matches both).
func initialForm(r rune) rune {
	if c := search.Initial(r); c != 0 {
		return c
	}
	return r
}

func pairTerm(a, b rune) term {
	return pairBit | term(initialForm(a))<<21 | term(initialForm(b))
}

// terms returns the distinct terms of keys, ascending: each rune, each
// syllable's initial consonant, each adjacent pair.
func terms(dst []term, keys ...[]rune) []term {
	for _, k := range keys {
		keyTerms(k, func(t term) { dst = append(dst, t) })
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// keyTerms calls fn with each term of k, repeats included.
func keyTerms(k []rune, fn func(term)) {
	for i, r := range k {
		fn(runeTerm(r))
		if c := search.Initial(r); c != 0 {
			fn(runeTerm(c))
		}
		if i > 0 {
			fn(pairTerm(k[i-1], r))
		}
	}
}

// queryTerms are the terms every exact hit of q holds: its pairs, and
// its syllables (a pair holds a syllable only as its initial consonant;
// any other rune of a longer query is in a pair as itself).
func queryTerms(dst []term, q []rune) []term {
	if len(q) == 1 {
		return append(dst, runeTerm(q[0]))
	}
	for i, r := range q {
		if search.IsSyllable(r) {
			dst = append(dst, runeTerm(r))
		}
		if i > 0 {
			dst = append(dst, pairTerm(q[i-1], r))
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// exactTerms reports whether q's lists hold exactly the titles (and
// authors) Match finds q in: one rune, or two runes neither a syllable
// (their pair term is the two runes as Match compares them).
func exactTerms(q []rune) bool {
	return len(q) == 1 || len(q) == 2 && !search.IsSyllable(q[0]) && !search.IsSyllable(q[1])
}

// update moves a work from old to nw (either may be nil). Caller holds the
// store's write lock.
func (ix *searchIndex) update(old, nw *Prod) {
	var slot int32 = -1
	var oldT, oldA []term
	if old != nil && old.searchSlot > 0 {
		slot = old.searchSlot - 1
		oldT = terms(nil, append([][]rune{old.titleKey}, old.altKeys...)...)
		oldA = terms(nil, old.authorKeys...)
	}
	var newT, newA []term
	if nw != nil {
		if slot < 0 {
			if n := len(ix.free); n > 0 {
				slot, ix.free = ix.free[n-1], ix.free[:n-1]
			} else {
				slot = int32(len(ix.prods))
				ix.prods = append(ix.prods, nil)
				ix.meta = append(ix.meta, 0)
				ix.first = append(ix.first, 0)
			}
		}
		nw.searchSlot = slot + 1
		ix.prods[slot] = nw
		ix.meta[slot] = metaOf(nw)
		ix.first[slot] = 0
		if len(nw.titleKey) > 0 {
			ix.first[slot] = nw.titleKey[0]
		}
		newT = terms(nil, append([][]rune{nw.titleKey}, nw.altKeys...)...)
		newA = terms(nil, nw.authorKeys...)
	} else if slot >= 0 {
		ix.prods[slot] = nil
		ix.meta[slot], ix.first[slot] = 0, 0
		ix.free = append(ix.free, slot)
	}
	if slot < 0 {
		return
	}
	moveTerms(ix.title, slot, oldT, newT)
	moveTerms(ix.author, slot, oldA, newA)
}

// build replaces the index by one of products, as update would leave it
// after adding them one by one but for the slots' order: each work takes
// the next slot, so every list is appended to in ascending order, and a
// term a work holds twice is the list's last slot already: nothing is
// sorted, searched or inserted. Caller holds the store's write lock.
func (ix *searchIndex) build(products map[string]*Prod) {
	n := len(products)
	*ix = searchIndex{
		prods: make([]*Prod, 0, n),
		meta:  make([]uint8, 0, n),
		first: make([]rune, 0, n),
	}
	var title, author termLists
	for _, p := range products {
		slot := int32(len(ix.prods))
		p.searchSlot = slot + 1
		ix.prods = append(ix.prods, p)
		ix.meta = append(ix.meta, metaOf(p))
		var f rune
		if len(p.titleKey) > 0 {
			f = p.titleKey[0]
		}
		ix.first = append(ix.first, f)
		addTitle := func(t term) { title.add(t, slot) }
		keyTerms(p.titleKey, addTitle)
		for _, k := range p.altKeys {
			keyTerms(k, addTitle)
		}
		for _, k := range p.authorKeys {
			keyTerms(k, func(t term) { author.add(t, slot) })
		}
	}
	ix.title, ix.author = title.done(), author.done()
}

// termLists gathers lists by term for build: a list is found once per
// term through its position, not read and written back through a map of
// lists per work; a rune of the Basic Multilingual Plane (every Hangul
// syllable and jamo, most terms) finds it in a table, the rest in a map.
type termLists struct {
	dense []int32 // rune term → position + 1 (0: none yet)
	at    map[term]int
	terms []term
	lists [][]int32
}

func (tl *termLists) add(t term, slot int32) {
	var i int
	if t < 1<<16 {
		if tl.dense == nil {
			tl.dense = make([]int32, 1<<16)
		}
		if j := tl.dense[t]; j > 0 {
			i = int(j - 1)
		} else {
			i = tl.newList(t)
			tl.dense[t] = int32(i + 1)
		}
	} else {
		if tl.at == nil {
			tl.at = make(map[term]int)
		}
		var ok bool
		if i, ok = tl.at[t]; !ok {
			i = tl.newList(t)
			tl.at[t] = i
		}
	}
	if l := tl.lists[i]; len(l) == 0 || l[len(l)-1] != slot {
		tl.lists[i] = append(l, slot)
	}
}

func (tl *termLists) newList(t term) int {
	tl.terms = append(tl.terms, t)
	tl.lists = append(tl.lists, nil)
	return len(tl.lists) - 1
}

func (tl *termLists) done() map[term][]int32 {
	m := make(map[term][]int32, len(tl.lists))
	for i, t := range tl.terms {
		m[t] = tl.lists[i]
	}
	return m
}

// moveTerms takes slot out of the lists of the terms only in old and puts
// it in those only in nw (both ascending).
func moveTerms(m map[term][]int32, slot int32, old, nw []term) {
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
	n := int64(cap(ix.prods))*8 + int64(cap(ix.meta)) + int64(cap(ix.first))*4 + int64(cap(ix.free))*4
	for _, m := range []map[term][]int32{ix.title, ix.author} {
		for _, l := range m {
			n += int64(cap(l))*4 + 24 + 8 + 16 // array, slice header, key, map slot overhead
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
	qt        []term
	pat       search.Pattern
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

// intersect returns the slots in every list of m for the terms q, into
// dst; a missing list makes it empty.
func intersect(dst []int32, lists [][]int32, m map[term][]int32, q []term) ([]int32, [][]int32) {
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

// filter returns what a hit's meta must not have and, when mask says so,
// the section code it must have: the audience rule of View.Visible and the
// section limit as bits. other: section is one without a code, compared by
// name on the Prod.
func (v *View) filter(section string) (mask, want uint8, other bool) {
	mask = metaHidden
	if v.Teen {
		mask |= metaAdult
	}
	if section != "" {
		if c := sectionCode(section); c != 0 {
			return mask | metaSection, c << 2, false
		}
		return mask, 0, true
	}
	return mask, 0, false
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
	sc := scratchPool.Get().(*searchScratch)
	defer scratchPool.Put(sc)
	if v.s.loading.Load() {
		return v.scanPage(sc, qk, section, lo, hi)
	}
	return v.indexPage(sc, qk, section, lo, hi)
}

// indexPage is SearchPage's answer from the index.
func (v *View) indexPage(sc *searchScratch, qk []rune, section string, lo, hi int) ([]Match, int) {
	ix := &v.s.search
	sc.qt = queryTerms(sc.qt[:0], qk)
	sc.tl, sc.lists = intersect(sc.tl, sc.lists, ix.title, sc.qt)
	sc.al, sc.lists = intersect(sc.al, sc.lists, ix.author, sc.qt)
	top := topHits{max: hi, h: sc.hits[:0]}
	total := 0
	mask, want, other := v.filter(section)
	// Exact lists (exactTerms) need no Match but where the title's first
	// rune may start a prefix hit, so no other Prod is read but the ones
	// ranked.
	exact := exactTerms(qk)
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
		if ix.meta[slot]&mask != want || other && ix.prods[slot].Section != section {
			continue
		}
		var score int
		switch {
		case exact && inTitle && ix.meta[slot]&metaAlt == 0:
			score = ScoreTitle
			if f := ix.first[slot]; f == qk[0] || search.Initial(f) == qk[0] {
				if len(qk) == 1 || search.Match(ix.prods[slot].titleKey, qk) == 0 {
					score = ScoreTitlePrefix
				}
			}
		case exact && !inTitle:
			score = ScoreAuthor
		default:
			score = exactScore(ix.prods[slot], qk, inTitle, inAuthor)
		}
		if score > 0 {
			total++
			top.offer(ix.prods[slot], score)
		}
	}
	if total < typoBelow && search.TypoQuery(qk) {
		total += v.typoHits(sc, &top, qk, section)
	}
	sc.hits = top.h
	out := top.sorted(lo)
	return out, total
}

// scanPage is SearchPage's answer from every work of the store, the
// index's answer without it: while the store loads, before the index is
// built. The edge is not ready then (it is from the load's end), so only a
// reader asking it directly pays the scan.
func (v *View) scanPage(sc *searchScratch, qk []rune, section string, lo, hi int) ([]Match, int) {
	top := topHits{max: hi, h: sc.hits[:0]}
	total := 0
	for _, p := range v.s.products {
		if section != "" && p.Section != section || !v.Visible(p) {
			continue
		}
		if score := exactScore(p, qk, true, true); score > 0 {
			total++
			top.offer(p, score)
		}
	}
	if total < typoBelow && search.TypoQuery(qk) {
		sc.qj = search.AppendJamo(sc.qj[:0], qk)
		if sc.pat.Compile(sc.qj) {
			for _, p := range v.s.products {
				if section != "" && p.Section != section || !v.Visible(p) {
					continue
				}
				if v.typoMatch(sc, p) && exactScore(p, qk, true, true) == 0 {
					total++
					top.offer(p, ScoreTypo)
				}
			}
		}
	}
	sc.hits = top.h
	return top.sorted(lo), total
}

// exactScore is the scan's score of p for qk (0: no exact hit); inTitle,
// inAuthor: whether p's title or authors hold every rune of qk.
func exactScore(p *Prod, qk []rune, inTitle, inAuthor bool) int {
	if inTitle {
		// The title, else its best alternative title: a prefix of either
		// ranks as a prefix.
		best := titleScore(p.titleKey, qk)
		for _, k := range p.altKeys {
			if best == ScoreTitlePrefix {
				break
			}
			best = max(best, titleScore(k, qk))
		}
		if best > 0 {
			return best
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

// typoBelow: typo hits are looked for only when a query has fewer exact
// hits than this (a page of the search route): a reader who finds the
// title needs no guesses, and a query as common as a word of many titles
// would otherwise weigh its typo candidates on every keystroke.
const typoBelow = 24

// typoHits adds the works whose title is within one jamo edit of qk and
// not an exact hit. Initial, medial and final jamo are distinct runes and
// both strings are made of whole syllables, so one edit changes one
// syllable of qk: substituting any jamo, or adding or leaving out a final
// (an initial or a medial alone would not make syllables). A title within
// one edit therefore holds every distinct syllable of qk but one, whole —
// qk's last one without a final may also be the start of a title's
// syllable with one ("가" of "각"), so it is counted with every final.
// Counting them over their lists leaves few titles to run the edit
// distance on (TestSearchIndexMatchesScan checks them against a scan).
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
	// At least two syllables are whole (TypoQuery: three or more), so a
	// query repeating its syllables still needs one of them.
	need := max(n-1, 1)
	sc.qj = search.AppendJamo(sc.qj[:0], qk)
	if !sc.pat.Compile(sc.qj) {
		return 0
	}
	if cap(sc.cnt) < len(ix.prods) {
		sc.cnt = make([]uint8, len(ix.prods))
	}
	cnt := sc.cnt[:len(ix.prods)]
	clear(cnt)
	cands := sc.t[:0]
	count := func(s int32) {
		cnt[s]++
		if int(cnt[s]) == need {
			cands = append(cands, s)
		}
	}
	last := qk[len(qk)-1]
	family := search.IsSyllable(last) && (last-0xAC00)%28 == 0
	if family {
		// The last syllable with any final, first, so a title is counted
		// once for it: the ones with a count have one of the family.
		for f := range rune(28) {
			for _, s := range ix.title[runeTerm(last+f)] {
				if cnt[s] == 0 {
					count(s)
				}
			}
		}
	}
	for _, r := range syl[:n] {
		if family && r == last {
			continue
		}
		for _, s := range ix.title[runeTerm(r)] {
			count(s)
		}
	}
	sc.t = cands
	total := 0
	mask, want, other := v.filter(section)
	for _, s := range cands {
		if ix.meta[s]&mask != want {
			continue
		}
		p := ix.prods[s]
		if other && p.Section != section {
			continue
		}
		if !v.typoMatch(sc, p) || exactScore(p, qk, true, true) > 0 {
			continue
		}
		total++
		top.offer(p, ScoreTypo)
	}
	return total
}

// typoMatch reports whether p's title or an alternative one is within one
// jamo edit of the compiled query.
func (v *View) typoMatch(sc *searchScratch, p *Prod) bool {
	if sc.tj = search.AppendJamo(sc.tj[:0], p.titleKey); sc.pat.WithinOneEdit(sc.tj) {
		return true
	}
	for _, k := range p.altKeys {
		if sc.tj = search.AppendJamo(sc.tj[:0], k); sc.pat.WithinOneEdit(sc.tj) {
			return true
		}
	}
	return false
}

// titleScore is the score of a title key for qk (0: no hit).
func titleScore(k, qk []rune) int {
	switch at := search.Match(k, qk); {
	case at == 0:
		return ScoreTitlePrefix
	case at > 0:
		return ScoreTitle
	}
	return 0
}

// topHits keeps the first max hits seen, as a heap with the last of them
// on top, so a query matching most of the catalog sorts only one page.
type topHits struct {
	max int
	h   []hit
}

// offer keeps p if it is among the first max; its views are read only
// when its score ties the last kept one's or beats it.
func (t *topHits) offer(p *Prod, score int) {
	if t.max <= 0 {
		return
	}
	if len(t.h) < t.max {
		t.h = append(t.h, hit{p: p, score: score, views: p.ViewCnt()})
		t.up(len(t.h) - 1)
		return
	}
	if score < t.h[0].score {
		return
	}
	x := hit{p: p, score: score, views: p.ViewCnt()}
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
