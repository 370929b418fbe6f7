package money_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/writer/money"
)

// sends counts what a connection sends to the server: each query and each
// batch is one round trip (a batch is one pipeline with one Sync).
type sends struct{ n atomic.Int64 }

func (s *sends) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	s.n.Add(1)
	return ctx
}
func (s *sends) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *sends) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	s.n.Add(1)
	return ctx
}
func (s *sends) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (s *sends) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestPurchaseRoundTrips: a purchase waits for the database twice, BEGIN
// riding with the wallet lock, the work and entitlement reads, COMMIT with
// the writes (issue 32: a purchase should cost about one TPC-B transaction,
// and round trips are what it waited for). A refusal and a replay stay
// correct on the same path.
func TestPurchaseRoundTrips(t *testing.T) {
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "rt", section: "WT", vols: 5, price: 100})
	e.fund(7, money.Blue, 250)
	pcfg := e.pool.Config()
	tr := &sends{}
	pcfg.ConnConfig.Tracer = tr
	pcfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(e.ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	svc := money.New(pool, money.Config{Now: e.clock.Now}, slog.Default())
	buy := func(key string, vol int) money.Answer {
		t.Helper()
		a, err := svc.Purchase(e.ctx, 7, key, money.PurchaseRequest{PID: "rt", Vols: []int{vol}, BuyType: money.BuyBuy})
		if err != nil {
			t.Fatalf("purchase %s: %v", key, err)
		}
		return a
	}
	// The first purchase on the connection also prepares its statements.
	if a := buy("rt-1", 1); a.Status != 200 {
		t.Fatalf("first purchase: %d %s", a.Status, a.Body)
	}
	tr.n.Store(0)
	if a := buy("rt-2", 2); a.Status != 200 || a.Replayed {
		t.Fatalf("second purchase: %d %s", a.Status, a.Body)
	}
	if n := tr.n.Load(); n != 2 {
		t.Errorf("a purchase took %d round trips, want 2", n)
	}
	if a := buy("rt-2", 2); a.Status != 200 || !a.Replayed {
		t.Fatalf("replay: %d replayed=%v %s", a.Status, a.Replayed, a.Body)
	}
	if a := buy("rt-3", 3); a.Status != 402 {
		t.Fatalf("purchase beyond the balance: %d %s, want 402", a.Status, a.Body)
	}
	if a := buy("rt-3", 3); a.Status != 402 || !a.Replayed {
		t.Fatalf("replayed refusal: %d replayed=%v", a.Status, a.Replayed)
	}
	if got := e.balance(7, money.Blue); got != 50 {
		t.Errorf("balance %d, want 50", got)
	}
	e.checkLedger()
}

// statements records the SQL of every statement a connection sends.
type statements struct {
	mu  sync.Mutex
	sql []string
	// args of the last statement that read entitlements.
	entArgs []any
	entSQL  string
}

func (s *statements) add(sql string, args []any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sql = append(s.sql, sql)
	if strings.Contains(sql, "FROM entitlements") {
		s.entSQL, s.entArgs = sql, args
	}
}
func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(d.SQL, d.Args)
	return ctx
}
func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	for _, q := range d.Batch.QueuedQueries {
		s.add(q.SQL, q.Arguments)
	}
	return ctx
}
func (s *statements) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (s *statements) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sql = nil
}

func (s *statements) count(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.sql {
		if strings.Contains(q, sub) {
			n++
		}
	}
	return n
}

// TestPurchaseStatements: a purchase of a member without an armed automatic
// top-up sends no top-up statement (it used to run an UPDATE of
// auto_payments and an INSERT into topups on every purchase); the one that
// crosses an armed threshold does, once. And the entitlement read of a
// one-volume purchase finds the volume by the whole primary key even for a
// member who owns hundreds of the work's episodes (the generic plan of
// "vol = ANY($3)" filtered all of them). Issue 32: a purchase should cost
// about one TPC-B transaction.
func TestPurchaseStatements(t *testing.T) {
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "st", section: "WT", vols: 400, price: 100})
	e.fund(8, money.Blue, 100_000)
	e.fund(9, money.Blue, 1_000)
	// The plan is made while members own a few episodes each (as the
	// statistics say of most members); member 8 then buys 300.
	e.exec(`INSERT INTO entitlements (uid, pid, vol, kind, source, created_at)
		SELECT u, 'st', 1, 'B', 'money', now() FROM generate_series(1000, 20999) u`)
	e.exec(`ANALYZE entitlements`)
	e.exec(`INSERT INTO entitlements (uid, pid, vol, kind, source, created_at)
		SELECT 8, 'st', v, 'B', 'money', now() FROM generate_series(1, 300) v`)
	e.exec(`INSERT INTO auto_payments (uid, is_use, type, money, trigger_value, updated_at, enabled_at, topup_state)
		VALUES (9, true, 'bluemoney-auto-payment', 5000, 850, now(), now(), 'armed')`)
	pcfg := e.pool.Config()
	tr := &statements{}
	pcfg.ConnConfig.Tracer = tr
	pcfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(e.ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	svc := money.New(pool, money.Config{Now: e.clock.Now}, slog.Default())
	buy := func(uid int64, key string, vol int) {
		t.Helper()
		a, err := svc.Purchase(e.ctx, uid, key, money.PurchaseRequest{PID: "st", Vols: []int{vol}, BuyType: money.BuyBuy})
		if err != nil || a.Status != 200 {
			t.Fatalf("purchase %s: %v %d %s", key, err, a.Status, a.Body)
		}
	}
	// Past the generic-plan switch of the prepared statements (5 calls).
	for i := 301; i <= 310; i++ {
		tr.reset()
		buy(8, "st-"+strconv.Itoa(i), i)
		if n := tr.count("auto_payments SET"); n != 0 {
			t.Fatalf("purchase %d without an armed top-up sent %d top-up statements", i, n)
		}
	}
	tr.reset()
	buy(9, "st-9a", 1) // 900 left, over the threshold
	if n := tr.count("auto_payments SET"); n != 0 {
		t.Fatalf("purchase over the threshold sent %d top-up statements", n)
	}
	buy(9, "st-9b", 2) // 800 left: crosses 850
	if n := tr.count("auto_payments SET"); n != 1 {
		t.Fatalf("crossing purchase sent %d top-up statements, want 1", n)
	}
	if n := e.int(`SELECT count(*) FROM topups WHERE uid = 9`); n != 1 {
		t.Fatalf("%d top-ups after the crossing", n)
	}

	// The last entitlement read of member 8, planned as the pool's prepared
	// statement is after five calls.
	conn, err := e.pool.Acquire(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(e.ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(context.Background(), `RESET plan_cache_mode`)
	tr.reset()
	buy(8, "st-311", 311)
	if _, err := conn.Exec(e.ctx, `PREPARE ent AS `+tr.entSQL); err != nil {
		t.Fatal(err)
	}
	// EXECUTE takes no bind parameters: the arguments as literals.
	lits := make([]string, len(tr.entArgs))
	for i, a := range tr.entArgs {
		switch v := a.(type) {
		case string:
			lits[i] = "'" + v + "'"
		case []int:
			lits[i] = "'{" + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(v)), ","), "[]") + "}'"
		default:
			lits[i] = fmt.Sprint(v)
		}
	}
	rows, err := conn.Query(e.ctx, `EXPLAIN (ANALYZE, COSTS OFF) EXECUTE ent(`+strings.Join(lits, ", ")+`)`)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range plan {
		if strings.Contains(l, "Rows Removed by Filter") {
			t.Fatalf("the entitlement read of one volume scans the member's others:\n%s", strings.Join(plan, "\n"))
		}
	}
	e.checkLedger()
}
