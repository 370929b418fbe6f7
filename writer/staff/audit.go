package staff

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/writer/httpapi"
)

// Entry is one change for the audit trail. The guard's principal says who
// and from where; the change says what.
type Entry struct {
	Action string // e.g. "PATCH works/{pid}", "staff.role"
	Target string // e.g. "work:W0001", "staff:3"
	Before any    // nil: nothing before (a creation) or not known
	After  any    // nil: nothing after (a removal)
}

// Audit starts an audited change in tx: it reserves the audit row's id and
// sets storefront.audit_id for the rest of the transaction, so every outbox
// row the change writes carries it (the column's default); then write, called
// with the change's description once it is made, inserts the row, in the
// same transaction. A change without a principal in ctx is refused: no
// change without its author.
func Audit(ctx context.Context, tx pgx.Tx) (write func(Entry) error, err error) {
	p := From(ctx)
	if p == nil {
		return nil, errors.New("audited change without a principal")
	}
	var id int64
	if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('staff_audit', 'id'))`).Scan(&id); err != nil {
		return nil, fmt.Errorf("cannot reserve an audit id: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('storefront.audit_id', $1, true)`, strconv.FormatInt(id, 10)); err != nil {
		return nil, fmt.Errorf("cannot set the audit id: %w", err)
	}
	return func(e Entry) error {
		before, err := jsonOrNull(e.Before)
		if err != nil {
			return err
		}
		after, err := jsonOrNull(e.After)
		if err != nil {
			return err
		}
		var actor *int64
		if p.StaffID != 0 {
			actor = &p.StaffID
		}
		_, err = tx.Exec(ctx, `INSERT INTO staff_audit (id, at, actor_id, actor_login, actor_role, action, target, before, after, ip, user_agent)
			VALUES ($1, now(), $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			id, actor, p.Login, p.Role, e.Action, e.Target, before, after, p.IP, p.UserAgent)
		if err != nil {
			return fmt.Errorf("cannot write the audit row: %w", err)
		}
		return nil
	}, nil
}

// AuditedTx runs f in one transaction begun on db, with Audit's write for
// the change's row: the change, its outbox rows and its audit row commit
// together or not at all.
func AuditedTx(ctx context.Context, db interface {
	Begin(context.Context) (pgx.Tx, error)
}, f func(tx pgx.Tx, write func(Entry) error) error) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		write, err := Audit(ctx, tx)
		if err != nil {
			return err
		}
		return f(tx, write)
	})
}

func jsonOrNull(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		if len(raw) == 0 {
			return nil, nil
		}
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the audit state: %w", err)
	}
	return b, nil
}

// AuditRow is one row of the trail as the read API gives it.
type AuditRow struct {
	ID         int64           `json:"id"`
	At         time.Time       `json:"at"`
	ActorID    *int64          `json:"actorId"`
	ActorLogin string          `json:"actorLogin"`
	ActorRole  string          `json:"actorRole"`
	Action     string          `json:"action"`
	Target     string          `json:"target"`
	Before     json.RawMessage `json:"before"`
	After      json.RawMessage `json:"after"`
	IP         string          `json:"ip"`
	UserAgent  string          `json:"userAgent"`
}

// auditQuery reads the filters: actor (login), action, target (prefix), from
// and to (RFC 3339), before (an id: the next page), limit (1-500, default 100).
func (s *Service) auditQuery(ctx context.Context, r *http.Request, maxLimit int) ([]AuditRow, error) {
	q := r.URL.Query()
	where := "TRUE"
	var args []any
	arg := func(cond string, v any) {
		args = append(args, v)
		where += fmt.Sprintf(" AND "+cond, len(args))
	}
	if v := q.Get("actor"); v != "" {
		arg("actor_login = $%d", v)
	}
	if v := q.Get("action"); v != "" {
		arg("action = $%d", v)
	}
	if v := q.Get("target"); v != "" {
		arg("starts_with(target, $%d)", v)
	}
	for _, f := range []struct{ name, cond string }{{"from", "at >= $%d"}, {"to", "at < $%d"}} {
		if v := q.Get(f.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return nil, httpapi.BadRequest("%s는 RFC 3339 시각이어야 합니다 (예: 2026-11-28T00:00:00+09:00).", f.name)
			}
			arg(f.cond, t)
		}
	}
	if v := q.Get("before"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return nil, httpapi.BadRequest("before는 양의 정수여야 합니다.")
		}
		arg("id < $%d", id)
	}
	limit := min(100, maxLimit)
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			return nil, httpapi.BadRequest("limit은 1 이상 %d 이하여야 합니다.", maxLimit)
		}
		limit = n
	}
	args = append(args, limit)
	rows, err := s.pool.Query(ctx, `SELECT id, at, actor_id, actor_login, actor_role, action, target, before, after, ip, user_agent
		FROM staff_audit WHERE `+where+fmt.Sprintf(` ORDER BY id DESC LIMIT $%d`, len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("cannot read the audit trail: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditRow, error) {
		var a AuditRow
		var before, after []byte
		err := row.Scan(&a.ID, &a.At, &a.ActorID, &a.ActorLogin, &a.ActorRole, &a.Action, &a.Target, &before, &after, &a.IP, &a.UserAgent)
		a.Before, a.After = nullable(before), nullable(after)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the audit trail: %w", err)
	}
	return out, nil
}

func nullable(b []byte) json.RawMessage {
	if b == nil {
		return json.RawMessage("null")
	}
	return b
}

// auditList is GET audit.
func (s *Service) auditList(w http.ResponseWriter, r *http.Request) error {
	rows, err := s.auditQuery(r.Context(), r, 500)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Entries []AuditRow `json:"entries"`
	}{httpapi.H200(), rows})
}

// auditCSV is GET audit.csv: the same filters, up to 50,000 rows, newest first.
func (s *Service) auditCSV(w http.ResponseWriter, r *http.Request) error {
	rows, err := s.auditQuery(r.Context(), r, 50000)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="staff-audit.csv"`)
	w.WriteHeader(http.StatusOK)
	// A BOM so that spreadsheet programs read the Korean as UTF-8.
	_, _ = w.Write([]byte("\ufeff"))
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "at", "actor_id", "actor_login", "actor_role", "action", "target", "before", "after", "ip", "user_agent"})
	for _, a := range rows {
		actor := ""
		if a.ActorID != nil {
			actor = strconv.FormatInt(*a.ActorID, 10)
		}
		_ = cw.Write([]string{strconv.FormatInt(a.ID, 10), a.At.UTC().Format(time.RFC3339), actor, csvSafe(a.ActorLogin), a.ActorRole,
			csvSafe(a.Action), csvSafe(a.Target), csvSafe(string(a.Before)), csvSafe(string(a.After)), a.IP, csvSafe(a.UserAgent)})
	}
	cw.Flush()
	return nil
}

// csvSafe keeps a cell from being read as a formula by a spreadsheet (CSV
// injection): a value starting with = + - @ gets a leading quote.
func csvSafe(v string) string {
	if v != "" && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@' || v[0] == '\t' || v[0] == '\r') {
		return "'" + v
	}
	return v
}
