// Package ingest moves events from the JetStream stream EVENTS into ClickHouse.
//
// Every analytics process runs one Ingester on the shared durable pull consumer
// contract.AnalyticsConsumer, so any number of processes split the stream. Messages
// are gathered into batches closed by size or by age, each batch is one
// ClickHouse insert, and a message is acked only after the insert that holds it
// succeeded. While ClickHouse is down a batch is retried with backoff and its
// messages are kept in progress: nothing is acked, nothing is lost.
//
// Duplicates are removed by event id at three places: JetStream drops a
// re-published event within its duplicate window (Nats-Msg-Id = event id); a batch
// drops repeated ids; and a message JetStream delivers again (its first insert may
// have succeeded before the ack was lost), or any batch retried after a failed
// insert, is first checked against the events table (once any other batch of
// this process holding the same event is done) and its already stored ids are
// acked without inserting. The events table itself is a ReplacingMergeTree keyed
// on the id, the last line of defence for queries with FINAL.
//
// Poison messages (not JSON, or failing TrackedEvent.Validate) go to the table
// events_dead and are terminated, never redelivered.
package ingest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/contract"
)

// Config of an Ingester. Zero values get the defaults noted.
type Config struct {
	BatchSize     int           // events per insert at most (20000)
	FlushInterval time.Duration // age at which a partial batch is inserted (200ms)
	Workers       int           // concurrent inserts (2)
	AckWait       time.Duration // JetStream ack wait of the consumer (30s)
	MaxAckPending int           // unacked messages per consumer (100000)
	ShutdownGrace time.Duration // time in-flight inserts get after stop (10s)
	InsertTimeout time.Duration // one insert attempt at most (60s)
	PullBytes     int           // message bytes buffered from the consumer at most (32 MiB)
	RetryPoll     time.Duration // between looks at the ack floor while retried events wait (100ms)
	// BlockDedup: the events table drops an insert block identical to one it
	// stored (a Replicated engine, through ZooKeeper, whichever replica an
	// insert reaches: chschema.BlockDedup). A failed insert is then retried
	// as exactly the same block (rows, order, ingested_at), which lands once
	// whether or not the failed attempt did, still runs, or ran on another
	// replica; its materialized views' blocks are identical too, so their
	// replicated targets drop them as well. Without it (one MergeTree
	// server) a retry waits for the failed attempt to leave the server's
	// process list and looks the ids up: exact on one server only.
	BlockDedup bool
	Now        func() time.Time
}

func (c Config) withDefaults() Config {
	if c.BatchSize <= 0 {
		c.BatchSize = 20000
	}
	if c.FlushInterval <= 0 {
		c.FlushInterval = 200 * time.Millisecond
	}
	if c.Workers <= 0 {
		c.Workers = 2
	}
	if c.AckWait <= 0 {
		c.AckWait = 30 * time.Second
	}
	if c.MaxAckPending <= 0 {
		c.MaxAckPending = 100000
	}
	if c.InsertTimeout <= 0 {
		c.InsertTimeout = 60 * time.Second
	}
	if c.PullBytes <= 0 {
		c.PullBytes = 32 << 20
	}
	if c.RetryPoll <= 0 {
		c.RetryPoll = 100 * time.Millisecond
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = 10 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

type metrics struct {
	inserted   prometheus.Counter
	duplicates prometheus.Counter
	dead       prometheus.Counter
	batches    prometheus.Counter
	errors     prometheus.Counter
	insertSecs prometheus.Histogram
	lagSecs    prometheus.Histogram
	retried    prometheus.Counter
	retryHeld  prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		inserted:   prometheus.NewCounter(prometheus.CounterOpts{Name: "analytics_events_inserted_total", Help: "Events inserted into ClickHouse."}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{Name: "analytics_events_duplicate_total", Help: "Events acked without insert because their id was already stored or repeated in the batch."}),
		dead:       prometheus.NewCounter(prometheus.CounterOpts{Name: "analytics_events_dead_total", Help: "Poison messages parked in events_dead."}),
		batches:    prometheus.NewCounter(prometheus.CounterOpts{Name: "analytics_insert_batches_total", Help: "Successful batch inserts."}),
		errors:     prometheus.NewCounter(prometheus.CounterOpts{Name: "analytics_insert_errors_total", Help: "Failed insert attempts (retried)."}),
		insertSecs: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "analytics_insert_seconds", Help: "Duration of a successful batch insert.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 12)}),
		lagSecs:    prometheus.NewHistogram(prometheus.HistogramOpts{Name: "analytics_event_lag_seconds", Help: "Event time to insert, per batch (oldest event).", Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)}),
	}
	m.retried = prometheus.NewCounter(prometheus.CounterOpts{Name: "analytics_retried_messages_total", Help: "Messages of events a page sent again, checked against the table after every earlier message was done."})
	m.retryHeld = prometheus.NewGauge(prometheus.GaugeOpts{Name: "analytics_retried_messages_waiting", Help: "Messages of retried events waiting for the consumer's ack floor."})
	if reg != nil {
		reg.MustRegister(m.inserted, m.duplicates, m.dead, m.batches, m.errors, m.insertSecs, m.lagSecs, m.retried, m.retryHeld)
	}
	return m
}

// Ingester consumes EVENTS into ClickHouse. It is safe to run one per process
// and any number of processes at once.
type Ingester struct {
	conn    driver.Conn
	js      jetstream.JetStream
	cfg     Config
	log     *slog.Logger
	m       *metrics
	lastErr atomic.Value // string
	ready   atomic.Bool

	// held maps the id of every event in a batch being processed to that
	// batch's done channel. A redelivered copy of a message that waited
	// unbatched past AckWait (a ClickHouse outage) lands in another batch
	// than the original; that batch waits until the holder is done and then
	// checks the table, instead of racing it and inserting the event twice.
	heldMu sync.Mutex
	held   map[string]chan struct{}
}

// New makes an Ingester; reg may be nil.
func New(conn driver.Conn, js jetstream.JetStream, cfg Config, log *slog.Logger, reg prometheus.Registerer) *Ingester {
	if reg != nil {
		reg.MustRegister(streamCollector{js})
	}
	return &Ingester{conn: conn, js: js, cfg: cfg.withDefaults(), log: log, m: newMetrics(reg), held: map[string]chan struct{}{}}
}

// Status reports whether the consumer is attached and the last insert error, if
// the last attempt failed.
func (in *Ingester) Status() (consuming bool, lastErr string) {
	s, _ := in.lastErr.Load().(string)
	return in.ready.Load(), s
}

// EnsureConsumer creates or updates the shared durable consumer on EVENTS.
// MaxDeliver stays unlimited on purpose: a good event waiting out a ClickHouse
// outage must never be dropped; poison messages are terminated instead.
// natsutil.Ensure creates this consumer too when it is missing (EVENTS keeps
// only what it has not acked), with the same deliver and ack policies, which
// an update cannot change: keep the two in step.
func EnsureConsumer(ctx context.Context, js jetstream.JetStream, cfg Config) (jetstream.Consumer, error) {
	cfg = cfg.withDefaults()
	c, err := js.CreateOrUpdateConsumer(ctx, contract.EventsStream, jetstream.ConsumerConfig{
		Durable:       contract.AnalyticsConsumer,
		Description:   "analytics: EVENTS into ClickHouse",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxAckPending: cfg.MaxAckPending,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		FilterSubject: contract.EventsSubjectPrefix + ">",
		MaxDeliver:    -1,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure consumer %s on %s: %w", contract.AnalyticsConsumer, contract.EventsStream, err)
	}
	return c, nil
}

// Run consumes until ctx is done. Batches in flight then get ShutdownGrace to
// finish; messages not yet inserted are nak'ed so another process takes them
// at once.
func (in *Ingester) Run(ctx context.Context) error {
	cons, err := EnsureConsumer(ctx, in.js, in.cfg)
	if err != nil {
		if ctx.Err() != nil {
			// Stopped before it began to consume: a clean shutdown, as when
			// SIGTERM comes while the process starts. Nothing was taken.
			return nil
		}
		return err
	}
	msgs := make(chan jetstream.Msg, in.cfg.BatchSize)
	retries := make(chan jetstream.Msg, 1024)
	stop := make(chan struct{})
	cc, err := cons.Consume(func(m jetstream.Msg) {
		to := msgs
		if m.Headers().Get(contract.HeaderEventRetry) != "" {
			to = retries
		}
		select {
		case to <- m:
		case <-stop:
			_ = m.Nak()
		}
	},
		// Bytes, not messages: a bundle holds hundreds of events.
		jetstream.PullMaxBytes(in.cfg.PullBytes),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			if !errors.Is(err, jetstream.ErrNoHeartbeat) {
				in.log.Warn("consume", "err", err)
			}
		}))
	if err != nil {
		return fmt.Errorf("consume %s: %w", contract.AnalyticsConsumer, err)
	}
	in.ready.Store(true)
	defer in.ready.Store(false)

	// Workers finish their batch after ctx ends, within the grace period.
	wctx, wcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer wcancel()
	batches := make(chan []jetstream.Msg)
	var wg sync.WaitGroup
	for range in.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				in.process(wctx, b)
			}
		}()
	}

	laneDone := make(chan struct{})
	go func() { defer close(laneDone); in.retryLane(ctx, wctx, cons, retries) }()

	// A batch may leave once it is full or old enough, but only when a worker is
	// free: while every worker is inserting, the batch keeps growing up to
	// BatchSize events. Under load inserts get bigger and fewer (each insert
	// costs a part in events and in every rollup); when idle, latency stays at
	// FlushInterval.
	var pending []jetstream.Msg
	var pendingEvents int
	var oldest time.Time
	tick := time.NewTicker(max(in.cfg.FlushInterval/4, 5*time.Millisecond))
	defer tick.Stop()
loop:
	for {
		var out chan []jetstream.Msg
		if pendingEvents >= in.cfg.BatchSize || len(pending) > 0 && time.Since(oldest) >= in.cfg.FlushInterval {
			out = batches
		}
		recv := msgs
		if pendingEvents >= in.cfg.BatchSize {
			recv = nil // full: wait for a worker
		}
		select {
		case <-ctx.Done():
			break loop
		case out <- pending:
			pending, pendingEvents = nil, 0
		case m := <-recv:
			if len(pending) == 0 {
				oldest = time.Now()
			}
			pending = append(pending, m)
			pendingEvents += 1 + bytes.Count(m.Data(), newline)
		case <-tick.C:
		}
	}
	cc.Stop()
	close(stop)
	for _, m := range pending {
		_ = m.Nak()
	}
	<-laneDone
	for {
		select {
		case m := <-msgs:
			_ = m.Nak()
			continue
		case m := <-retries:
			_ = m.Nak()
			continue
		default:
		}
		break
	}
	close(batches)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(in.cfg.ShutdownGrace):
		wcancel()
		<-done
	}
	return nil
}

var newline = []byte{'\n'}

// retryLane holds the messages marked contract.HeaderEventRetry (events a page
// sent again) until every earlier message of the stream is done, that is
// until the consumer's ack floor reaches the message before them, and then
// processes them with every row checked against the events table. The first
// copy of a retried event went out earlier, in another message (a bundle),
// so once the floor passed it, that copy is either stored (and the check
// finds it) or was never published. Retries are rare: the lane costs one
// consumer info call per RetryPoll while it holds any.
func (in *Ingester) retryLane(ctx, wctx context.Context, cons jetstream.Consumer, retries <-chan jetstream.Msg) {
	var held []jetstream.Msg // by stream sequence
	seqOf := func(m jetstream.Msg) uint64 {
		if md, err := m.Metadata(); err == nil {
			return md.Sequence.Stream
		}
		return 0
	}
	poll := time.NewTicker(in.cfg.RetryPoll)
	defer poll.Stop()
	keep := time.NewTicker(in.cfg.AckWait / 3)
	defer keep.Stop()
	for {
		select {
		case <-ctx.Done():
			for _, m := range held {
				_ = m.Nak()
			}
			return
		case m := <-retries:
			i, _ := slices.BinarySearchFunc(held, seqOf(m), func(h jetstream.Msg, s uint64) int { return cmp.Compare(seqOf(h), s) })
			held = slices.Insert(held, i, m)
			in.m.retryHeld.Set(float64(len(held)))
		case <-keep.C:
			for _, m := range held {
				_ = m.InProgress()
			}
		case <-poll.C:
			if len(held) == 0 {
				continue
			}
			info, err := cons.Info(ctx)
			if err != nil {
				continue
			}
			// Ready: the held messages from the floor on with no gap, so
			// every message before each of them is acked or in this run.
			next, n := info.AckFloor.Stream+1, 0
			for n < len(held) && seqOf(held[n]) <= next {
				next = max(next, seqOf(held[n])+1)
				n++
			}
			if n == 0 {
				continue
			}
			ready := slices.Clone(held[:n])
			held = slices.Delete(held, 0, n)
			in.m.retryHeld.Set(float64(len(held)))
			in.process(wctx, ready)
			in.m.retried.Add(float64(len(ready)))
		}
	}
}

// process inserts one batch and acks it, retrying until it succeeds or ctx ends.
func (in *Ingester) process(ctx context.Context, msgs []jetstream.Msg) {
	b := in.parse(msgs)
	// The messages stay in progress while this process holds them: were they
	// redelivered meanwhile, a second batch could look for them before this one
	// stores them, and insert them twice.
	held := make(chan struct{})
	defer close(held)
	go func() {
		t := time.NewTicker(in.cfg.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-held:
				return
			case <-t.C:
				for _, m := range msgs {
					_ = m.InProgress()
				}
			}
		}
	}()
	done := make(chan struct{})
	ids, wait := in.claim(b, done)
	defer in.release(ids, done)
	for _, w := range wait {
		select {
		case <-w:
		case <-ctx.Done():
			for _, m := range msgs {
				_ = m.Nak()
			}
			return
		}
	}
	backoff := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		// After a failed attempt the insert may have reached the server anyway:
		// check every id then, not only the redelivered ones. A generous timeout:
		// an insert abandoned by the client may still complete on the server.
		actx, cancel := context.WithTimeout(ctx, in.cfg.InsertTimeout)
		err := in.insert(actx, b, attempt > 0)
		cancel()
		if err == nil {
			break
		}
		in.m.errors.Inc()
		in.lastErr.Store(err.Error())
		in.log.Warn("insert batch failed, retrying", "events", len(b.rows), "attempt", attempt+1, "err", err)
		select {
		case <-ctx.Done():
			for _, m := range msgs {
				_ = m.Nak()
			}
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
	in.lastErr.Store("")
	for _, m := range b.ack {
		_ = m.Ack()
	}
	for _, m := range b.term {
		_ = m.Term()
	}
}

// claim registers b's event ids as held by the batch whose done channel is
// done. It returns the ids and the done channels of the batches that already
// hold some of them; those rows are marked for a recheck, which runs after
// the caller waited for those batches.
func (in *Ingester) claim(b *batch, done chan struct{}) ([]string, []chan struct{}) {
	in.heldMu.Lock()
	defer in.heldMu.Unlock()
	ids := make([]string, len(b.rows))
	var wait []chan struct{}
	for i, r := range b.rows {
		ids[i] = r.ev.ID
		if other, ok := in.held[r.ev.ID]; ok {
			b.recheck[i] = true
			if !slices.Contains(wait, other) {
				wait = append(wait, other)
			}
		}
		in.held[r.ev.ID] = done
	}
	return ids, wait
}

// release forgets the ids still held by done and closes it.
func (in *Ingester) release(ids []string, done chan struct{}) {
	in.heldMu.Lock()
	for _, id := range ids {
		if in.held[id] == done {
			delete(in.held, id)
		}
	}
	in.heldMu.Unlock()
	close(done)
}
