// Package staff is the people behind the store: staff accounts with roles,
// password (argon2id) plus TOTP sign-in with login limits, server-side
// sessions that end at once on logout, role change or removal, the guard
// every admin route stands behind, and the append-only audit trail.
//
// Routes (under /admin/api/v1/, the edge forwards them to the writer):
//
//	POST   session            sign in {login, password, code} -> cookie sf_staff
//	GET    session            who is signed in
//	DELETE session            sign out (the session row is deleted)
//	GET    staff              accounts (operator)
//	POST   staff              create an account (operator) -> its TOTP secret
//	PUT    staff/{id}/role    change a role (operator): the account's sessions end
//	DELETE staff/{id}         remove an account (operator): its sessions end
//	GET    audit              the audit trail, filtered (operator)
//	GET    audit.csv          the same as CSV (operator)
//
// ADMIN_TOKEN as a bearer is the machine principal (RoleMachine): programs
// only, with the permissions roles.go gives it. Wrong bearers count against
// the client address as wrong sign-ins do (limits.go).
package staff

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/realip"
	"storefront/writer/httpapi"
)

// Cookie is the staff session cookie: an opaque random token whose SHA-256
// is the staff_sessions key. HttpOnly, SameSite=Strict, Path=/ (analytics'
// reports under /analytics/api/ read it too), Secure unless a development
// store runs over plain HTTP.
const Cookie = contract.StaffCookie

// Config of the staff service.
type Config struct {
	Now func() time.Time
	// MachineToken is ADMIN_TOKEN: a bearer with the machine role. Empty
	// turns machine calls off.
	MachineToken string
	// CookieSecure forces Secure cookies (set in live mode and behind TLS).
	CookieSecure bool
	// Idle ends a session not used for this long (default 15 min); MaxAge
	// ends any session this long after sign-in (default 8 h).
	Idle, MaxAge time.Duration
	// Failures in Window lock a login (LoginFailures, default 5) or a
	// client address (IPFailures, default 20: wrong sign-ins and wrong
	// ADMIN_TOKEN bearers together) out with 429 until they age out of the
	// window (default 15 min); limits.go.
	LoginFailures, IPFailures int
	Window                    time.Duration
}

// Service serves the staff routes and guards the admin API.
type Service struct {
	pool *pgxpool.Pool
	cfg  Config
	log  *slog.Logger
	// dummy is a hash checked for unknown logins, so that a wrong login and
	// a wrong password take the same time.
	dummy string
}

// New makes the service.
func New(pool *pgxpool.Pool, cfg Config, log *slog.Logger) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Idle <= 0 {
		cfg.Idle = 15 * time.Minute
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = 8 * time.Hour
	}
	if cfg.LoginFailures <= 0 {
		cfg.LoginFailures = 5
	}
	if cfg.IPFailures <= 0 {
		cfg.IPFailures = 20
	}
	if cfg.Window <= 0 {
		cfg.Window = 15 * time.Minute
	}
	d, err := hashPassword("not a password of anyone: unknown logins are checked against it")
	if err != nil {
		return nil, err
	}
	return &Service{pool: pool, cfg: cfg, log: log, dummy: d}, nil
}

// Principal is who makes an admin call.
type Principal struct {
	StaffID    int64 // 0 for the machine token
	Login      string
	Name       string
	Role       string
	ProviderID string
	IP         string
	UserAgent  string
}

type principalKey struct{}

// From is the principal the guard put in ctx (nil outside guarded routes).
func From(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// WithPrincipal puts p in ctx (the guard does; the command line and tests too).
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

var (
	errSignIn    = httpapi.Errorf(http.StatusUnauthorized, "직원 계정으로 로그인해 주세요.")
	errForbidden = httpapi.Errorf(http.StatusForbidden, "이 작업을 할 권한이 없습니다.")
	errCSRF      = httpapi.Errorf(http.StatusForbidden, "다른 사이트에서 보낸 요청은 처리하지 않습니다.")
)

// Require puts next behind a staff session or the machine token holding perm:
// 401 without either, 403 without the permission. State-changing calls with
// the cookie must come from our own origin (the cookie is SameSite=Strict
// too).
func (s *Service) Require(perm Permission, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.principal(w, r)
		if err == nil && !Allowed(p.Role, perm) {
			err = errForbidden
		}
		if err != nil {
			httpapi.WriteError(w, r, s.log, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// RequireAny is Require for a route more than one permission opens (the
// content manager's catalog routes the partner portal reuses with
// PermOwnWorks): any of perms lets the caller in.
func (s *Service) RequireAny(perms []Permission, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.principal(w, r)
		if err == nil && !slices.ContainsFunc(perms, func(perm Permission) bool { return Allowed(p.Role, perm) }) {
			err = errForbidden
		}
		if err != nil {
			httpapi.WriteError(w, r, s.log, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

var errBadBearer = httpapi.Errorf(http.StatusUnauthorized, "관리 토큰이 올바르지 않습니다.")

// principal resolves the caller: the machine bearer, or the session cookie.
// w takes the Retry-After of a locked-out bearer.
func (s *Service) principal(w http.ResponseWriter, r *http.Request) (*Principal, error) {
	ip, ua := realip.RemoteHost(r), r.UserAgent()
	if len(ua) > 300 {
		ua = ua[:300]
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		// Wrong bearers count against the client address as wrong
		// passwords do (limits.go), and a locked address is refused before
		// the token is looked at: a right guess from it gets 429 too, so
		// guessing learns nothing until the window passes.
		ctx, now := r.Context(), s.cfg.Now()
		until, err := s.lockedUntil(ctx, "", ip, now)
		if err != nil {
			return nil, err
		}
		if !until.IsZero() {
			s.log.Warn("admin bearer refused: too many failures", "ip", ip)
			return nil, tooMany(w, "관리 토큰", until, now)
		}
		if s.cfg.MachineToken == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.MachineToken)) != 1 {
			if err := s.recordFailure(ctx, bearerLogin, ip, now); err != nil {
				return nil, err
			}
			s.log.Info("admin bearer failed", "ip", ip)
			return nil, errBadBearer
		}
		return &Principal{Login: "machine", Role: RoleMachine, IP: ip, UserAgent: ua}, nil
	}
	c, err := r.Cookie(Cookie)
	if err != nil || c.Value == "" {
		return nil, errSignIn
	}
	if !safeMethod(r.Method) && !sameOrigin(r) {
		return nil, errCSRF
	}
	p, err := s.Session(r.Context(), c.Value)
	if err != nil {
		return nil, err
	}
	p.IP, p.UserAgent = ip, ua
	return p, nil
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameOrigin: as writer/auth's CSRF check, a browser's state-changing call
// must name our own host (or come without Origin and Sec-Fetch-Site: not a
// browser page, so no ambient cookie is borrowed).
func sameOrigin(r *http.Request) bool {
	sfs := r.Header.Get("Sec-Fetch-Site")
	if sfs == "same-origin" || sfs == "none" {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return sfs == ""
	}
	host := strings.TrimPrefix(strings.TrimPrefix(origin, "https://"), "http://")
	if host == r.Host {
		return true
	}
	fh := r.Header.Get("X-Forwarded-Host")
	return fh != "" && host == fh
}

func (s *Service) secure(r *http.Request) bool {
	return s.cfg.CookieSecure || r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}
