package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/cluster"
	"storefront/doubles"
	"storefront/media/store"
	"storefront/svc"
	"storefront/writer/media"
)

type clusterFlags struct {
	data      string
	addr      string
	works     int
	seed      int64
	regen     bool
	staticDir string
	waitMedia string
	readyFile string
}

func (f *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.data, "data", ".data/cluster", "data folder of every engine and node log of the cluster (env STOREFRONT_CLUSTER_DATA)")
	fs.StringVar(&f.addr, "addr", ":8090", "address of the balancer in front of the edges, the store's one origin (env STOREFRONT_CLUSTER_ADDR)")
	fs.IntVar(&f.works, "works", 300, "number of works in the demo catalog (env STOREFRONT_CLUSTER_WORKS)")
	fs.Int64Var(&f.seed, "seed", 1, "seed of the demo catalog (env DEMO_SEED)")
	fs.BoolVar(&f.regen, "regen", false, "regenerate and reload the demo catalog even if this seed and size are loaded")
	fs.StringVar(&f.staticDir, "static", "frontend/build/client", "built frontend the edges serve (env STATIC_DIR)")
	fs.StringVar(&f.waitMedia, "wait-media", "pictures", "before the store is ready on a first run: all (every picture and page processed) or pictures (covers, banners, event pictures) (env DEMO_WAIT_MEDIA)")
	fs.StringVar(&f.readyFile, "ready-file", "", "write the store's URL to this file once it is ready (for scripts)")
}

// clusterCmd starts the store as a cluster on this machine (package cluster):
// every engine and every node its own process, the demo catalog loaded
// through the writers' database and media queue. Ctrl-C stops everything.
func clusterCmd(args []string) error {
	var f clusterFlags
	log, err := parseLauncher("storefront cluster", f.register, args, &f.waitMedia)
	if err != nil {
		return err
	}
	// The cluster on one machine is for drills and demos: its writers share
	// a payment and an identity sandbox.
	if err := refuseLive(doubles.Use{Name: doubles.PaymentSandbox, On: true, Setting: "a real deployment, not storefront cluster"},
		doubles.Use{Name: doubles.IdentitySandbox, On: true, Setting: "a real deployment, not storefront cluster"}); err != nil {
		return err
	}
	ctx, cancel := svc.SignalContext()
	defer cancel()
	self, err := selfBins()
	if err != nil {
		return err
	}
	sub := func(name string) []string { return append(append([]string(nil), self...), name) }
	static, _ := filepath.Abs(f.staticDir)
	started := time.Now()
	c, err := cluster.Start(ctx, cluster.Options{Dir: f.data, Addr: f.addr, Static: static, Log: log,
		Bins: cluster.Bins{NATS: sub("nats-server"), Edge: sub("edge"), Writer: sub("writer"), Analytics: sub("analytics")}})
	if err != nil {
		return err
	}
	defer c.Stop()
	log.Info("cluster nodes up", "took", time.Since(started).Round(time.Millisecond))
	if err := loadClusterDemo(ctx, c, f, log); err != nil {
		return err
	}
	log.Info("store ready", "url", c.URL, "took", time.Since(started).Round(time.Millisecond))
	fmt.Fprintf(os.Stderr, "\n  The store is up: %s   (%d NATS, %d writers, %d analytics, %d edges behind the balancer;\n"+
		"  PostgreSQL primary and standby %s, ClickHouse replicas %d; node logs in %s)   Ctrl-C stops everything\n\n",
		c.URL, len(c.NATS), len(c.Writers), len(c.Analytics), len(c.Edges), strings.TrimPrefix(c.DatabaseURL, "postgres://"),
		len(c.ClickHouse.Replicas), filepath.Join(f.data, "logs"))
	if f.readyFile != "" {
		if err := os.WriteFile(f.readyFile, []byte(c.URL+"\n"), 0o644); err != nil {
			return err
		}
	}
	<-ctx.Done()
	log.Info("stopping the cluster")
	return nil
}

// loadClusterDemo imports the demo catalog and queues its media as `up`
// does; the writers' media workers process the jobs, the relay publishes.
func loadClusterDemo(ctx context.Context, c *cluster.Cluster, f clusterFlags, log *slog.Logger) error {
	uf := upFlags{deps: depFlags{data: f.data}, works: f.works, seed: f.seed, regen: f.regen}
	pool, err := pgxpool.New(ctx, c.DatabaseURL)
	if err != nil {
		return fmt.Errorf("connect to the cluster's database: %w", err)
	}
	defer pool.Close()
	st, err := store.Open(ctx, filepath.Join(f.data, "content"))
	if err != nil {
		return err
	}
	ms := media.New(pool, st, media.Config{}, log.With("part", "demo-media"))
	if err := loadDemo(ctx, c.DatabaseURL, uf, ms, log); err != nil {
		return err
	}
	if err := waitMedia(ctx, ms, f.waitMedia == "pictures", log); err != nil {
		return err
	}
	if f.waitMedia == "all" {
		if err := markDemoMedia(uf); err != nil {
			return err
		}
	}
	return waitOutboxDrained(ctx, pool)
}
