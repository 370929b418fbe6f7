package catalog

import (
	"sync"

	json "github.com/go-json-experiment/json"

	"storefront/contract"
)

// reviewDoc is a work's review list as the store holds it. While the store
// loads (SetLoading: the initial sync, from a snapshot or a replay) a list
// is kept as its JSON and decoded by the first read that needs it: at
// 150,000 works the review lists are about 40% of the catalog's bytes
// (cmd/catalogbench), and most of them are not read in an edge's first
// minutes, so decoding them all held up ready. A list that arrives after
// the load is decoded at once, as before, so a bad document is skipped and
// the previous one kept.
type reviewDoc struct {
	once sync.Once
	raw  []byte // the JSON until decoded
	pid  string
	list *contract.ReviewList
}

// get is the decoded list; nil when the kept JSON turns out not to decode
// (a document the writer never produces: it answers as no reviews).
func (r *reviewDoc) get() *contract.ReviewList {
	r.once.Do(func() {
		if r.raw == nil {
			return
		}
		var d contract.ReviewList
		if err := json.Unmarshal(r.raw, &d); err == nil {
			if d.PID == "" {
				d.PID = r.pid
			}
			r.list = &d
		}
		r.raw = nil
	})
	return r.list
}

// decodeReviews reads a reviews.<pid> document: kept as JSON while the
// store loads, decoded otherwise.
func decodeReviews(pid string, v []byte, lazy bool) (*reviewDoc, error) {
	if lazy {
		// v is the value's own allocation (a snapshot record's, a NATS
		// message's): kept as it is, no copy.
		return &reviewDoc{raw: v, pid: pid}, nil
	}
	var d contract.ReviewList
	if err := json.Unmarshal(v, &d); err != nil {
		return nil, err
	}
	if d.PID == "" {
		d.PID = pid
	}
	r := &reviewDoc{list: &d}
	r.once.Do(func() {})
	return r, nil
}

// SetLoading says whether the store is loading its initial state: review
// lists arriving meanwhile are kept as JSON until first read (reviewDoc),
// and the search and pin indexes are left alone until the load ends, when
// they are built once from every work (searchIndex.build, pinIndex.build). The edge sets it until its
// initial sync ends, before it reports ready.
func (s *Store) SetLoading(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading.Store(on)
	if on {
		s.search.deferred, s.pins.deferred = true, true
		return
	}
	if s.search.deferred {
		// Answers do not change (searches scanned meanwhile), so no tag is bumped.
		s.search.build(s.products)
	}
	if s.pins.deferred {
		s.pins.build(s.products, s.pinFrom())
	}
}
