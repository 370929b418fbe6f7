package natsutil_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/devstack/testenv"
	"storefront/natsutil"
)

// holder is one lease holder with its own NATS connection, as one analytics
// node has.
type holder struct {
	nc     *nats.Conn
	lease  *natsutil.Lease
	cancel context.CancelFunc
	done   chan struct{}
}

func startHolder(t *testing.T, url, name string, ttl time.Duration) *holder {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithCancel(context.Background())
	kv, got, err := natsutil.EnsureLeases(ctx, js, ttl, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got != ttl {
		t.Fatalf("bucket TTL %s, want %s", got, ttl)
	}
	h := &holder{nc: nc, lease: natsutil.NewLease(kv, "rankings", name, ttl, slog.New(slog.DiscardHandler)), cancel: cancel, done: make(chan struct{})}
	go func() { defer close(h.done); h.lease.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-h.done })
	return h
}

// waitHolder waits until exactly one of hs holds the lease and returns it
// with the time it took; two holders at once fail the test.
func waitHolder(t *testing.T, limit time.Duration, hs ...*holder) (*holder, time.Duration) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		var held []*holder
		for _, h := range hs {
			if h.lease.Held() {
				held = append(held, h)
			}
		}
		if len(held) > 1 {
			t.Fatal("two holders of one lease")
		}
		if len(held) == 1 {
			return held[0], time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no holder within %s", limit)
	return nil, 0
}

func TestLeaseHasOneHolderAndIsTakenOverWhenItDies(t *testing.T) {
	url := testenv.NATS(t).URL
	const ttl = 1500 * time.Millisecond
	a, b := startHolder(t, url, "a", ttl), startHolder(t, url, "b", ttl)
	first, _ := waitHolder(t, 2*time.Second, a, b)
	other := b
	if first == b {
		other = a
	}
	// Renewals keep it with the same holder, never two at once.
	var both atomic.Bool
	for end := time.Now().Add(2 * ttl); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if a.lease.Held() && b.lease.Held() {
			both.Store(true)
		}
		if !first.lease.Held() {
			t.Fatal("the holder lost its lease while renewing")
		}
	}
	if both.Load() {
		t.Fatal("two holders of one lease")
	}

	// The holder dies: its connection is gone, it neither renews nor releases.
	first.nc.Close()
	first.cancel()
	<-first.done
	_, took := waitHolder(t, 3*ttl, other)
	// The second of slack is for timers firing late on a busy machine; the
	// takeover itself waits on timers (expiry, the renewal tick), not the CPU.
	if took > ttl+ttl/3+time.Second {
		t.Fatalf("taken over after %s, want within TTL + TTL/3 (%s)", took, ttl+ttl/3)
	}
	t.Logf("taken over %s after the holder died (bound %s)", took.Round(time.Millisecond), ttl+ttl/3+time.Second)

	// A holder that stops cleanly hands over at once, not after the TTL.
	c := startHolder(t, url, "c", ttl)
	if c.lease.Held() {
		t.Fatal("a newcomer took a held lease")
	}
	other.cancel()
	<-other.done
	_, took = waitHolder(t, 3*ttl, c)
	if took >= ttl {
		t.Fatalf("clean handover took %s, as long as an expiry", took)
	}
	select {
	case <-c.lease.Gained():
	default:
		t.Fatal("Gained did not tell the new holder")
	}
}
