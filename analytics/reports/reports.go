// Package reports serves the analysts' reports over HTTP under
// /analytics/api/v1/reports/, read from the ClickHouse rollups (and the raw events
// table for minute-level traffic). Answers use the seed's envelope; bad input is a
// 400 with the envelope and a request without a valid analyst cookie a 401.
//
// Who may ask: a staff account of role analyst (its session cookie sf_staff),
// or a member holding the analyst role (the writer's signed analyst cookie,
// contract.AnalystCookie, with the member's session cookie). Either way the
// writer is asked, for every request, whether the session is live and the
// role still held (Checker), so a logout, a role change or a removal ends
// access at once. The catalog admin token opens nothing here. Every answered
// request is written to report_audit with who asked before the answer leaves.
//
// Days are KST days (YYYY-MM-DD), the zone of releases and of the rollups.
package reports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"storefront/contract"
)

// Prefix is where the reports live on the analytics port.
const Prefix = "/analytics/api/v1/reports/"

// Reports answers report requests. It is safe for concurrent use.
type Reports struct {
	ch      driver.Conn // reads
	auditDB driver.Conn // report_audit inserts
	secret  []byte
	check   Checker
	now     func() time.Time
	log     *slog.Logger
	// Releases (optional, set before serving) marks new volumes in the live view.
	Releases ReleaseTimes
}

// New makes the reports API: ch is where reports read (maybe Distributed
// tables), audit where report_audit rows are inserted (the local tables);
// analystSecret checks the analyst cookie (the writer's ANALYST_SECRET),
// check asks the writer whether the session behind it is an analyst's now,
// now is the clock.
func New(ch, audit driver.Conn, analystSecret string, check Checker, now func() time.Time, log *slog.Logger) *Reports {
	if now == nil {
		now = time.Now
	}
	return &Reports{ch: ch, auditDB: audit, secret: []byte(analystSecret), check: check, now: now, log: log}
}

// Checker asks the writer whether q's session is, at this moment, an
// analyst's (analytics/server asks over NATS, contract.AnalystCheckSubject).
// An error means no answer (the writer unreachable): 503, not 401.
type Checker func(ctx context.Context, q contract.AnalystCheck) (contract.AnalystAnswer, error)

// Register mounts the report routes on mux.
func (rp *Reports) Register(mux *http.ServeMux) {
	mux.Handle("GET "+Prefix+"traffic", rp.handle(rp.traffic))
	mux.Handle("GET "+Prefix+"top-works", rp.handle(rp.topWorks))
	mux.Handle("GET "+Prefix+"funnel", rp.handle(rp.funnel))
	mux.Handle("GET "+Prefix+"revenue", rp.handle(rp.revenue))
	mux.Handle("GET "+Prefix+"active-users", rp.handle(rp.activeUsers))
	mux.Handle("GET "+Prefix+"retention", rp.handle(rp.retention))
	mux.Handle("GET "+Prefix+"funnels", rp.handle(rp.customFunnel))
	mux.Handle("GET "+Prefix+"breakdown", rp.handle(rp.breakdown))
	mux.Handle("GET "+Prefix+"live", rp.handle(rp.live))
	mux.Handle(Prefix, rp.handle(func(*http.Request) (any, error) {
		return nil, errNoReport
	}))
}

// Refusals are the one client-error shape every transport answers in
// (contract.ClientError); anything else is logged and becomes errReportFailed.
var (
	errNoAnalyst    = contract.Errorf(http.StatusUnauthorized, "분석가 계정으로 로그인해 주세요.")
	errNoReport     = contract.Errorf(http.StatusNotFound, "없는 보고서입니다.")
	errReportFailed = contract.Errorf(http.StatusInternalServerError, "보고서를 만들지 못했습니다.")
	errNoCheck      = contract.Errorf(http.StatusServiceUnavailable, "분석가 권한을 확인하지 못했습니다. 잠시 후 다시 시도해 주세요.")
	errNoAudit      = contract.Errorf(http.StatusServiceUnavailable, "보고서 요청을 기록하지 못해 답할 수 없습니다. 잠시 후 다시 시도해 주세요.")
)

func badRequest(format string, args ...any) error {
	return contract.Errorf(http.StatusBadRequest, format, args...)
}

func (rp *Reports) handle(h func(*http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		uid, err := rp.analyst(r)
		if err != nil {
			var e *contract.ClientError
			if !errors.As(err, &e) {
				rp.log.Error("analyst check", "path", r.URL.Path, "err", err)
				e = errNoCheck
			}
			writeError(w, e)
			return
		}
		start := rp.now()
		format := "json"
		if r.URL.Query().Get("format") == "csv" {
			format = "csv"
		}
		body, err := h(r)
		status := http.StatusOK
		var e *contract.ClientError
		if err == nil && format == "csv" {
			if _, can := body.(tabular); !can {
				err = badRequest("이 보고서는 CSV로 내보낼 수 없습니다.")
			}
		}
		if err != nil {
			if !errors.As(err, &e) {
				rp.log.Error("report failed", "path", r.URL.Path, "uid", uid, "err", err)
				e = errReportFailed
			}
			status = e.Code
		}
		var b []byte
		if e == nil && format == "csv" {
			tb := body.(tabular).table()
			b = csvFile(tb)
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="`+fileName(strings.TrimPrefix(r.URL.Path, Prefix), tb, r.URL.Query())+`"`)
		} else if e == nil {
			if b, err = json.Marshal(body); err != nil {
				rp.log.Error("encode report", "path", r.URL.Path, "err", err)
				e = errReportFailed
				status = e.Code
			}
		}
		// No answer without its audit row: an analyst's question that
		// cannot be recorded is not answered.
		if err := rp.audit(r, uid, format, status, rp.now().Sub(start)); err != nil {
			rp.log.Error("report audit", "path", r.URL.Path, "uid", uid, "err", err)
			writeError(w, errNoAudit)
			return
		}
		if e != nil {
			writeError(w, e)
			return
		}
		_, _ = w.Write(b)
	})
}

func writeError(w http.ResponseWriter, e *contract.ClientError) {
	w.Header().Del("Content-Disposition")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.Code)
	_, _ = w.Write(e.Body())
}

// analyst is who asks: the writer's name for the request's live analyst
// session, or errNoAnalyst. The staff cookie is asked about when present;
// otherwise the signed analyst cookie names a uid, and the member session
// beside it must be that uid's, live, with the role still held.
func (rp *Reports) analyst(r *http.Request) (string, error) {
	var q contract.AnalystCheck
	if c, err := r.Cookie(contract.StaffCookie); err == nil && c.Value != "" {
		q.Staff = c.Value
	} else {
		c, err := r.Cookie(contract.AnalystCookie)
		if err != nil {
			return "", errNoAnalyst
		}
		uid, err := contract.VerifyAnalyst(rp.secret, c.Value, rp.now())
		if err != nil {
			return "", errNoAnalyst
		}
		s, err := r.Cookie(contract.MemberSessionCookie)
		if err != nil || s.Value == "" {
			return "", errNoAnalyst
		}
		q.Session, q.UID = s.Value, uid
	}
	if rp.check == nil {
		return "", errNoAnalyst
	}
	a, err := rp.check(r.Context(), q)
	if err != nil {
		return "", err
	}
	if a.Error != "" {
		return "", fmt.Errorf("writer could not check the analyst: %s", a.Error)
	}
	if !a.OK || a.Who == "" {
		return "", errNoAnalyst
	}
	return a.Who, nil
}

// audit writes who asked what into report_audit.
func (rp *Reports) audit(r *http.Request, uid, format string, status int, took time.Duration) error {
	// Exec of INSERT ... VALUES hangs on 18.16 with clickhouse-go v2: a batch.
	b, err := rp.auditDB.PrepareBatch(r.Context(), "INSERT INTO report_audit (asked_at, uid, report, params, format, status, elapsed_ms)")
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	report := strings.TrimPrefix(r.URL.Path, Prefix)
	if err := b.Append(rp.now().UTC(), uid, report, r.URL.RawQuery, format, uint16(status), uint32(took.Milliseconds())); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

func ok() contract.Envelope { return contract.Envelope{Header: contract.Header{Code: 200}} }

// days reads from and to (KST days, inclusive); the default is the last 7 days.
func (rp *Reports) days(r *http.Request) (from, to time.Time, err error) {
	k := rp.now().In(contract.KST)
	to = time.Date(k.Year(), k.Month(), k.Day(), 0, 0, 0, 0, time.UTC)
	from = to.AddDate(0, 0, -6)
	q := r.URL.Query()
	if s := q.Get("to"); s != "" {
		if to, err = time.Parse(time.DateOnly, s); err != nil {
			return from, to, badRequest("to는 YYYY-MM-DD 형식의 날짜여야 합니다.")
		}
		from = to.AddDate(0, 0, -6)
	}
	if s := q.Get("from"); s != "" {
		if from, err = time.Parse(time.DateOnly, s); err != nil {
			return from, to, badRequest("from은 YYYY-MM-DD 형식의 날짜여야 합니다.")
		}
	}
	if to.Before(from) {
		return from, to, badRequest("from이 to보다 늦습니다.")
	}
	if to.Sub(from) > 366*24*time.Hour {
		return from, to, badRequest("기간은 366일까지입니다.")
	}
	return from, to, nil
}

func day(t time.Time) string { return t.Format(time.DateOnly) }

// TrafficPoint is one time bucket of the traffic report.
type TrafficPoint struct {
	T            time.Time `json:"t"`
	PageViews    uint64    `json:"pageViews"`
	ContentViews uint64    `json:"contentViews"`
	Purchases    uint64    `json:"purchases"`
	Revenue      int64     `json:"revenue"`
}

// traffic: page views, content views, purchases and revenue per step around a
// release time: ?at=RFC3339&before=1h&after=2h&step=5m[&pid=...].
func (rp *Reports) traffic(r *http.Request) (any, error) {
	q := r.URL.Query()
	at, err := time.Parse(time.RFC3339, q.Get("at"))
	if err != nil {
		return nil, badRequest("at은 RFC 3339 시각이어야 합니다. 예: 2026-11-22T23:00:00+09:00")
	}
	dur := func(name string, def time.Duration) (time.Duration, error) {
		s := q.Get(name)
		if s == "" {
			return def, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 || d > 7*24*time.Hour {
			return 0, badRequest("%s는 0에서 168h 사이의 기간이어야 합니다.", name)
		}
		return d, nil
	}
	before, err := dur("before", time.Hour)
	if err != nil {
		return nil, err
	}
	after, err := dur("after", 2*time.Hour)
	if err != nil {
		return nil, err
	}
	step, err := dur("step", 5*time.Minute)
	if err != nil {
		return nil, err
	}
	if step < time.Minute || step%time.Minute != 0 {
		return nil, badRequest("step은 1m 이상의 분 단위여야 합니다.")
	}
	from, to := at.Add(-before).Truncate(step), at.Add(after)
	if to.Sub(from)/step > 2000 {
		return nil, badRequest("구간은 2000개까지입니다. step을 늘려 주세요.")
	}
	pid := q.Get("pid")
	sec := int64(step / time.Second)
	rows, err := rp.ch.Query(r.Context(), `SELECT toDateTime(intDiv(toUInt32(ts), ?) * ?) AS t,
 countIf(type = 'page_view'), countIf(type = 'view_content'),
 countIf(type IN ('purchase', 'rental')), sumIf(amount, type IN ('purchase', 'rental'))
 FROM events
 WHERE kst_date >= toDate(?) AND kst_date <= toDate(?) AND ts >= ? AND ts < ? AND (? = '' OR pid = ?)
 GROUP BY t ORDER BY t`, sec, sec, from.Add(-24*time.Hour), to.Add(24*time.Hour), from, to, pid, pid)
	if err != nil {
		return nil, fmt.Errorf("traffic: %w", err)
	}
	defer rows.Close()
	got := map[int64]TrafficPoint{}
	for rows.Next() {
		var p TrafficPoint
		if err := rows.Scan(&p.T, &p.PageViews, &p.ContentViews, &p.Purchases, &p.Revenue); err != nil {
			return nil, fmt.Errorf("traffic: %w", err)
		}
		got[p.T.Unix()] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("traffic: %w", err)
	}
	points := []TrafficPoint{}
	for t := from; t.Before(to); t = t.Add(step) {
		p := got[t.Unix()]
		p.T = t.UTC()
		points = append(points, p)
	}
	return Traffic{ok(), at, sec, pid, points}, nil
}

// Traffic is the traffic report.
type Traffic struct {
	contract.Envelope
	At     time.Time      `json:"at"`
	Step   int64          `json:"stepSeconds"`
	PID    string         `json:"pid,omitempty"`
	Points []TrafficPoint `json:"points"`
}

// WorkStat is one work in the top-works report.
type WorkStat struct {
	PID       string `json:"pid"`
	Section   string `json:"section"`
	GenreID   string `json:"genreId"`
	Views     uint64 `json:"views"`
	Purchases uint64 `json:"purchases"`
	Rentals   uint64 `json:"rentals"`
	Revenue   int64  `json:"revenue"`
}

// topWorks (section and genre: max() prefers a filled value, since business
// events may lack the genre a detail view carries): ?from&to&by=views|purchases|revenue&section=WT&genre=21&limit=20.
func (rp *Reports) topWorks(r *http.Request) (any, error) {
	from, to, err := rp.days(r)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	by := q.Get("by")
	order := map[string]string{"": "views", "views": "views", "purchases": "purchases + rentals", "revenue": "revenue"}[by]
	if order == "" {
		return nil, badRequest("by는 views, purchases, revenue 중 하나여야 합니다.")
	}
	limit := 20
	if s := q.Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > 500 {
			return nil, badRequest("limit은 1에서 500 사이여야 합니다.")
		}
	}
	section, genre := strings.ToUpper(q.Get("section")), q.Get("genre")
	if section != "" && section != contract.SectionWebtoon && section != contract.SectionComic && section != contract.SectionNovel {
		return nil, badRequest("section은 WT, CM, EB 중 하나여야 합니다.")
	}
	rows, err := rp.ch.Query(r.Context(), `SELECT pid, max(section), max(genre_id),
 sum(views) AS views, sum(purchases) AS purchases, sum(rentals) AS rentals, sum(revenue) AS revenue
 FROM work_daily
 WHERE kst_date >= toDate(?) AND kst_date <= toDate(?) AND (? = '' OR section = ?) AND (? = '' OR genre_id = ?)
 GROUP BY pid ORDER BY `+order+` DESC, pid LIMIT `+strconv.Itoa(limit),
		day(from), day(to), section, section, genre, genre)
	if err != nil {
		return nil, fmt.Errorf("top works: %w", err)
	}
	defer rows.Close()
	works := []WorkStat{}
	for rows.Next() {
		var w WorkStat
		if err := rows.Scan(&w.PID, &w.Section, &w.GenreID, &w.Views, &w.Purchases, &w.Rentals, &w.Revenue); err != nil {
			return nil, fmt.Errorf("top works: %w", err)
		}
		works = append(works, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("top works: %w", err)
	}
	return TopWorks{ok(), day(from), day(to), strings.Fields(order)[0], works}, nil
}

// TopWorks is the top-works report.
type TopWorks struct {
	contract.Envelope
	From  string     `json:"from"`
	To    string     `json:"to"`
	By    string     `json:"by"`
	Works []WorkStat `json:"works"`
}

// FunnelStep is one step of the conversion funnel. Reached counts actors (members,
// or sessions of visitors) who did the step; Through those who also did every
// earlier step; Conversion is Through over the previous step's Through.
type FunnelStep struct {
	Step       string  `json:"step"`
	Reached    uint64  `json:"reached"`
	Through    uint64  `json:"through"`
	Conversion float64 `json:"conversion"`
}

// funnel: list -> detail -> viewer -> purchase over ?from&to.
func (rp *Reports) funnel(r *http.Request) (any, error) {
	from, to, err := rp.days(r)
	if err != nil {
		return nil, err
	}
	var c [8]uint64
	err = rp.ch.QueryRow(r.Context(), `SELECT
 countIf(bitAnd(s, 1) = 1), countIf(bitAnd(s, 2) = 2), countIf(bitAnd(s, 4) = 4), countIf(bitAnd(s, 8) = 8),
 countIf(bitAnd(s, 1) = 1), countIf(bitAnd(s, 3) = 3), countIf(bitAnd(s, 7) = 7), countIf(bitAnd(s, 15) = 15)
 FROM (SELECT actor, groupBitOrMerge(steps) AS s FROM funnel_daily
       WHERE kst_date >= toDate(?) AND kst_date <= toDate(?) GROUP BY actor)`, day(from), day(to)).
		Scan(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7])
	if err != nil {
		return nil, fmt.Errorf("funnel: %w", err)
	}
	steps := make([]FunnelStep, 4)
	for i, name := range []string{"list", "detail", "viewer", "purchase"} {
		steps[i] = FunnelStep{Step: name, Reached: c[i], Through: c[4+i], Conversion: 1}
		if i > 0 {
			steps[i].Conversion = 0
			if prev := c[4+i-1]; prev > 0 {
				steps[i].Conversion = float64(c[4+i]) / float64(prev)
			}
		}
	}
	return Funnel{ok(), day(from), day(to), steps}, nil
}

// Funnel is the fixed funnel report.
type Funnel struct {
	contract.Envelope
	From  string       `json:"from"`
	To    string       `json:"to"`
	Steps []FunnelStep `json:"steps"`
}

// ChannelRevenue is the money of one channel: charges (money in) and what was
// spent on purchases and rentals, in won.
type ChannelRevenue struct {
	Channel        string `json:"channel"`
	Charges        uint64 `json:"charges"`
	ChargeAmount   int64  `json:"chargeAmount"`
	Purchases      uint64 `json:"purchases"`
	PurchaseAmount int64  `json:"purchaseAmount"`
	Rentals        uint64 `json:"rentals"`
	RentalAmount   int64  `json:"rentalAmount"`
}

// revenue by channel over ?from&to.
func (rp *Reports) revenue(r *http.Request) (any, error) {
	from, to, err := rp.days(r)
	if err != nil {
		return nil, err
	}
	rows, err := rp.ch.Query(r.Context(), `SELECT channel,
 sumIf(events, type = 'charge'), sumIf(amount, type = 'charge'),
 sumIf(events, type = 'purchase'), sumIf(amount, type = 'purchase'),
 sumIf(events, type = 'rental'), sumIf(amount, type = 'rental')
 FROM revenue_daily WHERE kst_date >= toDate(?) AND kst_date <= toDate(?)
 GROUP BY channel ORDER BY channel`, day(from), day(to))
	if err != nil {
		return nil, fmt.Errorf("revenue: %w", err)
	}
	defer rows.Close()
	out := []ChannelRevenue{}
	for rows.Next() {
		var c ChannelRevenue
		if err := rows.Scan(&c.Channel, &c.Charges, &c.ChargeAmount, &c.Purchases, &c.PurchaseAmount, &c.Rentals, &c.RentalAmount); err != nil {
			return nil, fmt.Errorf("revenue: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("revenue: %w", err)
	}
	return Revenue{ok(), day(from), day(to), out}, nil
}

// Revenue is the revenue report.
type Revenue struct {
	contract.Envelope
	From     string           `json:"from"`
	To       string           `json:"to"`
	Channels []ChannelRevenue `json:"channels"`
}

// ActiveUsers is the distinct actors of one day, channel and member type.
type ActiveUsers struct {
	Day        string `json:"day"`
	Channel    string `json:"channel"`
	MemberType string `json:"memberType"`
	Users      uint64 `json:"users"`
}

// activeUsers: DAU per day, channel and member type over ?from&to, and the
// distinct actors of the whole range (WAU for the default 7 days).
func (rp *Reports) activeUsers(r *http.Request) (any, error) {
	from, to, err := rp.days(r)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	daily, err := rp.activeRows(ctx, `SELECT toString(kst_date), channel, member_type, uniqMerge(actors)
 FROM active_users_daily WHERE kst_date >= toDate(?) AND kst_date <= toDate(?)
 GROUP BY kst_date, channel, member_type ORDER BY kst_date, channel, member_type`, from, to)
	if err != nil {
		return nil, err
	}
	byChannel, err := rp.activeRows(ctx, `SELECT '', channel, member_type, uniqMerge(actors)
 FROM active_users_daily WHERE kst_date >= toDate(?) AND kst_date <= toDate(?)
 GROUP BY channel, member_type ORDER BY channel, member_type`, from, to)
	if err != nil {
		return nil, err
	}
	var total uint64
	if err := rp.ch.QueryRow(ctx, `SELECT uniqMerge(actors) FROM active_users_daily
 WHERE kst_date >= toDate(?) AND kst_date <= toDate(?)`, day(from), day(to)).Scan(&total); err != nil {
		return nil, fmt.Errorf("active users: %w", err)
	}
	return ActiveUsersReport{ok(), day(from), day(to), daily, byChannel, total}, nil
}

// ActiveUsersReport is the active-users report.
type ActiveUsersReport struct {
	contract.Envelope
	From       string        `json:"from"`
	To         string        `json:"to"`
	Daily      []ActiveUsers `json:"daily"`
	RangeUsers []ActiveUsers `json:"rangeByChannel"`
	Total      uint64        `json:"rangeTotal"`
}

func (rp *Reports) activeRows(ctx context.Context, q string, from, to time.Time) ([]ActiveUsers, error) {
	rows, err := rp.ch.Query(ctx, q, day(from), day(to))
	if err != nil {
		return nil, fmt.Errorf("active users: %w", err)
	}
	defer rows.Close()
	out := []ActiveUsers{}
	for rows.Next() {
		var a ActiveUsers
		if err := rows.Scan(&a.Day, &a.Channel, &a.MemberType, &a.Users); err != nil {
			return nil, fmt.Errorf("active users: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
