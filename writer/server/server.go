// Package server assembles the writer service: PostgreSQL (schema migrated at
// start), JetStream (stream and bucket ensured at start), the outbox relay, the
// admin API, the member API and the ops endpoints. cmd/storefront and
// writer/main.go both start it through New and Run.
package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/contract"
	"storefront/devsecrets"
	"storefront/media/store"
	"storefront/natsutil"
	"storefront/realip"
	"storefront/svc"
	"storefront/writer/admin"
	"storefront/writer/appmoney"
	"storefront/writer/auth"
	"storefront/writer/catalog"
	"storefront/writer/devclock"
	"storefront/writer/enrich"
	"storefront/writer/httpapi"
	"storefront/writer/identity/portonesandbox"
	"storefront/writer/media"
	"storefront/writer/member"
	"storefront/writer/migrations"
	"storefront/writer/money"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/outbox"
	"storefront/writer/push"
	"storefront/writer/settlement"
	"storefront/writer/staff"
)

// Config is every setting of the writer. Zero values get defaults in New.
type Config struct {
	Addr        string
	DatabaseURL string
	// DatabaseMigrateURL (DATABASE_MIGRATE_URL) is a direct connection to
	// the primary for migrations (goose holds a session advisory lock) and
	// the outbox's LISTEN; empty = DatabaseURL. Required with DBPooled.
	DatabaseMigrateURL string
	// DBPooled (DATABASE_POOLED): DatabaseURL is a transaction pooler
	// (PgBouncer pool_mode=transaction), see database.go.
	DBPooled bool
	// DBStatementTimeout and DBLockTimeout (WRITER_DB_STATEMENT_TIMEOUT,
	// WRITER_DB_LOCK_TIMEOUT) bound one statement and one lock wait; 0 = none.
	DBStatementTimeout time.Duration
	DBLockTimeout      time.Duration
	NATSURL            string
	NATSReplicas       int
	// NATSAuth: credentials and TLS of a secured NATS cluster.
	NATSAuth       natsutil.Auth
	Events         natsutil.EventsLimits // size of the EVENTS stream (EVENTS_MAX_BYTES, EVENTS_PEAK_RATE, ...)
	AdminToken     string
	AudienceSecret string
	AnalystSecret  string // ANALYST_SECRET, analytics' too: signs the analyst cookie
	ContentSecret  string
	IPSalt         string // TRACK_IP_SALT, the edge's: a member's purchase and page views carry the same IP hash
	DBMaxConns     int
	RelayBatch     int
	RelayPoll      time.Duration
	ShutdownGrace  time.Duration
	// Timeouts bound slow and idle clients (WRITER_READ_HEADER_TIMEOUT,
	// WRITER_READ_TIMEOUT, WRITER_WRITE_TIMEOUT, WRITER_IDLE_TIMEOUT). Idle
	// must outlast the edge's idle upstream connections (30 s).
	Timeouts svc.Timeouts
	// CookieSecure forces Secure cookies (TLS terminated in front of the edge).
	CookieSecure bool
	// TrustedOrigins may make state-changing calls besides the request's host.
	TrustedOrigins string
	// TrustedProxies (WRITER_TRUSTED_PROXIES) are the edges, comma-separated
	// CIDR ranges or addresses: only their X-Forwarded-For names the reader
	// (login limits, the IP hash of business events). Empty = loopback
	// (DefaultTrustedProxies), the edge of one machine.
	TrustedProxies string
	// CookieMode is live, stage or dev (written into the member cookie).
	CookieMode string
	// LoginPerMinute bounds login attempts per account and client.
	LoginPerMinute int
	// ChargePerMinute bounds charging calls (request, confirm, cancel) per member.
	ChargePerMinute int
	// CommentsPerMinute bounds episode comments per member (0: member's default).
	CommentsPerMinute int
	// WebhookPerMinute bounds the payment gateway's webhook calls per client address.
	WebhookPerMinute int
	// Payment gateway (the Toss sandbox in dev): base URL, the merchant's secret
	// key (server calls) and client key (the payment widget). Without a URL
	// charging answers 503.
	PaymentURL       string
	PaymentSecretKey string
	PaymentClientKey string
	// PaymentCheckoutURL is a separately run sandbox's base URL, whose
	// checkout page stands in for the payment widget (empty with the real
	// gateway: the client loads the widget itself).
	PaymentCheckoutURL string
	// PaymentReturnOrigins are the store's own origins a charge's return
	// URLs may name besides a path and the request's host (comma-separated).
	PaymentReturnOrigins string
	// BillingKeySecret encrypts the gateway's billing keys (registered
	// cards of automatic top-up) at rest.
	BillingKeySecret string
	// TopupPoll is how often each writer schedules and runs due automatic
	// top-ups (0 = money's default, 15 s).
	TopupPoll time.Duration
	// PaymentSandbox starts the local Toss sandbox (writer/money/tosssandbox) on a
	// free port when PaymentURL is empty, so charging works in development.
	PaymentSandbox bool
	// Providers overrides the OAuth2 providers (nil = from env, see auth.DefaultProviders).
	Providers map[string]auth.Provider
	// Identity is the identity-verification provider of adult verification
	// (PortOne V2; the sandbox in development).
	Identity IdentityConfig
	// Now is the clock (nil = time.Now).
	Now func() time.Time
	// ContentStoreURL is the object store of uploaded content and what
	// processing makes of it (media/store URL: a folder or s3://...); the
	// edges read the same store. Empty: the media routes answer 503.
	ContentStoreURL string
	// MediaGrace is how long a replaced volume version stays readable.
	MediaGrace time.Duration
	// MediaWorkers is how many processing jobs this writer runs at once.
	MediaWorkers int
	// DevClock lets a request move the coupon clock by the cookie
	// sf_devclock (writer/devclock), for end-to-end tests. Refused in live mode.
	DevClock bool
	// Push is Web Push of new-volume alarms (VAPID keys, worker settings).
	Push push.Config
	// AppMoney is the app stores' side of app money (writer/appmoney): a
	// store without its credentials answers 503.
	AppMoney appmoney.Config
}

// RegisterFlags registers the writer's flags with environment fallbacks.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", ":8081", "listen address (env WRITER_ADDR)")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL URL (env DATABASE_URL)")
	fs.StringVar(&c.NATSURL, "nats-url", contract.DefaultNATSURL, "NATS URL (env NATS_URL)")
	fs.IntVar(&c.NATSReplicas, "nats-replicas", 1, "JetStream replicas of stream and bucket (env NATS_REPLICAS)")
	fs.StringVar(&c.AdminToken, "admin-token", devsecrets.AdminToken, "bearer token of machine calls to the admin API: catalog changes and member roles, never staff or the audit trail (env ADMIN_TOKEN)")
	fs.StringVar(&c.AudienceSecret, "audience-secret", devsecrets.AudienceSecret, "secret of the audience cookie shared with the edge (env AUDIENCE_SECRET)")
	fs.StringVar(&c.AnalystSecret, "analyst-secret", devsecrets.AnalystSecret, "secret of the analyst cookie shared with analytics (env ANALYST_SECRET)")
	fs.StringVar(&c.ContentSecret, "content-secret", devsecrets.ContentSecret, "secret of content tokens shared with the edge (env CONTENT_SECRET)")
	fs.StringVar(&c.IPSalt, "ip-salt", devsecrets.IPSalt, "salt of the client IP hash in business events, the edge's value (env TRACK_IP_SALT)")
	fs.IntVar(&c.DBMaxConns, "db-max-conns", 32, "PostgreSQL pool size (env WRITER_DB_MAX_CONNS)")
	fs.StringVar(&c.DatabaseMigrateURL, "database-migrate-url", "", "direct PostgreSQL URL for migrations and the outbox's LISTEN, when DATABASE_URL is a pooler (env DATABASE_MIGRATE_URL)")
	fs.BoolVar(&c.DBPooled, "database-pooled", false, "DATABASE_URL is a transaction pooler such as PgBouncer: no prepared statements, LISTEN and migrations on -database-migrate-url (env DATABASE_POOLED)")
	fs.DurationVar(&c.DBStatementTimeout, "db-statement-timeout", DefaultStatementTimeout, "PostgreSQL statement_timeout of the writer's connections, 0 = none (env WRITER_DB_STATEMENT_TIMEOUT)")
	fs.DurationVar(&c.DBLockTimeout, "db-lock-timeout", DefaultLockTimeout, "PostgreSQL lock_timeout of the writer's connections, 0 = none (env WRITER_DB_LOCK_TIMEOUT)")
	fs.IntVar(&c.RelayBatch, "relay-batch", 500, "outbox rows per relay transaction (env WRITER_RELAY_BATCH)")
	fs.DurationVar(&c.RelayPoll, "relay-poll", outbox.DefaultPoll, "how often the relay looks for outbox rows committed elsewhere (env WRITER_RELAY_POLL)")
	fs.BoolVar(&c.CookieSecure, "cookie-secure", false, "always mark cookies Secure (env COOKIE_SECURE)")
	fs.StringVar(&c.TrustedOrigins, "trusted-origins", "", "comma-separated origins allowed to make state-changing calls besides the request host (env TRUSTED_ORIGINS)")
	svc.ModeFlag(fs, &c.CookieMode)
	fs.Func("trusted-proxies", "the edges, comma-separated CIDR ranges or addresses: only their X-Forwarded-For names the reader; default "+DefaultTrustedProxies+" (env WRITER_TRUSTED_PROXIES)", func(v string) error {
		if _, err := realip.Parse(v); err != nil {
			return err
		}
		c.TrustedProxies = v
		return nil
	})
	fs.IntVar(&c.LoginPerMinute, "login-per-minute", 10, "login attempts per account and minute (env LOGIN_PER_MINUTE)")
	fs.IntVar(&c.ChargePerMinute, "charge-per-minute", 10, "charging calls (request, confirm, cancel) per member and minute (env CHARGE_PER_MINUTE)")
	fs.IntVar(&c.CommentsPerMinute, "comments-per-minute", member.DefaultCommentsPerMinute, "episode comments and replies per member and minute (env COMMENTS_PER_MINUTE)")
	fs.IntVar(&c.WebhookPerMinute, "webhook-per-minute", 120, "payment gateway webhook calls per client address and minute (env WEBHOOK_PER_MINUTE)")
	fs.StringVar(&c.PaymentURL, "payment-url", "", "payment gateway base URL (env PAYMENT_URL)")
	fs.StringVar(&c.PaymentSecretKey, "payment-secret-key", tosssandbox.DefaultSecretKey, "payment gateway merchant key (env PAYMENT_SECRET_KEY)")
	fs.StringVar(&c.PaymentClientKey, "payment-client-key", tosssandbox.DefaultClientKey, "payment gateway client key for the payment widget (env PAYMENT_CLIENT_KEY)")
	fs.StringVar(&c.PaymentCheckoutURL, "payment-checkout-url", "", "base URL of a separately run payment sandbox whose checkout page stands in for the payment widget (env PAYMENT_CHECKOUT_URL)")
	fs.StringVar(&c.PaymentReturnOrigins, "payment-return-origins", "", "comma-separated origins of the store (https://store.example) a charge's successUrl/failUrl may name besides a path and the host the request came to (env PAYMENT_RETURN_ORIGINS)")
	fs.StringVar(&c.BillingKeySecret, "billing-key-secret", devsecrets.BillingKeySecret, "secret the payment gateway's billing keys are encrypted under at rest (env BILLING_KEY_SECRET)")
	fs.DurationVar(&c.TopupPoll, "topup-poll", 15*time.Second, "how often a writer schedules and runs due automatic top-ups (env TOPUP_POLL)")
	fs.BoolVar(&c.PaymentSandbox, "payment-sandbox", true, "start the local Toss sandbox when no payment-url is given (env PAYMENT_SANDBOX)")
	fs.StringVar(&c.ContentStoreURL, "content-store-url", "", "object store of uploaded content: a folder or s3://bucket?endpoint=... (env CONTENT_STORE_URL)")
	fs.DurationVar(&c.MediaGrace, "media-grace", 24*time.Hour, "how long a replaced volume version stays readable before its files are removed (env WRITER_MEDIA_GRACE)")
	fs.IntVar(&c.MediaWorkers, "media-workers", 1, "processing jobs this writer runs at once (env WRITER_MEDIA_WORKERS)")
	fs.BoolVar(&c.DevClock, "dev-clock", false, "TESTS ONLY: a request's sf_devclock cookie moves the coupon clock by that many seconds; refused with cookie-mode live (env WRITER_DEV_CLOCK)")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", 10*time.Second, "graceful shutdown limit (env WRITER_SHUTDOWN_GRACE)")
	c.Push.RegisterFlags(fs)
	c.Identity.RegisterFlags(fs)
	c.AppMoney.RegisterFlags(fs)
	c.NATSAuth.RegisterFlags(fs)
	c.Events.RegisterFlags(fs)
	c.Timeouts.RegisterFlags(fs, "WRITER", writerTimeouts)
}

// DefaultTrustedProxies are the edges of one machine. Several machines list
// their edges' addresses in WRITER_TRUSTED_PROXIES.
const DefaultTrustedProxies = "127.0.0.0/8,::1"

// writerTimeouts are the defaults of Config.Timeouts.
var writerTimeouts = svc.Timeouts{ReadHeader: 10 * time.Second, Read: 60 * time.Second, Write: 120 * time.Second, Idle: 120 * time.Second}

func (c *Config) defaults() {
	if c.Addr == "" {
		c.Addr = ":8081"
	}
	if c.NATSURL == "" {
		c.NATSURL = contract.DefaultNATSURL
	}
	if c.AdminToken == "" {
		c.AdminToken = devsecrets.AdminToken
	}
	if c.AudienceSecret == "" {
		c.AudienceSecret = devsecrets.AudienceSecret
	}
	if c.AnalystSecret == "" {
		c.AnalystSecret = devsecrets.AnalystSecret
	}
	if c.ContentSecret == "" {
		c.ContentSecret = devsecrets.ContentSecret
	}
	if c.IPSalt == "" {
		c.IPSalt = devsecrets.IPSalt
	}
	if c.BillingKeySecret == "" {
		c.BillingKeySecret = devsecrets.BillingKeySecret
	}
	if c.PaymentSecretKey == "" {
		c.PaymentSecretKey = tosssandbox.DefaultSecretKey
	}
	if c.PaymentClientKey == "" {
		c.PaymentClientKey = tosssandbox.DefaultClientKey
	}
	if c.TrustedProxies == "" {
		c.TrustedProxies = DefaultTrustedProxies
	}
	if c.DBMaxConns <= 0 {
		c.DBMaxConns = 32
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = 10 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	// Before the live check: an unset key pair is the dev pair, refused there.
	if c.Push.PublicKey == "" && c.Push.PrivateKey == "" {
		c.Push.PublicKey, c.Push.PrivateKey = push.DevPublicKey, push.DevPrivateKey
	}
	c.Identity.defaults()
	c.Timeouts = c.Timeouts.Or(writerTimeouts)
}

// Server is a running writer.
type Server struct {
	cfg  Config
	log  *slog.Logger
	pool *pgxpool.Pool
	// direct is the direct connection for migrations and LISTEN (pool
	// itself unless DATABASE_MIGRATE_URL is given).
	direct *pgxpool.Pool
	nc     *nats.Conn
	js     jetstream.JetStream
	relay  *outbox.Relay
	auth   *auth.Auth
	media  *media.Service
	store  *store.Store
	pgsb   *tosssandbox.Server
	idsb   *portonesandbox.Server
	push   *push.Worker
	money  *money.Service
	member *member.Service
	ln     net.Listener
	http   *http.Server
	ready  svc.Readiness
	// Handler is the writer's whole HTTP surface (tests may call it directly).
	Handler http.Handler
	// patterns are the registered route patterns, in registration order.
	patterns []string
}

// recorder registers on mux and remembers each pattern, so the server can
// list its routes without every package keeping a second list.
type recorder struct {
	mux  *http.ServeMux
	list *[]string
}

func (r recorder) Handle(pattern string, h http.Handler) {
	*r.list = append(*r.list, pattern)
	r.mux.Handle(pattern, h)
}

// Patterns lists every route pattern the writer serves ("METHOD /path", the
// catch-all not found answer left out): the OpenAPI contract test checks that
// docs/openapi.yaml describes each one.
func (s *Server) Patterns() []string { return append([]string(nil), s.patterns...) }

// New connects to PostgreSQL and NATS, applies migrations, ensures the stream
// and bucket, and binds the listen address. Nothing is served before Run.
func New(ctx context.Context, cfg Config, log *slog.Logger) (_ *Server, err error) {
	cfg.defaults()
	if cfg.DatabaseURL == "" {
		return nil, errors.New("writer: DATABASE_URL is required")
	}
	// Every test double (sandboxes, fakes, dev secrets, the dev clock) is
	// refused in live mode; package doubles holds the list.
	if err := refuseDoubles(cfg); err != nil {
		return nil, err
	}
	trusted, err := realip.Parse(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	s := &Server{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.pool, s.direct, err = openDatabase(ctx, cfg, log); err != nil {
		return nil, err
	}
	if err := migrations.Up(ctx, s.direct, log); err != nil {
		return nil, err
	}
	if s.nc, err = natsutil.Connect(cfg.NATSURL, cfg.NATSAuth, "writer", log); err != nil {
		return nil, err
	}
	if s.js, err = jetstream.New(s.nc); err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	nopts := cfg.Events.Options(cfg.NATSReplicas)
	nopts.Log = log
	if _, err := natsutil.Ensure(ectx, s.js, nopts); err != nil {
		return nil, err
	}
	// Read once: changes made while NATS is down are checked against it too.
	maxDoc, err := natsutil.CatalogValueLimit(ectx, s.js)
	if err != nil {
		return nil, err
	}
	log.Info("catalog documents limited by NATS", "max_bytes", maxDoc)
	if cfg.ContentStoreURL != "" {
		if s.store, err = store.Open(ctx, cfg.ContentStoreURL); err != nil {
			return nil, err
		}
	}
	s.media = media.New(s.pool, s.store, media.Config{Grace: cfg.MediaGrace, Workers: cfg.MediaWorkers, Now: cfg.Now}, log.With("part", "media"))
	reg := svc.NewRegistry()
	s.relay = outbox.New(s.pool, s.js, outbox.Route(s.builders()),
		outbox.Config{Batch: cfg.RelayBatch, Poll: cfg.RelayPoll, ListenPool: s.direct}, log.With("part", "relay"), reg)

	mux := http.NewServeMux()
	top := recorder{mux, &s.patterns}
	ops := svc.OpsMux(&s.ready, reg, s.readyDetail)
	top.Handle("GET /healthz", ops)
	top.Handle("GET /readyz", ops)
	top.Handle("GET /metrics", ops)
	// People sign in as staff (writer/staff); ADMIN_TOKEN is the machine
	// principal only, within the scope staff.grants gives it.
	st, err := staff.New(s.pool, staff.Config{Now: cfg.Now, MachineToken: cfg.AdminToken,
		CookieSecure: cfg.CookieSecure || cfg.CookieMode == svc.ModeLive}, log.With("part", "staff"))
	if err != nil {
		return nil, err
	}
	st.Routes(top, admin.Prefix, func(f httpapi.HandlerFunc) http.Handler { return httpapi.Wrap(log, f) })
	adm := admin.New(s.pool, st, cfg.Now, log.With("part", "admin"))
	adm.Changed = s.relay.Wake
	adm.Docs, adm.MaxDoc = outbox.Route(s.builders()), maxDoc
	adm.Routes(top)
	s.media.Changed = s.relay.Wake
	s.media.Routes(top, admin.Prefix, adm.PortalAuth)
	// Provider contracts, their works and settlement statements.
	settlement.New(s.pool, st, settlement.DefaultFees, cfg.Now, log.With("part", "settlement")).Routes(top, admin.Prefix)
	providers := cfg.Providers
	if providers == nil {
		providers = auth.DefaultProviders()
	}
	var origins []string
	for _, o := range strings.Split(cfg.TrustedOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}
	acfg := auth.Config{Now: cfg.Now, AudienceSecret: cfg.AudienceSecret, AnalystSecret: cfg.AnalystSecret, CookieSecure: cfg.CookieSecure,
		TrustedOrigins: origins, Providers: providers, LoginPerMinute: cfg.LoginPerMinute, CookieMode: cfg.CookieMode}
	if err := s.identity(&acfg); err != nil {
		return nil, err
	}
	s.auth = auth.New(s.pool, acfg, log.With("part", "auth"))
	s.auth.Changed = s.relay.Wake
	s.auth.ProfileChanged = s.enqueueProfile
	if err := s.answerAnalystChecks(st); err != nil {
		return nil, err
	}
	member := http.NewServeMux()
	s.auth.Routes(recorder{member, &s.patterns})
	if err := s.routes(ctx, recorder{member, &s.patterns}, reg, adm); err != nil {
		return nil, err
	}
	s.member.AdminRoutes(top, admin.Prefix, adm.ModerationAuth)
	member.Handle("/", httpapi.Wrap(log, func(http.ResponseWriter, *http.Request) error { return httpapi.ErrNotFound }))
	// Member bodies are small; 1 MiB bounds every seed payload with room.
	var memberAPI http.Handler = httpapi.Limit(1<<20, s.auth.Middleware(member))
	if cfg.DevClock {
		log.Warn("dev clock on: requests may move the coupon clock (sf_devclock cookie); never in production")
		memberAPI = devclock.Middleware(log, memberAPI)
	}
	// Business events caused by a reader's request carry the edge's
	// enrichment of it; the gateway's webhook is not a reader's request.
	memberAPI = enrich.Middleware([]byte(cfg.IPSalt), func(r *http.Request) bool {
		return r.URL.Path == money.WebhookPath || slices.Contains(appmoney.NotificationPaths, r.URL.Path)
	}, memberAPI)
	mux.Handle("/", memberAPI)
	// Guard: no route sees a path or query with text PostgreSQL cannot
	// store or a query field given twice.
	s.Handler = httpapi.Metrics(reg, httpapi.Sign(httpapi.Guard(mux)))
	// The reader's address, resolved once for every handler (realip).
	var warned sync.Map
	s.Handler = trusted.Middleware(s.Handler, func(peer netip.Addr) {
		if _, seen := warned.LoadOrStore(peer, true); !seen {
			log.Warn("X-Forwarded-For from a peer that is not a trusted proxy is ignored: list the edges in WRITER_TRUSTED_PROXIES", "peer", peer)
		}
	})

	if s.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	if s.pgsb != nil {
		s.pgsb.SetWebhookURL("http://" + s.Addr() + "/home/api/v1/charge/webhook")
	}
	s.http = cfg.Timeouts.Apply(&http.Server{Handler: s.Handler})
	return s, nil
}

// builders maps catalog key prefixes to the code that rebuilds their documents.
func (s *Server) builders() map[string]outbox.Builder {
	b := catalog.Builders()
	b[contract.KeyReviews] = member.BuildReviews
	for k, v := range member.CommentBuilders(s.cfg.Now) {
		b[k] = v
	}
	for k, v := range s.media.Builders() {
		b[k] = v
	}
	return b
}

// routes registers the member-facing routes (and gives the admin API the
// money service for coupon grants).
func (s *Server) routes(ctx context.Context, mux httpapi.Mux, reg prometheus.Registerer, adm *admin.API) error {
	// Changed: every service that commits outbox rows wakes this node's relay
	// in-process (there is no NOTIFY per row; see writer/outbox).
	mcfg := money.Config{Now: s.cfg.Now, ContentSecret: s.cfg.ContentSecret, Changed: s.relay.Wake,
		ChargePerMinute: s.cfg.ChargePerMinute, WebhookPerMinute: s.cfg.WebhookPerMinute, ProfileChanged: s.enqueueProfile, PaymentClientKey: s.cfg.PaymentClientKey,
		PaymentCheckoutURL: s.cfg.PaymentCheckoutURL, ReturnOrigins: strings.Split(s.cfg.PaymentReturnOrigins, ","),
		BillingKeySecret: s.cfg.BillingKeySecret, TopupPoll: s.cfg.TopupPoll}
	if s.cfg.PaymentURL == "" && s.cfg.PaymentSandbox {
		sb, err := tosssandbox.Start("127.0.0.1:0", tosssandbox.Config{SecretKey: s.cfg.PaymentSecretKey,
			ClientKey: s.cfg.PaymentClientKey, Log: s.log.With("part", "tosssandbox")})
		if err != nil {
			return err
		}
		s.pgsb = sb
		s.cfg.PaymentURL = sb.URL
		mcfg.PaymentCheckoutURL = sb.URL
		s.log.Info("payment gateway sandbox started", "url", sb.URL)
	}
	if s.cfg.PaymentURL != "" {
		mcfg.Gateway = &money.HTTPGateway{BaseURL: s.cfg.PaymentURL, SecretKey: s.cfg.PaymentSecretKey,
			Client: &http.Client{Timeout: 15 * time.Second}}
	}
	ms := money.New(s.pool, mcfg, s.log.With("part", "money"))
	s.money = ms
	ms.Routes(mux, s.auth.UserID)
	adm.Coupons = ms
	acfg := s.cfg.AppMoney
	if acfg.Now == nil {
		acfg.Now = s.cfg.Now
	}
	as, err := appmoney.New(ctx, s.pool, ms, acfg, s.log.With("part", "appmoney"))
	if err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	as.Routes(mux, s.auth.UserID)
	mem := member.New(s.pool, s.auth, ms, s.cfg.Now, s.log.With("part", "member"))
	mem.Changed = s.relay.Wake
	if s.cfg.CommentsPerMinute > 0 {
		mem.SetCommentsPerMinute(s.cfg.CommentsPerMinute)
	}
	mem.Routes(mux)
	s.member = mem
	// Endpoints over plain http are the fake push service of tests; a live
	// store posts to the browsers' push services only.
	pcfg := s.cfg.Push
	pcfg.AllowHTTP = s.cfg.CookieMode != svc.ModeLive
	if pcfg.Now == nil {
		pcfg.Now = s.cfg.Now
	}
	ps, err := push.New(s.pool, pcfg, s.log.With("part", "push"))
	if err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	ps.Routes(mux, s.auth.UserID)
	s.push = ps.Worker(reg)
	return nil
}

// enqueueProfile puts the member_profile event into tx (auth and money call
// it at login, adult verification, 19 toggle and charges).
func (s *Server) enqueueProfile(ctx context.Context, tx pgx.Tx, uid int64) error {
	return member.EnqueueProfile(ctx, tx, uid, s.cfg.Now())
}

func (s *Server) readyDetail() string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n, err := s.relay.Pending(ctx)
	if err != nil {
		return fmt.Sprintf("outbox_pending unknown: %v\n", err)
	}
	return fmt.Sprintf("outbox_pending %d\n", n)
}

// Addr is the bound address, e.g. "127.0.0.1:8081".
func (s *Server) Addr() string {
	a := s.ln.Addr().(*net.TCPAddr)
	if a.IP.IsUnspecified() {
		return fmt.Sprintf("127.0.0.1:%d", a.Port)
	}
	return a.String()
}

// Media is the writer's media service (tests run its sweeper at a chosen time).
func (s *Server) Media() *media.Service { return s.media }

// Pool is the writer's PostgreSQL pool (for the launcher and tests).
func (s *Server) Pool() *pgxpool.Pool { return s.pool }

// Run serves until ctx is done, then shuts down gracefully.
func (s *Server) Run(ctx context.Context) error {
	defer s.close()
	rctx, stopRelay := context.WithCancel(context.WithoutCancel(ctx))
	relayDone := make(chan error, 1)
	go func() { relayDone <- s.relay.Run(rctx) }()
	// Processing jobs stop with the relay; a job cut short is taken up
	// again when its lease runs out.
	mediaDone := make(chan error, 1)
	go func() { mediaDone <- s.media.Run(rctx) }()
	// New-volume notifications stop with the relay too; the batch in
	// flight is finished and recorded first.
	pushDone := make(chan error, 1)
	go func() { pushDone <- s.push.Run(rctx) }()
	// The gateway's settlements of each day are compared with the ledger.
	reconDone := make(chan struct{})
	go func() { defer close(reconDone); s.money.ReconcileDaily(rctx) }()
	// Automatic top-ups: every node schedules and runs them; the job rows
	// make each one happen once (writer/money/topup.go).
	topupDone := make(chan struct{})
	go func() { defer close(topupDone); s.money.RunTopups(rctx) }()
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(s.ln) }()
	s.ready.Set(true, "")
	s.log.Info("writer listening", "addr", s.Addr())
	var err error
	select {
	case err = <-errc:
		err = fmt.Errorf("serve %s: %w", s.Addr(), err)
	case <-ctx.Done():
		s.ready.Set(false, "shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
		if e := s.http.Shutdown(sctx); e != nil {
			err = fmt.Errorf("shutdown: %w", e)
		}
		cancel()
	}
	// The relay stops after the last request committed; rows it leaves are
	// published by the next start or another node.
	stopRelay()
	<-relayDone
	<-mediaDone
	<-pushDone
	<-reconDone
	<-topupDone
	return err
}

func (s *Server) close() {
	if s.auth != nil {
		s.auth.Close()
	}
	if s.pgsb != nil {
		_ = s.pgsb.Close()
	}
	if s.idsb != nil {
		_ = s.idsb.Close()
	}
	if s.nc != nil {
		_ = s.nc.Drain()
	}
	if s.direct != nil && s.direct != s.pool {
		s.direct.Close()
	}
	if s.pool != nil {
		s.pool.Close()
	}
	if s.store != nil {
		_ = s.store.Close()
	}
	if s.ln != nil {
		_ = s.ln.Close()
	}
}
