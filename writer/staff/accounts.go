package staff

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/realip"
	"storefront/writer/httpapi"
)

func clientIP(r *http.Request) string { return realip.RemoteHost(r) }

// Routes registers the staff routes under prefix (admin.Prefix) on mux.
func (s *Service) Routes(mux httpapi.Mux, prefix string, wrap func(httpapi.HandlerFunc) http.Handler) {
	open := func(pattern string, f httpapi.HandlerFunc) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+prefix+path, httpapi.Limit(64<<10, wrap(f)))
	}
	guarded := func(pattern string, perm Permission, f httpapi.HandlerFunc) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+prefix+path, httpapi.Limit(64<<10, s.Require(perm, wrap(f))))
	}
	open("POST session", s.login)
	open("GET session", s.whoami)
	// Sign-out takes no body (httpapi.NoBody), as every DELETE of the API.
	mux.Handle("DELETE "+prefix+"session", httpapi.Limit(64<<10, httpapi.NoBody(wrap(s.logout))))
	guarded("GET staff", PermStaff, s.list)
	guarded("POST staff", PermStaff, s.create)
	guarded("PUT staff/{id}/role", PermStaff, s.setRole)
	mux.Handle("DELETE "+prefix+"staff/{id}", httpapi.Limit(64<<10, s.Require(PermStaff, httpapi.NoBody(wrap(s.remove)))))
	guarded("GET audit", PermAudit, s.auditList)
	guarded("GET audit.csv", PermAudit, s.auditCSV)
}

// Account is a staff account as the API shows it (never its secrets).
type Account struct {
	ID         int64      `json:"id"`
	Login      string     `json:"login"`
	Name       string     `json:"name"`
	Role       string     `json:"role"`
	ProviderID *string    `json:"providerId,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
	RemovedAt  *time.Time `json:"removedAt,omitempty"`
}

const accountCols = `id, login, name, role, provider_id, created_at, removed_at`

func scanAccount(row pgx.Row) (Account, error) {
	var a Account
	err := row.Scan(&a.ID, &a.Login, &a.Name, &a.Role, &a.ProviderID, &a.CreatedAt, &a.RemovedAt)
	return a, err
}

func (s *Service) list(w http.ResponseWriter, r *http.Request) error {
	rows, err := s.pool.Query(r.Context(), `SELECT `+accountCols+` FROM staff_accounts ORDER BY id`)
	if err != nil {
		return fmt.Errorf("cannot list staff: %w", err)
	}
	accts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Account, error) { return scanAccount(row) })
	if err != nil {
		return fmt.Errorf("cannot list staff: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Staff []Account `json:"staff"`
	}{httpapi.H200(), accts})
}

var loginRE = regexp.MustCompile(`^[a-z0-9._-]{3,40}$`)

// NewAccount is what creates an account.
type NewAccount struct {
	Login      string `json:"login"`
	Name       string `json:"name"`
	Role       string `json:"role"`
	ProviderID string `json:"providerId"`
	Password   string `json:"password"`
}

func (n *NewAccount) check() error {
	n.Login = strings.ToLower(strings.TrimSpace(n.Login))
	n.Name = strings.TrimSpace(n.Name)
	if !loginRE.MatchString(n.Login) {
		return httpapi.BadRequest("아이디는 영문 소문자, 숫자, . _ - 로 3~40자여야 합니다.")
	}
	if n.Name == "" || len([]rune(n.Name)) > 100 || !httpapi.CleanText(n.Name) {
		return httpapi.BadRequest("이름은 1~100자여야 합니다.")
	}
	if !ValidRole(n.Role) {
		return httpapi.BadRequest("역할(role)은 operator, content, provider, moderator, analyst 중 하나여야 합니다.")
	}
	if (n.Role == RoleProvider) != (n.ProviderID != "") {
		return httpapi.BadRequest("제공사 계정(provider)에만 제공사 번호(providerId)를 지정합니다.")
	}
	return checkNewPassword(n.Password)
}

// Created is the answer to a creation: the TOTP secret is shown once, to be
// put into the person's authenticator app.
type Created struct {
	httpapi.Header200
	Account    Account `json:"staff"`
	TOTPSecret string  `json:"totpSecret"`
	TOTPURI    string  `json:"totpUri"`
}

// createAccount inserts n, audited, in ctx's principal's name.
func (s *Service) createAccount(ctx context.Context, n NewAccount) (*Created, error) {
	if err := n.check(); err != nil {
		return nil, err
	}
	hash, err := hashPassword(n.Password)
	if err != nil {
		return nil, err
	}
	secret, uri, err := NewTOTPSecret(n.Login)
	if err != nil {
		return nil, err
	}
	var provider *string
	if n.ProviderID != "" {
		provider = &n.ProviderID
	}
	out := &Created{Header200: httpapi.H200(), TOTPSecret: secret, TOTPURI: uri}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		write, err := Audit(ctx, tx)
		if err != nil {
			return err
		}
		a, err := scanAccount(tx.QueryRow(ctx, `INSERT INTO staff_accounts (login, name, role, provider_id, password_hash, totp_secret, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+accountCols, n.Login, n.Name, n.Role, provider, hash, secret, s.cfg.Now()))
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			return httpapi.Errorf(http.StatusConflict, "아이디 %s은(는) 이미 있습니다.", n.Login)
		}
		if err != nil {
			return fmt.Errorf("cannot create staff account: %w", err)
		}
		out.Account = a
		return write(Entry{Action: "staff.create", Target: "staff:" + strconv.FormatInt(a.ID, 10), After: a})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Service) create(w http.ResponseWriter, r *http.Request) error {
	var n NewAccount
	if err := httpapi.DecodeJSONRequired(r, &n, "login", "name", "role", "password"); err != nil {
		return err
	}
	c, err := s.createAccount(r.Context(), n)
	if err != nil {
		return err
	}
	s.log.Info("staff account created", "staff_id", c.Account.ID, "role", c.Account.Role, "by", From(r.Context()).Login)
	return httpapi.JSON(w, http.StatusCreated, c)
}

func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, httpapi.BadRequest("직원 번호는 양의 정수여야 합니다.")
	}
	return id, nil
}

// change locks account id, lets edit change it in tx and audits before and
// after; the account's sessions end in the same transaction.
func (s *Service) change(ctx context.Context, id int64, action string, edit func(tx pgx.Tx, a *Account) error) (*Account, error) {
	var out Account
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		write, err := Audit(ctx, tx)
		if err != nil {
			return err
		}
		before, err := scanAccount(tx.QueryRow(ctx, `SELECT `+accountCols+` FROM staff_accounts WHERE id = $1 AND removed_at IS NULL FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return httpapi.Errorf(http.StatusNotFound, "직원 %d을(를) 찾을 수 없습니다.", id)
		}
		if err != nil {
			return fmt.Errorf("cannot read staff account: %w", err)
		}
		out = before
		if err := edit(tx, &out); err != nil {
			return err
		}
		if err := endSessions(ctx, tx, id); err != nil {
			return err
		}
		return write(Entry{Action: action, Target: "staff:" + strconv.FormatInt(id, 10), Before: before, After: out})
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// lastOperator refuses a change that would leave no operator: nobody could
// manage staff without going back to the command line.
func lastOperator(ctx context.Context, tx pgx.Tx, a *Account) error {
	if a.Role != RoleOperator {
		return nil
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM staff_accounts WHERE role = 'operator' AND removed_at IS NULL AND id <> $1`, a.ID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return httpapi.Errorf(http.StatusConflict, "마지막 운영자 계정은 역할을 바꾸거나 삭제할 수 없습니다.")
	}
	return nil
}

func (s *Service) setRole(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	var b struct {
		Role       string `json:"role"`
		ProviderID string `json:"providerId"`
	}
	if err := httpapi.DecodeJSONRequired(r, &b, "role"); err != nil {
		return err
	}
	if !ValidRole(b.Role) {
		return httpapi.BadRequest("역할(role)은 operator, content, provider, moderator, analyst 중 하나여야 합니다.")
	}
	if (b.Role == RoleProvider) != (b.ProviderID != "") {
		return httpapi.BadRequest("제공사 계정(provider)에만 제공사 번호(providerId)를 지정합니다.")
	}
	a, err := s.change(r.Context(), id, "staff.role", func(tx pgx.Tx, a *Account) error {
		if b.Role != RoleOperator {
			if err := lastOperator(r.Context(), tx, a); err != nil {
				return err
			}
		}
		var provider *string
		if b.ProviderID != "" {
			provider = &b.ProviderID
		}
		a.Role, a.ProviderID = b.Role, provider
		_, err := tx.Exec(r.Context(), `UPDATE staff_accounts SET role = $2, provider_id = $3 WHERE id = $1`, id, a.Role, a.ProviderID)
		return err
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Staff *Account `json:"staff"`
	}{httpapi.H200(), a})
}

func (s *Service) remove(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	_, err = s.change(r.Context(), id, "staff.remove", func(tx pgx.Tx, a *Account) error {
		if err := lastOperator(r.Context(), tx, a); err != nil {
			return err
		}
		now := s.cfg.Now()
		a.RemovedAt = &now
		_, err := tx.Exec(r.Context(), `UPDATE staff_accounts SET removed_at = $2 WHERE id = $1`, id, now)
		return err
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// CreateOperator makes an operator account from the command line (storefront
// staff create-operator): the only way the first one comes to be. The audit
// row names the command and the operating-system user who ran it.
func CreateOperator(ctx context.Context, pool *pgxpool.Pool, login, name, password, osUser string) (*Created, error) {
	s, err := New(pool, Config{}, nil)
	if err != nil {
		return nil, err
	}
	ctx = WithPrincipal(ctx, &Principal{Login: "command:" + osUser, Role: "command", IP: "local", UserAgent: "storefront staff create-operator"})
	return s.createAccount(ctx, NewAccount{Login: login, Name: name, Role: RoleOperator, Password: password})
}
