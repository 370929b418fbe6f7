package catalog

import (
	"slices"
	"strings"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

// View is one consistent read of the store at one instant for one audience.
// Everything it returns was visible at Now to that audience; every access
// records the tags and the clock instant the answer depends on.
// A View is only valid inside the function given to Store.Read.
type View struct {
	s *Store
	// Now is the edge's clock; volumes released after it are not visible yet.
	Now time.Time
	// Teen hides adult works everywhere.
	Teen bool

	tags  map[string]struct{}
	until time.Time
	// have: pages the caller fetched for this read; missing: pages wanted
	// and not at hand (ReadPages, paged.go).
	have    PageSet
	missing []PageKey
	// dayStart, dayEnd: the release day of Now (contract.ReleaseDayStart,
	// NextReleaseDay), computed once: a today list asks for every work.
	dayStart, dayEnd time.Time
	// ahead: Now is a coming instant (an answer rendered ahead of it,
	// MarkAhead): the list index is read, never changed.
	ahead bool
}

// MarkAhead tells the view its clock is an instant still to come: the
// answer is rendered ahead of it (edge/server/prerender.go). Lists are then
// read as made for that instant (the recent list made ahead of a release)
// and never made the store's lists, which the present's renders use.
func (v *View) MarkAhead() { v.ahead = true }

// Read runs fn on a consistent view and returns what the answer depends on:
// tag references for the body cache and the instant (unix ns, 0 = none) it
// stops being true by the clock.
func (s *Store) Read(now time.Time, teen bool, fn func(v *View)) (refs []cache.Ref, until int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v := &View{s: s, Now: now, Teen: teen, tags: make(map[string]struct{}, 4)}
	fn(v)
	return v.refs(), v.untilNanos()
}

// refs is the current references of the tags the view depended on. Caller
// holds the read lock.
func (v *View) refs() []cache.Ref {
	refs := make([]cache.Ref, 0, len(v.tags))
	for t := range v.tags {
		refs = append(refs, v.s.tags.Current(t))
	}
	return refs
}

// untilNanos is the instant the answer stops being true (unix ns, 0 = none).
func (v *View) untilNanos() int64 {
	if v.until.IsZero() {
		return 0
	}
	return v.until.UnixNano()
}

// Depend records that the answer depends on tag.
func (v *View) Depend(tag string) { v.tags[tag] = struct{}{} }

// Until records that the answer changes at t (when t is after Now).
func (v *View) Until(t time.Time) {
	if t.After(v.Now) && (v.until.IsZero() || t.Before(v.until)) {
		v.until = t
	}
}

// watch records p's next release as a change instant.
func (v *View) watch(p *Prod) {
	i, _ := slices.BinarySearchFunc(p.releases, v.Now, func(a, b time.Time) int {
		if !a.After(b) {
			return -1
		}
		return 1
	})
	if i < len(p.releases) {
		v.Until(p.releases[i])
	}
}

// Visible reports whether p may be shown to this audience at all.
func (v *View) Visible(p *Prod) bool {
	return p != nil && !p.Hidden && !(v.Teen && p.IsAdult())
}

// Lookup returns a product regardless of audience (detail decides what to show),
// or nil. Hidden products are nil.
func (v *View) Lookup(pid string) *Prod {
	v.Depend(TagProduct(pid))
	p := v.s.products[pid]
	if p == nil || p.Hidden {
		return nil
	}
	v.watch(p)
	return p
}

// Product returns a product visible to this audience, or nil.
func (v *View) Product(pid string) *Prod {
	p := v.Lookup(pid)
	if !v.Visible(p) {
		return nil
	}
	return p
}

// Volumes returns p's volumes released by Now, in ascending order.
func (v *View) Volumes(p *Prod) []contract.Volume {
	if p.paged {
		// Every page: only for a caller that needs them all (tests); a
		// missing page leaves the list empty and the read incomplete.
		vols, _ := v.VolumesRange(p, 0, v.VisibleCount(p))
		return vols
	}
	n := 0
	for _, vol := range p.volsByNo {
		if !vol.ReleaseAt.After(v.Now) {
			n++
		}
	}
	if n == len(p.volsByNo) {
		return p.volsByNo
	}
	out := make([]contract.Volume, 0, n)
	for _, vol := range p.volsByNo {
		if !vol.ReleaseAt.After(v.Now) {
			out = append(out, vol)
		}
	}
	return out
}

// LastUpdate is the release time of p's newest visible volume (or its
// registration when none is out yet).
func (v *View) LastUpdate(p *Prod) time.Time {
	if t, ok := v.lastRelease(p); ok {
		return t
	}
	return p.RegisteredAt
}

// lastRelease is the release time of p's newest volume out by Now.
func (v *View) lastRelease(p *Prod) (time.Time, bool) {
	i, _ := slices.BinarySearchFunc(p.releases, v.Now, func(a, b time.Time) int {
		if !a.After(b) {
			return -1
		}
		return 1
	})
	if i == 0 {
		return time.Time{}, false
	}
	return p.releases[i-1], true
}

// UpToday reports whether p had a volume released in the current release day
// (from the latest 23:00 KST, contract.ReleaseDayStart) by Now: the UP badge
// and the today-updated list.
func (v *View) UpToday(p *Prod) bool {
	last, ok := v.lastRelease(p)
	if !ok {
		return false
	}
	if v.dayStart.IsZero() {
		v.dayStart, v.dayEnd = contract.ReleaseDayStart(v.Now), contract.NextReleaseDay(v.Now)
	}
	up := !last.Before(v.dayStart)
	if up {
		v.Until(v.dayEnd)
	}
	return up
}

// IsNew reports whether p was registered in the last 7 days.
func (v *View) IsNew(p *Prod) bool {
	return !p.RegisteredAt.IsZero() && v.Now.Sub(p.RegisteredAt) < 7*24*time.Hour && !p.RegisteredAt.After(v.Now)
}

// Filter selects works for a list. Zero fields do not filter.
type Filter struct {
	Section    string // WT, CM, EB
	GenreID    string
	SubGenre   string
	Category   string // category1 tab
	Weekday    int    // 0..6, -1 for any
	TodayUp    bool
	End        string // "Y" finished, "N" ongoing
	Original   bool
	ShortStory bool
	Free       string // wff, gift, jumping, freevol
	Keyword    string
	AuthorID   int64
	Package    bool // special-price sets and packages
	AdultOnly  bool
	Discount   bool // discount or cashback
}

// Sort orders.
const (
	SortRecent  = "recent"  // newest visible volume first (the seed's default)
	SortPopular = "popular" // view count
	SortNew     = "new"     // registration
	SortTitle   = "title"
	SortRating  = "rating"
	SortZzim    = "zzim"
)

// ValidSort reports whether s is a sort order.
func ValidSort(s string) bool {
	switch s {
	case SortRecent, SortPopular, SortNew, SortTitle, SortRating, SortZzim:
		return true
	}
	return false
}

func (v *View) match(p *Prod, f *Filter) bool {
	if !v.Visible(p) {
		return false
	}
	if f.Section != "" && p.Section != f.Section {
		return false
	}
	if f.GenreID != "" && p.GenreID != f.GenreID {
		return false
	}
	if f.SubGenre != "" && p.SubGenre != f.SubGenre {
		return false
	}
	if f.Category != "" && p.Category1 != f.Category {
		return false
	}
	if f.Weekday >= 0 && !slices.Contains(p.Weekdays, f.Weekday) {
		return false
	}
	if f.End == "Y" && !p.FlagEnd || f.End == "N" && p.FlagEnd {
		return false
	}
	if f.Original && !p.IsOriginal || f.ShortStory && !p.IsShortStory {
		return false
	}
	if f.Package && !(p.IsSpecialPriceSet || p.IsPackage) {
		return false
	}
	if f.AdultOnly && !p.IsAdult() {
		return false
	}
	if f.Discount && p.DiscountRate == 0 && p.CashbackRate == 0 {
		return false
	}
	switch f.Free {
	case "wff":
		if !p.WaitForFree {
			return false
		}
	case "gift":
		if !p.Gift {
			return false
		}
	case "jumping":
		if !p.JumpingPass {
			return false
		}
	case "freevol":
		if v.FreeVolumes(p) == 0 {
			return false
		}
	}
	if f.Keyword != "" && !slices.Contains(p.Keywords, f.Keyword) {
		return false
	}
	if f.AuthorID != 0 && !slices.ContainsFunc(p.Authors, func(a contract.Author) bool { return a.AuthorID == f.AuthorID }) {
		return false
	}
	if f.TodayUp && !v.UpToday(p) {
		return false
	}
	return true
}

// FreeVolumes counts p's visible free volumes.
func (v *View) FreeVolumes(p *Prod) int {
	if p.paged {
		n := p.VolumeIndex.Free
		for _, f := range v.future(p) {
			if f.Free {
				n--
			}
		}
		return n
	}
	n := 0
	for _, vol := range p.volsByNo {
		if vol.IsFree && !vol.ReleaseAt.After(v.Now) {
			n++
		}
	}
	return n
}

// List returns the works matching f in order. It depends on the section's
// lists (or every product) and on the next release among the section's
// works. It walks the section's list in that order (listindex.go) and
// filters: no sort, no walk of the store's map.
func (v *View) List(f Filter, order string) []*Prod { return v.ListN(f, order, 0) }

// ListN is List's first n works (n <= 0: every one). It stops walking the
// ordered list at the n-th match, so a ranking's top 100 reads about 100
// entries of its order, not the whole section (at a release instant every
// ranking re-renders at once: walking 150,000 works for each was most of
// the release minute's CPU on one core).
func (v *View) ListN(f Filter, order string, n int) []*Prod {
	if f.Section != "" {
		v.Depend(TagSection(f.Section))
	} else {
		v.Depend(TagAllProducts)
	}
	if f.TodayUp {
		// Today's list turns over with the release day (23:00 KST).
		v.Until(contract.NextReleaseDay(v.Now))
	}
	order = listOrder(order)
	if countersOrder(order) {
		v.Depend(TagCounters)
	}
	// The recent list knows the section's next release: the answer changes
	// then whatever the order.
	recent := v.orderedList(f.Section, SortRecent)
	if !recent.next.IsZero() {
		v.Until(recent.next)
	}
	if f.TodayUp {
		out := v.todayList(f, order, recent)
		if n > 0 && len(out) > n {
			out = out[:n]
		}
		return out
	}
	l := recent
	if order != SortRecent {
		l = v.orderedList(f.Section, order)
	}
	// The entries' flags settle most filters without reading the work.
	mask, want, exact, none := f.flagTest(v.Teen)
	var out []*Prod
	switch {
	case n > 0:
		out = make([]*Prod, 0, n)
	case exact && !none:
		// Counted first (the flags only): a list of most of the catalog is
		// one allocation, not a run of growing copies.
		c := 0
		for _, ch := range l.cs {
			for _, e := range ch {
				if e.flags&mask == want {
					c++
				}
			}
		}
		out = make([]*Prod, 0, c)
	}
walk:
	for _, ch := range l.cs {
		if none {
			break
		}
		for _, e := range ch {
			if e.flags&mask == want && (exact || v.match(e.p, &f)) {
				out = append(out, e.p)
				if len(out) == n {
					break walk
				}
			}
		}
	}
	if f.TodayUp && len(out) == 0 {
		out = v.updatedInLastDay(f, recent)
		v.SortProds(out, order)
	}
	return out
}

// todayList is List of a today-updated filter: only works with a release
// since the release day's start can match, and they lead the recent list,
// so the walk stops at the first work released before it; what matched is
// then sorted in order (a day's releases, not the catalog).
func (v *View) todayList(f Filter, order string, recent *orderedList) []*Prod {
	start := contract.ReleaseDayStart(v.Now).UnixNano()
	var out []*Prod
	for e := range recent.all() {
		if e.k < start {
			break
		}
		if v.match(e.p, &f) {
			out = append(out, e.p)
		}
	}
	if len(out) == 0 {
		out = v.updatedInLastDay(f, recent)
	}
	if order != SortRecent {
		// Both walks keep the recent list's order.
		v.SortProds(out, order)
	}
	return out
}

// updatedInLastDay is the today-updated list when the release day has had no
// release yet (its 23:00 brought nothing, or a catalog releases at other
// hours): the works released in the last 24 hours, so the list is never empty
// while there are such works. Each leaves the list 24 hours after its release.
// recent is the section's works newest release first: the walk stops at the
// first one released 24 hours ago or earlier.
func (v *View) updatedInLastDay(f Filter, recent *orderedList) []*Prod {
	f.TodayUp = false
	since := v.Now.Add(-24 * time.Hour)
	var out []*Prod
	for e := range recent.all() {
		if e.k <= since.UnixNano() {
			break
		}
		p := e.p
		lu, ok := v.lastRelease(p)
		if !ok || !lu.After(since) || !v.match(p, &f) {
			continue
		}
		v.Until(lu.Add(24 * time.Hour))
		out = append(out, p)
	}
	return out
}

// SortProds orders ps in place; ties break by pid so pages are stable.
func (v *View) SortProds(ps []*Prod, order string) {
	var cmp func(a, b *Prod) int
	switch order {
	case SortPopular, SortRating, SortZzim:
		v.Depend(TagCounters)
	}
	switch order {
	case SortPopular:
		cmp = func(a, b *Prod) int { return compareInt(b.ViewCnt(), a.ViewCnt()) }
	case SortNew:
		cmp = func(a, b *Prod) int { return b.RegisteredAt.Compare(a.RegisteredAt) }
	case SortTitle:
		cmp = func(a, b *Prod) int { return strings.Compare(a.Title, b.Title) }
	case SortRating:
		cmp = func(a, b *Prod) int { return compareInt(rating(b), rating(a)) }
	case SortZzim:
		cmp = func(a, b *Prod) int { return compareInt(b.ZzimCount(), a.ZzimCount()) }
	default:
		// Precompute: LastUpdate is a binary search per call.
		lu := make(map[*Prod]int64, len(ps))
		for _, p := range ps {
			lu[p] = v.LastUpdate(p).UnixNano()
		}
		cmp = func(a, b *Prod) int { return compareInt(lu[b], lu[a]) }
	}
	slices.SortFunc(ps, func(a, b *Prod) int {
		if c := cmp(a, b); c != 0 {
			return c
		}
		return strings.Compare(a.PID, b.PID)
	})
}

// rating is the average point × 1000 (0 without reviews).
func rating(p *Prod) int64 {
	c := p.counters() // one set: a counters update may land meanwhile
	if c.ReviewCount == 0 {
		return 0
	}
	return c.PointSum * 1000 / int64(c.ReviewCount)
}

func compareInt[T ~int | ~int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Match is a search hit.
type Match struct {
	P *Prod
	// Score orders hits: ScoreTitlePrefix, ScoreTitle, ScoreAuthor,
	// ScoreTypo (searchindex.go).
	Score int
}

// Ranking returns the ranked visible works of scope (all, wt, cm, eb,
// genre-<id>) and tab, from analytics' ranking document when there is one,
// else by view count. computed reports whether analytics' ranking was used.
func (v *View) Ranking(scope, tab string) (items []RankedProd, computed bool) {
	v.Depend(TagRankings)
	v.Depend(TagAllProducts)
	if r := v.s.rankings[scope+"."+tab]; r != nil && len(r.Items) > 0 {
		seen := make(map[string]bool, len(r.Items))
		for _, it := range r.Items {
			if p := v.s.products[it.PID]; v.Visible(p) && !seen[p.PID] {
				seen[p.PID] = true
				items = append(items, RankedProd{P: p, Delta: it.Delta, Score: it.Score})
			}
		}
		// A window with few readers (a quiet hour, a new store, the teen
		// version hiding adult works) ranks few works: the shelf goes on with
		// the long-run order rather than showing two covers.
		if len(items) < rankingSize {
			for _, f := range v.fallbackRanking(scope, tab) {
				if len(items) == rankingSize {
					break
				}
				if !seen[f.P.PID] {
					items = append(items, RankedProd{P: f.P})
				}
			}
		}
		for i := range items {
			items[i].Rank = i + 1
		}
		return items, true
	}
	return v.fallbackRanking(scope, tab), false
}

// rankingSize is how many works a ranking lists.
const rankingSize = 100

// fallbackRanking is the ranking by view count (newest first for the new
// tab), used before analytics ranked a scope and to fill a short one.
func (v *View) fallbackRanking(scope, tab string) (items []RankedProd) {
	f := Filter{Weekday: -1}
	switch {
	case scope == "wt":
		f.Section = contract.SectionWebtoon
	case scope == "cm":
		f.Section = contract.SectionComic
	case scope == "eb":
		f.Section = contract.SectionNovel
	case strings.HasPrefix(scope, "genre-"):
		f.GenreID = scope[len("genre-"):]
	}
	order := SortPopular
	if tab == contract.RankNew {
		order = SortNew
	}
	for i, p := range v.ListN(f, order, rankingSize) {
		items = append(items, RankedProd{P: p, Rank: i + 1, Score: float64(p.ViewCnt())})
	}
	return items
}

// RankedProd is one entry of a ranking.
type RankedProd struct {
	P     *Prod
	Rank  int
	Delta int
	Score float64
}

// PopularSearchesShown is how many popular keywords a reader is shown.
const PopularSearchesShown = 10

// PopularSearches returns the popular search keywords this audience may see,
// PopularSearchesShown at most, ranked from 1 again after the ones left out,
// and when analytics computed them (zero when it has not yet). The teen
// version drops keywords whose top hit is an adult work: the keyword itself
// would name the work.
func (v *View) PopularSearches() ([]contract.PopularSearch, time.Time) {
	v.Depend(TagPopular)
	doc := v.s.popular
	if doc == nil {
		return nil, time.Time{}
	}
	out := make([]contract.PopularSearch, 0, PopularSearchesShown)
	for _, it := range doc.Items {
		if len(out) == PopularSearchesShown {
			break
		}
		if v.Teen && it.Adult {
			continue
		}
		it.Rank = len(out) + 1
		out = append(out, it)
	}
	return out, doc.ComputedAt
}
