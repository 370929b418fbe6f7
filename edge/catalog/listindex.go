package catalog

import (
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"storefront/edge/cache"
)

// List indexes (issue 35 item 3). A list render used to range over every
// work of the store, binary-search each one's next release and sort what
// matched: 100–150 ms at 150,000 works under the read lock. Now each
// (section, order) pair has one ordered list of the section's works (every
// work for section ""), built once by the first render that needs it and
// then kept in order in place by Apply, so a render walks it and filters:
// the answer comes out in order, with no sort and no map walk.
//
// What each order's list is sorted by, and when it is rebuilt:
//   - new, title: fields of the head; never rebuilt, Apply inserts and
//     removes in place (binary search, one copy of the section's slice).
//   - popular, zzim, rating: the counters each work had when the list was
//     built, which stays the list's order until TagCounters is bumped
//     (FlushCounters, at most once per CountersRefresh): a zzim storm does
//     not reorder the lists between flushes, as it did not re-render them
//     (their bodies depend on TagCounters) before. A work applied in between
//     goes in by its counters then.
//   - recent: each work's newest release out at the list's instant (from)
//     and the section's next release after it (next): the order and the
//     instant a list answer stops being true (View.watch over every work of
//     the section, before) hold for any Now in [from, next). A render at
//     another instant builds it again, so the release minute costs one
//     sort per section per release instant, not one per render.
//
// Lists are read under the store's read lock and changed by Apply under the
// write lock; lists.mu only guards the map, so readers building the same
// list at once may both build it (the last one is kept, both are right).

// listKey names one ordered list.
type listKey struct {
	section string // "" = every section
	order   string
}

// listEntry is a work and the key it was sorted by (counters and recent
// orders; new and title compare the head's fields).
type listEntry struct {
	p *Prod
	k int64
}

// orderedList is one section's works in one order, in chunks of at most
// chunkMax entries, so Apply moves a work by copying one chunk, not the
// section's whole list.
type orderedList struct {
	order string
	cs    [][]listEntry
	// counters orders: the TagCounters version the keys were read at.
	ctr cache.Ref
	// recent: the list's instant and the section's first release after it
	// (zero: none).
	from, next time.Time
}

// listIndex is the store's ordered lists.
type listIndex struct {
	mu sync.Mutex
	m  map[listKey]*orderedList
}

func (ix *listIndex) get(k listKey) *orderedList {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.m[k]
}

func (ix *listIndex) put(k listKey, l *orderedList) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.m == nil {
		ix.m = make(map[listKey]*orderedList)
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
func (l *orderedList) valid(now time.Time, ctr cache.Ref) bool {
	switch {
	case countersOrder(l.order):
		return l.ctr == ctr
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
	var ctr cache.Ref
	if countersOrder(order) {
		ctr = s.tags.Current(TagCounters)
	}
	if l := s.lists.get(k); l != nil && l.valid(v.Now, ctr) {
		return l
	}
	l := &orderedList{order: order, ctr: ctr, from: v.Now}
	es := make([]listEntry, 0, len(s.products))
	for _, p := range s.products {
		if section != "" && p.Section != section {
			continue
		}
		es = append(es, listEntry{p: p, k: l.key(p)})
		if order == SortRecent {
			if t, ok := nextReleaseAfter(p, l.from); ok && (l.next.IsZero() || t.Before(l.next)) {
				l.next = t
			}
		}
	}
	slices.SortFunc(es, l.cmp)
	l.setEntries(es)
	s.lists.put(k, l)
	return l
}

// indexProduct moves a work's lists entries from old to nw (either may be
// nil) in every list built so far. Caller holds the write lock: O(log n)
// to find each place and one copy of the list's tail to open or close it.
func (s *Store) indexProduct(old, nw *Prod) {
	s.lists.mu.Lock()
	defer s.lists.mu.Unlock()
	for k, l := range s.lists.m {
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
	ci, i, found := l.find(listEntry{p: p, k: l.key(p)})
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
	e := listEntry{p: p, k: l.key(p)}
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
