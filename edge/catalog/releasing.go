package catalog

import (
	"sync"
	"time"
)

// Works releasing soon (issue 35 item 2): Apply notes each work whose next
// volume release is within soonWindow of the instant it is applied (a
// scheduled episode arrives ahead of its release, 20 s in the benchmark),
// so the edge can render the releasing works' answers for the release
// instant ahead of it (server.prerender) without walking every work of the
// store. Works already scheduled before the edge started are found by the
// pin index (pinindex.go, filled when the initial sync ends), which
// PinnedPages answers from; this index is what changed since.

// soonWindow is how far ahead of its release a work applied is noted.
const soonWindow = time.Hour

// Release is a work's volume release instant.
type Release struct {
	PID string
	At  time.Time
}

// soonIndex is the works noted by Apply, by pid, with their next release.
type soonIndex struct {
	mu sync.Mutex
	m  map[string]time.Time
}

// noteRelease notes p's next release after now when it is within
// soonWindow. Caller holds the store's write lock (Apply).
func (s *Store) noteRelease(p *Prod, now time.Time) {
	if p == nil || p.Hidden || now.IsZero() {
		return
	}
	t, ok := nextReleaseAfter(p, now)
	if !ok || t.After(now.Add(soonWindow)) {
		return
	}
	s.soon.mu.Lock()
	if s.soon.m == nil {
		s.soon.m = make(map[string]time.Time)
	}
	s.soon.m[p.PID] = t
	s.soon.mu.Unlock()
}

// ReleasingBetween is the noted works whose release is in (from, to], and
// forgets those released at or before from: O(noted), not O(works).
func (s *Store) ReleasingBetween(from, to time.Time) []Release {
	s.soon.mu.Lock()
	defer s.soon.mu.Unlock()
	var out []Release
	for pid, t := range s.soon.m {
		switch {
		case !t.After(from):
			delete(s.soon.m, pid)
		case !t.After(to):
			out = append(out, Release{PID: pid, At: t})
		}
	}
	return out
}

// VolumesAt is the numbers of pid's volumes released at instant at: the
// episodes a releasing work's readers open first (their viewer answers are
// rendered ahead with its detail, server.prerender).
func (s *Store) VolumesAt(pid string, at time.Time) []int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.products[pid]
	if p == nil {
		return nil
	}
	var out []int
	if p.paged {
		if p.VolumeIndex == nil {
			return nil
		}
		for _, x := range p.VolumeIndex.Recent {
			if x.At.Equal(at) {
				out = append(out, x.No)
			}
		}
		return out
	}
	for i := range p.volsByNo {
		if p.volsByNo[i].ReleaseAt.Equal(at) {
			out = append(out, p.volsByNo[i].No)
		}
	}
	return out
}
