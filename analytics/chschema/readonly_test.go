package chschema_test

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"

	"storefront/analytics/chschema"
	"storefront/devstack"
	"storefront/devstack/testenv"
)

// The analysts' account (devstack's users.xml, see analytics/README.md) reads
// every analytics table and can change none.
func TestAnalystUserIsReadOnly(t *testing.T) {
	ctx := context.Background()
	raw := testenv.ClickHouseURL(t)
	opts, err := clickhouse.ParseDSN(raw)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := chschema.Migrate(ctx, admin, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(raw)
	u.User = url.UserPassword(devstack.ReadOnlyUser, devstack.ReadOnlyPassword)
	ropts, err := clickhouse.ParseDSN(u.String())
	if err != nil {
		t.Fatal(err)
	}
	ro, err := clickhouse.Open(ropts)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var n uint64
	if err := ro.QueryRow(ctx, "SELECT count() FROM events").Scan(&n); err != nil {
		if os.Getenv("CLICKHOUSE_URL") != "" {
			t.Skipf("the ClickHouse at CLICKHOUSE_URL has no %s account: %v", devstack.ReadOnlyUser, err)
		}
		t.Fatalf("analyst cannot read: %v", err)
	}
	if err := ro.Exec(ctx, "DROP TABLE events"); err == nil {
		t.Fatal("analyst dropped a table")
	}
	if err := ro.Exec(ctx, "CREATE TABLE x (a String) ENGINE = Memory"); err == nil {
		t.Fatal("analyst created a table")
	}
	b, err := ro.PrepareBatch(ctx, "INSERT INTO events_dead (error)")
	if err == nil {
		_ = b.Append("x")
		err = b.Send()
	}
	if err == nil {
		t.Fatal("analyst inserted a row")
	}
	if err := admin.QueryRow(ctx, "SELECT count() FROM events_dead").Scan(&n); err != nil || n != 0 {
		t.Fatalf("events_dead has %d rows (%v)", n, err)
	}
}
