package catalog

import (
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

// applyStat applies a work's counters document (contract.ProductStat) in
// place: a copy of the work with the new counters replaces it in the map
// (requests holding the old one keep a consistent work), and only the work's
// own tag is bumped; lists wait for FlushCounters. Counters of a work this
// edge does not hold yet are dropped: its document, published later, carries
// them. A deleted counters document changes nothing (the work's own delete
// removes the work). Caller holds s.mu.
func (s *Store) applyStat(pid string, doc any, del bool) {
	st, _ := doc.(*contract.ProductStat)
	old := s.products[pid]
	if del || st == nil || old == nil {
		return
	}
	if old.ViewCnt == st.ViewCnt && old.ZzimCount == st.ZzimCount && old.ReviewCount == st.ReviewCount && old.PointSum == st.PointSum {
		return
	}
	nw := *old
	nw.ViewCnt, nw.ZzimCount, nw.ReviewCount, nw.PointSum = st.ViewCnt, st.ZzimCount, st.ReviewCount, st.PointSum
	s.products[pid] = &nw
	s.tags.Bump(TagProduct(pid))
	s.countersChanged = true
}

// FlushCounters bumps TagCounters once CountersRefresh has passed since a
// counters document first changed a work after the last bump: lists show
// counters at most that stale, and re-render at most once per interval
// however many counters change. The edge calls it after each batch of
// updates and on a short ticker. It takes no lock of the store: a bump only
// ever makes cached bodies stale. It reports whether it bumped.
func (s *Store) FlushCounters(now time.Time) bool {
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
	s.tags.Bump(TagCounters)
	return true
}
