package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"storefront/analytics/chschema"
	"storefront/contract"
	"storefront/devstack/testenv"
)

// replicaPair is two ClickHouse replicas of one database (replicated tables
// through a real ZooKeeper).
type replicaPair struct{ r1, r2 driver.Conn }

// startReplicas starts ZooKeeper and two ClickHouse servers configured as
// replicas of shard 1 for the test; database makes a database on both with
// the replicated schema.
func startReplicas(t *testing.T) (database func(t *testing.T, db string) replicaPair) {
	t.Helper()
	srvs := testenv.ClickHouseReplicas(t, 2)
	return func(t *testing.T, db string) replicaPair {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var conns [2]driver.Conn
		for i, srv := range srvs {
			if err := srv.Query(ctx, "CREATE DATABASE IF NOT EXISTS "+db, nil); err != nil {
				t.Fatal(err)
			}
			conns[i] = testenv.OpenClickHouse(t, fmt.Sprintf("clickhouse://127.0.0.1:%d/%s", srv.TCPPort, db))
			if _, err := chschema.MigrateReplicated(ctx, conns[i], testLog()); err != nil {
				t.Fatal(err)
			}
		}
		return replicaPair{conns[0], conns[1]}
	}
}

// failover is a connection to replica 1 until its first events insert,
// which lands there but is reported failed (the connection broke after the
// server stored it); from then on every call goes to replica 2, as a
// balancer sends a client to another replica when its node stops answering.
type failover struct {
	driver.Conn // replica 1
	r2          driver.Conn
	failed      atomic.Bool
}

func (f *failover) cur() driver.Conn {
	if f.failed.Load() {
		return f.r2
	}
	return f.Conn
}

func (f *failover) PrepareBatch(ctx context.Context, q string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	c := f.cur()
	b, err := c.PrepareBatch(ctx, q, opts...)
	if err != nil || c == f.r2 || q != insertEvents {
		return b, err
	}
	return &lostAnswer{Batch: b, f: f}, nil
}

func (f *failover) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	return f.cur().Query(ctx, q, args...)
}

func (f *failover) QueryRow(ctx context.Context, q string, args ...any) driver.Row {
	return f.cur().QueryRow(ctx, q, args...)
}

func (f *failover) Exec(ctx context.Context, q string, args ...any) error {
	return f.cur().Exec(ctx, q, args...)
}

type lostAnswer struct {
	driver.Batch
	f *failover
}

func (l *lostAnswer) Send() error {
	if err := l.Batch.Send(); err != nil {
		return err
	}
	l.f.failed.Store(true)
	return errors.New("read: connection reset by peer (injected after the server stored the block)")
}

// An insert that landed on replica 1 but was reported failed is retried on
// replica 2, which has not fetched replica 1's part yet (fetches stopped):
// neither replica 2's process list nor its events table knows of the first
// attempt. With BlockDedup the retry is the identical block and ZooKeeper
// knows its hash: every event is stored once, in events and in the
// rollups. The old way (process list, id look-up) stores the batch twice
// here; the control run shows it.
func TestRetryOnAnotherReplicaLandsOnce(t *testing.T) {
	if testing.Short() || os.Getenv("ANALYTICS_SKIP_REPLICAS") != "" {
		t.Skip("starts ZooKeeper and two ClickHouse replicas")
	}
	database := startReplicas(t)
	for _, dedup := range []bool{true, false} {
		t.Run(fmt.Sprintf("BlockDedup=%v", dedup), func(t *testing.T) {
			ctx := context.Background()
			p := database(t, fmt.Sprintf("dedup_%v", dedup))
			if got, err := chschema.BlockDedup(ctx, p.r1); err != nil || !got {
				t.Fatalf("BlockDedup of a replicated events table: %v %v", got, err)
			}
			if err := p.r2.Exec(ctx, "SYSTEM STOP FETCHES events"); err != nil {
				t.Fatal(err)
			}
			js := setupNATS(t)
			conn := &failover{Conn: p.r1, r2: p.r2}
			// Each look at the clock is a second later, so the retry's
			// ingested_at differs from the first attempt's unless the block
			// is kept as it was.
			var tick atomic.Int64
			now := func() time.Time { return time.Now().Add(time.Duration(tick.Add(1)) * time.Second) }
			in := New(conn, js, Config{BatchSize: 500, FlushInterval: 50 * time.Millisecond, BlockDedup: dedup, Now: now}, testLog(), nil)
			runIngester(t, in)
			const total = 200
			base := time.Now()
			for i := range total {
				publish(t, js, event(fmt.Sprintf("rep-%v-%04d", dedup, i), base.Add(time.Duration(i)*time.Millisecond)))
			}
			cons, err := js.Consumer(ctx, contract.EventsStream, contract.AnalyticsConsumer)
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				ci, err := cons.Info(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if conn.failed.Load() && ci.NumPending == 0 && ci.NumAckPending == 0 {
					break // every event acked, after the retry on replica 2
				}
				if time.Now().After(deadline) {
					t.Fatalf("not every event acked after the retry on replica 2 (failed over %v, %+v)", conn.failed.Load(), ci)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := p.r2.Exec(ctx, "SYSTEM START FETCHES events"); err != nil {
				t.Fatal(err)
			}
			for _, r := range []driver.Conn{p.r1, p.r2} {
				for _, table := range []string{"events", "pageviews_hourly"} {
					if err := r.Exec(ctx, "SYSTEM SYNC REPLICA "+table); err != nil {
						t.Fatal(err)
					}
				}
			}
			rows, _ := scalar(t, p.r2, "SELECT count() FROM events")
			views, _ := scalar(t, p.r2, "SELECT toUInt64(sum(views)) FROM pageviews_hourly")
			if dedup {
				if rows != total || views != total {
					t.Fatalf("after a retry on another replica: %d raw rows, %d rollup views; want %d each", rows, views, total)
				}
				return
			}
			// The lost answer is the first insert's: the old way doubles that
			// batch, whose size depends on how the 200 publishes were batched.
			if rows <= total || views != rows {
				t.Fatalf("control: the old way stored %d rows, %d views; the scenario should make it store the first batch twice (more than %d)", rows, views, total)
			}
		})
	}
}
