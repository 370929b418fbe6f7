// Package money is the writer's money: wallets (blue money, Android and iOS app
// money, mileage) backed by an append-only ledger, charging through a payment
// gateway, purchases and rentals with entitlements, and coupons (wait-for-free,
// read coupons, passes, the jumping pass, event coupons and tickets).
//
// Money never goes wrong: balances change only through ledger rows (a trigger
// applies each row to its wallet and the wallet's CHECK keeps it >= 0), every
// call that moves money carries an Idempotency-Key whose answer is stored in the
// same transaction as its effect, and all changes of one user serialise on the
// user's wallet row. Business events go to the transactional outbox in the same
// transaction.
//
// A Service is safe for concurrent use. It holds no global state: the clock,
// logger, catalog, gateway and outbox are passed in through Config.
package money

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/devsecrets"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
)

// Config holds every setting; zero values get defaults in New.
type Config struct {
	// Now is the clock (nil = time.Now). Coupon timers and rentals follow it.
	Now func() time.Time
	// ContentSecret signs content tokens for the edge (env CONTENT_SECRET).
	ContentSecret string
	// ContentTTL is how long a download-auth content token lasts (default 30m).
	ContentTTL time.Duration
	// JoinBonus is the mileage granted once after sign-up (default
	// contract.JoinBonusMileage, the amount the demo's join event states).
	JoinBonus int64
	// FirstChargeBonusPct is the mileage bonus on the first charge, in percent
	// (default contract.FirstChargeBonusPct, the number the demo's event text
	// promises; the wallet answer tells the page the configured one).
	FirstChargeBonusPct int64
	// DefaultRentDays is the rental term when the work sets none (default 3).
	DefaultRentDays int
	// MaxCharge bounds one charge (default 1,000,000 won).
	MaxCharge int64
	// ChargePerMinute bounds the charging calls (request, confirm, cancel) that
	// reach the payment gateway, per member and writer node (default 10), so a
	// stolen session cannot test cards through us.
	ChargePerMinute int
	// WebhookPerMinute bounds the gateway webhook calls per client address
	// and writer node (default 120): the route takes no session, and each
	// call makes us ask the gateway, so a flood must not reach it.
	WebhookPerMinute int
	// Gateway charges cards. When nil and PaymentURL is set, an HTTPGateway to
	// PaymentURL is used; when both are empty, charging calls answer 503.
	Gateway PaymentGateway
	// PaymentURL is the gateway's base URL (env PAYMENT_URL; the sandbox in dev).
	PaymentURL string
	// PaymentSecretKey authenticates us at the gateway (env PAYMENT_SECRET_KEY).
	PaymentSecretKey string
	// PaymentClientKey opens the gateway's payment widget on the client
	// (env PAYMENT_CLIENT_KEY); it is handed to the client with each order.
	PaymentClientKey string
	// PaymentCheckoutURL is the base of the sandbox's checkout page, the
	// stand-in for the widget (set only when the writer runs the sandbox;
	// with the real gateway the client loads the widget itself).
	PaymentCheckoutURL string
	// ReturnOrigins are the store's own origins ("https://store.example")
	// a charge's successUrl/failUrl may name besides a path and the host the
	// request came to (env PAYMENT_RETURN_ORIGINS).
	ReturnOrigins []string
	// Billing charges registered cards (automatic top-up). Nil = Gateway
	// when it is a BillingGateway (HTTPGateway is); none = no top-ups.
	Billing BillingGateway
	// BillingKeySecret encrypts billing keys at rest (env BILLING_KEY_SECRET).
	BillingKeySecret string
	// TopupLease is how long a worker holds a top-up job before another
	// writer may take it (default 2m): longer than one gateway call.
	TopupLease time.Duration
	// TopupRetry is the first wait after a top-up got no answer; it doubles
	// with each attempt (default 1m).
	TopupRetry time.Duration
	// TopupMaxAttempts bounds the attempts of a top-up before the setting
	// is paused (default 5).
	TopupMaxAttempts int
	// TopupPoll is how often RunTopups looks for due top-ups (default 15s).
	TopupPoll time.Duration
	// Catalog gives prices and volumes (nil = the core's works/volumes tables).
	Catalog Catalog
	// Outbox receives business events inside the money transaction (nil = writer/outbox).
	Outbox Outbox
	// Changed is called after a transaction that enqueued events committed
	// (wire the relay's in-process wake-up here); nil = nothing.
	Changed func()
	// ProfileChanged enqueues the member's tracking profile event inside a
	// transaction that changed its charge facts (a completed or canceled
	// charge); nil = none. The writer wires it to member.EnqueueProfile.
	ProfileChanged func(ctx context.Context, tx pgx.Tx, uid int64) error
}

func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.ContentSecret == "" {
		c.ContentSecret = devsecrets.ContentSecret
	}
	if c.ContentTTL <= 0 {
		c.ContentTTL = 30 * time.Minute
	}
	if c.JoinBonus <= 0 {
		c.JoinBonus = contract.JoinBonusMileage
	}
	if c.FirstChargeBonusPct <= 0 {
		c.FirstChargeBonusPct = contract.FirstChargeBonusPct
	}
	if c.DefaultRentDays <= 0 {
		c.DefaultRentDays = 3
	}
	if c.MaxCharge <= 0 {
		c.MaxCharge = 1_000_000
	}
	if c.ChargePerMinute <= 0 {
		c.ChargePerMinute = 10
	}
	if c.WebhookPerMinute <= 0 {
		c.WebhookPerMinute = 120
	}
	if c.Gateway == nil && c.PaymentURL != "" {
		c.Gateway = &HTTPGateway{BaseURL: c.PaymentURL, SecretKey: c.PaymentSecretKey}
	}
	if c.Billing == nil {
		if b, ok := c.Gateway.(BillingGateway); ok {
			c.Billing = b
		}
	}
	if c.BillingKeySecret == "" {
		c.BillingKeySecret = devsecrets.BillingKeySecret
	}
	if c.TopupLease <= 0 {
		c.TopupLease = 2 * time.Minute
	}
	if c.TopupRetry <= 0 {
		c.TopupRetry = time.Minute
	}
	if c.TopupMaxAttempts <= 0 {
		c.TopupMaxAttempts = 5
	}
	if c.TopupPoll <= 0 {
		c.TopupPoll = 15 * time.Second
	}
	if c.Changed == nil {
		c.Changed = func() {}
	}
	if c.Catalog == nil {
		c.Catalog = PGCatalog{}
	}
	if c.Outbox == nil {
		c.Outbox = writerOutbox{}
	}
	return c
}

// Outbox takes business events inside the caller's transaction. tx is the
// transaction or a queue of statements sent later within it, so Enqueue must
// only Exec.
type Outbox interface {
	Enqueue(ctx context.Context, tx Execer, ev contract.TrackedEvent) error
}

type writerOutbox struct{}

func (writerOutbox) Enqueue(ctx context.Context, tx Execer, ev contract.TrackedEvent) error {
	return outbox.Event(ctx, tx, ev)
}

// WebhookPath is where the gateway posts its webhooks (on the writer's address).
const WebhookPath = "/home/api/v1/charge/webhook"

// Service is the money service.
type Service struct {
	pool     *pgxpool.Pool
	cfg      Config
	log      *slog.Logger
	now      func() time.Time
	charges  *httpapi.Limiter
	webhooks *httpapi.Limiter
	// returnOrigins is Config.ReturnOrigins as a set.
	returnOrigins map[string]bool
	// keys encrypts billing keys at rest.
	keys *keyBox
}

// New makes a Service on pool. The schema comes from writer/migrations (0100-0199).
func New(pool *pgxpool.Pool, cfg Config, log *slog.Logger) *Service {
	cfg = cfg.withDefaults()
	return &Service{pool: pool, cfg: cfg, log: log, now: cfg.Now, charges: httpapi.NewLimiter(cfg.ChargePerMinute),
		webhooks: httpapi.NewLimiter(cfg.WebhookPerMinute), returnOrigins: returnOrigins(cfg.ReturnOrigins),
		keys: newKeyBox(cfg.BillingKeySecret)}
}

// Errors callers may test with errors.Is / errors.As: the writer's one
// client-error type, so httpapi.WriteError maps them like any other refusal.
var (
	ErrInsufficient = &httpapi.Error{Code: http.StatusPaymentRequired, Msg: "잔액이 부족합니다."}
	ErrNoProduct    = &httpapi.Error{Code: http.StatusNotFound, Msg: "작품을 찾을 수 없습니다."}
	ErrKeyReuse     = &httpapi.Error{Code: http.StatusConflict, Msg: "같은 요청 키(Idempotency-Key)가 다른 내용으로 이미 사용되었습니다."}
	ErrNoGateway    = &httpapi.Error{Code: http.StatusServiceUnavailable, Msg: "지금은 결제를 이용할 수 없습니다."}
	ErrChargeRate   = &httpapi.Error{Code: http.StatusTooManyRequests, Msg: "충전 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요."}
)

// chargeAllowed takes one charging call of uid from its rate (after the
// input was validated: a refused input never reaches the gateway anyway).
func (s *Service) chargeAllowed(uid int64) error {
	if !s.charges.Allow(uidString(uid), s.now()) {
		return ErrChargeRate
	}
	return nil
}

// inTx runs fn in a transaction, retrying on serialization failures and
// deadlocks: fn must be safe to run again.
func (s *Service) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for attempt := 0; attempt < 8; attempt++ {
		err = pgx.BeginFunc(ctx, s.pool, fn)
		if !retryable(err) {
			return err
		}
		s.log.Debug("money: retrying transaction", "attempt", attempt, "err", err)
	}
	return err
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}
