// Package auth is the writer's accounts and sessions: email and password
// sign-up and login (argon2id), Kakao and Naver login through OAuth2, guests
// (loginType D), the save-login cookie and the auto-login page, logout, adult
// verification with the 19 toggle, and the audience cookie the edge reads.
//
// Sessions live in PostgreSQL (scs with pgxstore). Other writer packages get the
// session's user through UserID and Require; identity never comes from a body.
package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/devsecrets"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
)

// Cookie names besides the session cookie.
const (
	SessionCookie   = contract.MemberSessionCookie
	WebIDCookie     = "sf_bid"       // bid, readable by the page (startup resolution)
	MemberCookie    = "sf_member"    // uid=..&loginType=..&19Toggle=OFF|&mode=dev, readable
	AdultModeCookie = "sf_adult"     // Y or N, one year
	SaveLoginCookie = "sf_save"      // id=<uid>&password=1&expiry=<unix>, readable record
	AutoLoginCookie = "sf_autologin" // the save-login secret, HttpOnly
)

// Config of Auth. Zero values get defaults.
type Config struct {
	Now            func() time.Time
	AudienceSecret string
	// AnalystSecret signs the analyst cookie that analytics checks
	// (contract.AnalystCookie); shared with analytics only.
	AnalystSecret string
	// CookieSecure forces Secure cookies (set it when the edge terminates TLS);
	// cookies are Secure anyway when the call arrived over TLS.
	CookieSecure bool
	// TrustedOrigins may make state-changing calls besides the request's own host.
	TrustedOrigins []string
	// Providers are the OAuth2 social logins by name ("kakao", "naver").
	Providers map[string]Provider
	// Identity reads identity verifications from the provider (nil: adult
	// verification answers 503). IdentityStoreID and IdentityChannelKey are
	// what the page opens the provider's window with; IdentityPageURL is a
	// sandbox's certification page standing in for that window (empty with
	// the real provider). IdentityTestChannels accepts verifications made on
	// a TEST channel (never in live mode).
	Identity             IdentityProvider
	IdentityStoreID      string
	IdentityChannelKey   string
	IdentityPageURL      string
	IdentityTestChannels bool
	// CISecret keys the HMAC under which CIs are stored (default the dev
	// secret, refused in live mode).
	CISecret string
	// SessionLifetime (default 14 days), SaveLoginTTL (default 30 days).
	SessionLifetime time.Duration
	SaveLoginTTL    time.Duration
	// LoginPerMinute bounds login attempts per account and per client (default 10).
	LoginPerMinute int
	// CookieMode is the environment written into the member cookie (live,
	// stage or dev); the page redirects to auto-login when it differs from its own.
	CookieMode string
	// HTTPClient talks to the OAuth2 providers (nil = a client with a timeout).
	HTTPClient *http.Client
}

// Auth serves accounts and sessions.
type Auth struct {
	pool    *pgxpool.Pool
	cfg     Config
	log     *slog.Logger
	sm      *scs.SessionManager
	store   *pgxstore.PostgresStore
	trusted map[string]bool
	byAcct  *httpapi.Limiter
	byIP    *httpapi.Limiter
	// dummyHash is checked for unknown accounts so that timing does not tell
	// which emails are registered.
	dummyHash string
	// Changed is called after a committed change that enqueued outbox rows.
	Changed func()
	// ProfileChanged enqueues the member's tracking profile event inside
	// the transaction of a login or of a change of the member's adult
	// verification or 19 toggle (nil = none). The writer wires it to
	// member.EnqueueProfile (member imports auth, so auth cannot call it).
	ProfileChanged func(ctx context.Context, tx pgx.Tx, uid int64) error
}

var errCSRF = httpapi.Errorf(http.StatusForbidden, "허용되지 않은 요청입니다. 페이지를 새로고침한 뒤 다시 시도해 주세요.")

// New makes Auth on pool. Close stops its session cleanup.
func New(pool *pgxpool.Pool, cfg Config, log *slog.Logger) *Auth {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.AudienceSecret == "" {
		cfg.AudienceSecret = devsecrets.AudienceSecret
	}
	if cfg.AnalystSecret == "" {
		cfg.AnalystSecret = devsecrets.AnalystSecret
	}
	if cfg.SessionLifetime <= 0 {
		cfg.SessionLifetime = 14 * 24 * time.Hour
	}
	if cfg.SaveLoginTTL <= 0 {
		cfg.SaveLoginTTL = 30 * 24 * time.Hour
	}
	if cfg.LoginPerMinute <= 0 {
		cfg.LoginPerMinute = 10
	}
	if cfg.CookieMode == "" {
		cfg.CookieMode = "dev"
	}
	if cfg.CISecret == "" {
		cfg.CISecret = devsecrets.CISecret
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	a := &Auth{pool: pool, cfg: cfg, log: log, trusted: map[string]bool{},
		// LOGIN_PER_MINUTE is documented as the limit per account and per
		// client address: both allow exactly that many (the address once
		// allowed five times as many, which no document said).
		byAcct: httpapi.NewLimiter(cfg.LoginPerMinute), byIP: httpapi.NewLimiter(cfg.LoginPerMinute), Changed: func() {}}
	a.dummyHash, _ = HashPassword(randomToken(16))
	for _, o := range cfg.TrustedOrigins {
		a.trusted[strings.TrimRight(o, "/")] = true
	}
	a.store = pgxstore.NewWithCleanupInterval(pool, 10*time.Minute)
	a.sm = scs.New()
	a.sm.Store = a.store
	a.sm.Lifetime = cfg.SessionLifetime
	a.sm.IdleTimeout = 0
	a.sm.Cookie.Name = SessionCookie
	a.sm.Cookie.HttpOnly = true
	a.sm.Cookie.SameSite = http.SameSiteLaxMode
	a.sm.Cookie.Secure = cfg.CookieSecure
	a.sm.Cookie.Persist = true
	a.sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		httpapi.WriteError(w, r, log, fmt.Errorf("session: %w", err))
	}
	return a
}

// Close stops background work.
func (a *Auth) Close() { a.store.StopCleanup() }

// Middleware loads and saves the session and applies CSRF protection. Every
// member route must run behind it.
func (a *Auth) Middleware(next http.Handler) http.Handler {
	return a.sm.LoadAndSave(a.csrf(a.uidGuard(next)))
}

// uidGuard refuses a call whose query string names another member (uid=...)
// than the session's with 403, before any handler runs. Seed payloads in the
// body are checked by their handlers (CheckUID); a visitor's uid is left to
// the handler, which answers 401 where a member is needed.
func (a *Auth) uidGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if q := r.URL.Query(); q.Has("uid") {
			if uid, ok := a.UserID(r); ok && q.Get("uid") != strconv.FormatInt(uid, 10) {
				a.fail(w, r, httpapi.Errorf(http.StatusForbidden, "로그인한 회원의 요청이 아닙니다."))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// UserID returns the session's user. Only valid behind Middleware.
func (a *Auth) UserID(r *http.Request) (int64, bool) {
	uid := a.sm.GetInt64(r.Context(), "uid")
	return uid, uid > 0
}

// Require answers 401 unless the session has a user.
func (a *Auth) Require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := a.UserID(r); !ok {
			a.fail(w, r, httpapi.ErrUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// CheckUID compares a seed payload's uid with the session: missing session is
// 401, another user's uid 403. An empty payload uid is accepted (the session
// decides).
func (a *Auth) CheckUID(r *http.Request, payloadUID string) (int64, error) {
	uid, ok := a.UserID(r)
	if !ok {
		return 0, httpapi.ErrUnauthorized
	}
	if payloadUID != "" && payloadUID != strconv.FormatInt(uid, 10) {
		return 0, httpapi.Errorf(http.StatusForbidden, "로그인한 회원의 요청이 아닙니다.")
	}
	return uid, nil
}

func (a *Auth) fail(w http.ResponseWriter, r *http.Request, err error) {
	httpapi.WriteError(w, r, a.log, err)
}

// User is a member as stored.
type User struct {
	UID            int64
	LoginType      string
	LoginID        string
	Email          string
	Provider       string
	BID            string
	RealName       string
	BirthDate      *time.Time
	Gender         string
	AuthReal       bool
	AuthAdult      bool
	Toggle19       bool
	MarketingAgree bool
	LoginCount     int
	LastLoginAt    *time.Time
	LastChannel    string
	CreatedAt      time.Time
	// Role is contract.RoleMember or contract.RoleAnalyst.
	Role string
}

const userCols = `uid, login_type, login_id, coalesce(email, ''), provider, bid, real_name, birth_date, gender,
	auth_real, auth_adult, toggle19, marketing_agree, login_count, last_login_at, last_channel, created_at, role`

func scanUser(row pgx.Row) (*User, error) {
	u := &User{}
	err := row.Scan(&u.UID, &u.LoginType, &u.LoginID, &u.Email, &u.Provider, &u.BID, &u.RealName, &u.BirthDate, &u.Gender,
		&u.AuthReal, &u.AuthAdult, &u.Toggle19, &u.MarketingAgree, &u.LoginCount, &u.LastLoginAt, &u.LastChannel, &u.CreatedAt, &u.Role)
	return u, err
}

// LoadUser reads a user by uid.
func (a *Auth) LoadUser(ctx context.Context, uid int64) (*User, error) {
	return ReadUser(ctx, a.pool, uid)
}

// Querier is a pool or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// ReadUser reads a user by uid through q (inside a caller's transaction,
// it sees that transaction's changes).
func ReadUser(ctx context.Context, q Querier, uid int64) (*User, error) {
	u, err := scanUser(q.QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE uid = $1`, uid))
	if err != nil {
		return nil, fmt.Errorf("load user %d: %w", uid, err)
	}
	return u, nil
}

// profileChanged enqueues the profile event when the writer wired one.
func (a *Auth) profileChanged(ctx context.Context, tx pgx.Tx, uid int64) error {
	if a.ProfileChanged == nil {
		return nil
	}
	return a.ProfileChanged(ctx, tx, uid)
}

// CurrentUser is the session's user, or nil for a visitor.
func (a *Auth) CurrentUser(r *http.Request) (*User, error) {
	uid, ok := a.UserID(r)
	if !ok {
		return nil, nil
	}
	u, err := a.LoadUser(r.Context(), uid)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return u, err
}

// Age in full years at now (Korean time), 0 when unknown.
func (u *User) Age(now time.Time) int {
	if u.BirthDate == nil {
		return 0
	}
	n := now.In(contract.KST)
	b := *u.BirthDate
	age := n.Year() - b.Year()
	if n.Month() < b.Month() || (n.Month() == b.Month() && n.Day() < b.Day()) {
		age--
	}
	return max(age, 0)
}

// AdultLevel is the seed's derived level: 0 unverified, 1 teen, 2 adult with
// the 19 toggle on, 3 adult with it off.
func (u *User) AdultLevel(now time.Time) int {
	switch {
	case u == nil || !u.AuthReal:
		return 0
	case !u.AuthAdult || u.Age(now) < 19:
		return 1
	case u.Toggle19:
		return 2
	}
	return 3
}

// AuthInfo is the seed's auth info (§3).
type AuthInfo struct {
	Email       string `json:"email"`
	LoginType   string `json:"loginType"`
	UID         string `json:"uid"`
	ID          string `json:"id"`
	BID         string `json:"bid"`
	AuthType    string `json:"authType"`
	DisplayName string `json:"displayName"`
	LoginPrefix string `json:"loginPrefix"`
}

// AdultContentSQL is AdultLevel(now) == 2 (contract.AdultContent on a web
// channel) as a condition on the users row alias, with now the SQL
// expression of the instant: for statements that decide many members at
// once (the push fan-out). Keep it in step with AdultLevel and Age
// (TestAdultContentSQL compares them).
func AdultContentSQL(alias, now string) string {
	return "(" + alias + ".auth_real AND " + alias + ".auth_adult AND " + alias + ".toggle19 AND " + alias + ".birth_date IS NOT NULL AND " +
		"date_part('year', age((" + now + " AT TIME ZONE 'Asia/Seoul')::date, " + alias + ".birth_date)) >= 19)"
}

// AdultInfo is the seed's adult info (§3) plus the derived level.
type AdultInfo struct {
	Age        int  `json:"age"`
	AuthAdult  bool `json:"authAdult"`
	AuthReal   bool `json:"authReal"`
	Is19Toggle bool `json:"is19Toggle"`
	IsKorea    bool `json:"isKorea"`
	OutLink    bool `json:"outLink"`
	AdultLevel int  `json:"adultLevel"`
}

// Info renders the seed's auth info: display name is the email for login
// types N, F and M, otherwise the uid; social logins (S) get the upper-cased
// first letter of their id as prefix, guests D.
func (u *User) Info() AuthInfo {
	uid := strconv.FormatInt(u.UID, 10)
	ai := AuthInfo{Email: u.Email, LoginType: u.LoginType, UID: uid, ID: u.LoginID, BID: u.BID, AuthType: u.Provider}
	switch u.LoginType {
	case "N", "F", "M":
		ai.DisplayName = u.Email
	default:
		ai.DisplayName = uid
	}
	switch u.LoginType {
	case "S":
		if u.LoginID != "" {
			ai.LoginPrefix = strings.ToUpper(u.LoginID[:1])
		}
	case "D":
		ai.LoginPrefix = "D"
	}
	return ai
}

// Adult renders the adult info.
func (u *User) Adult(now time.Time, r *http.Request) AdultInfo {
	info := AdultInfo{IsKorea: r.URL.Query().Get("korea") == "ok", OutLink: r.URL.Query().Has("outlink"), Is19Toggle: true}
	if u == nil {
		if info.OutLink {
			info.AdultLevel = 1
		}
		return info
	}
	info.Age = u.Age(now)
	info.AuthAdult = u.AuthAdult
	info.AuthReal = u.AuthReal
	info.Is19Toggle = u.Toggle19
	info.AdultLevel = u.AdultLevel(now)
	return info
}

func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (a *Auth) secure(r *http.Request) bool {
	return a.cfg.CookieSecure || r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}

func (a *Auth) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration, httpOnly bool) {
	c := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: httpOnly, Secure: a.secure(r), SameSite: http.SameSiteLaxMode}
	if maxAge < 0 {
		c.MaxAge = -1
	} else {
		c.MaxAge = int(maxAge.Seconds())
	}
	http.SetCookie(w, c)
}

// audienceTTL is how long an audience token lasts; /me renews it.
const audienceTTL = 30 * 24 * time.Hour

// setUserCookies sets the page-readable member cookies and the audience token.
func (a *Auth) setUserCookies(w http.ResponseWriter, r *http.Request, u *User) {
	now := a.cfg.Now()
	a.setCookie(w, r, WebIDCookie, u.BID, a.cfg.SessionLifetime, false)
	toggle := ""
	if !u.Toggle19 {
		toggle = "OFF"
	}
	member := url.Values{"uid": {strconv.FormatInt(u.UID, 10)}, "loginType": {u.LoginType}, "19Toggle": {toggle}, "mode": {a.cfg.CookieMode}}
	a.setCookie(w, r, MemberCookie, member.Encode(), a.cfg.SessionLifetime, false)
	level := u.AdultLevel(now)
	mode := "N"
	if level == 2 {
		mode = "Y"
	}
	a.setCookie(w, r, AdultModeCookie, mode, 365*24*time.Hour, false)
	a.setAudience(w, r, level)
	a.setAnalyst(w, r, u)
}

// analystTTL is the analyst cookie's life: the SPA asks /me at start, which
// renews or clears it. A withdrawn role or a logout does not wait for it:
// analytics asks the writer about the session behind it on every report.
const analystTTL = 8 * time.Hour

// setAnalyst gives an analyst the signed analyst cookie and takes it from
// anyone else who carries one (a role withdrawn, another member logged in).
// SameSite=Strict: a cross-site link cannot make an analyst's browser run a
// report (and write the audit table) in their name.
func (a *Auth) setAnalyst(w http.ResponseWriter, r *http.Request, u *User) {
	c := &http.Cookie{Name: contract.AnalystCookie, Path: "/", HttpOnly: true, Secure: a.secure(r), SameSite: http.SameSiteStrictMode}
	if u != nil && u.Role == contract.RoleAnalyst {
		c.Value = contract.SignAnalyst([]byte(a.cfg.AnalystSecret), strconv.FormatInt(u.UID, 10), a.cfg.Now().Add(analystTTL))
		c.MaxAge = int(analystTTL.Seconds())
	} else if _, err := r.Cookie(contract.AnalystCookie); err == nil {
		c.MaxAge = -1
	} else {
		return
	}
	http.SetCookie(w, c)
}

func (a *Auth) setAudience(w http.ResponseWriter, r *http.Request, level int) {
	tok := contract.SignAudience([]byte(a.cfg.AudienceSecret), contract.Audience{AdultLevel: level, Expires: a.cfg.Now().Add(audienceTTL)})
	a.setCookie(w, r, contract.AudienceCookie, tok, audienceTTL, true)
}

func (a *Auth) clearUserCookies(w http.ResponseWriter, r *http.Request) {
	for _, n := range []string{WebIDCookie, MemberCookie, SaveLoginCookie} {
		a.setCookie(w, r, n, "", -1, false)
	}
	a.setCookie(w, r, AutoLoginCookie, "", -1, true)
	a.setAudience(w, r, 0)
	a.setAnalyst(w, r, nil)
}

// EncID is the encrypted id the page compares its web id against at startup.
func (a *Auth) EncID(bid string) string {
	m := hmac.New(sha256.New, []byte(a.cfg.AudienceSecret))
	m.Write([]byte("bid:" + bid))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// startSession logs u in on this request: new session token (no fixation),
// login counters, login event, cookies.
func (a *Auth) startSession(ctx context.Context, w http.ResponseWriter, r *http.Request, u *User, event string) error {
	if err := a.sm.RenewToken(ctx); err != nil {
		return fmt.Errorf("renew session: %w", err)
	}
	a.sm.Put(ctx, "uid", u.UID)
	now := a.cfg.Now().UTC()
	channel := r.Header.Get(contract.HeaderChannel)
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `UPDATE users SET login_count = login_count + 1, last_login_at = $2, last_channel = $3
			WHERE uid = $1 RETURNING login_count`, u.UID, now, channel).Scan(&u.LoginCount); err != nil {
			return fmt.Errorf("count login: %w", err)
		}
		if err := outbox.Event(ctx, tx, contract.TrackedEvent{Type: event, Time: now, UID: strconv.FormatInt(u.UID, 10),
			Channel: channel, MemberType: memberType(u, now),
			Props: map[string]string{"loginType": u.LoginType, "provider": u.Provider}}); err != nil {
			return err
		}
		// Every sign-up ends in this login, so the profile goes out for
		// new members too, with the login counted.
		return a.profileChanged(ctx, tx, u.UID)
	})
	if err != nil {
		return err
	}
	a.Changed()
	a.setUserCookies(w, r, u)
	return nil
}

func memberType(u *User, now time.Time) string {
	switch {
	case u == nil:
		return "visitor"
	case u.LoginType == "D":
		return "guest"
	case u.AdultLevel(now) >= 2:
		return "adult"
	}
	return "member"
}

// emailRE is the seed's email rule (§5).
var emailRE = regexp.MustCompile(`^[\w.-]+@([\w-]+\.)+[\w-]{2,4}$`)

// ValidEmail reports whether s passes the seed's email rule.
func ValidEmail(s string) bool { return len(s) <= 254 && emailRE.MatchString(s) }

// safeReturn keeps redirects on our own site: only a path-absolute URL
// passes, and nothing a browser would turn into another host. Browsers read
// a backslash as a slash and drop tabs and newlines, and http.Redirect cleans
// the path ("/./\x" becomes "/\x", i.e. "//x"), so any backslash or control
// character, a scheme or host, or a path that still starts with "//" after
// cleaning sends the reader home instead. (Spaces stay: a search page's query
// may hold them, and inside a path they cannot change the host.)
func safeReturn(u string) string {
	if u == "" || u[0] != '/' || strings.HasPrefix(u, "//") || strings.ContainsRune(u, '\\') ||
		strings.IndexFunc(u, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "/"
	}
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "" || p.Host != "" || p.Opaque != "" || strings.HasPrefix(path.Clean(p.Path), "//") {
		return "/"
	}
	return u
}
