package staff

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/writer/httpapi"
)

// newToken is 32 random bytes, base64url: the cookie's value. Only its
// SHA-256 is stored.
func newToken() (string, []byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("cannot make a session token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	return tok, tokenHash(tok), nil
}

func tokenHash(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// touchEvery: last_seen is written at most this often per session, so that a
// screen's burst of calls is one UPDATE, not one each; the idle timeout is
// then exact to within this.
const touchEvery = 30 * time.Second

// Session is the principal of a live session token, or 401. A session is
// live while its account exists unremoved with the role it signed in with,
// it was used within Idle and it is younger than MaxAge. Analytics asks the
// same question (over NATS, writer/staff/check.go) for the reports.
func (s *Service) Session(ctx context.Context, tok string) (*Principal, error) {
	if len(tok) > 100 {
		return nil, errSignIn
	}
	now := s.cfg.Now()
	var p Principal
	var provider *string
	var lastSeen time.Time
	err := s.pool.QueryRow(ctx, `SELECT a.id, a.login, a.name, a.role, a.provider_id, s.last_seen
		FROM staff_sessions s JOIN staff_accounts a ON a.id = s.staff_id
		WHERE s.token_hash = $1 AND a.removed_at IS NULL AND a.role = s.role
		  AND s.last_seen > $2 AND s.expires_at > $3`,
		tokenHash(tok), now.Add(-s.cfg.Idle), now).Scan(&p.StaffID, &p.Login, &p.Name, &p.Role, &provider, &lastSeen)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errSignIn
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read staff session: %w", err)
	}
	if provider != nil {
		p.ProviderID = *provider
	}
	if now.Sub(lastSeen) >= touchEvery {
		if _, err := s.pool.Exec(ctx, `UPDATE staff_sessions SET last_seen = $2 WHERE token_hash = $1`, tokenHash(tok), now); err != nil {
			return nil, fmt.Errorf("cannot touch staff session: %w", err)
		}
	}
	return &p, nil
}

// endSessions deletes every session of an account (role change, removal).
func endSessions(ctx context.Context, tx pgx.Tx, id int64) error {
	if _, err := tx.Exec(ctx, `DELETE FROM staff_sessions WHERE staff_id = $1`, id); err != nil {
		return fmt.Errorf("cannot end staff sessions: %w", err)
	}
	return nil
}

type signIn struct {
	Login    string `json:"login"`
	Password string `json:"password"`
	Code     string `json:"code"`
}

var errBadSignIn = httpapi.Errorf(http.StatusUnauthorized, "아이디, 비밀번호 또는 인증 코드가 올바르지 않습니다.")

// login is POST session: password and TOTP code in one call, so there is no
// half-signed-in state to guard. Failures are counted per login and per
// client address (limits.go); past the limit the answer is 429 with
// Retry-After whether or not the password is right.
func (s *Service) login(w http.ResponseWriter, r *http.Request) error {
	var b signIn
	if err := httpapi.DecodeJSONRequired(r, &b, "login", "password", "code"); err != nil {
		return err
	}
	login := strings.ToLower(strings.TrimSpace(b.Login))
	if len(login) > 40 || len(b.Password) > 200 || len(b.Code) > 10 {
		return errBadSignIn
	}
	ctx := r.Context()
	now := s.cfg.Now()
	ip := clientIP(r)
	until, err := s.lockedUntil(ctx, login, ip, now)
	if err != nil {
		return err
	}
	if !until.IsZero() {
		s.log.Warn("staff sign-in refused: too many failures", "login", login, "ip", ip)
		return tooMany(w, "로그인", until, now)
	}
	fail := func() error {
		if err := s.recordFailure(ctx, login, ip, now); err != nil {
			return err
		}
		s.log.Info("staff sign-in failed", "login", login, "ip", ip)
		return errBadSignIn
	}
	var (
		id           int64
		role, hash   string
		secret       string
		lastStep     int64
		accountFound = true
	)
	err = s.pool.QueryRow(ctx, `SELECT id, role, password_hash, totp_secret, totp_last_step
		FROM staff_accounts WHERE login = $1 AND removed_at IS NULL`, login).Scan(&id, &role, &hash, &secret, &lastStep)
	if errors.Is(err, pgx.ErrNoRows) {
		accountFound, hash = false, s.dummy
	} else if err != nil {
		return fmt.Errorf("cannot read staff account: %w", err)
	}
	if !checkPassword(hash, b.Password) || !accountFound {
		return fail()
	}
	step, ok := checkTOTP(secret, strings.TrimSpace(b.Code), now, lastStep)
	if !ok {
		return fail()
	}
	tok, th, err := newToken()
	if err != nil {
		return err
	}
	ua := r.UserAgent()
	if len(ua) > 300 {
		ua = ua[:300]
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The step moves forward only: a code seen by two sign-ins at once
		// lets one of them in.
		tag, err := tx.Exec(ctx, `UPDATE staff_accounts SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2`, id, step)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errBadSignIn
		}
		_, err = tx.Exec(ctx, `INSERT INTO staff_sessions (token_hash, staff_id, role, created_at, last_seen, expires_at, ip, user_agent)
			VALUES ($1, $2, $3, $4, $4, $5, $6, $7)`, th, id, role, now, now.Add(s.cfg.MaxAge), ip, ua)
		return err
	})
	if err != nil {
		var he *httpapi.Error
		if errors.As(err, &he) {
			return fail()
		}
		return fmt.Errorf("cannot start staff session: %w", err)
	}
	s.log.Info("staff signed in", "staff_id", id, "role", role, "ip", ip)
	http.SetCookie(w, &http.Cookie{Name: Cookie, Value: tok, Path: "/", HttpOnly: true, Secure: s.secure(r),
		SameSite: http.SameSiteStrictMode, MaxAge: int(s.cfg.MaxAge / time.Second)})
	p, err := s.Session(ctx, tok)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, meAnswer(p))
}

// logout is DELETE session: the row goes, so the token is dead everywhere at
// once (the writer's admin API and analytics' reports alike).
func (s *Service) logout(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(Cookie); err == nil && c.Value != "" {
		if !sameOrigin(r) {
			return errCSRF
		}
		if _, err := s.pool.Exec(r.Context(), `DELETE FROM staff_sessions WHERE token_hash = $1`, tokenHash(c.Value)); err != nil {
			return fmt.Errorf("cannot end staff session: %w", err)
		}
	}
	http.SetCookie(w, &http.Cookie{Name: Cookie, Value: "", Path: "/", HttpOnly: true, Secure: s.secure(r),
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

type me struct {
	httpapi.Header200
	Staff staffView `json:"staff"`
}

type staffView struct {
	ID         int64    `json:"id"`
	Login      string   `json:"login"`
	Name       string   `json:"name"`
	Role       string   `json:"role"`
	ProviderID string   `json:"providerId,omitempty"`
	Perms      []string `json:"permissions"`
}

func meAnswer(p *Principal) me {
	v := staffView{ID: p.StaffID, Login: p.Login, Name: p.Name, Role: p.Role, ProviderID: p.ProviderID, Perms: []string{}}
	for _, perm := range grants[p.Role] {
		v.Perms = append(v.Perms, string(perm))
	}
	return me{Header200: httpapi.H200(), Staff: v}
}

// whoami is GET session.
func (s *Service) whoami(w http.ResponseWriter, r *http.Request) error {
	c, err := r.Cookie(Cookie)
	if err != nil || c.Value == "" {
		return errSignIn
	}
	p, err := s.Session(r.Context(), c.Value)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, meAnswer(p))
}
