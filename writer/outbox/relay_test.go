package outbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"storefront/contract"
	"storefront/writer/internal/writertest"
	"storefront/writer/outbox"
)

// counterDocs is a builder over a test table: doc "ctr.<id>" = {"n": value}.
func counterDocs(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, k := range keys {
		var n int64
		err := tx.QueryRow(ctx, `SELECT n FROM ctr WHERE k = $1`, k).Scan(&n)
		if err == pgx.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[k], _ = json.Marshal(map[string]int64{"n": n})
	}
	return out, nil
}

func setup(t testing.TB) (*pgxpool.Pool, jetstream.JetStream, jetstream.KeyValue) {
	pool, _ := writertest.Pool(t)
	_, js, kv := writertest.JS(t)
	if _, err := pool.Exec(context.Background(), `CREATE TABLE ctr (k text PRIMARY KEY, n bigint NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return pool, js, kv
}

func bump(t testing.TB, pool *pgxpool.Pool, key string, ev bool) {
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(context.Background(), `INSERT INTO ctr VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = ctr.n + 1`, key); err != nil {
			return err
		}
		if ev {
			if err := outbox.Event(context.Background(), tx, contract.TrackedEvent{Type: contract.EvZzim, PID: key}); err != nil {
				return err
			}
		}
		return outbox.Doc(context.Background(), tx, key)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Several relays on one database: every row is published and marked once,
// and each key ends with the document of its latest change.
func TestConcurrentRelays(t *testing.T) {
	t.Parallel()
	pool, js, kv := setup(t)
	const keys, rounds = 20, 30
	var wg sync.WaitGroup
	for k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				bump(t, pool, fmt.Sprintf("ctr.%d", k), true)
			}
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var handled atomic.Int64
	var rwg sync.WaitGroup
	for range 3 {
		r := outbox.New(pool, js, counterDocs, outbox.Config{Batch: 7}, writertest.Log(), nil)
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for ctx.Err() == nil {
				n, err := r.Once(ctx)
				if err != nil && ctx.Err() == nil {
					t.Errorf("relay: %v", err)
					return
				}
				handled.Add(int64(n))
				if n == 0 {
					time.Sleep(2 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	writertest.Eventually(t, 20*time.Second, "outbox drained", func() bool {
		var pending int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`).Scan(&pending)
		return pending == 0
	})
	cancel()
	rwg.Wait()
	if got, want := handled.Load(), int64(keys*rounds*2); got != want {
		t.Fatalf("relays handled %d rows, want exactly %d (no row twice)", got, want)
	}
	for k := range keys {
		e, err := kv.Get(context.Background(), fmt.Sprintf("ctr.%d", k))
		if err != nil {
			t.Fatal(err)
		}
		if string(e.Value()) != fmt.Sprintf(`{"n":%d}`, rounds) {
			t.Fatalf("ctr.%d ended at %s, want the latest (%d)", k, e.Value(), rounds)
		}
	}
	info, err := js.Stream(context.Background(), contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	si, _ := info.Info(context.Background())
	if si.State.Msgs != keys*rounds {
		t.Fatalf("EVENTS holds %d messages, want %d", si.State.Msgs, keys*rounds)
	}
}

// An event row goes to events.biz.<type> with Nats-Msg-Id = its id; a re-send
// of the same event is dropped by the stream.
func TestEventMessageID(t *testing.T) {
	t.Parallel()
	pool, js, _ := setup(t)
	ev := contract.TrackedEvent{ID: "ev-1", Type: contract.EvReview, UID: "7"}
	for range 2 {
		if err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
			return outbox.Event(context.Background(), tx, ev)
		}); err != nil {
			t.Fatal(err)
		}
	}
	r := outbox.New(pool, js, counterDocs, outbox.Config{}, writertest.Log(), nil)
	if n, err := r.Once(context.Background()); err != nil || n != 2 {
		t.Fatalf("once: %d %v", n, err)
	}
	s, _ := js.Stream(context.Background(), contract.EventsStream)
	msg, err := s.GetLastMsgForSubject(context.Background(), contract.BizSubject(contract.EvReview))
	if err != nil {
		t.Fatal(err)
	}
	if msg.Header.Get("Nats-Msg-Id") != "ev-1" || msg.Sequence != 1 {
		t.Fatalf("message id %q, seq %d (the duplicate must be dropped)", msg.Header.Get("Nats-Msg-Id"), msg.Sequence)
	}
	var got contract.TrackedEvent
	if err := json.Unmarshal(msg.Data, &got); err != nil || got.V != 1 || got.Time.IsZero() || got.UID != "7" {
		t.Fatalf("event payload %s: %v", msg.Data, err)
	}
}

// A failed publish (NATS down) rolls back: the rows stay pending and go out
// once NATS is back.
func TestRelayKeepsRowsWhileNATSDown(t *testing.T) {
	t.Parallel()
	pool, _ := writertest.Pool(t)
	n, _, kv := writertest.JS(t)
	if _, err := pool.Exec(context.Background(), `CREATE TABLE ctr (k text PRIMARY KEY, n bigint NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	nc, js := connect(t, n.URL)
	_ = nc
	r := outbox.New(pool, js, counterDocs, outbox.Config{AckTimeout: 500 * time.Millisecond}, writertest.Log(), nil)
	n.Stop()
	bump(t, pool, "ctr.x", true)
	if _, err := r.Once(context.Background()); err == nil {
		t.Fatal("publish succeeded with NATS down")
	}
	if p, _ := r.Pending(context.Background()); p != 2 {
		t.Fatalf("pending %d, want 2", p)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	// The lanes publish independently, so the two rows may go out in
	// different calls.
	handled := 0
	writertest.Eventually(t, 15*time.Second, "published after restart", func() bool {
		k, err := r.Once(context.Background())
		handled += k
		return err == nil && handled == 2
	})
	writertest.WaitKV(t, kv, "ctr.x", 5*time.Second, func(b []byte) bool { return string(b) == `{"n":1}` })
}

// A deleted document is deleted from the bucket.
func TestDeletedDocLeavesBucket(t *testing.T) {
	t.Parallel()
	pool, js, kv := setup(t)
	bump(t, pool, "ctr.d", false)
	r := outbox.New(pool, js, counterDocs, outbox.Config{}, writertest.Log(), nil)
	if _, err := r.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	writertest.WaitKV(t, kv, "ctr.d", time.Second, func([]byte) bool { return true })
	if err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(context.Background(), `DELETE FROM ctr`); err != nil {
			return err
		}
		return outbox.Doc(context.Background(), tx, "ctr.d")
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Get(context.Background(), "ctr.d"); err == nil {
		t.Fatal("deleted document still in the bucket")
	}
}

// A running relay publishes a committed row when its node wakes it, when
// another process notifies (outbox.Notify in the committing transaction), and
// otherwise at its next poll (rows of other nodes).
func TestRelayWakeUps(t *testing.T) {
	t.Parallel()
	pool, js, kv := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	idle := outbox.New(pool, js, counterDocs, outbox.Config{Poll: time.Hour}, writertest.Log(), nil)
	go func() { _ = idle.Run(ctx) }()
	waitListening(t, pool)
	at := func(key string, n int) {
		t.Helper()
		writertest.WaitKV(t, kv, key, 2*time.Second, func(b []byte) bool { return string(b) == fmt.Sprintf(`{"n":%d}`, n) })
	}
	bump(t, pool, "ctr.w", false)
	idle.Wake()
	at("ctr.w", 1)
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO ctr VALUES ('ctr.n', 1)`); err != nil {
			return err
		}
		if err := outbox.Doc(ctx, tx, "ctr.n"); err != nil {
			return err
		}
		return outbox.Notify(ctx, tx)
	}); err != nil {
		t.Fatal(err)
	}
	at("ctr.n", 1)
	// Without wake-up or notification the idle relay leaves the row alone...
	bump(t, pool, "ctr.p", false)
	time.Sleep(300 * time.Millisecond)
	if p, _ := idle.Pending(ctx); p != 1 {
		t.Fatalf("pending %d, want 1: something woke the relay", p)
	}
	// ...and a polling relay (another node) picks it up.
	polling := outbox.New(pool, js, counterDocs, outbox.Config{Poll: 50 * time.Millisecond}, writertest.Log(), nil)
	go func() { _ = polling.Run(ctx) }()
	at("ctr.p", 1)
	bump(t, pool, "ctr.p", false)
	at("ctr.p", 2)
}

// A relay whose listening connection's server freezes (nothing answers,
// nothing breaks: the old primary of a switchover, partitioned or stopped
// but not killed) notices within ListenCheck and listens again where a
// server answers, here the second host of a multi-host URL, so notifications
// reach it again. On a server that answers, the check keeps the connection.
func TestRelayListensAgainWhenItsServerFreezes(t *testing.T) {
	t.Parallel()
	pool, js, kv := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := pool.Config().ConnConfig
	proxy := writertest.NewFreezingProxy(t, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	lcfg := pool.Config().Copy()
	host, port, _ := net.SplitHostPort(proxy.Addr)
	p, _ := strconv.Atoi(port)
	lcfg.ConnConfig.Fallbacks = []*pgconn.FallbackConfig{{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}}
	lcfg.ConnConfig.Host, lcfg.ConnConfig.Port = host, uint16(p)
	lcfg.ConnConfig.ConnectTimeout = time.Second
	lcfg.PingTimeout = time.Second
	listenPool, err := pgxpool.NewWithConfig(ctx, lcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(listenPool.Close) // after cancel: the relay gives its connection back
	r := outbox.New(pool, js, counterDocs, outbox.Config{Poll: time.Hour, ListenPool: listenPool, ListenCheck: 200 * time.Millisecond},
		writertest.Log(), nil)
	go func() { _ = r.Run(ctx) }()
	notified := func(key string) {
		t.Helper()
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO ctr VALUES ($1, 1)`, key); err != nil {
				return err
			}
			if err := outbox.Doc(ctx, tx, key); err != nil {
				return err
			}
			return outbox.Notify(ctx, tx)
		}); err != nil {
			t.Fatal(err)
		}
		writertest.WaitKV(t, kv, key, 10*time.Second, func(b []byte) bool { return string(b) == `{"n":1}` })
	}
	listener := func() (pids []int32) {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN ' || $1`, outbox.Channel)
		if err != nil {
			t.Fatal(err)
		}
		pids, err = pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			t.Fatal(err)
		}
		return pids
	}
	waitListening(t, pool)
	before := listener()
	time.Sleep(time.Second) // five checks
	if after := listener(); len(before) != 1 || !slices.Equal(before, after) {
		t.Fatalf("listening backends %v, a second later %v: the check should keep a connection that answers", before, after)
	}
	notified("ctr.before")

	proxy.Freeze()
	notified("ctr.frozen")
}

// waitListening waits until a relay's connection listens on the outbox
// channel, so a notification sent next reaches it.
func waitListening(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query = 'LISTEN ' || $1`, outbox.Channel).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the relay does not listen after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkChangeToKV measures one committed change until its document is in
// the KV with a running relay woken in-process, as the writer's services do.
func BenchmarkChangeToKV(b *testing.B) {
	pool, js, kv := setup(b)
	r := outbox.New(pool, js, counterDocs, outbox.Config{}, writertest.Log(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = r.Run(ctx) }()
	w, err := kv.Watch(ctx, "ctr.b", jetstream.UpdatesOnly())
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		bump(b, pool, "ctr.b", false)
		r.Wake()
		want := fmt.Sprintf(`{"n":%d}`, i)
		for e := range w.Updates() {
			if e != nil && string(e.Value()) == want {
				break
			}
		}
	}
}

// A document JetStream refuses for good (over the bucket's value limit) is
// marked with the error and does not block the rows behind it.
func TestOversizedDocDoesNotBlock(t *testing.T) {
	t.Parallel()
	pool, js, kv := setup(t)
	build := func(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
		out, err := counterDocs(ctx, tx, keys)
		if _, ok := out["ctr.big"]; ok {
			out["ctr.big"] = []byte(`"` + strings.Repeat("x", 2<<20) + `"`)
		}
		return out, err
	}
	bump(t, pool, "ctr.big", false)
	bump(t, pool, "ctr.small", false)
	reg := prometheus.NewRegistry()
	r := outbox.New(pool, js, build, outbox.Config{}, writertest.Log(), reg)
	if n, err := r.Once(context.Background()); err != nil || n != 2 {
		t.Fatalf("once: %d %v", n, err)
	}
	// The refusal is counted: the alert OutboxRowRefused fires on it.
	if got := testutil.ToFloat64(r.Refused("kv")); got != 1 {
		t.Fatalf("writer_outbox_refused_total{kind=kv} = %v, want 1", got)
	}
	if n, err := testutil.GatherAndCount(reg, "writer_outbox_refused_total"); err != nil || n != 2 {
		t.Fatalf("refused series: %d %v, want one per kind", n, err)
	}
	writertest.WaitKV(t, kv, "ctr.small", time.Second, func([]byte) bool { return true })
	var reason string
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(error, '') FROM outbox WHERE key = 'ctr.big'`).Scan(&reason); err != nil || reason == "" {
		t.Fatalf("refused row not marked: %q %v", reason, err)
	}
	if p, _ := r.Pending(context.Background()); p != 0 {
		t.Fatalf("pending %d", p)
	}
}

// With EVENTS full (analytics far behind) the events wait in the outbox, but a
// catalog change committed behind several batches of them reaches the bucket
// at once. Events JetStream took are marked sent (not sent again), and once
// room is freed every event arrives, each exactly once.
func TestFullEventsStreamDoesNotHoldBackDocuments(t *testing.T) {
	t.Parallel()
	pool, js, kv := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := js.Stream(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	// An operator's edit (Ensure never shrinks a stream): room for a few events.
	cfg := s.CachedInfo().Config
	cfg.MaxBytes = 4 << 10
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	const events = 100
	seen := map[string]int{}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for i := range events {
			id := fmt.Sprintf("full-%03d", i)
			seen[id] = 0
			if err := outbox.Event(ctx, tx, contract.TrackedEvent{ID: id, Type: contract.EvZzim, UID: "7", PID: "P1"}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	stored := func() uint64 {
		t.Helper()
		si, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return si.State.Msgs
	}
	// Batches of 20: the rows before the document are five batches of events.
	r := outbox.New(pool, js, counterDocs, outbox.Config{Batch: 20, Poll: time.Hour, MaxBackoff: 200 * time.Millisecond}, writertest.Log(), nil)
	go func() { _ = r.Run(ctx) }()
	r.Wake()
	writertest.Eventually(t, 5*time.Second, "EVENTS full, what it took marked sent", func() bool {
		sent := count(`SELECT count(*) FROM outbox WHERE kind = 'ev' AND sent_at IS NOT NULL`)
		return sent > 0 && sent < events && uint64(sent) == stored()
	})

	bump(t, pool, "ctr.price", false)
	r.Wake()
	writertest.WaitKV(t, kv, "ctr.price", 2*time.Second, func(b []byte) bool { return string(b) == `{"n":1}` })
	if n := count(`SELECT count(*) FROM outbox WHERE kind = 'ev' AND sent_at IS NULL`); n == 0 {
		t.Fatal("every event went out: the stream was not full")
	}
	if n := count(`SELECT count(*) FROM outbox WHERE error IS NOT NULL`); n != 0 {
		t.Fatalf("%d rows marked as refused for good", n)
	}

	// Analytics catches up: its acks free the room (interest retention).
	cons, err := js.Consumer(ctx, contract.EventsStream, contract.AnalyticsConsumer)
	if err != nil {
		t.Fatal(err)
	}
	received := 0
	writertest.Eventually(t, 15*time.Second, "every event delivered", func() bool {
		batch, err := cons.Fetch(50, jetstream.FetchMaxWait(100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			var ev contract.TrackedEvent
			if err := json.Unmarshal(m.Data(), &ev); err != nil {
				t.Fatal(err)
			}
			if _, ok := seen[ev.ID]; !ok {
				t.Fatalf("unexpected event %q", ev.ID)
			}
			seen[ev.ID]++
			received++
			if err := m.DoubleAck(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return received >= events && count(`SELECT count(*) FROM outbox WHERE sent_at IS NULL`) == 0
	})
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("event %s delivered %d times, want once", id, n)
		}
	}
	si, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if si.State.LastSeq != events {
		t.Fatalf("EVENTS stored %d messages, want %d (each event once)", si.State.LastSeq, events)
	}
}

// writer_outbox_pending_rows counts what waits, by kind, while NATS is down,
// and falls to zero once it is published; the oldest row's age grows meanwhile.
func TestPendingGauge(t *testing.T) {
	t.Parallel()
	pool, _ := writertest.Pool(t)
	n, _, _ := writertest.JS(t)
	if _, err := pool.Exec(context.Background(), `CREATE TABLE ctr (k text PRIMARY KEY, n bigint NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	_, js := connect(t, n.URL)
	reg := prometheus.NewRegistry()
	r := outbox.New(pool, js, counterDocs, outbox.Config{AckTimeout: 500 * time.Millisecond}, writertest.Log(), reg)
	gauge := func(name, kind string) float64 {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				if mf.GetName() == name && m.GetLabel()[0].GetValue() == kind {
					return m.GetGauge().GetValue()
				}
			}
		}
		t.Fatalf("no %s{kind=%q}", name, kind)
		return 0
	}
	if p := gauge("writer_outbox_pending_rows", "ev"); p != 0 {
		t.Fatalf("pending before any change: %v", p)
	}
	n.Stop()
	bump(t, pool, "ctr.a", true)
	bump(t, pool, "ctr.b", true)
	bump(t, pool, "ctr.c", false)
	if _, err := r.Once(context.Background()); err == nil {
		t.Fatal("publish succeeded with NATS down")
	}
	if kv, ev := gauge("writer_outbox_pending_rows", "kv"), gauge("writer_outbox_pending_rows", "ev"); kv != 3 || ev != 2 {
		t.Fatalf("pending kv %v ev %v, want 3 and 2", kv, ev)
	}
	time.Sleep(50 * time.Millisecond)
	if age := gauge("writer_outbox_oldest_pending_seconds", "kv"); age < 0.05 {
		t.Fatalf("oldest pending age %v, want at least 0.05 s", age)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	writertest.Eventually(t, 15*time.Second, "published after restart", func() bool {
		_, _ = r.Once(context.Background())
		return gauge("writer_outbox_pending_rows", "kv") == 0 && gauge("writer_outbox_pending_rows", "ev") == 0
	})
	if age := gauge("writer_outbox_oldest_pending_seconds", "ev"); age != 0 {
		t.Fatalf("oldest pending age %v with nothing pending", age)
	}
}
