package testenv_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/devstack/testenv"
)

func TestPostgresDatabasesAreIsolated(t *testing.T) {
	ctx := context.Background()
	a, b := testenv.PostgresURL(t), testenv.PostgresURL(t)
	if a == b {
		t.Fatalf("two calls gave the same database %s", a)
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, "CREATE TABLE x (id int)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var n int
	if err := cb.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("table of one test database visible in another")
	}
}

func TestClickHouseDatabase(t *testing.T) {
	ctx := context.Background()
	opts, err := clickhouse.ParseDSN(testenv.ClickHouseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE TABLE e (id String, n UInt32) ENGINE = MergeTree() ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO e (id, n)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := batch.Append("a", uint32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := batch.Send(); err != nil {
		t.Fatal(err)
	}
	var n uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM e").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("count = %d, want 3", n)
	}
}

func TestClickHouseRestartKeepsData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private ClickHouse")
	}
	ctx := context.Background()
	ch := testenv.StartClickHouse(t)
	if err := ch.Query(ctx, "CREATE TABLE default.k (id UInt8) ENGINE = MergeTree() ORDER BY id", nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.Query(ctx, "INSERT INTO default.k (id) VALUES (7)", nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := ch.Query(ctx, "SELECT 1", nil); err == nil {
		t.Fatal("stopped server still answers")
	}
	if err := ch.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ch.Query(ctx, "SELECT sum(id) FROM default.k", &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "7\n" {
		t.Fatalf("after restart sum = %q, want 7", out.String())
	}
}

func TestNATSJetStream(t *testing.T) {
	n := testenv.NATS(t)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get(ctx, "k")
	if err != nil || string(e.Value()) != "v" {
		t.Fatalf("get = %v, %v", e, err)
	}
}
