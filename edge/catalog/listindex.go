package catalog

import (
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"storefront/contract"
)

// List indexes (issue 35 item 3). A list render used to range over every
// work of the store, binary-search each one's next release and sort what
// matched: 100–150 ms at 150,000 works under the read lock. Now each
// (section, order) pair has one ordered list of the section's works (every
// work for section ""), built once by the first render that needs it and
// then kept in order in place by Apply, so a render walks it and filters:
// the answer comes out in order, with no sort and no map walk. A list is in
// chunks of at most chunkMax entries: Apply of one head finds its place by
// binary search and copies one chunk per list.
//
// What each order's list is sorted by, and when it is rebuilt:
//   - new, title: fields of the head; never rebuilt.
//   - popular, zzim, rating: the counters each work had when the list was
//     sorted, which stays the list's order until the next counters flush
//     (FlushCounters, at most once per CountersRefresh): a zzim storm does
//     not reorder the lists between flushes, as it did not re-render them
//     (their bodies depend on TagCounters) before. A work applied in between
//     goes in by its counters then. The flush re-sorts every such list out
//     of the store's lock (rebuildCounterLists) before it bumps
//     TagCounters, so the renders the bump causes find them sorted.
//   - recent: each work's newest release out at the list's instant (from)
//     and the section's next release after it (next): the order and the
//     instant a list answer stops being true (View.watch over every work of
//     the section, before) hold for any Now in [from, next). The flush
//     ticker makes the list for next up to prepareAhead before it
//     (prepareRecent), so the release minute's renders find it made; a
//     render at an instant no list holds (a clock behind, a catalog change
//     just before a release) builds one.
//
// Lists are read under the store's read lock and changed in place only by
// Apply under the write lock; lists made by the flush are new lists swapped
// in under lists.mu, which guards the map. Readers building the same list
// at once may both build it (the last one is kept, both are right).

// listKey names one ordered list.
type listKey struct {
	section string // "" = every section
	order   string
}

// listEntry is a work and the key it was sorted by (counters and recent
// orders; new and title compare the head's fields).
type listEntry struct {
	p     *Prod
	k     int64
	flags listFlags
}

// listFlags are the head's yes/no fields the list filters test, held in
// the entry so a walk reads the list and not each work (a work's fields are
// scattered over cache lines of its own: reading them is most of a walk).
type listFlags uint16

const (
	flagHidden listFlags = 1 << iota
	flagAdult
	flagEnd
	flagOriginal
	flagShort
	flagPackage
	flagDiscount
	flagWFF
	flagGift
	flagJumping
)

// newEntry is p's entry in l.
func (l *orderedList) newEntry(p *Prod) listEntry {
	var f listFlags
	set := func(b bool, x listFlags) {
		if b {
			f |= x
		}
	}
	set(p.Hidden, flagHidden)
	set(p.IsAdult(), flagAdult)
	set(p.FlagEnd, flagEnd)
	set(p.IsOriginal, flagOriginal)
	set(p.IsShortStory, flagShort)
	set(p.IsSpecialPriceSet || p.IsPackage, flagPackage)
	set(p.DiscountRate != 0 || p.CashbackRate != 0, flagDiscount)
	set(p.WaitForFree, flagWFF)
	set(p.Gift, flagGift)
	set(p.JumpingPass, flagJumping)
	return listEntry{p: p, k: l.key(p), flags: f}
}

// flagTest is what the flags of an entry must be for View.match to hold
// (flags&mask == want, necessary), and whether that is all match tests
// (exact: the entry matches without reading the work). none: no work
// matches (adults-only for a teen reader).
func (f *Filter) flagTest(teen bool) (mask, want listFlags, exact, none bool) {
	mask = flagHidden
	if teen {
		mask |= flagAdult
	}
	need := func(x listFlags) { mask, want = mask|x, want|x }
	switch f.End {
	case "Y":
		need(flagEnd)
	case "N":
		mask |= flagEnd
	}
	if f.Original {
		need(flagOriginal)
	}
	if f.ShortStory {
		need(flagShort)
	}
	if f.Package {
		need(flagPackage)
	}
	if f.AdultOnly {
		none = teen
		need(flagAdult)
	}
	if f.Discount {
		need(flagDiscount)
	}
	exact = f.GenreID == "" && f.SubGenre == "" && f.Category == "" && f.Weekday < 0 && !f.TodayUp &&
		f.Keyword == "" && f.AuthorID == 0
	switch f.Free {
	case "wff":
		need(flagWFF)
	case "gift":
		need(flagGift)
	case "jumping":
		need(flagJumping)
	case "":
	default:
		exact = false
	}
	return mask, want, exact, none
}

// orderedList is one section's works in one order, in chunks of at most
// chunkMax entries, so Apply moves a work by copying one chunk, not the
// section's whole list.
type orderedList struct {
	order string
	cs    [][]listEntry
	// counters orders: the counters generation (listIndex.ctrGen) the
	// keys were read in.
	ctrGen uint64
	// recent: the list's instant and the section's first release after it
	// (zero: none); after is the list for next, made ahead of it
	// (prepareRecent) so the release minute does not wait for it.
	// before is the list after replaced, for renders whose clock was read
	// just before the release (they would otherwise build it again).
	from, next    time.Time
	after, before *orderedList
}

// listIndex is the store's ordered lists.
type listIndex struct {
	mu sync.Mutex
	m  map[listKey]*orderedList
	// gen counts the works applied (indexProduct): a list made outside the
	// lock from an older generation is not kept. ctrGen counts counters
	// flushes (rebuildCounterLists).
	gen, ctrGen uint64
	// building: lists being made, so renders that miss the same list at
	// once wait for one sort of the section instead of each making it (at
	// a release instant every ranking and list of a section misses at once;
	// at 150,000 works each sort is tens of milliseconds of one core).
	building map[listKey]*listBuild
}

// listBuild is one list being made; done closes when l is set (nil when
// the maker gave up).
type listBuild struct {
	done chan struct{}
	l    *orderedList
}

// claim returns the build of k under way and false, or a new one the
// caller makes and finishes (finish) and true.
func (ix *listIndex) claim(k listKey) (*listBuild, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if b := ix.building[k]; b != nil {
		return b, false
	}
	if ix.building == nil {
		ix.building = make(map[listKey]*listBuild)
	}
	b := &listBuild{done: make(chan struct{})}
	ix.building[k] = b
	return b, true
}

// finish ends the caller's build of k with l.
func (ix *listIndex) finish(k listKey, b *listBuild, l *orderedList) {
	ix.mu.Lock()
	b.l = l
	delete(ix.building, k)
	ix.mu.Unlock()
	close(b.done)
}

// get returns the list k that answers a render at now and the counters
// generation, or nil: the recent list made ahead of now's release becomes
// the list.
func (ix *listIndex) get(k listKey, now time.Time) (*orderedList, uint64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	l := ix.m[k]
	if l != nil && !l.valid(now, ix.ctrGen) {
		switch {
		case l.after != nil && l.after.valid(now, ix.ctrGen):
			l = ix.promote(k, l)
		case l.before != nil && l.before.valid(now, ix.ctrGen):
			l = l.before
		default:
			l = nil
		}
	}
	return l, ix.ctrGen
}

// promote makes l's list made ahead the list k. Caller holds ix.mu.
func (ix *listIndex) promote(k listKey, l *orderedList) *orderedList {
	a := l.after
	l.after, l.before, a.before = nil, nil, l
	ix.m[k] = a
	return a
}

// put makes l the list k unless the list there is newer (a render whose
// clock was read before the release instant, a sort from before a flush):
// that one stays for the renders after.
func (ix *listIndex) put(k listKey, l *orderedList) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.m == nil {
		ix.m = make(map[listKey]*orderedList)
	}
	if cur := ix.m[k]; cur != nil && (l.order == SortRecent && cur.from.After(l.from) || cur.ctrGen > l.ctrGen) {
		return
	}
	ix.m[k] = l
}

// listOrder is the order a sort name means (SortProds' default is recent).
func listOrder(order string) string {
	if ValidSort(order) {
		return order
	}
	return SortRecent
}

func countersOrder(order string) bool {
	return order == SortPopular || order == SortZzim || order == SortRating
}

// chunkMax bounds a chunk of an ordered list; a built list's chunks are
// half full. A variable so tests split chunks with small catalogs.
var chunkMax = 512

// all is l's entries in order.
func (l *orderedList) all() iter.Seq[listEntry] {
	return func(yield func(listEntry) bool) {
		for _, ch := range l.cs {
			for _, e := range ch {
				if !yield(e) {
					return
				}
			}
		}
	}
}

// setEntries makes sorted es l's entries.
func (l *orderedList) setEntries(es []listEntry) {
	l.cs = l.cs[:0]
	for i := 0; i < len(es); i += chunkMax / 2 {
		j := min(i+chunkMax/2, len(es))
		l.cs = append(l.cs, es[i:j:j])
	}
}

// find is where e is or goes in l: chunk ci (len(l.cs) when after every
// entry) and position i in it.
func (l *orderedList) find(e listEntry) (ci, i int, found bool) {
	ci = sort.Search(len(l.cs), func(c int) bool {
		ch := l.cs[c]
		return l.cmp(ch[len(ch)-1], e) >= 0
	})
	if ci == len(l.cs) {
		return ci, 0, false
	}
	i, found = slices.BinarySearchFunc(l.cs[ci], e, l.cmp)
	return ci, i, found
}

// cmp orders entries of l: its order's key, then pid.
func (l *orderedList) cmp(a, b listEntry) int {
	c := 0
	switch l.order {
	case SortNew:
		c = b.p.RegisteredAt.Compare(a.p.RegisteredAt)
	case SortTitle:
		c = strings.Compare(a.p.Title, b.p.Title)
	default:
		c = compareInt(b.k, a.k)
	}
	if c != 0 {
		return c
	}
	return strings.Compare(a.p.PID, b.p.PID)
}

// key is p's sort key in l now (counters orders read the counters as they
// are; recent reads p's newest release out at l.from).
func (l *orderedList) key(p *Prod) int64 {
	switch l.order {
	case SortPopular:
		return p.ViewCnt()
	case SortZzim:
		return p.ZzimCount()
	case SortRating:
		return rating(p)
	case SortRecent:
		return lastUpdateAt(p, l.from).UnixNano()
	}
	return 0
}

// valid reports whether l answers a render at now.
func (l *orderedList) valid(now time.Time, ctrGen uint64) bool {
	switch {
	case countersOrder(l.order):
		return l.ctrGen == ctrGen
	case l.order == SortRecent:
		return !now.Before(l.from) && (l.next.IsZero() || now.Before(l.next))
	}
	return true
}

// orderedList returns the section's works in order for a render at v.Now,
// building the list when there is none that holds. Caller holds the read
// lock.
func (v *View) orderedList(section, order string) *orderedList {
	s := v.s
	k := listKey{section, order}
	if v.ahead {
		return v.listAhead(k)
	}
	l, ctrGen := s.lists.get(k, v.Now)
	if l != nil {
		return l
	}
	// Waiting holds the read lock, as the maker does; the maker needs no
	// other lock, so it always finishes. A list made for another instant
	// (a release in between) does not answer this render: it makes its own.
	b, mine := s.lists.claim(k)
	if !mine {
		<-b.done
		if b.l != nil && b.l.valid(v.Now, ctrGen) {
			return b.l
		}
	} else {
		defer func() { s.lists.finish(k, b, l) }()
	}
	l = v.makeList(k, ctrGen)
	s.lists.put(k, l)
	return l
}

// makeList sorts the section's works into list k for a render at v.Now.
// Caller holds the read lock.
func (v *View) makeList(k listKey, ctrGen uint64) *orderedList {
	l := &orderedList{order: k.order, ctrGen: ctrGen, from: v.Now}
	es := make([]listEntry, 0, len(v.s.products))
	for _, p := range v.s.products {
		if k.section != "" && p.Section != k.section {
			continue
		}
		es = append(es, l.newEntry(p))
		if k.order == SortRecent {
			if t, ok := nextReleaseAfter(p, l.from); ok && (l.next.IsZero() || t.Before(l.next)) {
				l.next = t
			}
		}
	}
	slices.SortFunc(es, l.cmp)
	l.setEntries(es)
	return l
}

// listAhead is orderedList for a view rendering ahead of its instant: the
// list that holds then (the recent list made ahead of a release,
// prepareRecent), without promoting it, or one made for this render only.
// Promoting it early would leave the present's renders its predecessor
// only until the next Apply, which forgets it: each would then sort the
// section again until the instant.
func (v *View) listAhead(k listKey) *orderedList {
	ix := &v.s.lists
	ix.mu.Lock()
	l, ctrGen := ix.m[k], ix.ctrGen
	switch {
	case l == nil:
	case l.valid(v.Now, ctrGen):
	case l.after != nil && l.after.valid(v.Now, ctrGen):
		l = l.after
	default:
		l = nil
	}
	ix.mu.Unlock()
	if l != nil {
		return l
	}
	return v.makeList(k, ctrGen)
}

// indexProduct moves a work's lists entries from old to nw (either may be
// nil) in every list built so far. Caller holds the write lock: O(log n)
// to find each place and one copy of the list's tail to open or close it.
func (s *Store) indexProduct(old, nw *Prod) {
	s.lists.mu.Lock()
	defer s.lists.mu.Unlock()
	s.lists.gen++
	for k, l := range s.lists.m {
		l.after, l.before = nil, nil // made from the works before this one
		if old != nil && (k.section == "" || k.section == old.Section) {
			if !l.remove(old) {
				// A recent list whose next release may have been old's:
				// only a rebuild knows the section's next one now.
				delete(s.lists.m, k)
				continue
			}
		}
		if nw != nil && (k.section == "" || k.section == nw.Section) {
			l.insert(nw)
		}
	}
}

// remove takes p out of l; false when l no longer holds (recent list whose
// next release was p's).
func (l *orderedList) remove(p *Prod) bool {
	ci, i, found := l.find(l.newEntry(p))
	if !found && countersOrder(l.order) {
		// p's counters changed since l was sorted: its entry is where its
		// old counters put it.
		ci = slices.IndexFunc(l.cs, func(ch []listEntry) bool {
			i = slices.IndexFunc(ch, func(e listEntry) bool { return e.p == p })
			return i >= 0
		})
		found = ci >= 0
	}
	if found {
		if ch := slices.Delete(l.cs[ci], i, i+1); len(ch) > 0 {
			l.cs[ci] = ch
		} else {
			l.cs = slices.Delete(l.cs, ci, ci+1)
		}
	}
	if l.order == SortRecent {
		if t, ok := nextReleaseAfter(p, l.from); ok && t.Equal(l.next) {
			return false
		}
	}
	return true
}

// insert puts p in its place in l.
func (l *orderedList) insert(p *Prod) {
	e := l.newEntry(p)
	if l.order == SortRecent {
		if t, ok := nextReleaseAfter(p, l.from); ok && (l.next.IsZero() || t.Before(l.next)) {
			l.next = t
		}
	}
	if len(l.cs) == 0 {
		l.cs = [][]listEntry{{e}}
		return
	}
	ci, i, _ := l.find(e)
	if ci == len(l.cs) {
		ci--
		i = len(l.cs[ci])
	}
	ch := slices.Insert(l.cs[ci], i, e)
	if len(ch) <= chunkMax {
		l.cs[ci] = ch
		return
	}
	h := len(ch) / 2
	l.cs[ci] = slices.Clone(ch[:h])
	l.cs = slices.Insert(l.cs, ci+1, slices.Clone(ch[h:]))
}

// lastUpdateAt is View.LastUpdate at now.
func lastUpdateAt(p *Prod, now time.Time) time.Time {
	i := releasesAfter(p, now)
	if i == 0 {
		return p.RegisteredAt
	}
	return p.releases[i-1]
}

// nextReleaseAfter is p's first release instant after now.
func nextReleaseAfter(p *Prod, now time.Time) (time.Time, bool) {
	i := releasesAfter(p, now)
	if i == len(p.releases) {
		return time.Time{}, false
	}
	return p.releases[i], true
}

// releasesAfter is the position of p's first release after now.
func releasesAfter(p *Prod, now time.Time) int {
	i, _ := slices.BinarySearchFunc(p.releases, now, func(a, b time.Time) int {
		if !a.After(b) {
			return -1
		}
		return 1
	})
	return i
}

// rebuildCounterLists makes, for FlushCounters to swap in before it bumps
// TagCounters, every counters-ordered list built so far in the order of the
// counters as they are: the flush's work is done once, here, not by the
// first renders after it, and out of the store's lock but for one copy of
// each list under the read lock. Only the works whose counters changed
// since the last flush (changed, from applyStat) move: the rest keep their
// keys and places, so a list is one linear merge of the unchanged entries
// with the changed ones sorted, O(n + c·log c) for c changed works, not a
// sort of the section (233 ms per flush at 100,000 works, on the one core
// the storm's readers share). That holds because every entry's key is its
// work's counters when it was keyed (sorted, inserted by Apply or moved
// here), and a work changed since then is in changed. A work applied
// meanwhile makes the new lists moot: renders then build them, reading
// every key afresh.
func (s *Store) rebuildCounterLists() {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	changed := s.takeChanged()
	s.lists.mu.Lock()
	var keys []listKey
	var olds []*orderedList
	for k, l := range s.lists.m {
		if countersOrder(k.order) {
			keys, olds = append(keys, k), append(olds, l)
		}
	}
	gen := s.lists.gen
	s.lists.mu.Unlock()
	lists := make([]*orderedList, len(keys))
	esv := make([][]listEntry, len(keys))
	found := make([][]*Prod, len(keys))
	// Under the read lock one copy of each list, without its changed
	// works: a work is immutable once applied but for its counters, read
	// atomically, and the old lists change only under the write lock.
	s.mu.RLock()
	for i, old := range olds {
		es := make([]listEntry, 0, old.len())
		for _, ch := range old.cs {
			for _, e := range ch {
				if _, ok := changed[e.p]; ok {
					found[i] = append(found[i], e.p)
				} else {
					es = append(es, e)
				}
			}
		}
		esv[i] = es
	}
	s.mu.RUnlock()
	for i, old := range olds {
		l := &orderedList{order: old.order}
		lists[i] = l
		moved := make([]listEntry, len(found[i]))
		for j, p := range found[i] {
			moved[j] = l.newEntry(p)
		}
		slices.SortFunc(moved, l.cmp)
		l.setEntries(mergeInto(l, esv[i], moved))
	}
	s.lists.mu.Lock()
	defer s.lists.mu.Unlock()
	s.lists.ctrGen++
	if s.lists.gen != gen {
		return
	}
	for i, k := range keys {
		lists[i].ctrGen = s.lists.ctrGen
		s.lists.m[k] = lists[i]
	}
}

// mergeEntries is the entries of a and b, both in l's order, in l's order.
func mergeEntries(l *orderedList, a, b []listEntry) []listEntry {
	es := make([]listEntry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if l.cmp(a[0], b[0]) <= 0 {
			es, a = append(es, a[0]), a[1:]
		} else {
			es, b = append(es, b[0]), b[1:]
		}
	}
	return append(append(es, a...), b...)
}

// mergeInto merges b into a, both in l's order, in place from the back
// when a has the room (it has: the entries b's works were taken from).
func mergeInto(l *orderedList, a, b []listEntry) []listEntry {
	if len(b) == 0 {
		return a
	}
	n := len(a)
	a = slices.Grow(a, len(b))[:n+len(b)]
	i, j := n-1, len(b)-1
	for k := len(a) - 1; j >= 0; k-- {
		if i >= 0 && l.cmp(a[i], b[j]) > 0 {
			a[k], i = a[i], i-1
		} else {
			a[k], j = b[j], j-1
		}
	}
	return a
}

// len is how many entries l holds.
func (l *orderedList) len() int {
	n := 0
	for _, ch := range l.cs {
		n += len(ch)
	}
	return n
}

// markChanged notes that p's counters changed since the last flush.
func (s *Store) markChanged(p *Prod) {
	s.ctrChanged.Lock()
	if s.ctrChanged.m == nil {
		s.ctrChanged.m = make(map[*Prod]struct{})
	}
	s.ctrChanged.m[p] = struct{}{}
	s.ctrChanged.Unlock()
}

// takeChanged is the works whose counters changed since the last call.
func (s *Store) takeChanged() map[*Prod]struct{} {
	s.ctrChanged.Lock()
	defer s.ctrChanged.Unlock()
	m := s.ctrChanged.m
	s.ctrChanged.m = nil
	return m
}

// prepareAhead is how long before a section's next release its recent
// list for that instant is made (prepareRecent).
const prepareAhead = 10 * time.Second

// prepareRecent makes, for every recent list whose next release is at most
// prepareAhead after now, the list for that release instant, so the
// release minute's renders find it made: out of the store's lock but for
// one copy of the list under the read lock, and without a sort (only the
// works released between the two instants move, to the front).
func (s *Store) prepareRecent(now time.Time) {
	s.lists.mu.Lock()
	var keys []listKey
	var olds []*orderedList
	var froms []time.Time // each list's next, read under the lock
	for k, l := range s.lists.m {
		if k.order != SortRecent {
			continue
		}
		if !l.valid(now, 0) && l.after != nil && l.after.valid(now, 0) {
			l = s.lists.promote(k, l)
		}
		if !l.next.IsZero() && l.after == nil && !l.next.After(now.Add(prepareAhead)) {
			keys, olds, froms = append(keys, k), append(olds, l), append(froms, l.next)
		}
	}
	gen := s.lists.gen
	s.lists.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	afters := make([]*orderedList, len(keys))
	moved := make([][]listEntry, len(keys))
	same := make([][]listEntry, len(keys))
	// Under the lock only the copy (a work is immutable once applied).
	esv := make([][]listEntry, len(olds))
	s.mu.RLock()
	for i, old := range olds {
		esv[i] = slices.Concat(old.cs...)
	}
	s.mu.RUnlock()
	for i := range olds {
		l := &orderedList{order: SortRecent, from: froms[i]}
		same[i] = make([]listEntry, 0, len(esv[i]))
		for _, e := range esv[i] {
			ne := listEntry{p: e.p, k: l.key(e.p), flags: e.flags}
			if ne.k == e.k {
				same[i] = append(same[i], ne)
			} else {
				moved[i] = append(moved[i], ne)
			}
			if t, ok := nextReleaseAfter(e.p, l.from); ok && (l.next.IsZero() || t.Before(l.next)) {
				l.next = t
			}
		}
		afters[i] = l
	}
	for i, l := range afters {
		slices.SortFunc(moved[i], l.cmp)
		l.setEntries(mergeEntries(l, same[i], moved[i]))
	}
	s.lists.mu.Lock()
	defer s.lists.mu.Unlock()
	if s.lists.gen != gen {
		return
	}
	for i, k := range keys {
		if s.lists.m[k] == olds[i] {
			olds[i].after = afters[i]
		}
	}
}

// listEntryBytes is what one entry of a list holds (pointer, key, flags).
const listEntryBytes = int64(unsafe.Sizeof(listEntry{}))

// bytes is what the lists hold (with the recent lists made ahead and
// replaced): their chunks' capacity, counted by chunk, not by entry.
func (ix *listIndex) bytes() int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var n int64
	count := func(l *orderedList) {
		if l == nil {
			return
		}
		n += int64(cap(l.cs)) * 24 // slice headers
		for _, ch := range l.cs {
			n += int64(cap(ch)) * listEntryBytes
		}
	}
	for _, l := range ix.m {
		count(l)
		count(l.after)
		count(l.before)
	}
	return n
}

// warmOrders are the orders whose lists WarmLists makes: the rankings'
// (popular, new: a ranking analytics has not filled reads them) and the
// recent list every list render reads for its change instant.
var warmOrders = []string{SortRecent, SortPopular, SortNew}

// warmSections are the sections WarmLists makes them for: the whole store
// (rankings of every work and of a genre) and each section.
var warmSections = []string{"", contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel}

// WarmLists makes the lists the release minute reads first, once the
// initial sync has loaded the store. Lists are otherwise made by the first
// render that needs them, and an edge that starts shortly before 23:00
// (or the benchmark's, which asks nothing before its release) then sorted
// 150,000 works a dozen times at the release instant, on the core its
// readers wait for (rankings p99 ~1 s, cmd/catalogbench). Each list is
// made under the read lock, as a render makes it.
func (s *Store) WarmLists(now time.Time) {
	for _, sec := range warmSections {
		for _, o := range warmOrders {
			s.Read(now, false, func(v *View) { v.orderedList(sec, o) })
		}
	}
}
