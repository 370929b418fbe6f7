package settlement

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/writer/httpapi"
	"storefront/writer/staff"
)

// Service serves the provider routes.
type Service struct {
	pool  *pgxpool.Pool
	staff *staff.Service
	fees  Fees
	now   func() time.Time
	log   *slog.Logger
}

// New makes the service; st guards its routes. Zero fees take DefaultFees.
func New(pool *pgxpool.Pool, st *staff.Service, fees Fees, now func() time.Time, log *slog.Logger) *Service {
	if fees == (Fees{}) {
		fees = DefaultFees
	}
	if now == nil {
		now = time.Now
	}
	return &Service{pool: pool, staff: st, fees: fees, now: now, log: log}
}

// Routes registers the provider routes under prefix (admin.Prefix) on mux.
func (s *Service) Routes(mux httpapi.Mux, prefix string) {
	h := func(pattern string, perm staff.Permission, f httpapi.HandlerFunc) {
		method, path, _ := strings.Cut(pattern, " ")
		next := httpapi.Wrap(s.log, f)
		// A work's assignment is all in its path: these take no body.
		if strings.HasSuffix(path, "/works/{pid}") {
			next = httpapi.NoBody(next)
		}
		mux.Handle(method+" "+prefix+path, httpapi.Limit(64<<10, s.staff.Require(perm, next)))
	}
	h("GET providers", staff.PermProviders, s.list)
	h("PUT providers/{id}", staff.PermProviders, s.putContract)
	h("GET providers/{id}", staff.PermSettlement, s.getContract)
	h("PUT providers/{id}/works/{pid}", staff.PermProviders, s.assign)
	h("DELETE providers/{id}/works/{pid}", staff.PermProviders, s.unassign)
	h("GET providers/{id}/works", staff.PermSettlement, s.works)
	h("GET providers/{id}/settlement", staff.PermSettlement, s.statement)
	h("GET providers/{id}/daily", staff.PermSettlement, s.daily)
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,40}$`)

var errOtherProvider = httpapi.Errorf(http.StatusForbidden, "다른 제공사의 정보는 볼 수 없습니다.")

// providerID reads {id} and, for a provider account, refuses any provider
// but its own: the guard let the role in, this lets it see only itself.
func providerID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !idRE.MatchString(id) {
		return "", httpapi.BadRequest("제공사 번호는 영문, 숫자, . _ - 로 1~40자여야 합니다.")
	}
	if p := staff.From(r.Context()); p == nil || (p.Role == staff.RoleProvider && p.ProviderID != id) {
		return "", errOtherProvider
	}
	return id, nil
}

func month(r *http.Request) (string, error) {
	m := r.URL.Query().Get("month")
	if _, _, err := MonthRange(m); err != nil {
		return "", httpapi.BadRequest("month는 정산할 달(YYYY-MM, 한국 시간)이어야 합니다.")
	}
	return m, nil
}

func notFound(id string, err error) error {
	switch {
	case errors.Is(err, errNoProvider):
		return httpapi.Errorf(http.StatusNotFound, "제공사 %s의 계약을 찾을 수 없습니다.", id)
	case errors.Is(err, errNoRate):
		return httpapi.Errorf(http.StatusNotFound, "제공사 %s의 그 달 정산 요율이 없습니다.", id)
	}
	return err
}

func (s *Service) statement(w http.ResponseWriter, r *http.Request) error {
	id, err := providerID(r)
	if err != nil {
		return err
	}
	m, err := month(r)
	if err != nil {
		return err
	}
	st, err := Compute(r.Context(), s.pool, s.fees, id, m)
	if err != nil {
		return notFound(id, err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Statement *Statement `json:"statement"`
	}{httpapi.H200(), st})
}

func (s *Service) daily(w http.ResponseWriter, r *http.Request) error {
	id, err := providerID(r)
	if err != nil {
		return err
	}
	m, err := month(r)
	if err != nil {
		return err
	}
	days, err := Daily(r.Context(), s.pool, id, m)
	if err != nil {
		return notFound(id, err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Month string `json:"month"`
		Days  []Day  `json:"days"`
	}{httpapi.H200(), m, days})
}

// Work is a provider's work as its list shows it.
type Work struct {
	PID        string    `json:"pid"`
	Title      string    `json:"title"`
	AssignedAt time.Time `json:"assignedAt"`
}

func (s *Service) works(w http.ResponseWriter, r *http.Request) error {
	id, err := providerID(r)
	if err != nil {
		return err
	}
	if err := s.exists(r.Context(), id); err != nil {
		return err
	}
	rows, err := s.pool.Query(r.Context(), `SELECT w.pid, w.title, wp.assigned_at FROM work_providers wp JOIN works w ON w.pid = wp.pid
		WHERE wp.provider_id = $1 ORDER BY w.pid`, id)
	if err != nil {
		return fmt.Errorf("read works of %s: %w", id, err)
	}
	ws, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Work, error) {
		var x Work
		err := r.Scan(&x.PID, &x.Title, &x.AssignedAt)
		return x, err
	})
	if err != nil {
		return fmt.Errorf("read works of %s: %w", id, err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Works []Work `json:"works"`
	}{httpapi.H200(), ws})
}

func (s *Service) exists(ctx context.Context, id string) error {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM providers WHERE id = $1`, id).Scan(&n); err != nil {
		return fmt.Errorf("read provider %s: %w", id, err)
	}
	if n == 0 {
		return notFound(id, errNoProvider)
	}
	return nil
}

// Contract is a provider and its rates as the API shows them.
type Contract struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Rates     []Rate    `json:"rates"`
	Works     int       `json:"works"`
	Limits    Limits    `json:"limits"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Rate is a provider's share from a KST month on.
type Rate struct {
	From   string `json:"from"`
	RateBP int64  `json:"rateBp"`
}

func readContract(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, id string) (*Contract, error) {
	c := Contract{ID: id, Rates: []Rate{}}
	err := q.QueryRow(ctx, `SELECT name, created_at, updated_at, (SELECT count(*) FROM work_providers WHERE provider_id = $1),
		min_price, max_price, max_free
		FROM providers WHERE id = $1`, id).Scan(&c.Name, &c.CreatedAt, &c.UpdatedAt, &c.Works, &c.Limits.MinPrice, &c.Limits.MaxPrice, &c.Limits.MaxFree)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read provider %s: %w", id, err)
	}
	rows, err := q.Query(ctx, `SELECT to_char(from_month, 'YYYY-MM'), rate_bp FROM provider_rates WHERE provider_id = $1 ORDER BY from_month`, id)
	if err != nil {
		return nil, fmt.Errorf("read rates of %s: %w", id, err)
	}
	c.Rates, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Rate, error) {
		var x Rate
		err := r.Scan(&x.From, &x.RateBP)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("read rates of %s: %w", id, err)
	}
	return &c, nil
}

func (s *Service) list(w http.ResponseWriter, r *http.Request) error {
	rows, err := s.pool.Query(r.Context(), `SELECT id FROM providers ORDER BY id`)
	if err != nil {
		return fmt.Errorf("list providers: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("list providers: %w", err)
	}
	out := []Contract{}
	for _, id := range ids {
		c, err := readContract(r.Context(), s.pool, id)
		if err != nil {
			return err
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Providers []Contract `json:"providers"`
	}{httpapi.H200(), out})
}

// getContract is GET providers/{id}: the contract, its rates and its limits
// (the portal shows a provider what it may set).
func (s *Service) getContract(w http.ResponseWriter, r *http.Request) error {
	id, err := providerID(r)
	if err != nil {
		return err
	}
	c, err := readContract(r.Context(), s.pool, id)
	if err != nil {
		return err
	}
	if c == nil {
		return notFound(id, errNoProvider)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Provider *Contract `json:"provider"`
	}{httpapi.H200(), c})
}

// putContract is PUT providers/{id} {name, rateBp, from?, limits?}: creates
// the provider or renames it, and sets its rate from the KST month from
// (default: the current month) and, when given, the limits its accounts work
// within (absent: kept). Audited with before and after.
func (s *Service) putContract(w http.ResponseWriter, r *http.Request) error {
	id, err := providerID(r)
	if err != nil {
		return err
	}
	var b struct {
		Name   string  `json:"name"`
		RateBP int64   `json:"rateBp"`
		From   string  `json:"from"`
		Limits *Limits `json:"limits"`
	}
	if err := httpapi.DecodeJSONRequired(r, &b, "name", "rateBp"); err != nil {
		return err
	}
	if b.Limits != nil {
		if err := b.Limits.valid(); err != nil {
			return err
		}
	}
	b.Name = strings.TrimSpace(b.Name)
	if b.Name == "" || len([]rune(b.Name)) > 100 || !httpapi.CleanText(b.Name) {
		return httpapi.BadRequest("제공사 이름은 1~100자여야 합니다.")
	}
	if b.RateBP < 0 || b.RateBP > 10000 {
		return httpapi.BadRequest("정산 요율(rateBp)은 0부터 10000(=100%%) 사이여야 합니다.")
	}
	now := s.now()
	if b.From == "" {
		b.From = now.In(KST).Format("2006-01")
	}
	from, _, err := MonthRange(b.From)
	if err != nil {
		return httpapi.BadRequest("from은 요율을 적용할 달(YYYY-MM)이어야 합니다.")
	}
	ctx := r.Context()
	var after *Contract
	err = staff.AuditedTx(ctx, s.pool, func(tx pgx.Tx, write func(staff.Entry) error) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('provider:' || $1))`, id); err != nil {
			return fmt.Errorf("lock provider %s: %w", id, err)
		}
		before, err := readContract(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO providers (id, name, created_at, updated_at) VALUES ($1, $2, $3, $3)
			ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, updated_at = EXCLUDED.updated_at`, id, b.Name, now); err != nil {
			return fmt.Errorf("save provider %s: %w", id, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO provider_rates (provider_id, from_month, rate_bp, set_at) VALUES ($1, $2::date, $3, $4)
			ON CONFLICT (provider_id, from_month) DO UPDATE SET rate_bp = EXCLUDED.rate_bp, set_at = EXCLUDED.set_at`,
			id, from.Format("2006-01-02"), b.RateBP, now); err != nil {
			return fmt.Errorf("save rate of %s: %w", id, err)
		}
		if b.Limits != nil {
			if _, err := tx.Exec(ctx, `UPDATE providers SET min_price = $2, max_price = $3, max_free = $4 WHERE id = $1`,
				id, b.Limits.MinPrice, b.Limits.MaxPrice, b.Limits.MaxFree); err != nil {
				return fmt.Errorf("save limits of %s: %w", id, err)
			}
		}
		if after, err = readContract(ctx, tx, id); err != nil {
			return err
		}
		var prev any
		if before != nil {
			prev = before
		}
		return write(staff.Entry{Action: "provider.contract", Target: "provider:" + id, Before: prev, After: after})
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Provider *Contract `json:"provider"`
	}{httpapi.H200(), after})
}

var pidRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// owner is a work's provider in the audit trail.
type owner struct {
	ProviderID *string `json:"providerId"`
}

// setOwner makes provider (nil: none) own work pid, audited as action.
func (s *Service) setOwner(r *http.Request, action string, assign bool) error {
	id, err := providerID(r)
	if err != nil {
		return err
	}
	pid := r.PathValue("pid")
	if !pidRE.MatchString(pid) {
		return httpapi.BadRequest("작품 번호(pid)가 올바르지 않습니다.")
	}
	ctx := r.Context()
	return staff.AuditedTx(ctx, s.pool, func(tx pgx.Tx, write func(staff.Entry) error) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM providers WHERE id = $1`, id).Scan(&n); err != nil {
			return fmt.Errorf("read provider %s: %w", id, err)
		}
		if n == 0 {
			return notFound(id, errNoProvider)
		}
		// The work's row is locked so two assignments of it queue.
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM works WHERE pid = $1 FOR UPDATE) w`, pid).Scan(&n); err != nil {
			return fmt.Errorf("lock work %s: %w", pid, err)
		}
		if n == 0 {
			return httpapi.Errorf(http.StatusNotFound, "작품 %s을(를) 찾을 수 없습니다.", pid)
		}
		var before owner
		err = tx.QueryRow(ctx, `SELECT provider_id FROM work_providers WHERE pid = $1`, pid).Scan(&before.ProviderID)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read owner of %s: %w", pid, err)
		}
		after := owner{}
		if assign {
			if _, err := tx.Exec(ctx, `INSERT INTO work_providers (pid, provider_id, assigned_at) VALUES ($1, $2, $3)
				ON CONFLICT (pid) DO UPDATE SET provider_id = EXCLUDED.provider_id, assigned_at = EXCLUDED.assigned_at`, pid, id, s.now()); err != nil {
				return fmt.Errorf("assign %s to %s: %w", pid, id, err)
			}
			after.ProviderID = &id
		} else {
			if before.ProviderID == nil || *before.ProviderID != id {
				return httpapi.Errorf(http.StatusNotFound, "작품 %s은(는) 제공사 %s의 작품이 아닙니다.", pid, id)
			}
			if _, err := tx.Exec(ctx, `DELETE FROM work_providers WHERE pid = $1`, pid); err != nil {
				return fmt.Errorf("unassign %s: %w", pid, err)
			}
		}
		return write(staff.Entry{Action: action, Target: "work:" + pid, Before: before, After: after})
	})
}

func (s *Service) assign(w http.ResponseWriter, r *http.Request) error {
	if err := s.setOwner(r, "provider.work.assign", true); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

func (s *Service) unassign(w http.ResponseWriter, r *http.Request) error {
	if err := s.setOwner(r, "provider.work.unassign", false); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}
