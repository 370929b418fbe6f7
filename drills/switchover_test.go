package drills

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/devstack"
	"storefront/devstack/testenv"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/outbox"
)

// PostgreSQL is switched over to its standby while members buy volumes
// through the edge, which forwards to two writers. The writers know the
// pair only through a multi-host URL with target_session_attrs=read-write
// (the second writer also takes it as DATABASE_MIGRATE_URL, so its LISTEN
// runs on a pool of its own). The standby is synchronous: a commit a
// client was told about is on the standby's disk. The primary is lost as
// in a crash (immediate shutdown: connections cut, nothing flushed), the
// standby is promoted a moment later (an operator's or a failover tool's
// detection time).
//
// Asserted: every purchase call answers 200 or a clean 503 envelope (never
// a 500, a 502, a transport error or a wait beyond the client's 15 s
// timeout); some calls met the outage; every call that started 3 s after the
// promotion answered 200 (the writers found the new primary on their own);
// both writers read and write on the new primary (an admin rename through
// each), each writer's relay LISTENs there again; a writer restarted after
// the switchover migrates and starts although the URL's first host is dead;
// then the reconciliation of the purchase drills: every key settles to 200,
// each purchase whole (purchase, entitlement, ledger, stored answer, one
// purchase event in EVENTS) or absent, wallets equal to their ledgers and to
// charged + bonus - spent, so none is negative. Then the old primary is
// rewound (pg_rewind) and rejoins as a standby of the new one, and holds
// every purchase.
func TestPostgresSwitchoverDuringPurchases(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), pick(4*time.Minute, 10*time.Minute))
	defer cancel()
	var (
		rate     = pick(30.0, 40.0)
		lead     = pick(2*time.Second, 10*time.Second)
		detect   = pick(1*time.Second, 5*time.Second) // crash to promotion
		tail     = pick(5*time.Second, 30*time.Second)
		members  = pick(6, 10)
		recovery = 3 * time.Second
	)
	primary, standby := testenv.PostgresPair(t, "fsync=off")
	if _, err := primary.CreateDatabase(ctx, "drills"); err != nil {
		t.Fatal(err)
	}
	if err := primary.SetSynchronousStandby(ctx, standby); err != nil {
		t.Fatal(err)
	}
	dbURL := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/drills?sslmode=disable&target_session_attrs=read-write&connect_timeout=5",
		primary.Port, standby.Port)
	n := startNATS(t)
	// One payment gateway for both writers, as in production: a charge
	// requested through one writer may be confirmed through the other.
	gw, err := tosssandbox.Start("127.0.0.1:0", tosssandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gw.Close() })
	writers := []*service{
		startWriter(t, ctx, "writer0", dbURL, n.URL, "-payment-url", gw.URL, "-payment-checkout-url", gw.URL),
		startWriter(t, ctx, "writer1", dbURL, n.URL, "-payment-url", gw.URL, "-payment-checkout-url", gw.URL, "-database-migrate-url", dbURL),
	}
	e := startEdge(t, ctx, "edge", n.URL, writers[0].URL()+","+writers[1].URL())
	s, wait := startPurchases(t, ctx, e.URL(), members, rate, lead+detect+tail)
	sleepCtx(ctx, lead)
	whenBusy(ctx, s.busy.Load, time.Second)
	crash := mark(func() {
		if err := primary.StopImmediate(); err != nil {
			t.Errorf("stop the primary: %v", err)
		}
	})
	t.Logf("primary stopped (immediate) at %s", crash.before.Format("15:04:05.000"))
	sleepCtx(ctx, detect-time.Since(crash.before))
	promoted := mark(func() {
		if err := standby.Promote(ctx); err != nil {
			t.Fatalf("promote the standby: %v", err)
		}
	})
	t.Logf("standby promoted %s after the crash (promotion took %s)", promoted.after.Sub(crash.before).Round(time.Millisecond),
		promoted.after.Sub(promoted.before).Round(time.Millisecond))
	buys := wait()

	a := countAnswers(t, buys, 503)
	if a.clean[503] == 0 {
		t.Errorf("no purchase met the switchover: the drill proved nothing")
	}
	firstOK, late, inFlight := time.Duration(-1), 0, 0
	for _, b := range buys {
		if crash.inFlight(b.start, b.end) {
			inFlight++
		}
		if b.start.Before(promoted.after) {
			continue
		}
		if b.status == 200 && (firstOK < 0 || b.end.Sub(promoted.after) < firstOK) {
			firstOK = b.end.Sub(promoted.after)
		}
		if b.start.Sub(promoted.after) >= recovery && b.status != 200 {
			late++
			if late <= 5 {
				t.Errorf("purchase %s started %s after the promotion and answered %d %v %s", b.key,
					b.start.Sub(promoted.after).Round(time.Millisecond), b.status, b.err, short(b.body))
			}
		}
	}
	if firstOK < 0 {
		t.Fatalf("no purchase answered 200 after the promotion")
	}
	for _, w := range writers {
		if !w.Alive() {
			t.Fatalf("%s died during the switchover", w.Name)
		}
		// Each writer itself, not whichever the edge picks: a write on the
		// new primary through its own pool.
		title := "전환 후 " + w.Name
		if st, b, err := admin(ctx, w.URL(), "PATCH", "/admin/api/v1/works/"+s.pid, map[string]string{"title": title}); err != nil || st != 200 {
			t.Errorf("rename through %s after the switchover: %d %s %v", w.Name, st, short(b), err)
		}
	}

	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// A relay whose LISTEN died with the old primary listens again on the new
	// one (it retries each second), so the admin API's notifications wake
	// every node again rather than waiting for its poll.
	eventually(t, 30*time.Second, "both writers LISTEN on the new primary", func() error {
		var listening int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = 'drills' AND query = $1`,
			"LISTEN "+outbox.Channel).Scan(&listening); err != nil {
			return err
		}
		if listening != len(writers) {
			return fmt.Errorf("%d connections listening", listening)
		}
		return nil
	})

	done := s.settle(t, ctx, buys)
	s.reconcile(t, ctx, dbURL, n.URL, done)

	// The lost primary, rewound (what it had that the new primary had not is
	// dropped), follows the new one and holds every purchase; the URL's first
	// host is now a standby, which the writers skip.
	rejoin := mark(func() {
		if primary, err = devstack.RejoinPostgresStandby(ctx, primary, standby, quietLog(), "fsync=off"); err != nil {
			t.Fatalf("rejoin the old primary as a standby: %v", err)
		}
	})
	t.Cleanup(func() { _ = primary.Stop() })
	// A mark written on the new primary after the rejoin: seen on the
	// rejoined server, it follows the new timeline.
	if _, err := pool.Exec(ctx, "CREATE TABLE drill_rejoined AS SELECT now() AS at"); err != nil {
		t.Fatal(err)
	}
	old := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/drills?sslmode=disable", primary.Port)
	eventually(t, 30*time.Second, "the rejoined server caught up", func() error {
		c, err := pgx.Connect(ctx, old)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		var purchases int
		if err := c.QueryRow(ctx, "SELECT (SELECT count(*) FROM purchases WHERE pid = $1) FROM drill_rejoined", s.pid).Scan(&purchases); err != nil {
			return err
		}
		if purchases != len(done) {
			return fmt.Errorf("%d purchases, want %d", purchases, len(done))
		}
		return nil
	})

	// Start-up after the switchover: migrations (goose's lock and version
	// table) through the URL whose first host is a standby.
	writers[0].Stop()
	restart := time.Now()
	if err := writers[0].Start(ctx); err != nil {
		t.Fatalf("restart %s after the switchover: %v", writers[0].Name, err)
	}
	t.Logf("PostgreSQL switchover drill: %d purchases at %.0f/s, %d members, two writers; primary lost at %s, standby promoted "+
		"%s later; %d in flight at the crash; during the run %d answered 200, %d answered 503, %d otherwise; first 200 %s after the promotion, %d calls "+
		"not answered 200 %s after it; slowest answer %s; after retries with the same keys %d purchases, of which %d had "+
		"committed behind a 503; the old primary rejoined as a standby in %s; a writer restarted on the pair was ready in %s",
		len(buys), rate, members, crash.before.Format("15:04:05.000"), promoted.after.Sub(crash.before).Round(time.Millisecond),
		inFlight, a.ok, a.clean[503], a.bad, firstOK.Round(time.Millisecond), late, recovery, a.slowest.Round(time.Millisecond),
		len(done), committedBehindError(done), rejoin.after.Sub(rejoin.before).Round(time.Millisecond), time.Since(restart).Round(time.Millisecond))
}
