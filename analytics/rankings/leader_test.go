package rankings_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/analytics/chschema"
	"storefront/analytics/rankings"
	"storefront/devstack/testenv"
	"storefront/natsutil"
)

// ranker is one analytics node's rankings: its own NATS connection, lease
// and Computer, on the shared NATS and ClickHouse.
type ranker struct {
	nc       *nats.Conn
	computer *rankings.Computer
	cancel   context.CancelFunc
	done     chan struct{}
}

// Two analytics nodes: only the lease holder computes; when it dies (its
// connection gone, no release), the other takes over within TTL + TTL/3.
func TestOneRankerAtATimeAndTakeOver(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	ch := testenv.OpenClickHouse(t, testenv.ClickHouseURL(t))
	if _, err := chschema.Migrate(ctx, ch, log); err != nil {
		t.Fatal(err)
	}
	url := testenv.NATS(t).URL
	const ttl = 1500 * time.Millisecond
	start := func() *ranker {
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, _ := jetstream.New(nc)
		o := natsutil.Options{EventsMaxBytes: 64 << 20}
		kv, err := natsutil.Ensure(ctx, js, o)
		if err != nil {
			t.Fatal(err)
		}
		leases, got, err := natsutil.EnsureLeases(ctx, js, ttl, o)
		if err != nil {
			t.Fatal(err)
		}
		lease := natsutil.NewLease(leases, "rankings", "node", got, log)
		c := rankings.New(ch, kv, rankings.Config{Interval: 100 * time.Millisecond, Leader: lease}, log)
		rctx, cancel := context.WithCancel(ctx)
		r := &ranker{nc: nc, computer: c, cancel: cancel, done: make(chan struct{})}
		go lease.Run(rctx)
		go func() { defer close(r.done); _ = c.Run(rctx) }()
		t.Cleanup(func() { cancel(); <-r.done })
		return r
	}
	a, b := start(), start()
	time.Sleep(2 * ttl)
	leader, other := a, b
	if b.computer.Computed() > 0 {
		leader, other = b, a
	}
	leaderComputed := leader.computer.Computed()
	if leaderComputed < 5 || other.computer.Computed() != 0 {
		t.Fatalf("computations: leader %d, other %d; want only one node computing, every 100ms",
			leader.computer.Computed(), other.computer.Computed())
	}

	// The leader dies without releasing.
	leader.nc.Close()
	leader.cancel()
	<-leader.done
	died := time.Now()
	for other.computer.Computed() == 0 {
		if time.Since(died) > 2*ttl+time.Second {
			t.Fatalf("no node computes rankings %s after the leader died", time.Since(died))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The second of slack is for timers firing late on a busy machine.
	took := time.Since(died)
	if took > ttl+ttl/3+time.Second {
		t.Fatalf("taken over after %s", took)
	}
	t.Logf("computing again %s after the leader died (bound %s); the leader computed %d times in %s",
		took.Round(time.Millisecond), ttl+ttl/3+time.Second, leaderComputed, 2*ttl)
}
