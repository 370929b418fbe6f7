package money_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"storefront/devstack/testenv"
	"storefront/writer/migrations"
	"storefront/writer/money"
)

// clock is a movable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type env struct {
	t     testing.TB
	pool  *pgxpool.Pool
	svc   *money.Service
	srv   *httptest.Server
	clock *clock
	ctx   context.Context
}

const uidHeader = "X-Test-Uid"

// migrate applies writer/migrations to a fresh database.
func migrate(t testing.TB, url string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		t.Fatalf("goose: %v", err)
	}
	if _, err := p.Up(context.Background()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
}

func newEnv(t testing.TB, cfg money.Config) *env {
	t.Helper()
	url := testenv.PostgresURL(t)
	migrate(t, url)
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	pcfg.MaxConns = 40
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if cfg.Now == nil {
		cfg.Now = c.Now
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := money.New(pool, cfg, log)
	mux := http.NewServeMux()
	svc.Routes(mux, func(r *http.Request) (int64, bool) {
		uid, err := strconv.ParseInt(r.Header.Get(uidHeader), 10, 64)
		return uid, err == nil && uid > 0
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &env{t: t, pool: pool, svc: svc, srv: srv, clock: c, ctx: context.Background()}
}

// exec runs SQL or fails the test.
func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.pool.Exec(e.ctx, sql, args...); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

func (e *env) int(sql string, args ...any) int64 {
	e.t.Helper()
	var n int64
	if err := e.pool.QueryRow(e.ctx, sql, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

type work struct {
	pid           string
	section       string
	vols          int
	price         int64 // buy price of each volume
	rent          int64 // rent price (0 = not rentable)
	free          int   // the first free volumes
	wff           bool
	recycle       int
	excludeNewest int
	jumping       bool
	specialSet    bool
	discount      int
	rentDays      int
	serviceCode   int
	age           int // 19: adults only
}

// addWork inserts a work and its volumes into the core's catalog tables.
func (e *env) addWork(w work) {
	e.t.Helper()
	if w.section == "" {
		w.section = "WT"
	}
	if w.serviceCode == 0 {
		w.serviceCode = 200
	}
	e.exec(`INSERT INTO works (pid, section, title, wait_for_free, wait_recycle, wait_exclude_newest, jumping_pass,
		is_special_price_set, discount_rate, rent_days, service_code, age)
		VALUES ($1, $2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		w.pid, w.section, w.wff, w.recycle, w.excludeNewest, w.jumping, w.specialSet, w.discount, w.rentDays, w.serviceCode, w.age)
	rel := e.clock.Now().Add(-24 * time.Hour)
	for i := 1; i <= w.vols; i++ {
		e.exec(`INSERT INTO volumes (pid, no, title, release_at, is_free, buy_price, buy_price_org, rent_price, rent_price_org, pages, preview_pages)
			VALUES ($1, $2, '', $3, $4, $5, $5, $6, $6, 10, 2)`,
			w.pid, i, rel.Add(time.Duration(i)*time.Minute), i <= w.free, w.price, w.rent)
	}
}

// fund credits a wallet through the ledger (the only way money moves).
func (e *env) fund(uid int64, m string, amount int64) {
	e.t.Helper()
	e.exec(`INSERT INTO wallets (uid) VALUES ($1) ON CONFLICT DO NOTHING`, uid)
	e.exec(`INSERT INTO ledger (uid, money, delta, reason, created_at) VALUES ($1, $2, $3, 'test_fund', now())`, uid, m, amount)
}

func (e *env) balance(uid int64, m string) int64 {
	e.t.Helper()
	return e.int(fmt.Sprintf(`SELECT coalesce((SELECT %s FROM wallets WHERE uid = $1), 0)`, m), uid)
}

// checkLedger asserts that every balance equals the sum of its ledger rows.
func (e *env) checkLedger() {
	e.t.Helper()
	n := e.int(`SELECT count(*) FROM wallets w WHERE
		w.blue    <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'blue'), 0) OR
		w.android <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'android'), 0) OR
		w.ios     <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'ios'), 0) OR
		w.mileage <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'mileage'), 0)`)
	if n != 0 {
		e.t.Fatalf("%d wallets differ from their ledger sums", n)
	}
}

type resp struct {
	status int
	body   []byte
	header http.Header
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("answer %d is not JSON: %s", r.status, r.body)
	}
	return m
}

// code returns header.code of the envelope.
func (r resp) code(t testing.TB) int {
	t.Helper()
	h, _ := r.json(t)["header"].(map[string]any)
	c, _ := h["code"].(float64)
	return int(c)
}

type req struct {
	method, path string
	uid          int64
	key          string
	channel      string
	body         any // string or JSON value
	ctype        string
	headers      map[string]string
}

func (e *env) do(r req) resp {
	e.t.Helper()
	var body io.Reader
	ctype := r.ctype
	switch b := r.body.(type) {
	case nil:
	case string:
		body = bytes.NewReader([]byte(b))
	case []byte:
		body = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		body = bytes.NewReader(j)
		if ctype == "" {
			ctype = "application/json"
		}
	}
	hr, err := http.NewRequest(r.method, e.srv.URL+r.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if ctype != "" {
		hr.Header.Set("Content-Type", ctype)
	}
	if r.uid != 0 {
		hr.Header.Set(uidHeader, strconv.FormatInt(r.uid, 10))
	}
	if r.key != "" {
		hr.Header.Set("Idempotency-Key", r.key)
	}
	if r.channel != "" {
		hr.Header.Set("X-Channel", r.channel)
	}
	for k, v := range r.headers {
		hr.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, body: b, header: res.Header}
}

// mustOK fails unless the answer is 200 with header code 200.
func (r resp) mustOK(t testing.TB) map[string]any {
	t.Helper()
	if r.status != 200 || r.code(t) != 200 {
		t.Fatalf("want 200, got %d %s", r.status, r.body)
	}
	return r.json(t)
}

// mustFail asserts an error envelope with status.
func (r resp) mustFail(t testing.TB, status int) {
	t.Helper()
	if r.status != status || r.code(t) != status {
		t.Fatalf("want %d envelope, got %d %s", status, r.status, r.body)
	}
}

var keySeq struct {
	sync.Mutex
	n int
}

func newKey() string {
	keySeq.Lock()
	defer keySeq.Unlock()
	keySeq.n++
	return fmt.Sprintf("k-%d-%d", time.Now().UnixNano(), keySeq.n)
}
