package catalog

import (
	"context"
	"slices"
	"sort"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

// A paged head (contract.CatalogSchema 2: VolumeIndex set, Volumes empty)
// keeps no volume in the store. Everything a list, search or ranking needs
// (newest release, next release, UP badge, free and visible counts) comes
// from the head's Recent releases and page references; those answers are
// exact while the edge's clock is at most contract.RecentWindow behind the
// writer's when it built the head (Recent then holds every volume released
// since, and every future one). Renders that show volumes (detail, volume
// list, manifest, content) read pages through the store's VolumePages: a
// page the cache does not have is recorded as missing in the View, and the
// caller fetches it outside the lock and renders again (ReadPages).

// Paged reports whether p's volumes are in pages.
func (p *Prod) Paged() bool { return p.paged }

// isPaged: a head with a volume index and no inline volumes. A head with
// volumes inline is schema 1 and read as it always was, index or not.
func isPaged(p *contract.Product) bool { return p.VolumeIndex != nil && len(p.Volumes) == 0 }

// pagedReleases is the release instants a paged head knows: every recent
// (and future) one, and each page's first and last, all real instants, so
// the newest one out by the edge's clock and the next one to come are right.
func pagedReleases(ix *contract.VolumeIndex) []time.Time {
	out := make([]time.Time, 0, len(ix.Recent)+2*len(ix.Pages))
	for _, r := range ix.Recent {
		out = append(out, r.At)
	}
	for _, pg := range ix.Pages {
		if !pg.FirstRelease.IsZero() {
			out = append(out, pg.FirstRelease)
		}
		if !pg.LastRelease.IsZero() {
			out = append(out, pg.LastRelease)
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(out, func(a, b time.Time) bool { return a.Equal(b) })
}

// SetVolumePages gives the store the cache paged works' volumes are read
// from; set before the first Read. Without one every page is missing.
func (s *Store) SetVolumePages(c *VolumePages) { s.pages = c }

// VolumePages is the store's page cache (nil when none was set).
func (s *Store) VolumePages() *VolumePages { return s.pages }

// PagedChanged is signalled (coalesced) whenever a paged head is applied or
// removed: the pinner re-evaluates what to pin then, not a minute later.
func (s *Store) PagedChanged() <-chan struct{} { return s.pagedChanged }

// PageSet is pages a caller fetched for one read, by work and page index
// whatever their hash (a page newer than the head is used as it is).
type PageSet map[PageSlot]*contract.VolumePage

// PageSlot is a page of a work, whatever its version.
type PageSlot struct {
	PID   string
	Index int
}

// ReadPages is Read with pages: have are pages the caller fetched for this
// read; missing lists the pages fn wanted and neither have nor the cache
// held. With missing pages the answer is incomplete: fetch them
// (VolumePages.Get, outside any lock) and read again with them in have.
func (s *Store) ReadPages(now time.Time, teen bool, have PageSet, fn func(v *View)) (refs []cache.Ref, until int64, missing []PageKey) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v := &View{s: s, Now: now, Teen: teen, tags: make(map[string]struct{}, 4), have: have}
	fn(v)
	return v.refs(), v.untilNanos(), v.missing
}

// page returns page i (position in the head's index) of paged p, or nil
// after recording it as missing.
func (v *View) page(p *Prod, i int) *contract.VolumePage {
	ref := &p.VolumeIndex.Pages[i]
	if pg := v.have[PageSlot{p.PID, ref.Index}]; pg != nil {
		return pg
	}
	k := PageKey{PID: p.PID, Index: ref.Index, Hash: ref.Hash}
	if pg := v.s.pages.Peek(k); pg != nil {
		return pg
	}
	if !slices.Contains(v.missing, k) {
		v.missing = append(v.missing, k)
	}
	return nil
}

// future is the part of paged p's Recent not released by Now (Recent is
// ascending by release).
func (v *View) future(p *Prod) []contract.VolumeRelease {
	r := p.VolumeIndex.Recent
	i := sort.Search(len(r), func(i int) bool { return r[i].At.After(v.Now) })
	return r[i:]
}

// VisibleCount is how many of p's volumes are released by Now.
func (v *View) VisibleCount(p *Prod) int {
	if p.paged {
		return p.VolumeIndex.Count - len(v.future(p))
	}
	n := 0
	for i := range p.volsByNo {
		if !p.volsByNo[i].ReleaseAt.After(v.Now) {
			n++
		}
	}
	return n
}

// pageVisible is how many volumes of the page ref are released by Now.
func pageVisible(ref *contract.VolumePageRef, fut []contract.VolumeRelease) int {
	n := ref.Count
	for _, f := range fut {
		if f.No >= ref.First && f.No <= ref.Last {
			n--
		}
	}
	return n
}

// VolumesRange returns p's volumes released by Now at positions [lo, hi)
// of their ascending order; ok is false while a page it needs is missing
// (recorded for ReadPages).
func (v *View) VolumesRange(p *Prod, lo, hi int) (vols []contract.Volume, ok bool) {
	if !p.paged {
		all := v.Volumes(p)
		lo, hi = min(max(lo, 0), len(all)), min(max(hi, 0), len(all))
		return all[lo:max(lo, hi)], true
	}
	if hi <= lo {
		return []contract.Volume{}, true
	}
	fut := v.future(p)
	out := make([]contract.Volume, 0, hi-lo)
	ok = true
	pos := 0
	for i := range p.VolumeIndex.Pages {
		if pos >= hi {
			break
		}
		n := pageVisible(&p.VolumeIndex.Pages[i], fut)
		if pos+n <= lo {
			pos += n
			continue
		}
		pg := v.page(p, i)
		if pg == nil {
			ok = false
			pos += n
			continue
		}
		j := pos
		for _, vol := range pg.Volumes {
			if vol.ReleaseAt.After(v.Now) {
				continue
			}
			if j >= lo && j < hi {
				out = append(out, vol)
			}
			j++
		}
		pos += n
	}
	if !ok {
		return nil, false
	}
	return out, true
}

// pageOf is the position in paged p's index of the page holding volume no.
func (p *Prod) pageOf(no int) (int, bool) {
	refs := p.VolumeIndex.Pages
	i := sort.Search(len(refs), func(i int) bool { return refs[i].Last >= no })
	if i == len(refs) || refs[i].First > no {
		return 0, false
	}
	return i, true
}

// VolumeByNo returns p's volume no when it is released by Now (nil when
// not); ok is false while its page is missing.
func (v *View) VolumeByNo(p *Prod, no int) (vol *contract.Volume, ok bool) {
	vol, ok = v.volumeAny(p, no)
	if vol != nil && vol.ReleaseAt.After(v.Now) {
		return nil, ok
	}
	return vol, ok
}

// EarlyVolumeByNo returns p's volume no when it is sold early at Now (nil
// when not): the viewer's manifest of an episode bought before its release.
// ok is false while its page is missing.
func (v *View) EarlyVolumeByNo(p *Prod, no int) (vol *contract.Volume, ok bool) {
	for _, r := range v.EarlyVolumes(p) {
		if r.No == no {
			return v.volumeAny(p, no)
		}
	}
	return nil, true
}

// volumeAny is p's volume no whatever its release (nil when none).
func (v *View) volumeAny(p *Prod, no int) (vol *contract.Volume, ok bool) {
	var vols []contract.Volume
	if p.paged {
		i, found := p.pageOf(no)
		if !found {
			return nil, true
		}
		pg := v.page(p, i)
		if pg == nil {
			return nil, false
		}
		vols = pg.Volumes
	} else {
		vols = p.volsByNo
	}
	j, found := slices.BinarySearchFunc(vols, no, func(x contract.Volume, no int) int { return x.No - no })
	if !found {
		return nil, true
	}
	return &vols[j], true
}

// NextRelease is the release instant of p's next volume after Now, or nil.
func (v *View) NextRelease(p *Prod) *time.Time {
	var next *time.Time
	if p.paged {
		if fut := v.future(p); len(fut) > 0 {
			t := fut[0].At
			next = &t
		}
		return next
	}
	for _, vol := range p.Volumes {
		if vol.ReleaseAt.After(v.Now) && (next == nil || vol.ReleaseAt.Before(*next)) {
			t := vol.ReleaseAt
			next = &t
		}
	}
	return next
}

// Sales sums the paid offers of p's non-free volumes released by Now: from
// the page references for pages all out, from the page itself for a page
// with volumes still to come. ok is false while such a page is missing.
func (v *View) Sales(p *Prod) (buy, rent contract.PriceSpan, ok bool) {
	add := func(vol *contract.Volume) {
		if vol.IsFree || vol.ReleaseAt.After(v.Now) {
			return
		}
		buy.Add(vol.BuyPrice)
		rent.Add(vol.RentPrice)
	}
	if !p.paged {
		for i := range p.volsByNo {
			add(&p.volsByNo[i])
		}
		return buy, rent, true
	}
	ok = true
	for i := range p.VolumeIndex.Pages {
		ref := &p.VolumeIndex.Pages[i]
		switch {
		case ref.FirstRelease.After(v.Now):
			// Nothing of it out yet.
		case !ref.LastRelease.After(v.Now):
			buy.Merge(ref.Buy)
			rent.Merge(ref.Rent)
		default:
			pg := v.page(p, i)
			if pg == nil {
				ok = false
				continue
			}
			for j := range pg.Volumes {
				add(&pg.Volumes[j])
			}
		}
	}
	return buy, rent, ok
}

// EnsureVolumePage fetches, if need be, the page holding volume no of
// paged work pid (nil, nil for an unknown work or volume, or one held
// inline): the content path calls it, outside the lock, when Content
// answered PageNotLoaded.
func (s *Store) EnsureVolumePage(ctx context.Context, pid string, no int) (*contract.VolumePage, error) {
	s.mu.RLock()
	p := s.products[pid]
	var k PageKey
	found := false
	if p != nil && p.paged {
		var i int
		if i, found = p.pageOf(no); found {
			ref := &p.VolumeIndex.Pages[i]
			k = PageKey{PID: p.PID, Index: ref.Index, Hash: ref.Hash}
		}
	}
	s.mu.RUnlock()
	if !found || s.pages == nil {
		return nil, nil
	}
	return s.pages.Get(ctx, k)
}

// DetailVolumesMax is how many volumes a paged work's detail lists in
// full; beyond it the detail lists the first and the newest
// contract.VolumePageSize and the rest comes from the volume list, page by
// page (edge/render.ProductDetail).
const DetailVolumesMax = 1000

// PinBehind is how long after its release a volume's pages stay pinned:
// the release minute's rush and its aftermath. It was 24 hours, which at
// 150,000 works pinned the pages of every work released that day (about
// 15,000 works, 0.5 GB) and took so long to fetch one page at a time that
// the 23:00 works' new pages were not in yet at 23:00
// (cmd/catalogbench); after the hour the LRU holds what is still read.
const PinBehind = time.Hour

// PinnedPages is what the release minute reads of the paged works with a
// volume released within PinBehind before now or to be released within
// ahead of it: every page of a work whose detail lists every volume
// (DetailVolumesMax), else the work's first page (the detail's first
// volumes), the page holding each such volume and the ten before it (the
// newest 100 of the detail, and the newest 1,000 of the volume list, the
// size the frontend asks). They are kept in memory ahead of time
// (VolumePages.SetPins).
//
// The works come from the pin index (pinindex.go), not from a walk of
// every work; while the store loads, from the walk (scanPinnedPages).
func (s *Store) PinnedPages(now time.Time, ahead time.Duration) []PageKey {
	from, to := now.Add(-PinBehind), now.Add(ahead)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.loading.Load() {
		return s.scanPinnedPages(from, to)
	}
	var out []PageKey
	for _, pid := range s.pins.due(s.products, from, to) {
		if p := s.products[pid]; p != nil {
			out = pinWork(out, p, from, to)
		}
	}
	return out
}

// scanPinnedPages is PinnedPages by a walk of every work. Caller holds
// the store's read lock.
func (s *Store) scanPinnedPages(from, to time.Time) []PageKey {
	var out []PageKey
	for _, p := range s.products {
		out = pinWork(out, p, from, to)
	}
	return out
}

// pinWork appends the pages of p PinnedPages pins for the window (from, to].
func pinWork(out []PageKey, p *Prod, from, to time.Time) []PageKey {
	if !p.paged || p.Hidden {
		return out
	}
	r := p.VolumeIndex.Recent
	if len(r) == 0 || !r[len(r)-1].At.After(from) {
		return out
	}
	start := len(out)
	pin := func(i int) {
		if i < 0 {
			return
		}
		ref := &p.VolumeIndex.Pages[i]
		k := PageKey{PID: p.PID, Index: ref.Index, Hash: ref.Hash}
		if !slices.Contains(out[start:], k) {
			out = append(out, k)
		}
	}
	for _, x := range r {
		if !x.At.After(from) || x.At.After(to) {
			continue
		}
		if p.VolumeIndex.Count <= DetailVolumesMax {
			for i := range p.VolumeIndex.Pages {
				pin(i)
			}
			break
		}
		if i, ok := p.pageOf(x.No); ok {
			pin(0)
			for j := i - DetailVolumesMax/contract.VolumePageSize; j <= i; j++ {
				pin(j)
			}
		}
	}
	return out
}
