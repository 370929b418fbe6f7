package catalog

import (
	"strings"
	"time"

	"storefront/contract"
)

// TagCounters is the tag of every answer that lists works with their
// counters or orders them by one (popular, zzim and rating orders, list
// items showing view counts, search ties). A counters document does not bump
// it: FlushCounters does, at most once per CountersRefresh, so a zzim storm
// re-renders each such list once per interval instead of once per zzim.
const TagCounters = "counters"

// DefaultCountersRefresh is how stale the counters shown in lists may get
// (EDGE_COUNTERS_REFRESH). The detail page is never stale: a counters
// document bumps its work's tag at once.
const DefaultCountersRefresh = 30 * time.Second

// Counters are a work's counters as the edge shows them. A work's counters
// change in place (applyStat) while requests read it: they are one value
// behind an atomic pointer, so a read sees one consistent set.
type Counters struct {
	ViewCnt, ZzimCount, PointSum int64
	ReviewCount                  int
}

// The counters' accessors shadow the embedded document's fields of the same
// names (a method of Prod is shallower than a field of contract.Product), so
// no code of the edge can read the document's counters by mistake: they are
// only the values the work arrived with.

// ViewCnt is the work's view count.
func (p *Prod) ViewCnt() int64 { return p.counters().ViewCnt }

// ZzimCount is how many members zzimmed the work.
func (p *Prod) ZzimCount() int64 { return p.counters().ZzimCount }

// ReviewCount is the work's review count.
func (p *Prod) ReviewCount() int { return p.counters().ReviewCount }

// PointSum is the sum of its reviews' points.
func (p *Prod) PointSum() int64 { return p.counters().PointSum }

// Counters is the work's counters, one consistent set.
func (p *Prod) Counters() Counters { return *p.counters() }

func (p *Prod) counters() *Counters {
	if c := p.ctr.Load(); c != nil {
		return c
	}
	return &Counters{ViewCnt: p.Product.ViewCnt, ZzimCount: p.Product.ZzimCount, PointSum: p.Product.PointSum, ReviewCount: p.Product.ReviewCount}
}

// isStat reports whether every update is a counters document: such a batch
// applies under the read lock, never waiting behind a render.
func isStat(ups []Update) bool {
	for _, u := range ups {
		if !strings.HasPrefix(u.Key, contract.KeyStat) {
			return false
		}
	}
	return len(ups) > 0
}

// applyStat applies a work's counters document (contract.ProductStat) in
// place: the work's counters pointer is swapped (requests rendering it see
// the old set or the new, never a mix) and only the work's own tag is
// bumped; lists wait for FlushCounters. It needs only the read lock: the
// map does not change, so a zzim never waits behind a render nor holds up
// a read. Counters of a work this edge does not hold yet are dropped: its
// document, published later, carries them. A deleted counters document
// changes nothing (the work's own delete removes the work). It reports
// whether the counters changed.
func (s *Store) applyStat(pid string, doc any, del bool) bool {
	st, _ := doc.(*contract.ProductStat)
	p := s.products[pid]
	if del || st == nil || p == nil {
		return false
	}
	nw := &Counters{ViewCnt: st.ViewCnt, ZzimCount: st.ZzimCount, PointSum: st.PointSum, ReviewCount: st.ReviewCount}
	if *p.counters() == *nw {
		return false
	}
	// Stored, then marked: a flush that takes the changed set between the
	// two reads the new counters at its next flush, never loses them.
	p.ctr.Store(nw)
	s.markChanged(p)
	s.tags.Bump(TagProduct(pid))
	return true
}

// FlushCounters bumps TagCounters once CountersRefresh has passed since a
// counters document first changed a work after the last bump: lists show
// counters at most that stale, and re-render at most once per interval
// however many counters change. The edge calls it after each batch of
// updates and on a short ticker. Before the bump it re-sorts the lists
// ordered by counters (rebuildCounterLists), and on every call it makes the
// recent lists of a release coming within prepareAhead (prepareRecent):
// both copy lists under the read lock and sort out of it, so no read waits
// behind them. It reports whether it bumped.
func (s *Store) FlushCounters(now time.Time) bool {
	s.prepareRecent(now)
	since := s.countersDirtySince.Load()
	if since == 0 {
		return false
	}
	refresh := s.CountersRefresh
	if refresh <= 0 {
		refresh = DefaultCountersRefresh
	}
	if now.UnixNano()-since < int64(refresh) || !s.countersDirtySince.CompareAndSwap(since, 0) {
		return false
	}
	s.rebuildCounterLists()
	s.tags.Bump(TagCounters)
	return true
}
