package server

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/edge/catalog"
)

// initialBatch is how many entries the initial sync decodes and applies at a
// time: large enough to keep the lock rarely taken, small enough to bound memory.
const initialBatch = 2048

// watch feeds the store from one WatchAll on the catalog bucket. The first
// nil entry ends the initial sync and makes the edge ready. When the watcher
// ends (NATS lost for good, bucket recreated) it is restarted from the last
// applied revision; the edge keeps serving what it has meanwhile.
func (s *Server) watch(ctx context.Context) error {
	for {
		err := s.watchOnce(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.log.Warn("catalog watch interrupted, restarting", "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// restartWatch asks the running watch to restart (after a reconnect).
func (s *Server) restartWatch() {
	select {
	case s.restart <- struct{}{}:
	default:
	}
}

func (s *Server) watchOnce(ctx context.Context) error {
	var opts []jetstream.WatchOpt
	rev, _, _, _ := s.store.Stats()
	if s.synced.Load() && rev > 0 {
		opts = append(opts, jetstream.ResumeFromRevision(rev+1))
	} else if from := s.snapshotStart(ctx); from > 0 {
		opts = append(opts, jetstream.ResumeFromRevision(from))
	}
	w, err := s.kv.WatchAll(ctx, opts...)
	if err != nil {
		return fmt.Errorf("watch %s: %w", s.kv.Bucket(), err)
	}
	defer w.Stop()
	s.watchingSince.Store(time.Now().UnixNano())
	defer s.watchingSince.Store(0)
	var batch []catalog.Update
	flush := func() {
		if len(batch) == 0 {
			return
		}
		for _, err := range s.store.Apply(s.cfg.Now(), batch...) {
			s.log.Warn("catalog document skipped", "err", err)
		}
		s.m.applied.Add(float64(len(batch)))
		batch = batch[:0]
		s.store.FlushCounters(s.cfg.Now())
	}
	initial := !s.synced.Load()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.restart:
			flush()
			return fmt.Errorf("restart asked (nats reconnected, or the watch stalled)")
		case e, ok := <-w.Updates():
			if !ok {
				flush()
				return fmt.Errorf("watcher closed")
			}
			if e == nil {
				// End of the initial values (or of the replay after a resume).
				flush()
				if initial {
					initial = false
					s.markSynced()
				}
				continue
			}
			batch = append(batch, catalog.Update{
				Key:      e.Key(),
				Value:    e.Value(),
				Delete:   e.Operation() != jetstream.KeyValuePut,
				Revision: e.Revision(),
			})
			if initial {
				if len(batch) >= initialBatch {
					flush()
				}
				continue
			}
			// Live updates: take whatever else is already queued, then apply,
			// so a burst costs one lock and one tag sweep.
			for more := true; more && len(batch) < initialBatch; {
				select {
				case e2, ok := <-w.Updates():
					if !ok || e2 == nil {
						more = false
						break
					}
					batch = append(batch, catalog.Update{Key: e2.Key(), Value: e2.Value(),
						Delete: e2.Operation() != jetstream.KeyValuePut, Revision: e2.Revision()})
				default:
					more = false
				}
			}
			flush()
		}
	}
}

func (s *Server) markSynced() {
	now := s.cfg.Now()
	_, _, applied, products := s.store.Stats()
	s.syncedAt = now
	s.store.SetLoading(false)
	s.synced.Store(true)
	close(s.syncDone)
	s.ready.Set(true, "")
	// After ready: at 150,000 works the twelve sorts take 2-3 CPU-seconds,
	// and a render that needs one of them meanwhile waits for its build
	// (listIndex.claim) instead of sorting again.
	go s.store.WarmLists(now)
	// This is what the bucket held when the edge started. Right after a first
	// import the writer's relay has not published yet, so it can be nothing,
	// and a bare "entries=0 products=0" next to "ready" read as an empty store
	// (issue 24): say so. The launcher's "store ready" line gives the count
	// once the edge has caught up (CaughtUp).
	took := time.Since(s.startedAt).Round(time.Millisecond)
	if products == 0 {
		s.log.Info("catalog bucket read: no works published yet, serving them as they arrive", "entries", applied, "took", took)
		return
	}
	s.log.Info("catalog bucket read", "entries", applied, "products", products, "took", took)
}

// CaughtUp reports whether the edge has applied the catalog bucket up to its
// newest revision, and how many works it holds. The edge is ready as soon as
// it has read what the bucket held at its start; a launcher that has just
// imported a catalog asks this before it calls the store ready, so the count
// it reports is the store's.
func (s *Server) CaughtUp(ctx context.Context) (bool, int, error) {
	last, err := s.bucketRevision(ctx)
	if err != nil {
		return false, 0, err
	}
	rev, _, _, products := s.store.Stats()
	return s.synced.Load() && rev >= last, products, nil
}

// watchConnection tracks NATS connectivity for staleness reporting and
// restarts the watch from the last revision after a reconnect, so updates
// made while the edge was cut off are caught up.
func (s *Server) watchConnection(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// Lists catch up with counters that stopped changing (the last
		// zzim of a burst): see catalog.FlushCounters.
		s.store.FlushCounters(s.cfg.Now())
		if s.nc.IsConnected() {
			if s.disconnectedAt.Swap(0) != 0 {
				s.log.Info("nats back, catching up the catalog")
				s.restartWatch()
			}
		} else if s.disconnectedAt.Load() == 0 {
			s.disconnectedAt.Store(time.Now().UnixNano())
		}
	}
}

// watchProgress catches a watch that stopped delivering while the
// connection stayed up: its ordered consumer deleted or lost on the server
// (a JetStream leader change, an operator's mistake), a subscription the
// client dropped as a slow consumer. Every WatchCheck it reads the bucket's
// last revision; when the edge has not applied a revision that already
// existed at the previous check, it is behind since that check (a busy
// bucket whose watch keeps up is never behind: each check only asks for what
// existed one check ago). After three checks behind, the watch is restarted
// from the last applied revision.
func (s *Server) watchProgress(ctx context.Context) {
	t := time.NewTicker(s.cfg.WatchCheck)
	defer t.Stop()
	var target uint64 // the bucket's last revision at the previous check
	var targetAt, restarted time.Time
	var initRev uint64 // during the initial sync: the last applied revision seen, and since when
	var initAt time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !s.synced.Load() && s.nc.IsConnected() {
			// The initial sync is behind the bucket by design (a big catalog
			// takes seconds), so it is never compared with it; a watch that
			// applies nothing at all for three checks while the bucket holds
			// revisions is restarted, as after the sync: a cluster electing
			// its streams' leaders at start-up once left an edge unready.
			ws := s.watchingSince.Load()
			if rev, _, _, _ := s.store.Stats(); ws == 0 || rev != initRev || initAt.IsZero() || initAt.UnixNano() < ws {
				initRev, initAt = rev, time.Now()
			} else if time.Since(initAt) >= 3*s.cfg.WatchCheck && time.Since(restarted) >= 3*s.cfg.WatchCheck {
				cctx, cancel := context.WithTimeout(ctx, s.cfg.WatchCheck)
				last, err := s.bucketRevision(cctx)
				cancel()
				if err == nil && last > rev {
					s.log.Warn("catalog watch delivers nothing during the initial sync, restarting it",
						"applied_revision", rev, "bucket_revision", last, "still", time.Since(initAt).Round(time.Millisecond))
					s.m.watchRestarts.Inc()
					s.restartWatch()
					restarted, initAt = time.Now(), time.Now()
				}
			}
		}
		if !s.synced.Load() || !s.nc.IsConnected() {
			// Before the first sync there is nothing to compare; while
			// disconnected, watchConnection reports the staleness.
			target, targetAt = 0, time.Time{}
			s.behindSince.Store(0)
			continue
		}
		rev, _, _, _ := s.store.Stats()
		if rev >= target {
			s.behindSince.Store(0)
		} else if s.behindSince.Load() == 0 {
			s.behindTarget.Store(target)
			s.behindSince.Store(targetAt.UnixNano())
		}
		// A restarted watch gets three checks of its own before the next.
		if b := s.behindSince.Load(); b != 0 && time.Since(time.Unix(0, b)) >= 3*s.cfg.WatchCheck &&
			time.Since(restarted) >= 3*s.cfg.WatchCheck {
			s.log.Warn("catalog watch delivers nothing while the bucket moved on, restarting it",
				"applied_revision", rev, "bucket_revision", target, "behind", time.Since(time.Unix(0, b)).Round(time.Millisecond))
			s.m.watchRestarts.Inc()
			s.restartWatch()
			restarted = time.Now()
		}
		cctx, cancel := context.WithTimeout(ctx, s.cfg.WatchCheck)
		last, err := s.bucketRevision(cctx)
		cancel()
		if err != nil {
			s.log.Warn("catalog bucket status", "err", err)
			continue
		}
		target, targetAt = last, time.Now()
	}
}

// bucketRevision is the catalog bucket's last revision.
func (s *Server) bucketRevision(ctx context.Context) (uint64, error) {
	st, err := s.kv.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("catalog bucket status: %w", err)
	}
	bs, ok := st.(*jetstream.KeyValueBucketStatus)
	if !ok {
		return 0, fmt.Errorf("catalog bucket status: unexpected type %T", st)
	}
	return bs.StreamInfo().State.LastSeq, nil
}

// Staleness is how long the edge has been cut off from catalog updates: the
// time since NATS was lost, or since the bucket has held a revision the watch
// has not delivered although the connection is up (0 when caught up).
func (s *Server) Staleness() time.Duration {
	var d time.Duration
	if at := s.disconnectedAt.Load(); at != 0 && !s.nc.IsConnected() {
		d = time.Since(time.Unix(0, at))
	}
	if at := s.behindSince.Load(); at != 0 {
		if rev, _, _, _ := s.store.Stats(); rev >= s.behindTarget.Load() {
			return d // caught up since the last check
		}
		d = max(d, time.Since(time.Unix(0, at)))
	}
	return d
}
