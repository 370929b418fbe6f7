package writertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/devstack"
	"storefront/devstack/testenv"
	"storefront/writer/server"
	"storefront/writer/staff"
)

// Env is a running writer with its dependencies.
type Env struct {
	T     testing.TB
	Srv   *server.Server
	NATS  *devstack.NATS
	JS    jetstream.JetStream
	KV    jetstream.KeyValue
	Pool  *pgxpool.Pool
	Admin *Client
	Base  string
	// DatabaseURL is the writer's database (a second node may share it).
	DatabaseURL string
}

// StartWriter starts a writer on a fresh database and a private NATS; edit may
// change the config first. Everything stops when the test ends.
func StartWriter(t testing.TB, edit func(*server.Config)) *Env {
	t.Helper()
	n, js, kv := JS(t)
	cfg := server.Config{Addr: "127.0.0.1:0", NATSURL: n.URL, AdminToken: "tok", RelayPoll: 100 * time.Millisecond}
	// Adult verification works as in development: through the identity
	// sandbox the writer starts (the flag's default; a zero Config has it off).
	cfg.Identity.Sandbox = true
	if edit != nil {
		edit(&cfg)
	}
	if cfg.DatabaseURL == "" {
		cfg.DatabaseURL = testenv.PostgresURL(t)
	}
	url := cfg.DatabaseURL
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, cfg, Log())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("writer run: %v", err)
		}
	})
	base := "http://" + srv.Addr()
	Eventually(t, 5*time.Second, "writer ready", func() bool {
		r, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	})
	// The test's own reads go to PostgreSQL directly: behind a bouncer in
	// transaction mode pgx's default cached statements fail whenever the
	// bouncer hands the execute another server connection than the prepare
	// (TestWorksBehindPgBouncerInTransactionMode's last count did, once).
	direct := url
	if cfg.DBPooled && cfg.DatabaseMigrateURL != "" {
		direct = cfg.DatabaseMigrateURL
	}
	pool, err := pgxpool.New(context.Background(), direct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &Env{T: t, Srv: srv, NATS: n, JS: js, KV: kv, Pool: pool, Base: base, Admin: &Client{T: t, Base: base, Token: "tok"}, DatabaseURL: url}
}

// Browser is a client with a cookie jar that does not follow redirects.
func (e *Env) Browser() *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{T: e.T, Base: e.Base, HTTP: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// Count runs a count query.
func (e *Env) Count(sql string, args ...any) int {
	e.T.Helper()
	var n int
	if err := e.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// Operator makes an operator account (as `storefront staff create-operator`
// does) and returns a browser client signed in as it, with a TOTP code of the
// writer's clock.
func (e *Env) Operator() *Client {
	e.T.Helper()
	login := fmt.Sprintf("op.%d", time.Now().UnixNano()%1_000_000_000)
	const pw = "operator password for tests"
	c, err := staff.CreateOperator(context.Background(), e.Pool, login, "운영자", pw, "writertest")
	if err != nil {
		e.T.Fatal(err)
	}
	code, err := staff.TOTPCode(c.TOTPSecret, time.Now())
	if err != nil {
		e.T.Fatal(err)
	}
	b := e.Browser()
	if st, body := b.Do("POST", "/admin/api/v1/session", map[string]string{"login": login, "password": pw, "code": code}); st != 200 {
		e.T.Fatalf("operator sign-in: %d %s", st, body)
	}
	return b
}

// Staff makes a staff account of role through op (an operator's client, see
// Operator) and returns a browser client signed in as it, and its id.
func (e *Env) Staff(op *Client, login, role string) (*Client, int64) {
	e.T.Helper()
	return e.StaffOf(op, login, role, "")
}

// StaffOf is Staff with the provider a provider account acts for.
func (e *Env) StaffOf(op *Client, login, role, provider string) (*Client, int64) {
	e.T.Helper()
	const pw = "staff password for tests"
	req := map[string]string{"login": login, "name": login, "role": role, "password": pw}
	if provider != "" {
		req["providerId"] = provider
	}
	st, body := op.Do("POST", "/admin/api/v1/staff", req)
	if st != 201 {
		e.T.Fatalf("create staff %s: %d %s", login, st, body)
	}
	var c staff.Created
	if err := json.Unmarshal(body, &c); err != nil {
		e.T.Fatal(err)
	}
	code, err := staff.TOTPCode(c.TOTPSecret, time.Now())
	if err != nil {
		e.T.Fatal(err)
	}
	b := e.Browser()
	if st, body := b.Do("POST", "/admin/api/v1/session", map[string]string{"login": login, "password": pw, "code": code}); st != 200 {
		e.T.Fatalf("%s sign-in: %d %s", login, st, body)
	}
	return b, c.Account.ID
}
