package catalog

import (
	"slices"
	"time"

	"storefront/contract"
)

// Image returns the public image named id (a path's bytes), or nil. It takes
// the read lock and allocates nothing: it is on every cover request.
func (s *Store) Image(id []byte) *contract.MediaImage {
	s.mu.RLock()
	img := s.images[string(id)]
	s.mu.RUnlock()
	return img
}

// PageAccess is what a content request may see of one page.
type PageAccess int

const (
	// PageMissing: no such work for this audience, volume not released,
	// version unknown or retired, page out of range.
	PageMissing PageAccess = iota
	// PagePreview: readable by anyone who may see the work.
	PagePreview
	// PagePaid: readable with a content token for the volume.
	PagePaid
	// PageNotLoaded: the work is paged and the page holding the volume is
	// not cached: fetch it (EnsureVolumePage, outside the lock) and ask
	// again with it (ContentWith).
	PageNotLoaded
)

// Content resolves version ver of volume no of work pid for an audience at
// now: whether the version may be read (the volume's current one, or a
// replaced one still within its grace period: a reader who opened it keeps
// reading), whether page n (from 1) needs a token, and whether the work is
// adult (its pages must stay out of shared caches). Whether page n exists
// is the version's manifest's to say. It allocates nothing: every page of a
// release spike comes through here.
func (s *Store) Content(now time.Time, teen bool, pid []byte, no int, ver []byte, n int) (access PageAccess, adult bool) {
	return s.ContentWith(now, teen, pid, no, ver, n, nil)
}

// ContentWith is Content with the volume's page at hand (from
// EnsureVolumePage): a page newer than the head is used as it is.
func (s *Store) ContentWith(now time.Time, teen bool, pid []byte, no int, ver []byte, n int, pg *contract.VolumePage) (access PageAccess, adult bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.products[string(pid)]
	if p == nil || p.Hidden || teen && p.IsAdult() {
		return PageMissing, false
	}
	vols := p.volsByNo
	if p.paged {
		pi, ok := p.pageOf(no)
		if !ok {
			return PageMissing, false
		}
		ref := &p.VolumeIndex.Pages[pi]
		if pg == nil || pg.PID != p.PID || pg.Index != ref.Index {
			pg = s.pages.Peek(PageKey{PID: p.PID, Index: ref.Index, Hash: ref.Hash})
		}
		if pg == nil {
			return PageNotLoaded, p.IsAdult()
		}
		vols = pg.Volumes
	}
	i, found := slices.BinarySearchFunc(vols, no, func(v contract.Volume, no int) int { return v.No - no })
	if !found {
		return PageMissing, false
	}
	vol := &vols[i]
	// A volume sold early exists before its release for its buyers only:
	// every page paid (their content token), no public preview yet.
	early := p.isEarly(no, vol, now)
	if vol.ReleaseAt.After(now) && !early || !readable(vol, ver, now) {
		return PageMissing, false
	}
	access = PagePaid
	if n <= vol.PreviewPages && !early {
		access = PagePreview
	}
	return access, p.IsAdult()
}

// readable reports whether ver is vol's current version, or a replaced one
// within its grace period at now.
func readable(vol *contract.Volume, ver []byte, now time.Time) bool {
	if len(ver) == 0 {
		return false
	}
	if vol.ContentVer == string(ver) {
		return true
	}
	for i := range vol.ContentRetired {
		r := &vol.ContentRetired[i]
		if r.Ver == string(ver) && now.Before(r.Until) {
			return true
		}
	}
	return false
}

// ContentVer is the current version of volume no of work pid's content, or
// "" (no such work or volume, nothing processed yet, or a paged work's page
// not cached: EnsureVolumePage first): what to fetch the manifest of before
// rendering the volume's manifest answer.
func (s *Store) ContentVer(pid string, no int) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.products[pid]
	if p == nil {
		return ""
	}
	vols := p.volsByNo
	if p.paged {
		pi, ok := p.pageOf(no)
		if !ok {
			return ""
		}
		ref := &p.VolumeIndex.Pages[pi]
		pg := s.pages.Peek(PageKey{PID: p.PID, Index: ref.Index, Hash: ref.Hash})
		if pg == nil {
			return ""
		}
		vols = pg.Volumes
	}
	i, found := slices.BinarySearchFunc(vols, no, func(v contract.Volume, no int) int { return v.No - no })
	if !found {
		return ""
	}
	return vols[i].ContentVer
}

// MediaBase is the base URL of the current version of volume no of p's
// processed content, or "" while it has none.
func (v *View) MediaBase(p *Prod, no int) string {
	v.Depend(TagProduct(p.PID))
	vols := p.volsByNo
	if p.paged {
		pi, ok := p.pageOf(no)
		if !ok {
			return ""
		}
		pg := v.page(p, pi)
		if pg == nil {
			return ""
		}
		vols = pg.Volumes
	}
	i, found := slices.BinarySearchFunc(vols, no, func(v contract.Volume, no int) int { return v.No - no })
	if !found || vols[i].ContentVer == "" {
		return ""
	}
	return contract.VolumeMediaBase(p.PID, no, vols[i].ContentVer)
}
