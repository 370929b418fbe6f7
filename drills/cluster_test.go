package drills

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/cluster"
	"storefront/contract"
	"storefront/demo"
	"storefront/writer/catalogimport"
)

// The cluster drills share one cluster (package cluster, what `storefront
// cluster` starts), started on first use with the binaries the drills
// built, and stopped when the test binary ends. Each drill leaves it whole:
// the nodes it killed are started again before it returns.
var (
	clusterOnce sync.Once
	shared      *cluster.Cluster
	sharedCat   *demo.Catalog
	clusterDir  string
	clusterErr  error
	clusterTook time.Duration
)

func stopSharedCluster() {
	if shared != nil {
		shared.Stop()
	}
	// DRILLS_KEEP=1 keeps the folder (engines' data, every node's log) for a post-mortem.
	if clusterDir != "" && os.Getenv("DRILLS_KEEP") != "1" {
		_ = os.RemoveAll(clusterDir)
	}
}

// sharedCluster returns the started cluster and its 30-work demo catalog.
func sharedCluster(t *testing.T) (*cluster.Cluster, *demo.Catalog) {
	t.Helper()
	skipShort(t)
	bins := cluster.Bins{NATS: []string{binary(t, "nats-server")}, Edge: []string{binary(t, "edge")},
		Writer: []string{binary(t, "writer")}, Analytics: []string{binary(t, "analytics")}}
	clusterOnce.Do(func() {
		started := time.Now()
		shared, sharedCat, clusterErr = startSharedCluster(bins)
		clusterTook = time.Since(started)
	})
	if clusterErr != nil {
		t.Fatalf("start the cluster: %v", clusterErr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range allNodes(shared) {
				t.Logf("---- last 30 lines of %s (%s):\n%s", p.Name, p.LogPath, p.Tail(30))
			}
		}
	})
	return shared, sharedCat
}

func allNodes(c *cluster.Cluster) []*cluster.Proc {
	return append(append(append(append([]*cluster.Proc(nil), c.NATS...), c.Writers...), c.Analytics...), c.Edges...)
}

func startSharedCluster(bins cluster.Bins) (*cluster.Cluster, *demo.Catalog, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var err error
	if clusterDir, err = os.MkdirTemp("", "drills-cluster-"); err != nil {
		return nil, nil, err
	}
	// PostgreSQL runs as the postgres user when tests run as root.
	if err := os.Chmod(clusterDir, 0o755); err != nil {
		return nil, nil, err
	}
	static := filepath.Join(clusterDir, "static")
	if err := os.MkdirAll(static, 0o755); err != nil {
		return nil, nil, err
	}
	c, err := cluster.Start(ctx, cluster.Options{Dir: clusterDir, Bins: bins, Addr: "127.0.0.1:0", Static: static,
		AdminToken: adminToken, Log: quietLog(), Args: map[string][]string{
			"edge": {"-cache-mb", "32", "-forward-timeout", "20s"},
			// The short drills wait for a takeover of the rankings lease: a
			// shorter TTL keeps them short (the long ones use the default).
			"analytics": {"-rank-lease-ttl", pick("10s", "30s")},
		}})
	if err != nil {
		return nil, nil, err
	}
	pool, err := pgxpool.New(ctx, c.DatabaseURL)
	if err != nil {
		c.Stop()
		return nil, nil, err
	}
	defer pool.Close()
	cat := demo.Generate(demo.Options{Seed: 9, Works: 30, Now: time.Now()})
	if err := catalogimport.Import(ctx, pool, cat); err != nil {
		c.Stop()
		return nil, nil, fmt.Errorf("import demo catalog: %w", err)
	}
	return c, cat, nil
}

// servedEverywhere waits until every edge, asked directly, serves every path
// of rp with the right content.
func servedEverywhere(t *testing.T, ctx context.Context, c *cluster.Cluster, rp readPaths, limit time.Duration) {
	t.Helper()
	for _, e := range c.Edges {
		one := newBalancer(e.URL())
		for _, p := range rp.paths {
			eventually(t, limit, e.Name+" serves "+p, func() error {
				if msg := rp.check(one.get(ctx, -1, p)); msg != "" {
					return fmt.Errorf("%s", msg)
				}
				return nil
			})
		}
	}
}

func clusterReadPaths(t *testing.T, cat *demo.Catalog) readPaths {
	var pids, titles []string
	for _, p := range readableWorks(cat, 8) {
		pids, titles = append(pids, p.PID), append(titles, p.Title)
	}
	return newReadPaths(t, pids, titles)
}

// streamReplicas is the replica count and the current peers (leader
// included) of a stream.
func streamReplicas(ctx context.Context, js jetstream.JetStream, name string) (replicas, current int, leader string, err error) {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return 0, 0, "", fmt.Errorf("stream %s: %w", name, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, 0, "", err
	}
	if info.Cluster == nil {
		return info.Config.Replicas, 0, "", nil
	}
	current = 0
	if info.Cluster.Leader != "" {
		current = 1
	}
	for _, p := range info.Cluster.Replicas {
		if p.Current && !p.Offline {
			current++
		}
	}
	return info.Config.Replicas, current, info.Cluster.Leader, nil
}

// wholeJetStream waits until EVENTS and both buckets have all three copies
// current, as after a drill the restarted node must catch up.
func wholeJetStream(t *testing.T, ctx context.Context, c *cluster.Cluster, limit time.Duration) {
	t.Helper()
	nc, err := nats.Connect(c.NATSURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	for _, s := range []string{contract.EventsStream, "KV_" + contract.CatalogBucket, "KV_" + contract.LeaseBucket} {
		eventually(t, limit, s+" has 3 current copies", func() error {
			r, cur, _, err := streamReplicas(ctx, js, s)
			if err != nil {
				return err
			}
			if r != cluster.NATSNodes || cur != cluster.NATSNodes {
				return fmt.Errorf("replicas %d, current %d", r, cur)
			}
			return nil
		})
	}
}

// The cluster fixture itself, what `storefront cluster` starts: every tier
// runs on more than one node and works as one store. Asserted: three NATS
// servers with EVENTS and both buckets at three current copies; two
// writers, two analytics nodes and two edges ready; PostgreSQL reached by
// a URL naming the primary and its streaming standby that asks for the
// read-write host; both ClickHouse replicas hold replicated tables and the
// Distributed tables over them; the demo catalog is served by both edges; a purchase
// goes through the balancer; page views posted through the balancer land
// once on both ClickHouse replicas.
func TestClusterEveryTierUp(t *testing.T) {
	c, cat := sharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t.Logf("cluster started in %s", clusterTook.Round(time.Millisecond))
	for tier, nodes := range map[string][]*cluster.Proc{"nats": c.NATS, "writer": c.Writers, "analytics": c.Analytics, "edge": c.Edges} {
		if len(nodes) < 2 {
			t.Errorf("%s: %d nodes", tier, len(nodes))
		}
		for _, p := range nodes {
			if !p.Alive() {
				t.Errorf("%s is not running", p.Name)
			}
		}
	}
	wholeJetStream(t, ctx, c, 30*time.Second)
	if !strings.Contains(c.DatabaseURL, "target_session_attrs=read-write") || strings.Count(c.DatabaseURL, ",") != 1 {
		t.Errorf("writers' database URL %s does not name both hosts and ask for the read-write one", c.DatabaseURL)
	}
	pool, err := pgxpool.New(ctx, c.Postgres.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var streaming int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").Scan(&streaming); err != nil || streaming != 1 {
		t.Errorf("PostgreSQL primary: %d streaming standbys (%v)", streaming, err)
	}
	for _, ch := range c.ClickHouse.Replicas {
		n, err := chCount(ctx, ch, "SELECT count() FROM system.replicas WHERE database = 'default'")
		if err != nil || n < 3 {
			t.Errorf("ClickHouse %s: %d replicated tables (%v)", ch.HTTPURL, n, err)
		}
		n, err = chCount(ctx, ch, "SELECT count() FROM system.tables WHERE database = 'default_all' AND engine = 'Distributed'")
		if err != nil || n < 3 {
			t.Errorf("ClickHouse %s: %d Distributed tables (%v)", ch.HTTPURL, n, err)
		}
	}
	rp := clusterReadPaths(t, cat)
	servedEverywhere(t, ctx, c, rp, 60*time.Second)

	s := openShop(t, ctx, c.URL, 1, 1, 1000)
	if b := s.buyOne(ctx, s.plan(0)); b.err != nil || b.status != 200 {
		t.Fatalf("purchase through the balancer: %d %v %s", b.status, b.err, short(b.body))
	}

	before := make([]int, len(c.ClickHouse.Replicas))
	for i, ch := range c.ClickHouse.Replicas {
		before[i] = rollupViews(t, ctx, ch)
	}
	l, rec := pageViewLoad(ctx, c.URL, "tiers", 20, time.Second, false)
	l.Wait()
	acked, _, _ := accepted(t, rec.all(func(a, b event) bool { return a.seq < b.seq }), func(event) bool { return false })
	for i, ch := range c.ClickHouse.Replicas {
		got := onceInClickHouse(t, ctx, ch, "tiers", acked, before[i], 60*time.Second)
		t.Logf("replica %d: %v", i+1, got)
	}
}
