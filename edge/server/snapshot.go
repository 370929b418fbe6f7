package server

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/edge/catalog"
	"storefront/natsutil"
)

// snapshots is the edge's side of catalog snapshots (issue 35): it starts
// from the latest one instead of replaying the whole bucket, and, when
// SnapshotEvery is set, writes new ones while it holds the snapshot lease.
type snapshots struct {
	tried bool   // the initial watch asked for the snapshot once; watch goroutine only
	from  uint64 // revision the initial watch resumes from (0 = the whole bucket)

	loadedRev  prometheus.Gauge
	loadedKeys prometheus.Gauge
	loadedAge  prometheus.Gauge
	written    prometheus.Counter
	writeFails prometheus.Counter
	lastRev    prometheus.Gauge
}

func (s *Server) registerSnapshotMetrics() {
	m := &s.snap
	m.loadedRev = prometheus.NewGauge(prometheus.GaugeOpts{Name: "edge_catalog_snapshot_loaded_revision",
		Help: "Revision of the catalog snapshot this edge started from (0 = it replayed the bucket)."})
	m.loadedKeys = prometheus.NewGauge(prometheus.GaugeOpts{Name: "edge_catalog_snapshot_loaded_records",
		Help: "Records of the catalog snapshot this edge started from."})
	m.loadedAge = prometheus.NewGauge(prometheus.GaugeOpts{Name: "edge_catalog_snapshot_loaded_age_seconds",
		Help: "Age of the catalog snapshot this edge started from, when it loaded it."})
	m.written = prometheus.NewCounter(prometheus.CounterOpts{Name: "edge_catalog_snapshots_written_total",
		Help: "Catalog snapshots this edge wrote (it holds the snapshot lease)."})
	m.writeFails = prometheus.NewCounter(prometheus.CounterOpts{Name: "edge_catalog_snapshot_write_failures_total",
		Help: "Catalog snapshots this edge failed to write."})
	m.lastRev = prometheus.NewGauge(prometheus.GaugeOpts{Name: "edge_catalog_snapshot_written_revision",
		Help: "Revision of the last catalog snapshot this edge wrote."})
	s.reg.MustRegister(m.loadedRev, m.loadedKeys, m.loadedAge, m.written, m.writeFails, m.lastRev)
}

// snapshotStart is the revision the initial watch starts from: after the
// latest snapshot, which it applies first, or 0 (the whole bucket) when
// snapshots are off, there is none, or it cannot be used. It asks once; a
// restarted initial watch resumes after the same snapshot.
func (s *Server) snapshotStart(ctx context.Context) uint64 {
	if s.snap.tried || s.cfg.NoSnapshot {
		return s.snap.from
	}
	s.snap.tried = true
	start := time.Now()
	lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// Finding the object store is one JetStream request: when it does not
	// answer soon (a cluster still electing leaders), replaying is quicker
	// than waiting out the load's two minutes.
	ectx, ecancel := context.WithTimeout(lctx, 15*time.Second)
	obs, err := natsutil.EnsureSnapshots(ectx, s.js, natsutil.Options{Replicas: s.cfg.NATSReplicas})
	ecancel()
	if err != nil {
		s.log.Warn("catalog snapshot store unavailable, replaying the bucket", "err", err)
		return 0
	}
	info, err := natsutil.ReadSnapshot(lctx, s.kv, obs, initialBatch, func(es []natsutil.SnapshotEntry) {
		ups := make([]catalog.Update, len(es))
		for i, e := range es {
			ups[i] = catalog.Update{Key: e.Key, Value: e.Value, Delete: e.Delete, Revision: e.Revision}
		}
		for _, err := range s.store.Apply(s.cfg.Now(), ups...) {
			s.log.Warn("catalog document skipped", "err", err)
		}
		s.m.applied.Add(float64(len(ups)))
	})
	if errors.Is(err, natsutil.ErrNoSnapshot) {
		s.log.Info("no usable catalog snapshot, replaying the bucket", "why", err)
		return 0
	}
	if err != nil {
		s.log.Warn("catalog snapshot unreadable, replaying the bucket", "err", err)
		return 0
	}
	s.snap.from = info.Revision + 1
	age := time.Since(info.Written)
	s.snap.loadedRev.Set(float64(info.Revision))
	s.snap.loadedKeys.Set(float64(info.Records))
	s.snap.loadedAge.Set(age.Seconds())
	s.log.Info("catalog snapshot loaded, watching from its revision", "revision", info.Revision, "records", info.Records,
		"age", age.Round(time.Second), "bytes", info.Size, "took", time.Since(start).Round(time.Millisecond))
	return s.snap.from
}

// writeSnapshots writes a snapshot every SnapshotEvery while this edge
// holds the snapshot lease, so one edge of the fleet writes at a time. A
// snapshot is skipped when the bucket has not moved since the latest one
// (whoever wrote it) or when the latest is younger than half the interval
// (another edge held the lease a moment ago).
func (s *Server) writeSnapshots(ctx context.Context) {
	if s.cfg.NoSnapshot || s.cfg.SnapshotEvery <= 0 {
		return
	}
	var leases jetstream.KeyValue
	var obs jetstream.ObjectStore
	var ttl time.Duration
	for {
		var err error
		ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if leases, ttl, err = natsutil.EnsureLeases(ectx, s.js, 0, natsutil.Options{Replicas: s.cfg.NATSReplicas, Log: s.log}); err == nil {
			obs, err = natsutil.EnsureSnapshots(ectx, s.js, natsutil.Options{Replicas: s.cfg.NATSReplicas})
		}
		cancel()
		if err == nil {
			break
		}
		s.log.Warn("catalog snapshots: lease or store unavailable, retrying", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Second):
		}
	}
	host, _ := os.Hostname()
	lease := natsutil.NewLease(leases, natsutil.SnapshotLease, host+" "+s.Addr(), ttl, s.log)
	go lease.Run(ctx)
	t := time.NewTicker(s.cfg.SnapshotEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-lease.Gained():
		case <-t.C:
		}
		if !lease.Held() || !s.synced.Load() {
			continue
		}
		s.writeSnapshot(ctx, obs)
	}
}

func (s *Server) writeSnapshot(ctx context.Context, obs jetstream.ObjectStore) {
	wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	created, last, err := natsutil.CatalogStreamCreated(wctx, s.kv)
	if err != nil {
		s.log.Warn("catalog snapshot not written", "err", err)
		return
	}
	if cur, err := natsutil.LatestSnapshot(wctx, obs, s.kv.Bucket()); err == nil && cur.StreamCreated.Equal(created) &&
		(cur.Revision >= last || time.Since(cur.Written) < s.cfg.SnapshotEvery/2) {
		return
	}
	start := time.Now()
	info, err := natsutil.WriteSnapshot(wctx, s.kv, obs)
	if err != nil {
		s.snap.writeFails.Inc()
		s.log.Warn("catalog snapshot not written", "err", err)
		return
	}
	s.snap.written.Inc()
	s.snap.lastRev.Set(float64(info.Revision))
	s.log.Info("catalog snapshot written", "revision", info.Revision, "records", info.Records, "bytes", info.Size,
		"took", time.Since(start).Round(time.Millisecond))
}
