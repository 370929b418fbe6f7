package catalog

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"storefront/contract"
)

// TagVolumeMedia is the tag of one volume's content document (the viewer's
// manifest depends on it).
func TagVolumeMedia(pid string, no int) string { return "vm:" + pid + "." + strconv.Itoa(no) }

// TagProductMedia is the tag of every volume content document of a work (its
// detail and volume list name each volume's current version).
func TagProductMedia(pid string) string { return "pm:" + pid }

// applyVolumeMedia stores or removes media.vol.<pid>.<no>. Caller holds s.mu.
func (s *Store) applyVolumeMedia(rest string, doc any, del bool) {
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return
	}
	pid := rest[:i]
	no, err := strconv.Atoi(rest[i+1:])
	if err != nil {
		return
	}
	byNo := s.volMedia[pid]
	if del {
		delete(byNo, no)
		if len(byNo) == 0 {
			delete(s.volMedia, pid)
		}
		s.tags.Bump(TagVolumeMedia(pid, no))
		s.tags.Bump(TagProductMedia(pid))
		return
	}
	m, ok := doc.(*contract.VolumeMedia)
	if !ok {
		return
	}
	if old := byNo[no]; old != nil && m.Version != 0 && m.Version < old.Version {
		return // an older document arriving late
	}
	if byNo == nil {
		byNo = make(map[int]*contract.VolumeMedia)
		s.volMedia[pid] = byNo
	}
	byNo[no] = m
	s.tags.Bump(TagVolumeMedia(pid, no))
	s.tags.Bump(TagProductMedia(pid))
}

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
)

// Page resolves page n (from 1) of version ver of volume no of work pid for an
// audience at now: the picture (WT/CM) or the text chunk (EB) and whether a
// token is needed. adult reports an adult work (its pages must stay out of
// shared caches). The documents returned are never modified after they are
// stored, so they may be read after the lock is released. It allocates
// nothing: every page of a release spike comes through here.
func (s *Store) Page(now time.Time, teen bool, pid []byte, no int, ver []byte, n int) (img *contract.MediaImage, text *contract.MediaText, access PageAccess, adult bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.products[string(pid)]
	if p == nil || p.Hidden || teen && p.IsAdult() {
		return nil, nil, PageMissing, false
	}
	i, found := slices.BinarySearchFunc(p.volsByNo, no, func(v contract.Volume, no int) int { return v.No - no })
	if !found || p.volsByNo[i].ReleaseAt.After(now) {
		return nil, nil, PageMissing, false
	}
	vol := &p.volsByNo[i]
	m := s.volMedia[string(pid)][no]
	if m == nil || n < 1 {
		return nil, nil, PageMissing, false
	}
	v := versionOf(m, ver, now)
	if v == nil {
		return nil, nil, PageMissing, false
	}
	switch {
	case v.Kind == contract.MediaKindText && n <= len(v.Texts):
		text = &v.Texts[n-1]
	case v.Kind != contract.MediaKindText && n <= len(v.Pages):
		img = &v.Pages[n-1]
	default:
		return nil, nil, PageMissing, false
	}
	access = PagePaid
	if n <= vol.PreviewPages {
		access = PagePreview
	}
	return img, text, access, p.IsAdult()
}

// versionOf finds version ver of m: the current one, or a replaced one still
// within its grace period at now (a reader who opened it keeps reading).
func versionOf(m *contract.VolumeMedia, ver []byte, now time.Time) *contract.VolumeMediaVersion {
	if m.Current.Ver == string(ver) {
		return &m.Current
	}
	for i := range m.Retired {
		r := &m.Retired[i]
		if r.Ver == string(ver) && (r.RetireAt == nil || now.Before(*r.RetireAt)) {
			return r
		}
	}
	return nil
}

// VolumeMedia returns the content document of volume no of p, or nil; the
// answer depends on it.
func (v *View) VolumeMedia(p *Prod, no int) *contract.VolumeMedia {
	v.Depend(TagVolumeMedia(p.PID, no))
	return v.s.volMedia[p.PID][no]
}

// MediaBase is the base URL of the current version of volume no of p's
// processed content, or "" while it has none.
func (v *View) MediaBase(p *Prod, no int) string {
	v.Depend(TagProductMedia(p.PID))
	m := v.s.volMedia[p.PID][no]
	if m == nil || m.Current.Ver == "" {
		return ""
	}
	return contract.VolumeMediaBase(p.PID, no, m.Current.Ver)
}
