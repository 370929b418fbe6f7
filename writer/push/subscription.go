package push

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/writer/httpapi"
)

// Routes of the member API.
const (
	KeyPath           = "/home/api/v1/push/key"
	SubscriptionsPath = "/home/api/v1/push/subscriptions"
)

// MaxDevices bounds a member's subscriptions: each one is a request at every
// release of every work they follow, so a client posting endless endpoints
// must not multiply the worker's sends. The oldest goes first.
const MaxDevices = 20

// maxUserAgent bounds the stored User-Agent (shown to support, not parsed).
const maxUserAgent = 512

// Service stores subscriptions and sends notifications.
type Service struct {
	pool *pgxpool.Pool
	cfg  Config
	log  *slog.Logger
}

// New checks cfg and makes the service.
func New(pool *pgxpool.Pool, cfg Config, log *slog.Logger) (*Service, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	return &Service{pool: pool, cfg: cfg, log: log}, nil
}

// PublicKey is the VAPID public key browsers subscribe with.
func (s *Service) PublicKey() string { return s.cfg.PublicKey }

// appChannel: the app web views ring through the app's bridge message.
func appChannel(c string) bool {
	switch c {
	case "AA", "AO", "AC", "IA":
		return true
	}
	return false
}

// Routes registers the push routes; userID reads the session's member.
func (s *Service) Routes(mux httpapi.Mux, userID func(*http.Request) (int64, bool)) {
	h := func(pattern string, f httpapi.HandlerFunc) { mux.Handle(pattern, httpapi.Wrap(s.log, f)) }
	mux.Handle("GET "+KeyPath, httpapi.NoBody(httpapi.Wrap(s.log, s.key)))
	member := func(f func(http.ResponseWriter, *http.Request, int64) error) httpapi.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			uid, ok := userID(r)
			if !ok {
				return httpapi.ErrUnauthorized
			}
			return f(w, r, uid)
		}
	}
	h("POST "+SubscriptionsPath, member(s.subscribe))
	h("DELETE "+SubscriptionsPath, member(s.unsubscribe))
	h("POST "+SubscriptionsPath+"/delete", member(s.unsubscribe))
}

// key answers the VAPID public key (applicationServerKey of subscribe()).
func (s *Service) key(w http.ResponseWriter, r *http.Request) error {
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		PublicKey string `json:"publicKey"`
	}{httpapi.H200(), s.cfg.PublicKey})
}

// subscription is PushSubscription.toJSON().
type subscription struct {
	Endpoint       string   `json:"endpoint"`
	ExpirationTime *float64 `json:"expirationTime"`
	Keys           struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// msgEndpointTaken refuses an endpoint another member registered.
const msgEndpointTaken = "이 알림 구독 주소는 다른 회원이 등록했습니다. 알림을 다시 켜 주세요."

// subscribe stores the device's subscription for the session's member. An
// endpoint belongs to the member who registered it: another member posting it
// is refused with 409 and nothing changes.
func (s *Service) subscribe(w http.ResponseWriter, r *http.Request, uid int64) error {
	channel, err := httpapi.Channel(r)
	if err != nil {
		return err
	}
	if appChannel(channel) {
		return httpapi.BadRequest("앱에서는 앱 알림으로 새 회차 소식을 받습니다.")
	}
	var body subscription
	if err := httpapi.DecodeJSONRequired(r, &body, "endpoint", "keys"); err != nil {
		return err
	}
	if !s.cfg.checkEndpoint(body.Endpoint) {
		return httpapi.BadRequest("알림 구독 주소(endpoint)가 올바르지 않습니다.")
	}
	okKey, okAuth := checkKeys(body.Keys.P256dh, body.Keys.Auth)
	if !okKey {
		return httpapi.BadRequest("알림 구독 키(p256dh)가 올바르지 않습니다.")
	}
	if !okAuth {
		return httpapi.BadRequest("알림 구독 키(auth)가 올바르지 않습니다.")
	}
	ua := r.UserAgent()
	if len(ua) > maxUserAgent || !httpapi.CleanText(ua) {
		ua = ""
	}
	now := s.cfg.Now()
	ctx := r.Context()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO push_subscriptions (uid, endpoint, p256dh, auth, channel, user_agent, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
		ON CONFLICT (endpoint) DO UPDATE SET p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth,
			channel = EXCLUDED.channel, user_agent = EXCLUDED.user_agent, updated_at = EXCLUDED.updated_at
			WHERE push_subscriptions.uid = EXCLUDED.uid
		RETURNING id`, uid, body.Endpoint, body.Keys.P256dh, body.Keys.Auth, channel, ua, now).Scan(&id); errors.Is(err, pgx.ErrNoRows) {
		// The endpoint is another member's (issue 30): it never moves, or
		// anyone who learnt it could take over their device and delete it.
		// A browser shared by two members gets a fresh endpoint instead
		// (the frontend re-subscribes on this answer).
		return httpapi.Errorf(http.StatusConflict, msgEndpointTaken)
	} else if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM push_subscriptions WHERE uid = $1 AND id NOT IN
		(SELECT id FROM push_subscriptions WHERE uid = $1 ORDER BY updated_at DESC, id DESC LIMIT $2)`, uid, MaxDevices); err != nil {
		return fmt.Errorf("subscribe: bound devices: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		ID int64 `json:"id"`
	}{httpapi.H200(), id})
}

// unsubscribe removes the member's subscription of this device. With
// ifNoAlarms (the alarm button turning one work's alarm off) it stays while
// another work's alarm is on, the member follows an author (their new
// works and episodes ring on it too) or automatic top-up is on (its receipts
// ring it too), and the answer's removed tells the browser whether to drop
// its own subscription too.
func (s *Service) unsubscribe(w http.ResponseWriter, r *http.Request, uid int64) error {
	var body struct {
		Endpoint   string `json:"endpoint"`
		IfNoAlarms bool   `json:"ifNoAlarms"`
	}
	if err := httpapi.DecodeJSONRequired(r, &body, "endpoint"); err != nil {
		return err
	}
	if body.Endpoint == "" || len(body.Endpoint) > 1024 {
		return httpapi.BadRequest("알림 구독 주소(endpoint)가 올바르지 않습니다.")
	}
	tag, err := s.pool.Exec(r.Context(), `DELETE FROM push_subscriptions WHERE uid = $1 AND endpoint = $2
		AND NOT ($3 AND (EXISTS (SELECT 1 FROM alarms WHERE uid = $1 AND is_on)
			OR EXISTS (SELECT 1 FROM zzims WHERE uid = $1 AND zzim_type = 'author')
			OR EXISTS (SELECT 1 FROM auto_payments WHERE uid = $1 AND is_use)))`, uid, body.Endpoint, body.IfNoAlarms)
	if err != nil {
		return fmt.Errorf("unsubscribe: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Removed bool `json:"removed"`
	}{httpapi.H200(), tag.RowsAffected() > 0})
}
