package catalog

import (
	"cmp"
	"slices"
	"time"

	"storefront/contract"
)

// EarlyVolumes is p's volumes sold early (issue 32, 미리보기) by Now: the
// first EarlyCount not released yet, in release order. A paged head answers
// from its Recent releases, which list every volume to come with its title
// when the work is sold early, so the volume list shows them without a page
// fetch. The answer changes at the next release (the first early one comes
// out and another takes its place), which the view records.
func (v *View) EarlyVolumes(p *Prod) []contract.VolumeRelease {
	if p.EarlyCount <= 0 {
		return nil
	}
	if p.paged {
		out := contract.EarlyEpisodes(p.VolumeIndex.Recent, p.EarlyCount, v.Now)
		if len(out) > 0 {
			v.Until(out[0].At)
		}
		return out
	}
	var fut []contract.VolumeRelease
	for i := range p.volsByNo {
		if vol := &p.volsByNo[i]; vol.ReleaseAt.After(v.Now) {
			fut = append(fut, contract.VolumeRelease{No: vol.No, At: vol.ReleaseAt, Free: vol.IsFree, Title: vol.Title})
		}
	}
	slices.SortStableFunc(fut, func(a, b contract.VolumeRelease) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.No, b.No)
	})
	out := contract.EarlyEpisodes(fut, p.EarlyCount, v.Now)
	if len(out) > 0 {
		v.Until(out[0].At)
	}
	return out
}

// IsEarly reports whether volume no of p is sold early at now (the content
// path: its pages are all paid until its release). Allocates nothing for a
// paged head.
func (p *Prod) isEarly(no int, vol *contract.Volume, now time.Time) bool {
	if p.EarlyCount <= 0 || !vol.ReleaseAt.After(now) {
		return false
	}
	if p.paged {
		return contract.IsEarly(p.VolumeIndex.Recent, p.EarlyCount, now, no)
	}
	// Inline: earlier-released volumes to come ahead of it.
	ahead := 0
	for i := range p.volsByNo {
		o := &p.volsByNo[i]
		if o.ReleaseAt.After(now) && (o.ReleaseAt.Before(vol.ReleaseAt) || o.ReleaseAt.Equal(vol.ReleaseAt) && o.No < no) {
			ahead++
		}
	}
	return ahead < p.EarlyCount
}
