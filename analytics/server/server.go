// Package server assembles the analytics service: it applies the ClickHouse
// schema, consumes EVENTS into ClickHouse, computes rankings into the catalog KV
// bucket and serves the reports API and the ops endpoints on one port.
//
// It follows the services' API convention (Config, RegisterFlags, New, Run, Addr)
// so analytics/main.go and cmd/storefront start it the same way.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/analytics/chschema"
	"storefront/analytics/ingest"
	"storefront/analytics/rankings"
	"storefront/analytics/reports"
	"storefront/contract"
	"storefront/devsecrets"
	"storefront/natsutil"
	"storefront/svc"
)

// Config holds every setting; zero values get defaults in New.
type Config struct {
	Addr          string // listen address (":8082")
	NATSURL       string
	ClickHouseURL string
	// ClickHouseReplicated (CLICKHOUSE_REPLICATED): the database is one
	// replica of a replicated cluster; the schema is made with the
	// Replicated engines (chschema.MigrateReplicated).
	ClickHouseReplicated bool
	// ClickHouseCluster (CLICKHOUSE_CLUSTER) names the servers'
	// remote_servers entry that lists the replicas; with it the migrations
	// at start also make the Distributed tables (chschema.Distribute) and
	// reports and rankings read through them. Needs ClickHouseReplicated.
	ClickHouseCluster string
	// ClickHouseReadURL (CLICKHOUSE_READ_URL) is where reports and
	// rankings read; by default ClickHouseURL, or with a cluster its
	// Distributed database (chschema.ClusterDatabase) on the same hosts.
	// Name several hosts so that reads go on while one is down.
	ClickHouseReadURL string
	NATSReplicas      int // NATS_REPLICAS, as on the edge and writer
	// CookieMode (COOKIE_MODE): live refuses the development admin token.
	CookieMode string
	// NATSAuth: credentials and TLS of a secured NATS cluster.
	NATSAuth natsutil.Auth
	Events   natsutil.EventsLimits // size of the EVENTS stream (EVENTS_MAX_BYTES, EVENTS_PEAK_RATE, ...)
	Ingest   ingest.Config
	Rankings rankings.Config
	// RankLeaseTTL (ANALYTICS_RANK_LEASE_TTL) is the TTL of the rankings
	// lease: one analytics node computes rankings at a time, and another
	// takes over within TTL + TTL/3 of its death. Equal on every node.
	RankLeaseTTL time.Duration
	// Retention of the raw tables (ANALYTICS_RAW_RETENTION,
	// ANALYTICS_DEAD_RETENTION), applied by the lease holder every
	// RetentionCheck (10 min); see chschema.Retention.
	Retention      chschema.Retention
	RetentionCheck time.Duration
	// AnalystSecret (ANALYST_SECRET, the writer's) checks the analyst
	// cookie that opens the reports API.
	AnalystSecret string
	// Timeouts bound slow and idle clients (ANALYTICS_READ_HEADER_TIMEOUT,
	// ANALYTICS_READ_TIMEOUT, ANALYTICS_WRITE_TIMEOUT, ANALYTICS_IDLE_TIMEOUT);
	// Write is long because reports may scan a lot.
	Timeouts svc.Timeouts
	Now      func() time.Time
}

// analyticsTimeouts are the defaults of Config.Timeouts.
var analyticsTimeouts = svc.Timeouts{ReadHeader: 10 * time.Second, Read: 60 * time.Second, Write: 5 * time.Minute, Idle: 120 * time.Second}

// RegisterFlags registers the flags, each falling back to an environment variable.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", ":8082", "listen address (env ANALYTICS_ADDR)")
	fs.StringVar(&c.NATSURL, "nats-url", contract.DefaultNATSURL, "NATS URL (env NATS_URL)")
	fs.StringVar(&c.ClickHouseURL, "clickhouse-url", "clickhouse://127.0.0.1:9000/default", "ClickHouse URL (env CLICKHOUSE_URL)")
	fs.BoolVar(&c.ClickHouseReplicated, "clickhouse-replicated", false, "CLICKHOUSE_URL is one replica of a replicated ClickHouse: the migrations at start make the Replicated engines, as analytics migrate -replicated does (env CLICKHOUSE_REPLICATED)")
	fs.StringVar(&c.ClickHouseCluster, "clickhouse-cluster", "", "cluster of the replicas in the servers' remote_servers: Distributed tables over the replicated ones, read by reports and rankings; needs -clickhouse-replicated (env CLICKHOUSE_CLUSTER)")
	fs.StringVar(&c.ClickHouseReadURL, "clickhouse-read-url", "", "ClickHouse URL of reports and rankings, several hosts allowed (clickhouse://ch1:9000,ch2:9000/default_all); default CLICKHOUSE_URL, with a cluster its Distributed database (env CLICKHOUSE_READ_URL)")
	fs.IntVar(&c.Ingest.BatchSize, "batch-size", 20000, "events per ClickHouse insert at most (env ANALYTICS_BATCH_SIZE)")
	fs.DurationVar(&c.Ingest.FlushInterval, "flush-interval", 200*time.Millisecond, "age at which a partial batch is inserted (env ANALYTICS_FLUSH_INTERVAL)")
	fs.DurationVar(&c.Rankings.Interval, "rank-interval", time.Minute, "time between ranking computations (env ANALYTICS_RANK_INTERVAL)")
	fs.DurationVar(&c.RankLeaseTTL, "rank-lease-ttl", natsutil.DefaultLeaseTTL, "TTL of the rankings lease: one node computes rankings, another takes over within TTL + TTL/3 of its death; equal on every node (env ANALYTICS_RANK_LEASE_TTL)")
	fs.DurationVar(&c.Retention.Events, "raw-retention", chschema.DefaultEventsRetention, "raw events older than this are dropped by whole months; 0 = kept for ever; rollups are kept (env ANALYTICS_RAW_RETENTION)")
	fs.DurationVar(&c.Retention.Dead, "dead-retention", chschema.DefaultDeadRetention, "dead letters (events_dead) older than this are dropped by whole months; 0 = kept for ever (env ANALYTICS_DEAD_RETENTION)")
	fs.DurationVar(&c.Rankings.Popular.Window, "popular-window", 24*time.Hour, "how far back searches count for the popular search keywords (env ANALYTICS_POPULAR_WINDOW)")
	fs.IntVar(&c.Rankings.Popular.MinSearchers, "popular-min-searchers", 5, "distinct searchers (members, or devices of visitors) a popular search keyword needs (env ANALYTICS_POPULAR_MIN_SEARCHERS)")
	fs.DurationVar(&c.Rankings.RealWindow, "rank-real-window", 3*time.Hour, "window of the real-time ranking (env ANALYTICS_RANK_REAL_WINDOW)")
	fs.StringVar(&c.AnalystSecret, "analyst-secret", devsecrets.AnalystSecret, "secret of the writer's analyst cookie, which opens the reports API (env ANALYST_SECRET)")
	fs.IntVar(&c.Ingest.Workers, "insert-workers", 2, "concurrent ClickHouse inserts (env ANALYTICS_INSERT_WORKERS)")
	fs.IntVar(&c.NATSReplicas, "nats-replicas", 1, "JetStream replicas of stream and bucket (env NATS_REPLICAS)")
	svc.ModeFlag(fs, &c.CookieMode)
	c.NATSAuth.RegisterFlags(fs)
	c.Events.RegisterFlags(fs)
	c.Timeouts.RegisterFlags(fs, "ANALYTICS", analyticsTimeouts)
}

func (c Config) withDefaults() Config {
	if c.Addr == "" {
		c.Addr = ":8082"
	}
	if c.NATSURL == "" {
		c.NATSURL = contract.DefaultNATSURL
	}
	if c.ClickHouseURL == "" {
		c.ClickHouseURL = "clickhouse://127.0.0.1:9000/default"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Ingest.Now == nil {
		c.Ingest.Now = c.Now
	}
	if c.Rankings.Now == nil {
		c.Rankings.Now = c.Now
	}
	if c.AnalystSecret == "" {
		c.AnalystSecret = devsecrets.AnalystSecret
	}
	if c.RetentionCheck <= 0 {
		c.RetentionCheck = 10 * time.Minute
	}
	c.Timeouts = c.Timeouts.Or(analyticsTimeouts)
	return c
}

// Server is a running analytics service.
type Server struct {
	cfg      Config
	log      *slog.Logger
	ln       net.Listener
	nc       *nats.Conn
	js       jetstream.JetStream
	kv       jetstream.KeyValue
	ch       driver.Conn // inserts, migrations, retention: the local replica
	read     driver.Conn // reports and rankings: ch, or the Distributed tables
	readOwn  driver.Conn // read when it is not ch (closed with the server)
	reg      *prometheus.Registry
	ready    svc.Readiness
	ingester *ingest.Ingester
	rankings *rankings.Computer
	lease    *natsutil.Lease
	http     *http.Server
}

// OpenClickHouse opens a connection pool to the ClickHouse URL
// (clickhouse://host:port/database).
func OpenClickHouse(url string) (driver.Conn, error) {
	return openClickHouse(url, nil)
}

// maxReplicaDelay is how far behind (seconds) a replica may be for a read of
// a Distributed table to use it; a replica further behind (one that was
// down and still fetches) is passed over for a fresher one. ClickHouse's
// default, 300 s, would let reports read a replica five minutes stale.
const maxReplicaDelay = 5

// openReads opens the connection of reports and rankings: a read that
// failed on the connection is asked again (retryingConn); with a cluster it
// prefers replicas no more than maxReplicaDelay behind.
func openReads(url string, cluster bool) (driver.Conn, error) {
	var settings clickhouse.Settings
	if cluster {
		settings = clickhouse.Settings{"max_replica_delay_for_distributed_queries": maxReplicaDelay}
	}
	conn, err := openClickHouse(url, settings)
	if err != nil {
		return nil, err
	}
	return retryingConn{conn}, nil
}

func openClickHouse(url string, settings clickhouse.Settings) (driver.Conn, error) {
	opts, err := clickhouse.ParseDSN(url)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse url: %w", err)
	}
	for k, v := range settings {
		if _, set := opts.Settings[k]; !set {
			if opts.Settings == nil {
				opts.Settings = clickhouse.Settings{}
			}
			opts.Settings[k] = v
		}
	}
	if opts.DialTimeout == 0 || opts.DialTimeout > 5*time.Second {
		// An insert attempt must fail well within the consumer's AckWait.
		opts.DialTimeout = 5 * time.Second
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("open clickhouse: %w", err)
	}
	return conn, nil
}

// New connects to NATS and ClickHouse, applies the ClickHouse migrations, ensures
// the stream, bucket and consumer, and binds the listen address.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := svc.RefuseDevDefaults(cfg.CookieMode,
		svc.DevDefault{Name: "ANALYST_SECRET", Value: cfg.AnalystSecret, Dev: devsecrets.AnalystSecret}); err != nil {
		return nil, fmt.Errorf("analytics: %w", err)
	}
	if cfg.ClickHouseCluster != "" && !cfg.ClickHouseReplicated {
		return nil, fmt.Errorf("analytics: CLICKHOUSE_CLUSTER %s needs CLICKHOUSE_REPLICATED: Distributed tables read one replica of each shard, so every replica must hold all of it", cfg.ClickHouseCluster)
	}
	s := &Server{cfg: cfg, log: log, reg: svc.NewRegistry()}
	s.ready.Set(false, "starting")
	ch, err := OpenClickHouse(cfg.ClickHouseURL)
	if err != nil {
		return nil, err
	}
	s.ch = ch
	s.read = retryingConn{ch}
	apply := chschema.Migrate
	if cfg.ClickHouseReplicated {
		apply = chschema.MigrateReplicated
	}
	if _, err := apply(ctx, ch, log); err != nil {
		ch.Close()
		return nil, fmt.Errorf("migrate clickhouse: %w", err)
	}
	if cfg.ClickHouseCluster != "" {
		if _, err := chschema.Distribute(ctx, ch, cfg.ClickHouseCluster, log); err != nil {
			ch.Close()
			return nil, fmt.Errorf("distributed tables: %w", err)
		}
	}
	if readURL, err := cfg.readURL(); err != nil {
		ch.Close()
		return nil, err
	} else if readURL != cfg.ClickHouseURL {
		if s.readOwn, err = openReads(readURL, cfg.ClickHouseCluster != ""); err != nil {
			ch.Close()
			return nil, err
		}
		s.read = s.readOwn
	}
	// Replicated tables drop an identical block again: retries resend the
	// block instead of looking ids up on whichever replica answers.
	if cfg.Ingest.BlockDedup, err = chschema.BlockDedup(ctx, ch); err != nil {
		s.close()
		return nil, err
	}
	nc, err := natsutil.Connect(cfg.NATSURL, cfg.NATSAuth, "analytics", log)
	if err != nil {
		ch.Close()
		return nil, err
	}
	s.nc = nc
	js, err := jetstream.New(nc)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	s.js = js
	nopts := cfg.Events.Options(cfg.NATSReplicas)
	nopts.Log = log
	kv, err := natsutil.Ensure(ctx, js, nopts)
	if err != nil {
		s.close()
		return nil, err
	}
	s.kv = kv
	if _, err := ingest.EnsureConsumer(ctx, js, cfg.Ingest); err != nil {
		s.close()
		return nil, err
	}
	s.ingester = ingest.New(ch, js, cfg.Ingest, log, s.reg)
	leases, ttl, err := natsutil.EnsureLeases(ctx, js, cfg.RankLeaseTTL, nopts)
	if err != nil {
		s.close()
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	s.ln = ln
	host, _ := os.Hostname()
	s.lease = natsutil.NewLease(leases, "rankings", host+" "+s.Addr(), ttl, log)
	rcfg := cfg.Rankings
	rcfg.Leader = s.lease
	s.rankings = rankings.New(s.read, kv, rcfg, log)
	s.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "analytics_rankings_leader", Help: "1 while this node holds the rankings lease (computes rankings)."},
			func() float64 {
				if s.lease.Held() {
					return 1
				}
				return 0
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "analytics_rankings_computed_total", Help: "Ranking computations this node published."},
			func() float64 { return float64(s.rankings.Computed()) }))
	mux := svc.OpsMux(&s.ready, s.reg, s.readyDetail)
	// Reads may go to the Distributed tables; the audit row is written to
	// this server's own table, as every insert of analytics.
	rp := reports.New(s.read, retryingConn{ch}, cfg.AnalystSecret, askWriter(nc), cfg.Now, log)
	// The bucket of volume pages exists wherever the catalog does (Ensure).
	vols, err := js.KeyValue(ctx, contract.VolumesBucket)
	if err != nil {
		return nil, fmt.Errorf("analytics: volume pages bucket: %w", err)
	}
	rp.Releases = catalogReleases(kv, vols, cfg.Now)
	rp.Register(mux)
	s.http = cfg.Timeouts.Apply(&http.Server{Handler: mux})
	return s, nil
}

// askWriter is the reports' Checker: the writer answers, from its
// PostgreSQL, whether the request's session is an analyst's right now.
// Analytics keeps no account or session state of its own, so nothing here
// can lag behind a logout, a role change or a removal.
func askWriter(nc *nats.Conn) reports.Checker {
	return func(ctx context.Context, q contract.AnalystCheck) (contract.AnalystAnswer, error) {
		var a contract.AnalystAnswer
		b, err := json.Marshal(q)
		if err != nil {
			return a, err
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		m, err := nc.RequestWithContext(ctx, contract.AnalystCheckSubject, b)
		if err != nil {
			return a, fmt.Errorf("ask the writer about the analyst: %w", err)
		}
		if err := json.Unmarshal(m.Data, &a); err != nil {
			return a, fmt.Errorf("writer's analyst answer: %w", err)
		}
		return a, nil
	}
}

func (s *Server) readyDetail() string {
	consuming, lastErr := s.ingester.Status()
	out := fmt.Sprintf("consuming: %v\nrankings leader: %v\n", consuming, s.lease.Held())
	if lastErr != "" {
		out += "last insert error: " + lastErr + "\n"
	}
	return out
}

// Addr is the bound listen address; a wildcard host is given as 127.0.0.1 so the
// answer can be dialled.
func (s *Server) Addr() string {
	a, ok := s.ln.Addr().(*net.TCPAddr)
	if !ok || !a.IP.IsUnspecified() {
		return s.ln.Addr().String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
}

// retain applies the retention every RetentionCheck on the node that holds
// the lease (one node drops; DROP PARTITION replicates).
func (s *Server) retain(ctx context.Context) {
	t := time.NewTicker(s.cfg.RetentionCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !s.lease.Held() {
			continue
		}
		dropped, err := s.cfg.Retention.Apply(ctx, s.ch, s.cfg.Now())
		if err != nil && ctx.Err() == nil {
			s.log.Warn("retention", "err", err)
		}
		for _, d := range dropped {
			s.log.Info("retention: partition dropped", "partition", d)
		}
	}
}

// Run serves until ctx is done, then stops consuming, lets in-flight inserts
// finish and shuts down; it returns nil on a clean stop.
func (s *Server) Run(ctx context.Context) error {
	defer s.close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 3)
	leaseDone, retainDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(leaseDone); s.lease.Run(ctx) }()
	go func() { defer close(retainDone); s.retain(ctx) }()
	// Released before the connection closes, for an immediate handover.
	defer func() { cancel(); <-leaseDone; <-retainDone }()
	go func() {
		err := s.rankings.Run(ctx)
		if err != nil {
			err = fmt.Errorf("rankings: %w", err)
		}
		errc <- err
	}()
	go func() {
		err := s.ingester.Run(ctx)
		if err != nil {
			err = fmt.Errorf("ingest: %w", err)
		}
		errc <- err
	}()
	go func() {
		err := s.http.Serve(s.ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		errc <- err
	}()
	s.ready.Set(true, "")
	var first error
	got := 0
	select {
	case <-ctx.Done():
	case first = <-errc:
		got++
	}
	s.ready.Set(false, "stopping")
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	_ = s.http.Shutdown(sctx)
	for ; got < 3; got++ {
		if err := <-errc; first == nil {
			first = err
		}
	}
	return first
}

func (s *Server) close() {
	if s.nc != nil {
		_ = s.nc.Drain()
	}
	if s.readOwn != nil {
		_ = s.readOwn.Close()
	}
	if s.ch != nil {
		_ = s.ch.Close()
	}
}

// readURL is where reports and rankings read (Config.ClickHouseReadURL).
func (c Config) readURL() (string, error) {
	if c.ClickHouseReadURL != "" {
		return c.ClickHouseReadURL, nil
	}
	if c.ClickHouseCluster == "" {
		return c.ClickHouseURL, nil
	}
	u, err := url.Parse(c.ClickHouseURL)
	if err != nil {
		return "", fmt.Errorf("parse clickhouse url: %w", err)
	}
	db := strings.Trim(u.Path, "/")
	if db == "" {
		db = "default"
	}
	u.Path = "/" + chschema.ClusterDatabase(db)
	return u.String(), nil
}
