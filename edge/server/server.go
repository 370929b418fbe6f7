// Package server is the edge service: the store's one origin for browsers and
// app web views. It answers every public read from memory (package catalog fed
// by one KV watch, bodies cached by package cache), serves the built SPA and the
// generated art, accepts tracking events (answering after the JetStream ack)
// and forwards member and write calls to writer nodes.
//
// It follows the service API convention: Config, RegisterFlags, New, Run, Addr.
package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"html"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/pires/go-proxyproto"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"
	"golang.org/x/sync/singleflight"

	"storefront/contract"
	"storefront/devsecrets"
	"storefront/edge/cache"
	"storefront/edge/catalog"
	"storefront/edge/proxy"
	"storefront/edge/static"
	"storefront/edge/tracking"
	"storefront/media/store"
	"storefront/natsutil"
	"storefront/realip"
	"storefront/svc"
	"storefront/trackbundle"
)

// Config is every setting of the edge. Zero values get defaults in New.
type Config struct {
	Addr string // EDGE_ADDR
	// OpsAddr (EDGE_OPS_ADDR) is the operators' listener: /metrics, and
	// /healthz and /readyz again. /metrics is never served on Addr, the
	// readers' origin (issue 30); empty = no operators' listener.
	OpsAddr   string
	NATSURL   string // NATS_URL
	WriterURL string // WRITER_URL, comma-separated writer nodes
	// AnalyticsURL: ANALYTICS_URL, comma-separated analytics nodes serving the
	// reports API (/analytics/api/); empty = the edge answers 502 there.
	AnalyticsURL   string
	StaticDir      string // STATIC_DIR
	AudienceSecret string // AUDIENCE_SECRET
	ContentSecret  string // CONTENT_SECRET
	IPSalt         string // TRACK_IP_SALT: salt of the tracking IP hash
	CacheBytes     int64  // EDGE_CACHE_MB × 1 MiB
	NATSReplicas   int    // NATS_REPLICAS
	// TrustedProxies (EDGE_TRUSTED_PROXIES) are the load balancers in front
	// of the edge, comma-separated CIDR ranges or addresses: only from them
	// is X-Forwarded-For believed. Empty: the edge is the front door and the
	// reader is its peer.
	TrustedProxies string
	// ProxyProtocol (EDGE_PROXY_PROTOCOL): the trusted balancers send a
	// PROXY protocol header (v1 or v2) on each connection, whose source
	// address is the reader's (for TCP balancers, which cannot write
	// X-Forwarded-For). Anyone else sending one is refused.
	ProxyProtocol bool
	// CookieMode (COOKIE_MODE): live refuses the development secrets.
	CookieMode string
	// NATSAuth: credentials and TLS of a secured NATS cluster.
	NATSAuth natsutil.Auth
	// Events sizes the EVENTS stream (EVENTS_MAX_BYTES, EVENTS_PEAK_RATE, ...).
	Events natsutil.EventsLimits
	// ForwardTimeout bounds a forwarded call to a writer.
	ForwardTimeout time.Duration
	// PublishTimeout bounds waiting for the JetStream ack of tracking events.
	PublishTimeout time.Duration
	// Timeouts bound slow and idle clients: EDGE_READ_TIMEOUT (the whole
	// request, headers included), EDGE_WRITE_TIMEOUT, EDGE_IDLE_TIMEOUT.
	Timeouts svc.Timeouts
	// Now is the edge's clock (releases flip by it). nil = time.Now.
	Now func() time.Time
	// ContentStoreURL (CONTENT_STORE_URL) names the content store media
	// objects are read from: a folder or s3://... (media/store.Open); empty
	// = none, media documents are known but no bytes can be served (503).
	ContentStoreURL string
	// PublicURL (EDGE_PUBLIC_URL) is the store's public origin
	// (https://host[:port]): share previews need absolute addresses, and a
	// cached page cannot follow each request's Host. Empty = this edge's
	// own listen address (dev).
	PublicURL string
	// Objects, when set, is used instead of opening ContentStoreURL (tests).
	Objects ObjectSource
	// MediaCacheBytes bounds the media object cache (EDGE_MEDIA_CACHE_MB × 1 MiB).
	MediaCacheBytes int64
	// CountersRefresh (EDGE_COUNTERS_REFRESH) bounds how stale the counters
	// shown and ordered by in lists get (catalog.FlushCounters); the detail
	// page shows a counters change at once. Default 30s.
	CountersRefresh time.Duration
	// StaleRender (EDGE_STALE_RENDER, default 1s) bounds how long after a
	// read first found a cached answer out of date only by list counters
	// (a counters flush) that answer is still served while one background
	// render replaces it; 0 = never served stale. Readers never wait behind
	// the flush's re-renders within it.
	StaleRender time.Duration
	// AudienceCacheEntries bounds the verified audience tokens kept
	// (EDGE_AUDIENCE_CACHE_ENTRIES, default 100,000: about 16 MB).
	AudienceCacheEntries int
	// MediaTimeout bounds one read of an object from the store.
	MediaTimeout time.Duration
	// WatchCheck is how often the edge compares what it applied with the
	// bucket's last revision (EDGE_WATCH_CHECK): a watch that stopped
	// delivering while the connection stayed up shows as staleness and is
	// restarted after three checks without progress.
	WatchCheck time.Duration
	// NoSnapshot (EDGE_SNAPSHOT=false): start by replaying the whole
	// catalog bucket, never from a snapshot, and write none (snapshot.go).
	NoSnapshot bool
	// SnapshotEvery (EDGE_SNAPSHOT_EVERY) is how often the edge holding the
	// snapshot lease writes a catalog snapshot; 0 = this edge writes none.
	SnapshotEvery time.Duration
	// VolumePagesBytes bounds the cache of paged works' volume pages
	// (EDGE_VOLUME_PAGES_BYTES, default 64 MiB); pinned pages count in it
	// but are never evicted.
	VolumePagesBytes int64
	// VolumePinAhead (EDGE_VOLUME_PIN_AHEAD, default 3h): pages holding a
	// volume that releases within this are fetched ahead and pinned, with
	// those released in the last hour (catalog.PinBehind).
	VolumePinAhead time.Duration
	// CommentBytes bounds the cache of episode comment heads and pages
	// (EDGE_COMMENT_BYTES, default 32 MiB); pinned heads of the release
	// minute count in it but are never evicted.
	CommentBytes int64
	// PageSources are the origins the pages' Content-Security-Policy admits
	// besides the store's own (EDGE_CSP_SCRIPT_ORIGINS, EDGE_CSP_CONNECT_ORIGINS,
	// EDGE_CSP_FRAME_ORIGINS): in live mode, PortOne's identity verification
	// SDK (SECURITY.md, "Third parties"). Empty = the store's origin only,
	// which is all development needs (the sandboxes are ours).
	PageSources static.Sources
}

// RegisterFlags registers the edge's flags with environment fallbacks.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", ":8080", "listen address (env EDGE_ADDR)")
	// No default port: several edges on one machine (the drills, the
	// cluster) would collide on it; the launcher, the images, Kubernetes
	// and systemd each name one.
	fs.StringVar(&c.OpsAddr, "ops-addr", "", "operators' listen address: /metrics (never on -addr, the readers' origin), /healthz, /readyz; empty = none (env EDGE_OPS_ADDR)")
	fs.StringVar(&c.NATSURL, "nats", contract.DefaultNATSURL, "NATS URL (env NATS_URL)")
	fs.StringVar(&c.WriterURL, "writer", "http://127.0.0.1:8081", "writer node URLs, comma-separated (env WRITER_URL)")
	fs.StringVar(&c.AnalyticsURL, "analytics", "http://127.0.0.1:8082", "analytics node URLs serving the reports API, comma-separated (env ANALYTICS_URL)")
	fs.StringVar(&c.StaticDir, "static", "frontend/build/client", "built SPA to serve (env STATIC_DIR)")
	fs.StringVar(&c.AudienceSecret, "audience-secret", devsecrets.AudienceSecret, "secret of the audience cookie shared with the writer (env AUDIENCE_SECRET)")
	fs.StringVar(&c.ContentSecret, "content-secret", devsecrets.ContentSecret, "secret of content tokens shared with the writer (env CONTENT_SECRET)")
	fs.StringVar(&c.IPSalt, "ip-salt", devsecrets.IPSalt, "salt of the client IP hash in tracking events (env TRACK_IP_SALT)")
	fs.Func("cache-mb", "rendered-body cache size in MiB (env EDGE_CACHE_MB, default 256)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("cache-mb must be a positive integer")
		}
		c.CacheBytes = int64(n) << 20
		return nil
	})
	fs.Func("public-url", "public origin of the store for share previews, http(s)://host[:port] (env EDGE_PUBLIC_URL, default this edge's address)", func(v string) error {
		o, err := ParsePublicURL(v)
		c.PublicURL = o
		return err
	})
	fs.StringVar(&c.ContentStoreURL, "content-store", "", "content store of media objects: a folder or s3://bucket?... (env CONTENT_STORE_URL)")
	fs.Func("media-cache-mb", "media object cache size in MiB (env EDGE_MEDIA_CACHE_MB, default 512)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("media-cache-mb must be a positive integer")
		}
		c.MediaCacheBytes = int64(n) << 20
		return nil
	})
	fs.Func("audience-cache-entries", "verified audience tokens kept, about 160 bytes each (env EDGE_AUDIENCE_CACHE_ENTRIES, default 100000)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("audience-cache-entries must be a positive integer")
		}
		c.AudienceCacheEntries = n
		return nil
	})
	fs.Func("volume-pages-bytes", "cache of paged works' volume pages in bytes, pinned release pages included (env EDGE_VOLUME_PAGES_BYTES, default 67108864)", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("volume-pages-bytes must be a positive integer")
		}
		c.VolumePagesBytes = n
		return nil
	})
	fs.Func("comment-bytes", "cache of episode comment heads and pages in bytes (env EDGE_COMMENT_BYTES, default 33554432)", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("comment-bytes must be a positive integer")
		}
		c.CommentBytes = n
		return nil
	})
	fs.Func("volume-pin-ahead", "pin the volume pages of releases within this ahead (and the last hour), e.g. 3h (env EDGE_VOLUME_PIN_AHEAD, default 3h)", func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("volume-pin-ahead must be a positive duration")
		}
		c.VolumePinAhead = d
		return nil
	})
	fs.DurationVar(&c.CountersRefresh, "counters-refresh", catalog.DefaultCountersRefresh, "how stale zzim, view and review counts in lists may get: lists re-render at most once per this while counters change; the detail is never stale (env EDGE_COUNTERS_REFRESH)")
	fs.DurationVar(&c.StaleRender, "stale-render", time.Second, "how long after a counters flush made a cached list out of date it is still served while one background render replaces it; 0 = never (env EDGE_STALE_RENDER)")
	fs.DurationVar(&c.MediaTimeout, "media-timeout", 10*time.Second, "timeout of one object read from the content store (env EDGE_MEDIA_TIMEOUT)")
	fs.IntVar(&c.NATSReplicas, "nats-replicas", 1, "replicas of the stream and bucket when creating them (env NATS_REPLICAS)")
	fs.DurationVar(&c.ForwardTimeout, "forward-timeout", 30*time.Second, "timeout of a call forwarded to a writer (env EDGE_FORWARD_TIMEOUT)")
	fs.DurationVar(&c.WatchCheck, "watch-check", 2*time.Second, "how often the catalog watch's progress is checked against the bucket (env EDGE_WATCH_CHECK)")
	fs.Func("snapshot", "start from the latest catalog snapshot and write them under the lease; false = replay the bucket (env EDGE_SNAPSHOT, default true)", func(v string) error {
		b, err := strconv.ParseBool(v)
		c.NoSnapshot = !b
		return err
	})
	fs.DurationVar(&c.SnapshotEvery, "snapshot-every", 10*time.Minute, "how often the edge holding the snapshot lease writes a catalog snapshot; 0 = never (env EDGE_SNAPSHOT_EVERY)")
	fs.DurationVar(&c.PublishTimeout, "publish-timeout", 5*time.Second, "timeout waiting for JetStream to ack tracking events (env EDGE_PUBLISH_TIMEOUT)")
	svc.ModeFlag(fs, &c.CookieMode)
	fs.BoolVar(&c.ProxyProtocol, "proxy-protocol", false, "the balancers of -trusted-proxies send a PROXY protocol header (v1/v2) naming the reader; anyone else's is refused (env EDGE_PROXY_PROTOCOL)")
	fs.Func("trusted-proxies", "load balancers in front of the edge, comma-separated CIDR ranges or addresses: the reader's address is taken from their X-Forwarded-For, from nobody else's (env EDGE_TRUSTED_PROXIES)", func(v string) error {
		if _, err := realip.Parse(v); err != nil {
			return err
		}
		c.TrustedProxies = v
		return nil
	})
	originsFlag := func(name, directive, env string, dst *[]string) {
		fs.Func(name, "https origins, comma-separated, the pages' Content-Security-Policy admits in "+directive+
			" besides the store's own (live: PortOne's identity verification SDK, SECURITY.md \"Third parties\"); default none (env "+env+")", func(v string) error {
			o, err := static.ParseOrigins(v)
			*dst = o
			return err
		})
	}
	originsFlag("csp-script-origins", "script-src", "EDGE_CSP_SCRIPT_ORIGINS", &c.PageSources.Script)
	originsFlag("csp-connect-origins", "connect-src", "EDGE_CSP_CONNECT_ORIGINS", &c.PageSources.Connect)
	originsFlag("csp-frame-origins", "frame-src", "EDGE_CSP_FRAME_ORIGINS", &c.PageSources.Frame)
	c.NATSAuth.RegisterFlags(fs)
	c.Events.RegisterFlags(fs)
	c.Timeouts.RegisterFlags(fs, "EDGE", edgeTimeouts)
}

// edgeTimeouts are the defaults of Config.Timeouts.
var edgeTimeouts = svc.Timeouts{Read: 60 * time.Second, Write: 60 * time.Second, Idle: 120 * time.Second}

func (c *Config) withDefaults() Config {
	o := *c
	if o.Addr == "" {
		o.Addr = ":8080"
	}
	if o.NATSURL == "" {
		o.NATSURL = contract.DefaultNATSURL
	}
	if o.AudienceSecret == "" {
		o.AudienceSecret = devsecrets.AudienceSecret
	}
	if o.ContentSecret == "" {
		o.ContentSecret = devsecrets.ContentSecret
	}
	if o.IPSalt == "" {
		o.IPSalt = devsecrets.IPSalt
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = 256 << 20
	}
	if o.MediaCacheBytes <= 0 {
		o.MediaCacheBytes = 512 << 20
	}
	if o.VolumePagesBytes <= 0 {
		o.VolumePagesBytes = 64 << 20
	}
	if o.CommentBytes <= 0 {
		o.CommentBytes = 32 << 20
	}
	if o.VolumePinAhead <= 0 {
		o.VolumePinAhead = 3 * time.Hour
	}
	if o.AudienceCacheEntries <= 0 {
		o.AudienceCacheEntries = 100_000
	}
	if o.WatchCheck <= 0 {
		o.WatchCheck = 2 * time.Second
	}
	if o.MediaTimeout <= 0 {
		o.MediaTimeout = 10 * time.Second
	}
	if o.ForwardTimeout <= 0 {
		o.ForwardTimeout = 30 * time.Second
	}
	if o.PublishTimeout <= 0 {
		o.PublishTimeout = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Timeouts = o.Timeouts.Or(edgeTimeouts)
	return o
}

// Server is a running edge.
type Server struct {
	cfg   Config
	log   *slog.Logger
	ln    net.Listener
	opsLn net.Listener // nil without Config.OpsAddr
	nc    *nats.Conn
	js    jetstream.JetStream
	kv    jetstream.KeyValue
	store *catalog.Store
	cache *cache.Cache
	ready svc.Readiness
	reg   *prometheus.Registry
	m     *metrics

	// volKV is the volume page bucket, volPages the cache in front of it.
	volKV    jetstream.KeyValue
	volPages *catalog.VolumePages
	// cmtKV is the comments bucket, comments the cache in front of it.
	cmtKV    jetstream.KeyValue
	comments *catalog.Comments

	static    *static.Static
	proxy     *proxy.Proxy // writers
	analytics *proxy.Proxy // analytics nodes (reports API)
	tracker   *tracking.Tracker
	ops       fasthttp.RequestHandler

	// shell is the build's index.html the drawn pages start from (nil
	// without a build), pageBrand the product name of its <title>.
	shell     *pageShell
	pageBrand string
	publicURL string // origin of share previews' absolute addresses

	audSecret, contentSecret []byte
	auds                     audCache

	// Media: objects by key in front of the content store, and the content
	// tokens already checked.
	objects   *cache.Objects
	objectSrc ObjectSource
	ownStore  *store.Store // opened by New, closed with the edge
	objFlight singleflight.Group
	manifests manifestCache
	tokens    tokenMemo
	mediaReqs prometheus.Counter

	// synced is set once the initial KV sync finished; syncDone is closed then.
	synced   atomic.Bool
	syncDone chan struct{}
	syncedAt time.Time
	// disconnectedAt is when NATS was lost (unix ns, 0 = connected).
	disconnectedAt atomic.Int64
	// watchingSince is when the running catalog watch was opened (0: none
	// is, e.g. while a snapshot loads): an initial sync is judged stalled
	// only from then (watchProgress).
	watchingSince atomic.Int64
	// behindSince is since when the bucket has held a revision the watch
	// has not delivered (unix ns, 0 = caught up): see watchProgress.
	behindSince atomic.Int64
	// behindTarget is the revision behindSince waits for.
	behindTarget atomic.Uint64
	startedAt    time.Time

	restart chan struct{}
	snap    snapshots
	// compressSem bounds background compressions to the cores.
	compressSem chan struct{}
	flight      singleflight.Group
	compressing sync.WaitGroup
	// behind: keys a background render is replacing (renderBehind);
	// renderSem runs those renders one at a time. staleServed counts the
	// stale answers served meanwhile.
	behind      sync.Map
	renderSem   chan struct{}
	staleServed atomic.Uint64
	// ahead: answers rendered ahead of a release instant (prerender.go);
	// clocked: answers that end at an instant, to render ahead of it.
	ahead     aheadAnswers
	clocked   clockedAnswers
	closeOnce sync.Once
}

// New connects to NATS, makes sure the stream and bucket exist, binds the
// listener and loads the static files. Serving and watching start in Run.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := svc.RefuseDevDefaults(cfg.CookieMode,
		svc.DevDefault{Name: "AUDIENCE_SECRET", Value: cfg.AudienceSecret, Dev: devsecrets.AudienceSecret},
		svc.DevDefault{Name: "CONTENT_SECRET", Value: cfg.ContentSecret, Dev: devsecrets.ContentSecret},
		svc.DevDefault{Name: "TRACK_IP_SALT", Value: cfg.IPSalt, Dev: devsecrets.IPSalt},
	); err != nil {
		return nil, fmt.Errorf("edge: %w", err)
	}
	trusted, err := realip.Parse(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("edge: %w", err)
	}
	if cfg.ProxyProtocol && trusted.Empty() {
		return nil, errors.New("edge: EDGE_PROXY_PROTOCOL needs EDGE_TRUSTED_PROXIES, the balancers allowed to send it")
	}
	s := &Server{cfg: cfg, log: log, startedAt: time.Now(), restart: make(chan struct{}, 1), syncDone: make(chan struct{}),
		compressSem: make(chan struct{}, runtime.GOMAXPROCS(0)), renderSem: make(chan struct{}, 1),
		audSecret: []byte(cfg.AudienceSecret), contentSecret: []byte(cfg.ContentSecret)}
	s.ready.Set(false, "initial catalog sync")

	if s.cache, err = cache.New(cfg.CacheBytes); err != nil {
		return nil, fmt.Errorf("create body cache: %w", err)
	}
	if s.objects, err = cache.NewObjects(cfg.MediaCacheBytes); err != nil {
		s.cache.Close()
		return nil, fmt.Errorf("create media object cache: %w", err)
	}
	s.objectSrc = cfg.Objects
	s.auds.max = cfg.AudienceCacheEntries
	if s.objectSrc == nil && cfg.ContentStoreURL != "" {
		st, err := store.Open(ctx, cfg.ContentStoreURL)
		if err != nil {
			s.cache.Close()
			return nil, fmt.Errorf("edge: %w", err)
		}
		s.objectSrc, s.ownStore = st, st
	}
	s.store = catalog.New(cache.NewTags())
	s.store.CountersRefresh = cfg.CountersRefresh
	s.store.SetLoading(true) // until the initial sync ends (markSynced)
	if s.nc, err = natsutil.Connect(cfg.NATSURL, cfg.NATSAuth, "edge", log); err != nil {
		return nil, err
	}
	if s.js, err = jetstream.New(s.nc); err != nil {
		s.nc.Close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	nopts := cfg.Events.Options(cfg.NATSReplicas)
	nopts.Log = log
	if s.kv, err = natsutil.Ensure(ectx, s.js, nopts); err != nil {
		s.nc.Close()
		return nil, err
	}
	if s.volKV, err = natsutil.EnsureVolumesKV(ectx, s.js); err != nil {
		s.nc.Close()
		return nil, err
	}
	s.volPages = catalog.NewVolumePages(cfg.VolumePagesBytes, s.fetchVolumePage)
	if s.cmtKV, err = natsutil.EnsureCommentsKV(ectx, s.js); err != nil {
		s.nc.Close()
		return nil, err
	}
	s.comments = catalog.NewComments(cfg.CommentBytes, s.fetchComments)
	s.store.SetVolumePages(s.volPages)
	if s.static, err = static.LoadStatic(cfg.StaticDir, cfg.PageSources, log); err != nil {
		s.nc.Close()
		return nil, err
	}
	if !s.static.IsPlaceholder() {
		index, _ := s.static.Index()
		if sh, ok := newPageShell(index, cfg.PageSources); ok {
			s.shell, s.pageBrand = sh, html.EscapeString(pageTitle(index))
		} else {
			log.Warn("index.html has no React Router boot script: routes are served without their first screen")
		}
	}
	if s.proxy, err = proxy.NewProxy(proxy.SplitURLs(cfg.WriterURL), cfg.ForwardTimeout, log.With("upstream", "writer")); err != nil {
		s.nc.Close()
		return nil, err
	}
	if s.analytics, err = proxy.NewProxy(proxy.SplitURLs(cfg.AnalyticsURL), cfg.ForwardTimeout, log.With("upstream", "analytics")); err != nil {
		s.nc.Close()
		return nil, err
	}
	s.proxy.Trusted, s.analytics.Trusted = trusted, trusted
	s.tracker = &tracking.Tracker{JS: s.js, Now: cfg.Now, Salt: []byte(cfg.IPSalt), AudienceSecret: s.audSecret, Timeout: cfg.PublishTimeout,
		Bundler: trackbundle.New(s.js, trackbundle.Options{AckWait: cfg.PublishTimeout}), Trusted: trusted}
	s.reg = svc.NewRegistry()
	s.m = newMetrics(s)
	s.registerSnapshotMetrics()
	s.mediaReqs = s.m.requests.WithLabelValues("media")
	s.ops = opsHandler(s)
	if s.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		s.tracker.Bundler.Close()
		s.nc.Close()
		return nil, fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	if cfg.ProxyProtocol {
		s.ln = proxyProtocol(s.ln, trusted)
	}
	if cfg.OpsAddr != "" {
		if s.opsLn, err = net.Listen("tcp", cfg.OpsAddr); err != nil {
			s.ln.Close()
			s.tracker.Bundler.Close()
			s.nc.Close()
			return nil, fmt.Errorf("listen %s (ops): %w", cfg.OpsAddr, err)
		}
	}
	s.publicURL = cfg.PublicURL
	if s.publicURL == "" {
		s.publicURL = "http://" + s.ln.Addr().String()
	}
	return s, nil
}

// proxyProtocol reads the PROXY protocol header of connections from the
// trusted balancers (optional from them: their health checks may connect
// plainly) and refuses one from anybody else, who could otherwise name any
// address.
func proxyProtocol(ln net.Listener, trusted realip.Trusted) net.Listener {
	return &proxyproto.Listener{Listener: ln, ReadHeaderTimeout: 10 * time.Second,
		Policy: func(upstream net.Addr) (proxyproto.Policy, error) {
			if ap, err := netip.ParseAddrPort(upstream.String()); err == nil && trusted.Contains(ap.Addr()) {
				return proxyproto.USE, nil
			}
			return proxyproto.REJECT, nil
		}}
}

// Addr is the bound address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// OpsAddr is the operators' listener's address, or "" without one.
func (s *Server) OpsAddr() string {
	if s.opsLn == nil {
		return ""
	}
	return s.opsLn.Addr().String()
}

// Run watches the catalog and serves until ctx is done, then shuts down.
func (s *Server) Run(ctx context.Context) error {
	defer s.close()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watchDone := make(chan error, 1)
	go func() { watchDone <- s.watch(wctx) }()
	go s.watchConnection(wctx)
	go s.watchProgress(wctx)
	go s.writeSnapshots(wctx)
	go s.pinVolumePages(wctx)
	go s.prerenderReleases(wctx)
	go s.watchComments(wctx)
	go s.pinComments(wctx)

	srv := &fasthttp.Server{
		Handler:               s.handle,
		Name:                  "edge",
		NoDefaultServerHeader: true,
		ReadBufferSize:        16 << 10,
		ReadTimeout:           s.cfg.Timeouts.Read,
		WriteTimeout:          s.cfg.Timeouts.Write,
		IdleTimeout:           s.cfg.Timeouts.Idle,
		ErrorHandler:          s.transportError,
		Logger:                slogAdapter{s.log},
	}
	serveErr := make(chan error, 2)
	go func() { serveErr <- srv.Serve(s.ln) }()
	var opsSrv *fasthttp.Server
	if s.opsLn != nil {
		opsSrv = &fasthttp.Server{Handler: s.ops, Name: "edge-ops", NoDefaultServerHeader: true, ReadTimeout: s.cfg.Timeouts.Read,
			WriteTimeout: s.cfg.Timeouts.Write, IdleTimeout: s.cfg.Timeouts.Idle, Logger: slogAdapter{s.log}}
		go func() { serveErr <- opsSrv.Serve(s.opsLn) }()
	}
	s.log.Info("edge listening", "addr", s.Addr(), "ops", s.OpsAddr())
	select {
	case err := <-serveErr:
		return fmt.Errorf("serve %s: %w", s.Addr(), err)
	case <-ctx.Done():
	}
	s.ready.Set(false, "shutting down")
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	if err := srv.ShutdownWithContext(sctx); err != nil {
		return fmt.Errorf("shutdown %s: %w", s.Addr(), err)
	}
	if opsSrv != nil {
		if err := opsSrv.ShutdownWithContext(sctx); err != nil {
			return fmt.Errorf("shutdown %s: %w", s.OpsAddr(), err)
		}
	}
	cancel()
	if err := <-watchDone; err != nil && !errors.Is(err, context.Canceled) {
		s.log.Warn("catalog watch ended", "err", err)
	}
	return nil
}

func (s *Server) close() {
	s.closeOnce.Do(func() {
		// Handlers are done (the server shut down); let their background
		// compressions finish before the cache goes.
		s.compressing.Wait()
		s.tracker.Bundler.Close()
		s.nc.Close()
		s.cache.Close()
		s.objects.Close()
		if s.ownStore != nil {
			s.ownStore.Close()
		}
	})
}

type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Printf(format string, args ...any) { a.l.Warn(fmt.Sprintf(format, args...)) }

// ParsePublicURL checks a public origin: http or https, a host, nothing
// after it (a path would be doubled in every address built from it).
func ParsePublicURL(v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("public url %q: want http(s)://host[:port]", v)
	}
	return u.Scheme + "://" + u.Host, nil
}
