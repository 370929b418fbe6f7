package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// The writer's connections carry statement_timeout and lock_timeout: a
// statement that runs too long or waits too long on a lock is cancelled
// instead of holding a pool connection (and its request) indefinitely.
func TestStatementAndLockTimeouts(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) {
		c.DBStatementTimeout, c.DBLockTimeout = 500*time.Millisecond, 200*time.Millisecond
	})
	ctx := context.Background()
	pool := e.Srv.Pool()
	start := time.Now()
	_, err := pool.Exec(ctx, "SELECT pg_sleep(3)")
	if pgCode(err) != "57014" || time.Since(start) > 2*time.Second {
		t.Fatalf("a 3 s statement: %v after %s, want query_canceled (57014) after 500ms", err, time.Since(start))
	}
	t.Logf("statement cancelled after %s (timeout 500ms, bound 2s)", time.Since(start).Round(time.Millisecond))

	other, err := pgx.Connect(ctx, e.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if _, err := other.Exec(ctx, "CREATE TABLE lock_probe (id int)"); err != nil {
		t.Fatal(err)
	}
	tx, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE lock_probe IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, err = pool.Exec(ctx, "SELECT count(*) FROM lock_probe")
	if pgCode(err) != "55P03" || time.Since(start) > 2*time.Second {
		t.Fatalf("waiting on a held lock: %v after %s, want lock_not_available (55P03) after 200ms", err, time.Since(start))
	}
	t.Logf("lock wait cancelled after %s (timeout 200ms, bound 2s)", time.Since(start).Round(time.Millisecond))
}

// Behind PgBouncer in transaction pooling mode, pgx's default (named
// prepared statements cached per connection) breaks as soon as a statement
// prepared on one server connection is run on another: the trap is shown on
// a plain pool first. The writer with DATABASE_POOLED migrates over the
// direct DATABASE_MIGRATE_URL and serves members through the bouncer.
func TestWorksBehindPgBouncerInTransactionMode(t *testing.T) {
	t.Parallel()
	direct := testenv.PostgresURL(t)
	bounced := testenv.PgBouncer(t, direct)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The trap: pgx's defaults through the bouncer.
	plain, err := pgxpool.New(ctx, bounced)
	if err != nil {
		t.Fatal(err)
	}
	var failures int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				var n int
				err := plain.QueryRow(ctx, fmt.Sprintf("SELECT $1::int + %d", (i+j)%5), j).Scan(&n)
				if err != nil {
					mu.Lock()
					failures++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	plain.Close()
	if failures == 0 {
		t.Fatal("pgx's default prepared statements worked through transaction pooling: the test no longer shows the trap")
	}

	if _, err := server.New(ctx, server.Config{Addr: "127.0.0.1:0", DatabaseURL: bounced, DBPooled: true}, writertest.Log()); err == nil ||
		!strings.Contains(err.Error(), "DATABASE_MIGRATE_URL") {
		t.Fatalf("pooled without a direct URL: %v", err)
	}

	e := writertest.StartWriter(t, func(c *server.Config) {
		c.DatabaseURL, c.DatabaseMigrateURL, c.DBPooled, c.DBMaxConns = bounced, direct, true, 8
	})
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", newWork("PB1")); st != 201 {
		t.Fatalf("create work: %d %s", st, body)
	}
	// Members in parallel: every statement of signup, bonus and purchase,
	// each transaction on whichever server connection the bouncer gives.
	errs := make(chan error, 6)
	for i := range 6 {
		go func() {
			b := e.Browser()
			if st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": fmt.Sprintf("pb%d@example.com", i), "password": "correct horse"}); st != 201 {
				errs <- fmt.Errorf("signup: %d %s", st, body)
				return
			}
			if st, body := b.Do("POST", "/home/api/v1/wallet/join-bonus", nil); st != 200 {
				errs <- fmt.Errorf("join bonus: %d %s", st, body)
				return
			}
			b.Headers = map[string]string{"Idempotency-Key": fmt.Sprintf("pb-buy-%d", i)}
			for range 2 { // the retry is answered from the idempotency record
				if st, body := b.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "PB1", "vols": []int{2}, "buyType": "B"}); st != 200 {
					errs <- fmt.Errorf("purchase: %d %s", st, body)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 6 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := e.Pool.QueryRow(ctx, "SELECT count(*) FROM purchases WHERE pid = 'PB1'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Fatalf("%d purchases, want 6", n)
	}
}

// Without connect_timeout or pool_ping_timeout in its URL the writer still
// bounds a new connection and the ping of an idle one (a frozen server would
// hold either for ever); what the URL sets is kept.
func TestConnectAndPingAreBounded(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	if c := e.Srv.Pool().Config(); c.ConnConfig.ConnectTimeout != server.DefaultConnectTimeout || c.PingTimeout != server.DefaultPingTimeout {
		t.Fatalf("connect timeout %s, ping timeout %s; want %s and %s", c.ConnConfig.ConnectTimeout, c.PingTimeout,
			server.DefaultConnectTimeout, server.DefaultPingTimeout)
	}
	sep := "?"
	if strings.Contains(e.DatabaseURL, "?") {
		sep = "&"
	}
	set := writertest.StartWriter(t, func(c *server.Config) {
		c.DatabaseURL = e.DatabaseURL + sep + "connect_timeout=3&pool_ping_timeout=2s"
	})
	if c := set.Srv.Pool().Config(); c.ConnConfig.ConnectTimeout != 3*time.Second || c.PingTimeout != 2*time.Second {
		t.Fatalf("with the URL's bounds: connect timeout %s, ping timeout %s; want 3s and 2s", c.ConnConfig.ConnectTimeout, c.PingTimeout)
	}
}
