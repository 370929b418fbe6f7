package catalog

import (
	"slices"
	"sync"
	"time"
)

// The pin index answers PinnedPages without walking every work each minute
// (issue 35: at 150,000 works that walk held the read lock for every
// work's volume index). Each paged, visible work is filed once, under the
// hour of its first recent release (VolumeIndex.Recent) still inside
// PinBehind of the clock, since nothing earlier is pinned again. A query
// takes the works filed up to the end of its window, pins them as the scan
// did, and files each again under its first release after the window's
// start: a timer wheel, whose hands are the releases of the works.
//
// Apply files a work as it changes, once the store has loaded; the load's
// end (SetLoading(false)) files every work the initial sync brought, so a
// release scheduled before the edge started is pinned too. The clock is
// taken to go forward: a work's releases at or before the last instant it
// was filed at minus PinBehind are not looked at again.
type pinIndex struct {
	mu    sync.Mutex
	at    map[string]int64              // pid → the hour it is filed under
	hours map[int64]map[string]struct{} // hour (unix seconds / 3600) → pids
}

// pinBytesPerWork is what the index holds per filed work: its pid in two
// maps (string header, map slot) and its share of the hour sets, measured as
// 76 B by TestPinIndexBytesEstimate, which keeps this estimate within a
// factor of two of the heap.
const pinBytesPerWork = 80

// bytes estimates what the index holds (edge_catalog_bytes{model="pins"}):
// per filed work, never per episode.
func (ix *pinIndex) bytes() int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return int64(len(ix.at))*pinBytesPerWork + int64(len(ix.hours))*48
}

// pinSlack: works are filed from a minute before the clock's PinBehind,
// so a PinnedPages whose clock was read just before an Apply's misses no
// release at its window's start.
const pinSlack = time.Minute

// pinFrom is the instant Apply files works after. Caller holds the
// store's write lock.
func (s *Store) pinFrom() time.Time { return s.applyNow.Add(-PinBehind - pinSlack) }

func pinHour(t time.Time) int64 {
	s := t.Unix()
	if s < 0 {
		return (s - 3599) / 3600
	}
	return s / 3600
}

// nextPin is p's first recent release after from, if p is pinned at all.
func nextPin(p *Prod, from time.Time) (time.Time, bool) {
	if p == nil || !p.paged || p.Hidden {
		return time.Time{}, false
	}
	// Recent is ascending by release time as the writer splits it
	// (contract.SplitVolumes); it is short, so no order is relied on.
	var first time.Time
	for _, x := range p.VolumeIndex.Recent {
		if x.At.After(from) && (first.IsZero() || x.At.Before(first)) {
			first = x.At
		}
	}
	return first, !first.IsZero()
}

// file files work pid (p its document, nil: gone) under its first release
// after from, or nowhere. Caller holds ix.mu.
func (ix *pinIndex) file(pid string, p *Prod, from time.Time) {
	if h, ok := ix.at[pid]; ok {
		set := ix.hours[h]
		delete(set, pid)
		if len(set) == 0 {
			delete(ix.hours, h)
		}
		delete(ix.at, pid)
	}
	t, ok := nextPin(p, from)
	if !ok {
		return
	}
	if ix.at == nil {
		ix.at = make(map[string]int64)
		ix.hours = make(map[int64]map[string]struct{})
	}
	h := pinHour(t)
	set := ix.hours[h]
	if set == nil {
		set = make(map[string]struct{})
		ix.hours[h] = set
	}
	set[pid] = struct{}{}
	ix.at[pid] = h
}

// build files every work of products. Caller holds the store's write lock.
func (ix *pinIndex) build(products map[string]*Prod, from time.Time) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.at, ix.hours = nil, nil
	for pid, p := range products {
		ix.file(pid, p, from)
	}
}

// due takes the works filed under hours up to to's, files each again
// under its first release after from, and returns them by pid. Caller
// holds the store's read lock at least.
func (ix *pinIndex) due(products map[string]*Prod, from, to time.Time) []string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	last := pinHour(to)
	var out []string
	for h, set := range ix.hours {
		if h <= last {
			for pid := range set {
				out = append(out, pid)
			}
		}
	}
	slices.Sort(out)
	for _, pid := range out {
		ix.file(pid, products[pid], from)
	}
	return out
}
