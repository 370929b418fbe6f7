package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"storefront/analytics/chschema"
	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/natsutil"
)

func testLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func setup(t *testing.T, chURL string) (jetstream.JetStream, driver.Conn) {
	t.Helper()
	js := setupNATS(t)
	ch := testenv.OpenClickHouse(t, chURL)
	if _, err := chschema.Migrate(context.Background(), ch, testLog()); err != nil {
		t.Fatal(err)
	}
	return js, ch
}

// setupNATS is a private NATS with the EVENTS stream and analytics' consumer.
func setupNATS(t *testing.T) jetstream.JetStream {
	t.Helper()
	ctx := context.Background()
	n := testenv.NATS(t)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: 256 << 20}); err != nil {
		t.Fatal(err)
	}
	return js
}

func event(id string, ts time.Time) contract.TrackedEvent {
	return contract.TrackedEvent{V: 1, ID: id, Type: contract.EvPageView, Time: ts, Route: "/webtoon", SessionID: "s-" + id}
}

func publish(t *testing.T, js jetstream.JetStream, ev contract.TrackedEvent) {
	t.Helper()
	b, _ := json.Marshal(ev)
	if _, err := js.Publish(context.Background(), contract.TrackSubject(ev.Type), b, jetstream.WithMsgID(ev.ID)); err != nil {
		t.Fatal(err)
	}
}

func scalar(t *testing.T, ch driver.Conn, q string) (uint64, error) {
	var n uint64
	err := ch.QueryRow(context.Background(), q).Scan(&n)
	return n, err
}

func waitScalar(t *testing.T, ch driver.Conn, q string, want uint64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n, err := scalar(t, ch, q)
		if err == nil && n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %d (%v), want %d", q, n, err, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func runIngester(t *testing.T, in *Ingester) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
}

// lostAck is a message whose ack never reaches the server, as when a process
// dies right after its insert succeeded.
type lostAck struct{ jetstream.Msg }

func (lostAck) Ack() error { return nil }

func TestRedeliveryAfterLostAckIsNotInsertedTwice(t *testing.T) {
	ctx := context.Background()
	js, ch := setup(t, testenv.ClickHouseURL(t))
	cfg := Config{AckWait: time.Second, FlushInterval: 20 * time.Millisecond}
	cons, err := EnsureConsumer(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	publish(t, js, event("lost-ack", time.Now()))

	// A first process inserts the event but its ack is lost.
	first := New(ch, js, cfg, testLog(), nil)
	mb, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var got []jetstream.Msg
	for m := range mb.Messages() {
		got = append(got, lostAck{m})
	}
	if len(got) != 1 {
		t.Fatalf("fetched %d messages", len(got))
	}
	first.process(ctx, got)
	waitScalar(t, ch, "SELECT count() FROM events", 1, 5*time.Second)

	// JetStream delivers it again after AckWait; the next process must ack it
	// without a second row (and without counting it twice in the rollups).
	second := New(ch, js, cfg, testLog(), nil)
	runIngester(t, second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending == 0 && info.NumPending == 0 && info.NumRedelivered == 0 && info.Delivered.Consumer >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redelivery not acked: %+v", info)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n, _ := scalar(t, ch, "SELECT count() FROM events"); n != 1 {
		t.Fatalf("events rows = %d, want 1", n)
	}
	if n, _ := scalar(t, ch, "SELECT sum(views) FROM pageviews_hourly"); n != 1 {
		t.Fatalf("pageviews_hourly views = %d, want 1", n)
	}
}

func TestClickHouseOutageLosesNothingAndDuplicatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private ClickHouse")
	}
	ctx := context.Background()
	srv := testenv.StartClickHouse(t)
	js, ch := setup(t, srv.URL)
	in := New(ch, js, Config{BatchSize: 50, FlushInterval: 20 * time.Millisecond, AckWait: 5 * time.Second}, testLog(), nil)
	runIngester(t, in)

	base := time.Now()
	const total = 3000
	pub := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			publish(t, js, event(fmt.Sprintf("out-%05d", i), base.Add(time.Duration(i)*time.Millisecond)))
		}
	}
	pub(0, 1000)
	waitScalar(t, ch, "SELECT count() FROM events", 1000, 20*time.Second)

	// Stop ClickHouse while events keep coming, some batches fail mid-flight.
	go pub(1000, 2000)
	time.Sleep(50 * time.Millisecond)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	pub(2000, total)
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitScalar(t, ch, "SELECT count() FROM events", total, 60*time.Second)
	time.Sleep(500 * time.Millisecond)
	if n, _ := scalar(t, ch, "SELECT count() FROM events"); n != total {
		t.Fatalf("events rows = %d, want %d", n, total)
	}
	if n, _ := scalar(t, ch, "SELECT uniqExact(id) FROM events"); n != total {
		t.Fatalf("distinct ids = %d, want %d", n, total)
	}
	if n, _ := scalar(t, ch, "SELECT sum(views) FROM pageviews_hourly"); n != total {
		rows, err := ch.Query(ctx, "SELECT id, count() AS c, groupArray(toString(ingested_at)), groupArray(stream_seq) FROM events GROUP BY id HAVING c > 1 LIMIT 5")
		if err == nil {
			for rows.Next() {
				var id string
				var c uint64
				var at []string
				var seq []uint64
				_ = rows.Scan(&id, &c, &at, &seq)
				t.Logf("duplicate %s ×%d at %v seq %v", id, c, at, seq)
			}
			rows.Close()
		}
		t.Fatalf("rollup views = %d, want %d", n, total)
	}
}

// Two analytics processes share the durable consumer: each takes a share, and
// when one stops (its unsent messages are nak'ed) the other takes the rest;
// every event is stored once.
func TestProcessesShareTheConsumer(t *testing.T) {
	js, ch := setup(t, testenv.ClickHouseURL(t))
	cfg := Config{BatchSize: 50, FlushInterval: 20 * time.Millisecond, AckWait: 5 * time.Second}
	a := New(ch, js, cfg, testLog(), nil)
	b := New(ch, js, cfg, testLog(), nil)
	actx, stopA := context.WithCancel(context.Background())
	aDone := make(chan error, 1)
	go func() { aDone <- a.Run(actx) }()
	runIngester(t, b)

	base := time.Now()
	const total = 3000
	pub := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			publish(t, js, event(fmt.Sprintf("share-%05d", i), base.Add(time.Duration(i)*time.Millisecond)))
		}
	}
	pub(0, total/2)
	waitScalar(t, ch, "SELECT count() FROM events", total/2, 20*time.Second)
	stopA()
	if err := <-aDone; err != nil {
		t.Fatal(err)
	}
	pub(total/2, total)
	waitScalar(t, ch, "SELECT count() FROM events", total, 30*time.Second)
	time.Sleep(300 * time.Millisecond)
	if n, _ := scalar(t, ch, "SELECT uniqExact(id) FROM events"); n != total {
		t.Fatalf("distinct ids = %d, want %d", n, total)
	}
	if n, _ := scalar(t, ch, "SELECT sum(views) FROM pageviews_hourly"); n != total {
		t.Fatalf("rollup views = %d, want %d", n, total)
	}
	na, nb := counter(t, a.m.inserted), counter(t, b.m.inserted)
	if na == 0 || nb == 0 || na+nb != total {
		t.Fatalf("inserted by a %v, by b %v: want both > 0, %d in all", na, nb, total)
	}
}

func counter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// An outage longer than AckWait: the messages waiting for a free worker (not
// yet in a batch, so not kept in progress) are delivered again, and the copies
// land in other batches than the originals. Two batches holding one event must
// not both insert it: the rollups would count it twice (the events table hides
// the copy only under FINAL). Found by the ClickHouse fault drill (drills/).
func TestOutageLongerThanAckWaitInsertsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private ClickHouse")
	}
	ctx := context.Background()
	srv := testenv.StartClickHouse(t)
	js, ch := setup(t, srv.URL)
	in := New(ch, js, Config{BatchSize: 1000, FlushInterval: 20 * time.Millisecond, AckWait: time.Second}, testLog(), nil)
	runIngester(t, in)

	base := time.Now()
	const total = 2000
	pub := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			publish(t, js, event(fmt.Sprintf("long-%05d", i), base.Add(time.Duration(i)*time.Millisecond)))
		}
	}
	pub(0, 200)
	waitScalar(t, ch, "SELECT count() FROM events", 200, 20*time.Second)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	// Events keep coming through an outage of several AckWaits.
	for i := 200; i < total; i += 200 {
		pub(i, i+200)
		time.Sleep(500 * time.Millisecond)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitScalar(t, ch, "SELECT uniqExact(id) FROM events", total, 60*time.Second)
	time.Sleep(2 * time.Second)
	if n, _ := scalar(t, ch, "SELECT count() FROM events FINAL"); n != total {
		t.Fatalf("events rows with FINAL = %d, want %d", n, total)
	}
	if n, _ := scalar(t, ch, "SELECT sum(views) FROM pageviews_hourly"); n != total {
		t.Fatalf("rollup views = %d, want %d: events inserted twice", n, total)
	}
}

// Batches of one process holding the same event take turns: the later one
// waits for the earlier and rechecks the shared rows; ids are forgotten once
// their last holder is done.
func TestBatchesHoldingOneEventTakeTurns(t *testing.T) {
	in := New(nil, nil, Config{}, testLog(), nil)
	now := time.Now()
	mk := func(ids ...string) *batch {
		b := &batch{}
		for _, id := range ids {
			b.rows = append(b.rows, row{ev: event(id, now)})
			b.recheck = append(b.recheck, false)
		}
		return b
	}
	a, b := mk("x", "y"), mk("y", "z")
	da, db := make(chan struct{}), make(chan struct{})
	idsA, waitA := in.claim(a, da)
	if len(waitA) != 0 {
		t.Fatalf("first batch waits for %d batches", len(waitA))
	}
	idsB, waitB := in.claim(b, db)
	if len(waitB) != 1 || waitB[0] != da {
		t.Fatalf("second batch waits for %v, want the first's done channel", waitB)
	}
	if !b.recheck[0] || b.recheck[1] {
		t.Fatalf("recheck %v, want only the shared event", b.recheck)
	}
	in.release(idsA, da)
	select {
	case <-da:
	default:
		t.Fatal("release did not close the batch's done channel")
	}
	if in.held["y"] != db || in.held["x"] != nil {
		t.Fatalf("after the first batch: held %v", in.held)
	}
	in.release(idsB, db)
	if len(in.held) != 0 {
		t.Fatalf("ids left held: %v", in.held)
	}
}

// A process stopped while it starts (SIGTERM during start-up, a test ending
// at once) shuts down cleanly: Run answers nil, not the canceled set-up's
// error, and takes nothing from the stream.
func TestStoppedBeforeConsumingIsACleanShutdown(t *testing.T) {
	js, ch := setup(t, testenv.ClickHouseURL(t))
	in := New(ch, js, Config{}, testLog(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := in.Run(ctx); err != nil {
		t.Fatalf("run stopped before it began: %v", err)
	}
	if consuming, _ := in.Status(); consuming {
		t.Fatal("reports consuming after a stop")
	}
}

func publishBundle(t *testing.T, js jetstream.JetStream, lines ...string) {
	t.Helper()
	m := nats.NewMsg(contract.TrackBundleSubject)
	m.Data = []byte(strings.Join(lines, "\n"))
	if _, err := js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

// publishRetry publishes ev as the edge does an event a page sent again:
// alone, with its id as Nats-Msg-Id, marked contract.HeaderEventRetry.
func publishRetry(t *testing.T, js jetstream.JetStream, ev contract.TrackedEvent) {
	t.Helper()
	m := nats.NewMsg(contract.TrackSubject(ev.Type))
	m.Data = []byte(eventLine(t, ev))
	m.Header.Set(jetstream.MsgIDHeader, ev.ID)
	m.Header.Set(contract.HeaderEventRetry, "1")
	if _, err := js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

func eventLine(t *testing.T, ev contract.TrackedEvent) string {
	t.Helper()
	b, err := ev.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func waitDrained(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	cons, err := js.Consumer(context.Background(), contract.EventsStream, contract.AnalyticsConsumer)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		info, err := cons.Info(context.Background())
		if err == nil && info.NumAckPending == 0 && info.NumPending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer not drained: %+v (%v)", info, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A bundle (the edge's message of many calls' events, one per line) lands
// event by event; a bad line is parked alone and the rest of its bundle is
// kept; a message with nothing usable is parked whole, once.
func TestBundlesLandPerEventAndParkBadLines(t *testing.T) {
	js, ch := setup(t, testenv.ClickHouseURL(t))
	now := time.Now()
	publishBundle(t, js, eventLine(t, event("bundle-a-0123456789", now)), `{"v":1,"id":"no-type"}`,
		eventLine(t, event("bundle-b-0123456789", now)), eventLine(t, event("bundle-c-0123456789", now)))
	publishBundle(t, js, "not json", "{}")
	publishBundle(t, js, eventLine(t, event("bundle-d-0123456789", now)))
	runIngester(t, New(ch, js, Config{FlushInterval: 20 * time.Millisecond}, testLog(), nil))
	waitScalar(t, ch, "SELECT count() FROM events", 4, 15*time.Second)
	waitDrained(t, js)
	for q, want := range map[string]uint64{
		"SELECT count() FROM events":                                                     4,
		"SELECT sum(views) FROM pageviews_hourly":                                        4,
		"SELECT count() FROM events_dead":                                                2,
		"SELECT count() FROM events_dead WHERE payload = '{\"v\":1,\"id\":\"no-type\"}'": 1,
		"SELECT count() FROM events_dead WHERE payload = 'not json\n{}'":                 1,
	} {
		if n, err := scalar(t, ch, q); err != nil || n != want {
			t.Errorf("%s = %d (%v), want %d", q, n, err, want)
		}
	}
}

// A page that never saw the answer sends its events again, marked as a
// retry. The first copy went out earlier in a bundle, which JetStream's
// duplicate window cannot match with the retry. Analytics holds the retry
// until every earlier message is done, then finds the first copy stored: one
// row, one view. Here the retry is delivered long before the bundle's batch
// is inserted (FlushInterval), so a retry checked at once would be stored too.
func TestRetriedEventWaitsForItsFirstCopy(t *testing.T) {
	js, ch := setup(t, testenv.ClickHouseURL(t))
	now := time.Now()
	first := event("retried-0123456789", now)
	publishBundle(t, js, eventLine(t, first), eventLine(t, event("other-0123456789", now)))
	publishRetry(t, js, first)
	// A retry of an event whose first try never reached the stream is stored.
	publishRetry(t, js, event("retried-lone-0123456789", now))
	reg := prometheus.NewRegistry()
	in := New(ch, js, Config{FlushInterval: 700 * time.Millisecond, RetryPoll: 10 * time.Millisecond}, testLog(), reg)
	runIngester(t, in)
	waitScalar(t, ch, "SELECT count() FROM events", 3, 15*time.Second)
	waitDrained(t, js)
	time.Sleep(200 * time.Millisecond)
	for q, want := range map[string]uint64{
		"SELECT count() FROM events":                                      3,
		"SELECT count() FROM events WHERE id = 'retried-0123456789'":      1,
		"SELECT sum(views) FROM pageviews_hourly":                         3,
		"SELECT count() FROM events WHERE id = 'retried-lone-0123456789'": 1,
	} {
		if n, err := scalar(t, ch, q); err != nil || n != want {
			t.Errorf("%s = %d (%v), want %d", q, n, err, want)
		}
	}
	if n := counter(t, in.m.retried); n != 2 {
		t.Errorf("analytics_retried_messages_total = %v, want 2", n)
	}
}
