package natsutil

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// DefaultLeaseTTL is how long a lease outlives its holder's last renewal: a
// dead holder's work is taken over within this plus a third of it.
const DefaultLeaseTTL = 30 * time.Second

// EnsureLeases creates the lease bucket with ttl (its entries expire that
// long after their last write) and o's replicas, which only grow as in
// Ensure. An existing bucket keeps its TTL (every node must agree on one;
// a node asking another is told in the log): the TTL returned is the
// bucket's, the one leases must renew within.
func EnsureLeases(ctx context.Context, js jetstream.JetStream, ttl time.Duration, o Options) (jetstream.KeyValue, time.Duration, error) {
	o = o.withDefaults()
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	cfg := jetstream.KeyValueConfig{
		Bucket:      contract.LeaseBucket,
		Description: "leases of single-leader work; an entry expires TTL after its holder's last renewal",
		History:     1,
		TTL:         ttl,
		Storage:     jetstream.FileStorage,
		Replicas:    o.Replicas,
	}
	kv, err := js.KeyValue(ctx, contract.LeaseBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, cfg)
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = js.KeyValue(ctx, contract.LeaseBucket)
		}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("ensure kv %s: %w", contract.LeaseBucket, err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("kv %s status: %w", contract.LeaseBucket, err)
	}
	cur := st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config
	if cur.MaxAge != ttl {
		o.Log.Warn("lease bucket keeps its TTL, not the one asked", "ttl", cur.MaxAge, "asked_ttl", ttl)
	}
	if cur.Replicas < o.Replicas {
		cfg.TTL = cur.MaxAge
		if kv, err = js.UpdateKeyValue(ctx, cfg); err != nil {
			return nil, 0, fmt.Errorf("grow kv %s replicas: %w", contract.LeaseBucket, err)
		}
	}
	return kv, cur.MaxAge, nil
}

// Lease is one holder's claim on a key of the lease bucket: at most one
// holder has it at a time. The holder renews it every third of the TTL with
// a compare-and-set on the revision it wrote last; a holder that dies stops
// renewing and the entry expires, so another takes it within TTL + TTL/3. A
// holder that stops cleanly deletes it for an immediate handover.
//
// Held is conservative: the holder counts the lease as its own only until
// two thirds of the TTL after the renewal it last started, before the server
// can expire it, so two holders never both see Held true.
type Lease struct {
	kv     jetstream.KeyValue
	key    string
	holder string
	ttl    time.Duration
	log    *slog.Logger

	rev       uint64       // revision of our last write (0 = not ours); Run's goroutine only
	heldUntil atomic.Int64 // unix ns
	gained    chan struct{}
}

// NewLease makes a lease on key for holder (a name that tells operators who
// holds it: host and address) in the bucket kv, whose TTL is ttl.
func NewLease(kv jetstream.KeyValue, key, holder string, ttl time.Duration, log *slog.Logger) *Lease {
	return &Lease{kv: kv, key: key, holder: holder, ttl: ttl, log: log.With("lease", key), gained: make(chan struct{}, 1)}
}

// Held reports whether this holder has the lease now.
func (l *Lease) Held() bool { return time.Now().UnixNano() < l.heldUntil.Load() }

// Gained receives each time this holder takes the lease, so the work can
// start at once instead of at its next tick.
func (l *Lease) Gained() <-chan struct{} { return l.gained }

// Run takes the lease whenever it is free and renews it while held, until
// ctx is done; then it releases a held lease.
func (l *Lease) Run(ctx context.Context) {
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		l.step(ctx)
		select {
		case <-ctx.Done():
			l.release()
			return
		case <-t.C:
		}
	}
}

func (l *Lease) step(ctx context.Context) {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, l.ttl/3)
	defer cancel()
	if l.rev == 0 {
		rev, err := l.kv.Create(cctx, l.key, []byte(l.holder))
		if err != nil {
			if !errors.Is(err, jetstream.ErrKeyExists) && ctx.Err() == nil {
				l.log.Warn("lease not taken", "err", err)
			}
			return
		}
		l.rev = rev
		l.heldUntil.Store(start.Add(l.ttl * 2 / 3).UnixNano())
		l.log.Info("lease taken", "holder", l.holder)
		select {
		case l.gained <- struct{}{}:
		default:
		}
		return
	}
	rev, err := l.kv.Update(cctx, l.key, []byte(l.holder), l.rev)
	if err != nil {
		// Someone else holds it now, or NATS did not answer in time: either
		// way it may be another's before we could renew.
		l.rev = 0
		l.heldUntil.Store(0)
		if ctx.Err() == nil {
			l.log.Warn("lease lost", "err", err)
		}
		return
	}
	l.rev = rev
	l.heldUntil.Store(start.Add(l.ttl * 2 / 3).UnixNano())
}

func (l *Lease) release() {
	if l.rev == 0 {
		return
	}
	l.heldUntil.Store(0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := l.kv.Delete(ctx, l.key, jetstream.LastRevision(l.rev)); err != nil {
		l.log.Warn("lease not released; it expires by itself", "err", err)
		return
	}
	l.rev = 0
	l.log.Info("lease released")
}
