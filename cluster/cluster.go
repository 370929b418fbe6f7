// Package cluster runs the whole store as a cluster on one machine, every
// engine real and every node its own process: three NATS servers in a
// JetStream cluster (R3 stream and buckets), PostgreSQL primary and streaming
// standby, ClickHouse as two replicas over ZooKeeper behind Distributed tables, two writers sharing the outbox, two analytics
// nodes sharing the durable consumer and the rankings lease, two edges
// behind a small balancer. `storefront cluster` starts it for people, the
// drills (drills/) to kill its nodes one at a time.
package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"storefront/analytics/chschema"
	"storefront/devstack"
	"storefront/writer/identity/portonesandbox"
	"storefront/writer/money/tosssandbox"
)

// Bins are the command lines that start each kind of node; the cluster
// appends the node's flags. The storefront command runs itself
// (`storefront edge ...`), the drills the binaries they built.
type Bins struct {
	NATS, Edge, Writer, Analytics []string
}

// Options describe the cluster to start.
type Options struct {
	// Dir holds every engine's data and every node's log (Dir/logs); what
	// is there is used again by the next start.
	Dir  string
	Bins Bins
	// Addr is the balancer's listen address ("127.0.0.1:0": a free port).
	Addr string
	// Static is the built frontend the edges serve.
	Static string
	// AdminToken of the writers (empty: their dev default).
	AdminToken string
	// Args are extra flags per kind of node ("edge", "writer", "analytics").
	Args map[string][]string
	Log  *slog.Logger
}

// Nodes of each tier.
const (
	NATSNodes      = 3
	Writers        = 2
	AnalyticsNodes = 2
	Edges          = 2
	CHReplicas     = 2
)

// Cluster is a started cluster.
type Cluster struct {
	NATS, Writers, Analytics, Edges []*Proc

	Postgres, Standby *devstack.Postgres
	ClickHouse        *devstack.ClickHouseCluster
	Balancer          *Balancer

	// DatabaseURL is what the writers are given: every PostgreSQL host,
	// the session wanted read-write, so a writer reconnects to whichever
	// host is the primary.
	DatabaseURL string
	// NATSURL lists every NATS node.
	NATSURL string
	// URL is the balancer's, the store's one address.
	URL string
	// PaymentURL is the payment gateway sandbox the writers share.
	PaymentURL string
	// IdentityURL is the identity verification sandbox the writers share
	// (a verification started through one writer is finished through the other).
	IdentityURL string

	stops []func()
}

// Start brings every tier up and returns once the balancer serves; on an
// error everything started so far is stopped.
func Start(ctx context.Context, o Options) (_ *Cluster, err error) {
	c := &Cluster{}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return nil, fmt.Errorf("create cluster folder: %w", err)
	}
	// PostgreSQL runs as the postgres user when we are root: it must reach its folder.
	_ = os.Chmod(dir, 0o755)
	log := o.Log

	// The engines: PostgreSQL primary and standby, ZooKeeper and the
	// ClickHouse replicas, NATS.
	if err := c.startPostgres(ctx, dir, log); err != nil {
		return nil, err
	}
	if err := c.startClickHouse(ctx, dir, log); err != nil {
		return nil, err
	}
	if c.NATS, err = startNATS(ctx, filepath.Join(dir, "nats"), NATSNodes, o.Bins.NATS); err != nil {
		return nil, err
	}
	c.NATSURL = natsURL(c.NATS)
	c.stops = append(c.stops, func() { stopAll(c.NATS) })
	log.Info("engines up", "postgres", c.DatabaseURL, "nats", c.NATSURL)

	// One payment gateway sandbox for both writers: a charge requested
	// through one writer is confirmed through the other.
	sb, err := tosssandbox.Start("127.0.0.1:0", tosssandbox.Config{SecretKey: tosssandbox.DefaultSecretKey,
		ClientKey: tosssandbox.DefaultClientKey, Log: log.With("part", "tosssandbox")})
	if err != nil {
		return nil, err
	}
	c.stops = append(c.stops, func() { _ = sb.Close() })
	c.PaymentURL = sb.URL
	idsb, err := portonesandbox.Start("127.0.0.1:0", portonesandbox.Config{Log: log.With("part", "portonesandbox")})
	if err != nil {
		return nil, err
	}
	c.stops = append(c.stops, func() { _ = idsb.Close() })
	c.IdentityURL = idsb.URL

	content := filepath.Join(dir, "content")
	if err := os.MkdirAll(content, 0o755); err != nil {
		return nil, fmt.Errorf("create content folder: %w", err)
	}
	node := func(kind string, i int, cmd []string, args ...string) (*Proc, error) {
		port, err := devstack.FreePort()
		if err != nil {
			return nil, err
		}
		p := &Proc{Name: fmt.Sprintf("%s-%d", kind, i+1), Addr: fmt.Sprintf("127.0.0.1:%d", port)}
		p.LogPath = filepath.Join(logs, p.Name+".log")
		p.Command = append(append([]string(nil), cmd...), "-addr", p.Addr, "-log-format", "text")
		p.Command = append(append(p.Command, args...), o.Args[kind]...)
		return p, nil
	}
	token := func(args []string) []string {
		if o.AdminToken != "" {
			return append(args, "-admin-token", o.AdminToken)
		}
		return args
	}
	for i := range Writers {
		p, err := node("writer", i, o.Bins.Writer, token([]string{"-database-url", c.DatabaseURL, "-nats-url", c.NATSURL,
			"-nats-replicas", "3", "-payment-url", c.PaymentURL, "-payment-checkout-url", c.PaymentURL,
			"-identity-url", c.IdentityURL, "-identity-page-url", c.IdentityURL, "-content-store-url", content, "-shutdown-grace", "5s"})...)
		if err != nil {
			return nil, err
		}
		c.Writers = append(c.Writers, p)
	}
	for i := range AnalyticsNodes {
		// Each node inserts into its own replica (the other one while its
		// own is down) and reads reports and rankings through the
		// Distributed tables on any live replica.
		read := strings.Replace(c.ClickHouse.URL(), "/default", "/"+chschema.ClusterDatabase("default"), 1)
		p, err := node("analytics", i, o.Bins.Analytics, "-nats-url", c.NATSURL, "-nats-replicas", "3",
			"-clickhouse-url", c.ClickHouse.URLFrom(i%CHReplicas), "-clickhouse-replicated",
			"-clickhouse-cluster", c.ClickHouse.Name, "-clickhouse-read-url", read)
		if err != nil {
			return nil, err
		}
		c.Analytics = append(c.Analytics, p)
	}
	for i := range Edges {
		// /metrics of an edge is on its operators' listener, never on the
		// readers' origin the balancer sends readers to.
		opsPort, err := devstack.FreePort()
		if err != nil {
			return nil, err
		}
		ops := fmt.Sprintf("127.0.0.1:%d", opsPort)
		p, err := node("edge", i, o.Bins.Edge, "-nats", c.NATSURL, "-nats-replicas", "3",
			"-writer", urls(c.Writers), "-analytics", urls(c.Analytics), "-static", o.Static,
			"-content-store", content, "-trusted-proxies", "127.0.0.1/32", "-ops-addr", ops)
		if err != nil {
			return nil, err
		}
		p.OpsAddr = ops
		c.Edges = append(c.Edges, p)
	}
	c.stops = append(c.stops, func() { stopAll(c.Writers) }, func() { stopAll(c.Analytics) }, func() { stopAll(c.Edges) })

	// The first writer migrates PostgreSQL and creates the R3 stream and
	// buckets, the first analytics node the ClickHouse schema (its
	// Distributed tables are made for the whole cluster); the others then
	// start side by side.
	for _, p := range []*Proc{c.Writers[0], c.Analytics[0]} {
		if err := p.Start(ctx); err != nil {
			return nil, err
		}
	}
	if err := startEach(ctx, append(append(append([]*Proc(nil), c.Writers[1:]...), c.Analytics[1:]...), c.Edges...)); err != nil {
		return nil, err
	}

	if c.Balancer, err = NewBalancer(edgeURLs(c.Edges), log.With("part", "balancer")); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("balancer listen: %w", err)
	}
	hctx, stopCheck := context.WithCancel(context.Background())
	go c.Balancer.Check(hctx, 500*time.Millisecond)
	srv := &http.Server{Handler: c.Balancer, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("balancer", "err", err)
		}
	}()
	// Stopped first: nothing reaches the nodes while they stop.
	c.stops = append(c.stops, func() {
		stopCheck()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	})
	host := ln.Addr().(*net.TCPAddr)
	if host.IP.IsUnspecified() {
		c.URL = fmt.Sprintf("http://127.0.0.1:%d", host.Port)
	} else {
		c.URL = "http://" + host.String()
	}
	return c, nil
}

func (c *Cluster) startPostgres(ctx context.Context, dir string, log *slog.Logger) error {
	// The standby streams from the primary's port, written into its
	// settings when it was cloned: both keep their ports across starts.
	ports, err := stickyPorts(filepath.Join(dir, "postgres-ports.json"), "primary", "standby")
	if err != nil {
		return err
	}
	pg, err := devstack.StartPostgres(ctx, filepath.Join(dir, "postgres"), ports["primary"], log)
	if err != nil {
		return err
	}
	c.Postgres = pg
	c.stops = append(c.stops, func() {
		if err := pg.Stop(); err != nil {
			log.Warn("stop postgres", "err", err)
		}
	})
	if _, err := pg.CreateDatabase(ctx, "storefront"); err != nil {
		return err
	}
	sb, err := devstack.StartPostgresStandby(ctx, pg, filepath.Join(dir, "postgres-standby"), ports["standby"], log)
	if err != nil {
		return err
	}
	c.Standby = sb
	c.stops = append(c.stops, func() {
		if err := sb.Stop(); err != nil {
			log.Warn("stop postgres standby", "err", err)
		}
	})
	c.DatabaseURL = MultiHostURL("storefront", fmt.Sprintf("127.0.0.1:%d", pg.Port), fmt.Sprintf("127.0.0.1:%d", sb.Port))
	return nil
}

// stickyPorts returns a port per name, free ones the first time, the same
// ones (kept in file) every later time.
func stickyPorts(file string, names ...string) (map[string]int, error) {
	ports := map[string]int{}
	if b, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(b, &ports); err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
	}
	changed := false
	for _, n := range names {
		if ports[n] != 0 {
			continue
		}
		p, err := devstack.FreePort()
		if err != nil {
			return nil, err
		}
		ports[n], changed = p, true
	}
	if changed {
		b, _ := json.Marshal(ports)
		if err := os.WriteFile(file, b, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", file, err)
		}
	}
	return ports, nil
}

// MultiHostURL is the URL of database db on every host (host:port) that
// takes only a read-write session: libpq's and pgx's way to follow a
// failover to whichever host is the primary.
func MultiHostURL(db string, hosts ...string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable&target_session_attrs=read-write", strings.Join(hosts, ","), db)
}

func (c *Cluster) startClickHouse(ctx context.Context, dir string, log *slog.Logger) error {
	ch, err := devstack.StartClickHouseCluster(ctx, filepath.Join(dir, "clickhouse"), CHReplicas, 0, log)
	if err != nil {
		return err
	}
	c.ClickHouse = ch
	c.stops = append(c.stops, func() {
		if err := ch.Stop(); err != nil {
			log.Warn("stop clickhouse", "err", err)
		}
	})
	return nil
}

// startEach starts the nodes side by side and waits until every one is ready.
func startEach(ctx context.Context, ps []*Proc) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, p := range ps {
		g.Go(func() error { return p.Start(gctx) })
	}
	return g.Wait()
}

func urls(ps []*Proc) string { return strings.Join(edgeURLs(ps), ",") }

func edgeURLs(ps []*Proc) []string {
	var us []string
	for _, p := range ps {
		us = append(us, p.URL())
	}
	return us
}

// Stop stops every node and engine, the balancer first, the engines last.
func (c *Cluster) Stop() {
	for i := len(c.stops) - 1; i >= 0; i-- {
		c.stops[i]()
	}
	c.stops = nil
}
