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
