package devstack_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"storefront/devstack"
	"storefront/devstack/testenv"
)

// eventually polls f every 50 ms until it succeeds or 30 s have passed.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A row written on the primary is read on the standby, which refuses
// writes; with the standby synchronous, a row committed just before the
// primary crashes is on the standby; promoted, the standby takes writes; a
// multi-host URL with target_session_attrs=read-write reaches whichever of
// the two is the primary.
func TestPostgresStandbyStreamsAndPromotes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two PostgreSQL servers")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	log := slog.New(slog.DiscardHandler)
	primary, standby := testenv.PostgresPair(t, "fsync=off")
	dbURL, err := primary.CreateDatabase(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	standbyURL := strings.Replace(dbURL, fmt.Sprint(":", primary.Port, "/"), fmt.Sprint(":", standby.Port, "/"), 1)
	multi := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/shop?sslmode=disable&target_session_attrs=read-write",
		primary.Port, standby.Port)

	exec := func(url, sql string, args ...any) error {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, sql, args...)
		return err
	}
	count := func(url string) (int, error) {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return 0, err
		}
		defer c.Close(ctx)
		var n int
		err = c.QueryRow(ctx, "SELECT count(*) FROM rows").Scan(&n)
		return n, err
	}

	if err := exec(dbURL, "CREATE TABLE rows (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if err := exec(dbURL, "INSERT INTO rows VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the primary's row on the standby", func() error {
		n, err := count(standbyURL)
		if err == nil && n != 1 {
			err = fmt.Errorf("%d rows", n)
		}
		return err
	})
	var pe *pgconn.PgError
	if err := exec(standbyURL, "INSERT INTO rows VALUES (2)"); !errors.As(err, &pe) || pe.Code != "25006" {
		t.Fatalf("a write on the standby: %v, want read-only transaction (25006)", err)
	}
	if err := exec(multi, "INSERT INTO rows VALUES (2)"); err != nil {
		t.Fatalf("write through the multi-host URL while the first host is the primary: %v", err)
	}

	if err := primary.SetSynchronousStandby(ctx, standby); err != nil {
		t.Fatal(err)
	}
	if err := exec(dbURL, "INSERT INTO rows VALUES (3)"); err != nil {
		t.Fatal(err)
	}
	if err := primary.StopImmediate(); err != nil {
		t.Fatal(err)
	}
	// Synchronous: the commit was on the standby's disk before it answered.
	// Replayed soon after (synchronous_commit on waits for the flush, not
	// the replay).
	eventually(t, "the synchronous commit on the standby", func() error {
		n, err := count(standbyURL)
		if err == nil && n != 3 {
			err = fmt.Errorf("%d rows", n)
		}
		return err
	})
	if err := exec(multi, "INSERT INTO rows VALUES (4)"); err == nil {
		t.Fatal("the multi-host URL wrote while the only server up is a standby")
	}

	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	if err := exec(standbyURL, "INSERT INTO rows VALUES (4)"); err != nil {
		t.Fatalf("a write on the promoted standby: %v", err)
	}
	if err := exec(multi, "INSERT INTO rows VALUES (5)"); err != nil {
		t.Fatalf("write through the multi-host URL after the switchover: %v", err)
	}
	if n, err := count(standbyURL); err != nil || n != 5 {
		t.Fatalf("rows on the promoted standby: %d %v, want 5", n, err)
	}

	// The lost primary, rewound, follows the new one.
	rejoined, err := devstack.RejoinPostgresStandby(ctx, primary, standby, log, "fsync=off")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rejoined.Stop() })
	if err := exec(multi, "INSERT INTO rows VALUES (6)"); err != nil {
		t.Fatalf("write through the multi-host URL with its first host a standby again: %v", err)
	}
	eventually(t, "the new primary's rows on the rejoined server", func() error {
		n, err := count(dbURL)
		if err == nil && n != 6 {
			err = fmt.Errorf("%d rows", n)
		}
		return err
	})
	if err := exec(dbURL, "INSERT INTO rows VALUES (7)"); !errors.As(err, &pe) || pe.Code != "25006" {
		t.Fatalf("a write on the rejoined server: %v, want read-only transaction (25006)", err)
	}
}
