package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"storefront/contract"
	"storefront/realip"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
)

// Prefix of the account routes.
const Prefix = "/home/api/v1/auth/"

// AutoLoginPath is the seed's auto-login page.
const AutoLoginPath = "/api/v-1/user/login_auto.asp"

// Routes registers the account routes on mux (mux must run behind Middleware).
func (a *Auth) Routes(mux httpapi.Mux) {
	h := func(pattern string, f httpapi.HandlerFunc) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+Prefix+path, httpapi.Wrap(a.log, f))
	}
	// Routes that take no body: a sent one must be empty or {} (httpapi.NoBody).
	nb := func(pattern string, f httpapi.HandlerFunc) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+Prefix+path, httpapi.NoBody(httpapi.Wrap(a.log, f)))
	}
	h("POST signup", a.signup)
	h("POST login", a.login)
	nb("POST logout", a.logout)
	nb("POST guest", a.guest)
	h("GET me", a.me)
	h("GET oauth/{provider}/start", a.oauthStart)
	h("GET oauth/{provider}/callback", a.oauthCallback)
	nb("POST adult/start", a.startAdult)
	h("POST adult/verify", a.verifyAdult)
	h("PUT adult/toggle", a.toggle19)
	h("POST hash", a.hash)
	mux.Handle("GET "+AutoLoginPath, httpapi.Wrap(a.log, a.autoLogin))
	mux.Handle("POST "+GetInfoPath, httpapi.Wrap(a.log, a.getInfo))
}

// GetInfoPath is the seed's getinfo call (§7, payload "not shown").
const GetInfoPath = "/protocol/appapi/mb/user/info/getinfo"

// getInfo is the seed's getinfo for app builds: who the session is, as the
// app's screens need it (the auth and adult info of GET me, with the encrypted
// id the startup check compares). A payload uid must be the session's; a
// visitor gets authInfo null, as from me.
func (a *Auth) getInfo(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	u, err := a.CurrentUser(r)
	if err != nil {
		return err
	}
	if p["uid"] != "" {
		if _, err := a.CheckUID(r, p["uid"]); err != nil {
			return err
		}
	}
	return a.answerUser(w, r, http.StatusOK, u)
}

type credentials struct {
	Email          string `json:"email"`
	Password       string `json:"password"`
	SaveLogin      bool   `json:"saveLogin"`
	MarketingAgree bool   `json:"marketingAgree"`
}

type meAnswer struct {
	httpapi.Header200
	AuthInfo  *AuthInfo `json:"authInfo"`
	AdultInfo AdultInfo `json:"adultInfo"`
	EncID     string    `json:"encId,omitempty"`
}

func (a *Auth) answerUser(w http.ResponseWriter, r *http.Request, status int, u *User) error {
	ans := meAnswer{Header200: httpapi.H200(), AdultInfo: u.Adult(a.cfg.Now(), r)}
	if u != nil {
		info := u.Info()
		ans.AuthInfo = &info
		ans.EncID = a.EncID(u.BID)
	}
	return httpapi.JSON(w, status, ans)
}

func (a *Auth) signup(w http.ResponseWriter, r *http.Request) error {
	var c credentials
	if err := httpapi.DecodeJSON(r, &c); err != nil {
		return err
	}
	c.Email = strings.TrimSpace(c.Email)
	if !ValidEmail(c.Email) {
		return httpapi.BadRequest("이메일 형식이 올바르지 않습니다.")
	}
	if n := len([]rune(c.Password)); n < 8 || n > 72 {
		return httpapi.BadRequest("비밀번호는 8자 이상 72자 이하로 입력해 주세요.")
	}
	hash, err := HashPassword(c.Password)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var u *User
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `INSERT INTO users (login_type, login_id, email, password_hash, provider, bid, marketing_agree)
			VALUES ('N', $1, $1, $2, 'email', $3, $4) RETURNING `+userCols, c.Email, hash, randomToken(12), c.MarketingAgree))
		if err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "23505" {
				return httpapi.Errorf(http.StatusConflict, "이미 가입된 이메일입니다.")
			}
			return fmt.Errorf("create user: %w", err)
		}
		return outbox.Event(ctx, tx, contract.TrackedEvent{Type: contract.EvSignup, Time: a.cfg.Now().UTC(),
			UID: strconv.FormatInt(u.UID, 10), Channel: r.Header.Get(contract.HeaderChannel), MemberType: "member",
			Props: map[string]string{"loginType": "N", "provider": "email"}})
	})
	if err != nil {
		return err
	}
	if err := a.startSession(ctx, w, r, u, contract.EvLogin); err != nil {
		return err
	}
	return a.answerUser(w, r, http.StatusCreated, u)
}

var errBadLogin = httpapi.Errorf(http.StatusUnauthorized, "이메일 또는 비밀번호가 올바르지 않습니다.")

func (a *Auth) login(w http.ResponseWriter, r *http.Request) error {
	var c credentials
	if err := httpapi.DecodeJSON(r, &c); err != nil {
		return err
	}
	c.Email = strings.TrimSpace(c.Email)
	if c.Email == "" || c.Password == "" {
		return httpapi.BadRequest("이메일과 비밀번호를 입력해 주세요.")
	}
	now := a.cfg.Now()
	if !a.byIP.Allow("ip:"+realip.RemoteHost(r), now) || !a.byAcct.Allow("acct:"+strings.ToLower(c.Email), now) {
		return httpapi.Errorf(http.StatusTooManyRequests, "로그인 시도가 너무 많습니다. 1분 후에 다시 시도해 주세요.")
	}
	ctx := r.Context()
	var hash *string
	u, err := scanUserHash(a.pool.QueryRow(ctx, `SELECT `+userCols+`, password_hash FROM users WHERE lower(email) = lower($1) AND login_type = 'N'`, c.Email), &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		// Spend the same time as a real check so the answer does not tell
		// which emails are registered.
		_, _ = CheckPassword(a.dummyHash, c.Password)
		return errBadLogin
	}
	if err != nil {
		return fmt.Errorf("find user: %w", err)
	}
	if hash == nil {
		return errBadLogin
	}
	ok, err := CheckPassword(*hash, c.Password)
	if err != nil {
		return fmt.Errorf("check password of %d: %w", u.UID, err)
	}
	if !ok {
		return errBadLogin
	}
	if err := a.startSession(ctx, w, r, u, contract.EvLogin); err != nil {
		return err
	}
	if c.SaveLogin {
		if err := a.issueSaveLogin(ctx, w, r, u.UID); err != nil {
			return err
		}
	}
	return a.answerUser(w, r, http.StatusOK, u)
}

func scanUserHash(row pgx.Row, hash **string) (*User, error) {
	u := &User{}
	err := row.Scan(&u.UID, &u.LoginType, &u.LoginID, &u.Email, &u.Provider, &u.BID, &u.RealName, &u.BirthDate, &u.Gender,
		&u.AuthReal, &u.AuthAdult, &u.Toggle19, &u.MarketingAgree, &u.LoginCount, &u.LastLoginAt, &u.LastChannel, &u.CreatedAt, &u.Role, hash)
	return u, err
}

// issueSaveLogin stores a save-login secret (hash only) and sets its cookies:
// the HttpOnly secret and the page-readable record (id, password flag, expiry)
// the startup resolution looks at.
func (a *Auth) issueSaveLogin(ctx context.Context, w http.ResponseWriter, r *http.Request, uid int64) error {
	secret := randomToken(32)
	sum := sha256.Sum256([]byte(secret))
	exp := a.cfg.Now().Add(a.cfg.SaveLoginTTL)
	if _, err := a.pool.Exec(ctx, `INSERT INTO save_logins (token_hash, uid, expires_at) VALUES ($1, $2, $3)`, sum[:], uid, exp); err != nil {
		return fmt.Errorf("store save-login: %w", err)
	}
	a.setCookie(w, r, AutoLoginCookie, secret, a.cfg.SaveLoginTTL, true)
	rec := url.Values{"id": {strconv.FormatInt(uid, 10)}, "password": {"1"}, "expiry": {strconv.FormatInt(exp.Unix(), 10)}}
	a.setCookie(w, r, SaveLoginCookie, rec.Encode(), a.cfg.SaveLoginTTL, false)
	return nil
}

func (a *Auth) logout(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if c, err := r.Cookie(AutoLoginCookie); err == nil && c.Value != "" {
		sum := sha256.Sum256([]byte(c.Value))
		if _, err := a.pool.Exec(ctx, `DELETE FROM save_logins WHERE token_hash = $1`, sum[:]); err != nil {
			return fmt.Errorf("drop save-login: %w", err)
		}
	}
	if err := a.sm.Destroy(ctx); err != nil {
		return fmt.Errorf("destroy session: %w", err)
	}
	a.clearUserCookies(w, r)
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// guest makes a guest member (loginType D, the app's guest) and logs it in.
func (a *Auth) guest(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if _, err := io0(r); err != nil {
		return err
	}
	u, err := scanUser(a.pool.QueryRow(ctx, `INSERT INTO users (login_type, login_id, provider, bid)
		VALUES ('D', $1, 'guest', $2) RETURNING `+userCols, "D"+randomToken(9), randomToken(12)))
	if err != nil {
		return fmt.Errorf("create guest: %w", err)
	}
	if err := a.startSession(ctx, w, r, u, contract.EvLogin); err != nil {
		return err
	}
	return a.answerUser(w, r, http.StatusCreated, u)
}

// io0 drains an optional body, refusing oversized ones.
func io0(r *http.Request) (int64, error) {
	var n int64
	buf := make([]byte, 4096)
	for {
		m, err := r.Body.Read(buf)
		n += int64(m)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return n, httpapi.ErrTooLarge
			}
			return n, nil
		}
	}
}

// me answers the session's auth and adult info (authInfo null for a visitor)
// and renews the audience cookie.
func (a *Auth) me(w http.ResponseWriter, r *http.Request) error {
	u, err := a.CurrentUser(r)
	if err != nil {
		return err
	}
	if u != nil {
		a.setUserCookies(w, r, u)
	}
	return a.answerUser(w, r, http.StatusOK, u)
}

// autoLogin is the seed's auto-login page: a valid session or save-login
// cookie logs in (cookies refreshed) and goes to new_url; otherwise the
// cookies are cleared and the page goes to the login entry.
func (a *Auth) autoLogin(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	ret := safeReturn(r.URL.Query().Get("new_url"))
	u, err := a.CurrentUser(r)
	if err != nil {
		return err
	}
	if u != nil {
		a.setUserCookies(w, r, u)
		http.Redirect(w, r, ret, http.StatusFound)
		return nil
	}
	if c, err := r.Cookie(AutoLoginCookie); err == nil && c.Value != "" {
		sum := sha256.Sum256([]byte(c.Value))
		var uid int64
		// One use per secret: a stolen, already used cookie is worthless.
		err := a.pool.QueryRow(ctx, `DELETE FROM save_logins WHERE token_hash = $1 AND expires_at > $2 RETURNING uid`,
			sum[:], a.cfg.Now()).Scan(&uid)
		if err == nil {
			if u, err = a.LoadUser(ctx, uid); err != nil {
				return err
			}
			if err := a.startSession(ctx, w, r, u, contract.EvLogin); err != nil {
				return err
			}
			if err := a.issueSaveLogin(ctx, w, r, uid); err != nil {
				return err
			}
			http.Redirect(w, r, ret, http.StatusFound)
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("check save-login: %w", err)
		}
	}
	a.clearUserCookies(w, r)
	http.Redirect(w, r, "/nuxgin?url="+url.QueryEscape(ret), http.StatusFound)
	return nil
}

// socialUser finds or creates the member of a social login (loginType S, id
// "<provider>_<provider id>").
func (a *Auth) socialUser(ctx context.Context, provider, pid, email string) (*User, error) {
	var u *User
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE provider = $1 AND provider_id = $2`, provider, pid))
		if err == nil {
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("find social user: %w", err)
		}
		u, err = scanUser(tx.QueryRow(ctx, `INSERT INTO users (login_type, login_id, provider, provider_id, bid)
			VALUES ('S', $1, $2, $3, $4) RETURNING `+userCols, provider+"_"+pid, provider, pid, randomToken(12)))
		if err != nil {
			return fmt.Errorf("create social user: %w", err)
		}
		_ = email // provider emails are unverified here: never used to merge accounts
		return outbox.Event(ctx, tx, contract.TrackedEvent{Type: contract.EvSignup, Time: a.cfg.Now().UTC(),
			UID: strconv.FormatInt(u.UID, 10), MemberType: "member", Props: map[string]string{"loginType": "S", "provider": provider}})
	})
	if err != nil {
		return nil, err
	}
	a.Changed()
	return u, nil
}

// toggle19 switches adult content on or off for a verified adult.
func (a *Auth) toggle19(w http.ResponseWriter, r *http.Request) error {
	uid, ok := a.UserID(r)
	if !ok {
		return httpapi.ErrUnauthorized
	}
	var body struct {
		On *bool `json:"on"`
	}
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	if body.On == nil {
		return httpapi.BadRequest("설정 값(on)이 필요합니다.")
	}
	u, err := a.LoadUser(r.Context(), uid)
	if err != nil {
		return err
	}
	if u.AdultLevel(a.cfg.Now()) < 2 {
		return httpapi.Errorf(http.StatusForbidden, "성인 인증이 필요합니다.")
	}
	ctx := r.Context()
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `UPDATE users SET toggle19 = $2 WHERE uid = $1 RETURNING `+userCols, uid, *body.On))
		if err != nil {
			return fmt.Errorf("toggle 19 of %d: %w", uid, err)
		}
		return a.profileChanged(ctx, tx, uid)
	})
	if err != nil {
		return err
	}
	a.Changed()
	a.setUserCookies(w, r, u)
	return a.answerUser(w, r, http.StatusOK, u)
}

// hash is the seed's {hash} call used by the startup user resolution: the
// page sends its member id and compares the first entry of encryptList with
// its web id cookie. An id is answered with the web id (bid) only when it is
// the session's member (uid or login id); anything else, or no session, gives
// "" so a page whose server session is gone goes to the auto-login page.
func (a *Auth) hash(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	raw := p["ids"]
	if raw == "" {
		raw = p["id"]
	}
	ids := strings.Split(raw, ",")
	if raw == "" || len(ids) > 100 {
		return httpapi.BadRequest("ID(id)를 1개부터 100개까지 보내 주세요.")
	}
	u, err := a.CurrentUser(r)
	if err != nil {
		return err
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		id = strings.TrimSpace(id)
		if u != nil && (id == strconv.FormatInt(u.UID, 10) || id == u.LoginID) {
			list[i] = u.BID
		}
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		EncryptList []string `json:"encryptList"`
	}{httpapi.H200(), list})
}
