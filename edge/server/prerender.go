package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"storefront/edge/cache"
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
// first), for both audiences.
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
	if e == nil || !e.Valid(now.UnixNano()) {
		return nil
	}
	// Held without its plain body (renderAhead): restored once, here, a
	// gunzip instead of a render and two compressions.
	c, err := e.WithPlain()
	if err != nil {
		s.log.Error("answer rendered ahead", "key", string(key), "err", err)
		return nil
	}
	s.ahead.served.Add(1)
	// A copy: Set writes the entry's key, and misses at the instant take
	// the same answer at once.
	if c == e {
		cp := *e
		c = &cp
	}
	s.cache.Set(key, c)
	return c
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
	n := 0
	for _, r := range s.store.ReleasingBetween(now, now.Add(prerenderAhead)) {
		a.mu.Lock()
		done := a.done[r.PID].Equal(r.At) || a.bytes >= aheadMaxBytes
		a.mu.Unlock()
		if done {
			continue
		}
		for _, p := range prerenderPaths {
			uri := APIPrefix + "products/" + r.PID + p
			for _, prefix := range []string{"a", "t"} {
				e := s.renderAhead(ctx, uri, prefix == "t", r.At)
				if e == nil {
					continue
				}
				n++
				a.rendered.Add(1)
				a.mu.Lock()
				if a.m == nil {
					a.m, a.done = make(map[string]*cache.Entry), make(map[string]time.Time)
				}
				if old := a.m[prefix+uri]; old != nil {
					a.bytes -= entryBytes(old)
				}
				a.m[prefix+uri] = e
				a.bytes += entryBytes(e)
				a.n.Store(int64(len(a.m)))
				a.mu.Unlock()
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
	e, ok := s.build(c, uri, fn, at, teen)
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
