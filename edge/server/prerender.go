package server

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"storefront/edge/cache"
	"storefront/edge/catalog"
)

// Answers rendered ahead of a release (issue 35 item 2). At a release
// instant every releasing work's detail and volume list stop being true at
// once (their Until), and on the edge's one core the renders of thousands
// of them queued every reader behind them (release p99 248 ms at 150,000
// works). The works releasing soon (catalog.ReleasingBetween, noted by
// Apply as their new volume arrives) get those answers rendered for the
// release instant prerenderAhead before it, off the request path, and held
// in aheadAnswers with From = the instant: from then a miss takes the
// rendered answer instead of rendering. An answer whose data changed in
// between (its tags bumped) is not valid and is rendered as before.

// prerenderAhead is how long before a release instant its answers are
// rendered: as soon as the releasing heads arrive (20 s ahead in the
// benchmark), within a minute of it. The detail and the volume list read
// no ordered list (View.ListN is the only reader of those), so a render at
// a future instant does not make a list for it that the present's renders
// would then remake.
const prerenderAhead = time.Minute

// aheadMaxBytes bounds the answers held ahead (bodies and their
// compressed variants); releases beyond it render on demand as before.
const aheadMaxBytes = 128 << 20

// prerenderPaths are the answers rendered ahead for a releasing work: what
// a reader opening it at the release asks (detail, volume list newest
// first), for both audiences; with them the viewer's answer of each volume
// released then (its manifest read ahead too).
var prerenderPaths = []string{"", "/volumes?order=latest"}

// aheadAnswers are the answers rendered ahead, by cache key.
type aheadAnswers struct {
	mu    sync.Mutex
	m     map[string]*cache.Entry
	n     atomic.Int64 // len(m): a miss skips the lock when none is held
	bytes int64
	done  map[string]time.Time // pid: the instant rendered for
	// rendered and served count answers (/metrics).
	rendered, served atomic.Uint64
}

// takeAhead returns the answer rendered ahead for key when it is true at
// now, and caches it. It allocates only when it has one.
func (s *Server) takeAhead(key []byte, now time.Time) *cache.Entry {
	if s.ahead.n.Load() == 0 {
		return nil
	}
	s.ahead.mu.Lock()
	e := s.ahead.m[string(key)]
	s.ahead.mu.Unlock()
	// Out of date only by a counters flush since it was rendered, it is
	// served as a cached list is (GetStale): the release minute's flushes
	// would otherwise send every list back to a render at the instant.
	if e == nil || !e.ValidOrSoftStale(now.UnixNano()) {
		return nil
	}
	s.ahead.served.Add(1)
	// A copy: Set writes the entry's key, and misses at the instant take
	// the same answer at once. Cached as held, without its plain body
	// (renderAhead): the readers who take no compression get it restored
	// (plainBody), the others the bytes as they are, so the instant's
	// thousands of misses cost no gunzip.
	c := *e
	s.cache.Set(key, &c)
	s.clocked.note(string(key), c.Until)
	return &c
}

// prerenderReleases renders ahead, every half second, the answers of the
// works releasing within prerenderAhead, until ctx ends.
func (s *Server) prerenderReleases(ctx context.Context) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s.synced.Load() {
			s.prerender(ctx, s.cfg.Now())
		}
	}
}

// prerender renders the answers of the works releasing in (now,
// now+prerenderAhead] for their release instant and forgets those of
// releases a minute past. It reports how many answers it rendered.
func (s *Server) prerender(ctx context.Context, now time.Time) int {
	a := &s.ahead
	a.mu.Lock()
	for k, e := range a.m {
		if e.From < now.Add(-time.Minute).UnixNano() {
			a.bytes -= entryBytes(e)
			delete(a.m, k)
		}
	}
	for pid, at := range a.done {
		if at.Before(now.Add(-time.Minute)) {
			delete(a.done, pid)
		}
	}
	a.n.Store(int64(len(a.m)))
	a.mu.Unlock()
	n := s.prerenderClocked(ctx, now)
	for _, r := range s.store.ReleasingBetween(now, now.Add(prerenderAhead)) {
		a.mu.Lock()
		done := a.done[r.PID].Equal(r.At) || a.bytes >= aheadMaxBytes
		a.mu.Unlock()
		if done {
			continue
		}
		paths := prerenderPaths
		for _, no := range s.store.VolumesAt(r.PID, r.At) {
			paths = append(paths[:len(paths):len(paths)], "/volumes/"+strconv.Itoa(no)+"/media")
		}
		for _, p := range paths {
			uri := APIPrefix + "products/" + r.PID + p
			for _, prefix := range []string{"a", "t"} {
				if s.holdAhead(ctx, prefix+uri, r.At) {
					n++
				}
			}
		}
		a.mu.Lock()
		if a.done == nil {
			a.done = make(map[string]time.Time)
		}
		a.done[r.PID] = r.At
		a.mu.Unlock()
	}
	return n
}

// holdAhead renders the answer of key (audience prefix and request URI)
// for instant at and holds it for then; false when it could not be
// rendered.
func (s *Server) holdAhead(ctx context.Context, key string, at time.Time) bool {
	e := s.renderAhead(ctx, key[1:], key[0] == 't', at)
	if e == nil {
		return false
	}
	a := &s.ahead
	a.rendered.Add(1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = make(map[string]*cache.Entry)
	}
	if old := a.m[key]; old != nil {
		a.bytes -= entryBytes(old)
	}
	a.m[key] = e
	a.bytes += entryBytes(e)
	a.n.Store(int64(len(a.m)))
	return true
}

// renderAhead renders uri's answer for a reader at instant at (teen: the
// all-ages audience), compressed; nil when it cannot be rendered now.
func (s *Server) renderAhead(ctx context.Context, uri string, teen bool, at time.Time) *cache.Entry {
	var rc fasthttp.RequestCtx
	rc.Request.SetRequestURI(uri)
	fn, ok := s.route(&rc)
	if !ok {
		return nil
	}
	c, cancel := context.WithTimeout(ctx, s.cfg.MediaTimeout)
	defer cancel()
	ahead := func(v *catalog.View) (int, any) {
		v.MarkAhead()
		return fn(v)
	}
	e, ok := s.build(c, uri, ahead, at, teen)
	if !ok {
		return nil
	}
	if e.NeedsCompression() {
		// Held compressed only: at 150,000 works a release's 1,436 works
		// made 5,744 answers of 53 KB on average with their plain bodies,
		// and 64 MiB held the first fifth of them (catalogbench); the rest
		// were rendered at the instant.
		e = e.Compressed().WithoutPlain()
	}
	e.From = at.UnixNano()
	return e
}

func entryBytes(e *cache.Entry) int64 {
	return int64(len(e.Body) + len(e.Gzip) + len(e.Brotli) + 64)
}

// aheadBytes is what the answers rendered ahead hold (/metrics).
func (s *Server) aheadBytes() int64 {
	s.ahead.mu.Lock()
	defer s.ahead.mu.Unlock()
	return s.ahead.bytes
}

// Answers that end at an instant (issue 35 item 4). At a release instant
// every list, ranking and home answer of the sections releasing ends at
// once (their Until is the section's next release), and on the edge's one
// core their renders at the instant queued every reader behind them
// (catalogbench: the 72 rankings asked at T0 had a p99 of 1-2 s). Each
// answer rendered on a miss notes its key when it ends by the clock; a
// little before that instant, clockedAhead before it, the answers ending
// then are rendered for it and held with the releasing works' answers, so
// the instant's misses take them. Only what was asked is rendered again:
// the keys come from readers, at most clockedMax of them.

// clockedMax bounds the keys noted; one more is not noted until an
// instant passes.
const clockedMax = 2048

// clockedAhead is how long before its instant an answer is rendered: within
// the window in which the store has the recent lists made for the instant
// (catalog's prepareAhead, 10 s), so rendering one sorts nothing.
const clockedAhead = 8 * time.Second

// clockedAnswers are the keys of cached answers that end at an instant.
type clockedAnswers struct {
	mu   sync.Mutex
	m    map[string]int64 // key → Until (unix ns)
	done map[string]int64 // key → the instant it was rendered for
}

// note records that the answer of key ends at until (0: by no instant).
func (c *clockedAnswers) note(key string, until int64) {
	if until == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m, c.done = make(map[string]int64), make(map[string]int64)
	}
	if _, ok := c.m[key]; ok || len(c.m) < clockedMax {
		c.m[key] = until
	}
}

// due returns the keys whose answers end in (now, now+clockedAhead] and
// were not rendered for that instant yet, with the instant each ends at,
// and forgets the keys whose instant has passed.
func (c *clockedAnswers) due(now time.Time) (keys []string, ats []int64) {
	n, to := now.UnixNano(), now.Add(clockedAhead).UnixNano()
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, u := range c.m {
		switch {
		case u <= n:
			delete(c.m, k)
			delete(c.done, k)
		case u <= to && c.done[k] != u:
			c.done[k] = u
			keys, ats = append(keys, k), append(ats, u)
		}
	}
	return keys, ats
}

// prerenderClocked renders for their instant the noted answers ending
// within clockedAhead of now, while the answers held ahead fit in
// aheadMaxBytes. It reports how many it rendered.
func (s *Server) prerenderClocked(ctx context.Context, now time.Time) int {
	keys, ats := s.clocked.due(now)
	n := 0
	for i, k := range keys {
		if s.aheadBytes() >= aheadMaxBytes || ctx.Err() != nil {
			break
		}
		if s.holdAhead(ctx, k, time.Unix(0, ats[i])) {
			n++
		}
	}
	return n
}
