package natsutil_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/natsutil"
	"storefront/svc"
)

func connect(t *testing.T) jetstream.JetStream {
	t.Helper()
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
	return js
}

func streamConfig(t *testing.T, js jetstream.JetStream) (jetstream.StreamConfig, jetstream.StreamState) {
	t.Helper()
	s, err := js.Stream(context.Background(), contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.Config, info.State
}

// pageView is an event as the edge publishes it (typical field lengths).
func pageView(i int) ([]byte, string) {
	id := fmt.Sprintf("0192f1e4-7c3a-7d2e-9a51-%012d", i)
	ev := contract.TrackedEvent{V: contract.EventSchemaVersion, ID: id, Type: contract.EvPageView,
		Time:    time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond),
		Channel: "AW", AppVersion: "", IPHash: contract.IPHash([]byte("salt"), fmt.Sprintf("10.0.%d.%d", i/256%256, i%256)),
		UAClass: "android-web", SessionID: "5f0c9e2a7b3d41c8a6e2f9b0d4c7a1e3", MemberType: "visitor",
		URL: "https://store.example/webtoon/detail/P12345", Route: "/webtoon/detail/{pid}", Referrer: "https://store.example/webtoon/weekday/mon",
		PID: "P12345", Section: "WT", GenreID: "21"}
	b, _ := json.Marshal(ev)
	return b, id
}

func publish(ctx context.Context, js jetstream.JetStream, i int) error {
	b, id := pageView(i)
	_, err := js.Publish(ctx, contract.TrackSubject(contract.EvPageView), b, jetstream.WithMsgID(id))
	return err
}

// ackAll acks everything the analytics consumer has, as analytics does after
// its ClickHouse insert.
func ackAll(t *testing.T, js jetstream.JetStream) int {
	t.Helper()
	c, err := js.Consumer(context.Background(), contract.EventsStream, contract.AnalyticsConsumer)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		// Fetch waits a little for what is there: FetchNoWait on a consumer
		// created a moment ago could answer nothing on a busy machine
		// (fresh-clone CI: "analytics got 0 of 29").
		batch, err := c.Fetch(500, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for m := range batch.Messages() {
			if err := m.DoubleAck(context.Background()); err != nil {
				t.Fatal(err)
			}
			got++
		}
		if got == 0 {
			return n
		}
		n += got
	}
}

func TestEnsureMakesAnInterestStreamThatRefusesWhenFull(t *testing.T) {
	js := connect(t)
	ctx := context.Background()
	if _, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: 16 << 10}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := streamConfig(t, js)
	if cfg.Retention != jetstream.InterestPolicy || cfg.Discard != jetstream.DiscardNew || cfg.MaxBytes != 16<<10 ||
		cfg.MaxAge != natsutil.DefaultEventsMaxAge || cfg.Storage != jetstream.FileStorage || cfg.Duplicates != 10*time.Minute {
		t.Fatalf("stream config %+v", cfg)
	}
	if _, err := js.Consumer(ctx, contract.EventsStream, contract.AnalyticsConsumer); err != nil {
		t.Fatalf("analytics consumer missing: %v", err)
	}

	// Fill it: the first refusal is a 503 from JetStream, and nothing old
	// was dropped to make room.
	accepted := 0
	var refused error
	for i := 0; i < 1000 && refused == nil; i++ {
		if refused = publish(ctx, js, i); refused == nil {
			accepted++
		}
	}
	var apiErr *jetstream.APIError
	if !errors.As(refused, &apiErr) || apiErr.Code != 503 || !strings.Contains(apiErr.Description, "maximum bytes") {
		t.Fatalf("full stream: %v, want a 503 maximum bytes exceeded", refused)
	}
	if accepted == 0 {
		t.Fatal("nothing fit into the stream")
	}
	_, st := streamConfig(t, js)
	if st.FirstSeq != 1 || st.Msgs != uint64(accepted) {
		t.Fatalf("after %d accepted: first seq %d, %d messages: old events were dropped", accepted, st.FirstSeq, st.Msgs)
	}
	// The refused event goes in once analytics processed the backlog: acked
	// events leave an interest stream, so it never stays full of events
	// nobody needs.
	if n := ackAll(t, js); n != accepted {
		t.Fatalf("analytics got %d of %d", n, accepted)
	}
	eventually(t, "acked events leave the stream", func() bool { _, st := streamConfig(t, js); return st.Msgs == 0 })
	if err := publish(ctx, js, accepted); err != nil {
		t.Fatalf("publish after the backlog was processed: %v", err)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out: %s", what)
}

// A stream made by an older version (limits retention, DiscardOld) is
// brought to the new shape without losing what analytics has not acked, and
// limits only grow: a service asking for less (an old default) changes
// nothing, one asking for more grows the stream.
func TestEnsureUpgradesAndNeverShrinks(t *testing.T) {
	js := connect(t)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: contract.EventsStream, Subjects: []string{"events.>"},
		Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardOld,
		MaxBytes: 8 << 30, MaxAge: 24 * time.Hour, Duplicates: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := publish(ctx, js, i); err != nil {
			t.Fatal(err)
		}
	}
	// No analytics consumer yet: switching to interest retention without one
	// would drop every message. Ensure makes it first.
	if _, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	cfg, st := streamConfig(t, js)
	if cfg.Retention != jetstream.InterestPolicy || cfg.Discard != jetstream.DiscardNew {
		t.Fatalf("not upgraded: %+v", cfg)
	}
	if cfg.MaxBytes != 8<<30 || cfg.MaxAge != natsutil.DefaultEventsMaxAge {
		t.Fatalf("limits: max bytes %d (want the existing 8 GiB kept), max age %s (want grown to 7 days)", cfg.MaxBytes, cfg.MaxAge)
	}
	if st.Msgs != 10 {
		t.Fatalf("%d of 10 unprocessed events left after the upgrade", st.Msgs)
	}
	// Analytics processes them; they leave.
	if n := ackAll(t, js); n != 10 {
		t.Fatalf("analytics got %d of 10", n)
	}
	eventually(t, "acked events leave", func() bool { _, st := streamConfig(t, js); return st.Msgs == 0 })

	// Services asking for different sizes at once: the largest wins, none fails.
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for _, size := range []int64{1 << 20, 16 << 30, 4 << 30, 1 << 20, 16 << 30, 2 << 30} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: size})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Concurrent updates race (there is no compare-and-set on a stream
	// config), so the last word belongs to a sequential call.
	if _, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: 16 << 30}); err != nil {
		t.Fatal(err)
	}
	if _, err := natsutil.Ensure(ctx, js, natsutil.Options{}); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := streamConfig(t, js); cfg.MaxBytes != 16<<30 {
		t.Fatalf("max bytes %d after asking for 16 GiB and then the default", cfg.MaxBytes)
	}
	// The analytics consumer analytics made with its own settings is left alone.
	c, err := js.Consumer(ctx, contract.EventsStream, contract.AnalyticsConsumer)
	if err != nil {
		t.Fatal(err)
	}
	if c.CachedInfo().Config.AckPolicy != jetstream.AckExplicitPolicy || c.CachedInfo().Config.DeliverPolicy != jetstream.DeliverAllPolicy {
		t.Fatalf("consumer %+v", c.CachedInfo().Config)
	}
}

func TestEventsLimitsFromFlagsAndEnv(t *testing.T) {
	parse := func(env map[string]string, args ...string) natsutil.EventsLimits {
		t.Helper()
		for k, v := range env {
			t.Setenv(k, v)
		}
		var l natsutil.EventsLimits
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		l.RegisterFlags(fs)
		if err := svc.Parse(fs, args); err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, k := range []string{"EVENTS_MAX_BYTES", "EVENTS_PEAK_RATE", "EVENTS_BUFFER", "EVENTS_EVENT_BYTES", "EVENTS_MAX_AGE"} {
		t.Setenv(k, "")
	}
	if l := parse(nil); l.Bytes() != natsutil.DefaultEventsMaxBytes || l.MaxAge != natsutil.DefaultEventsMaxAge {
		t.Fatalf("defaults: %d bytes, %s", l.Bytes(), l.MaxAge)
	}
	// Production: 50,000 events/s × 700 B × 6 h = 756 GB.
	if l := parse(map[string]string{"EVENTS_PEAK_RATE": "50000"}); l.Bytes() != 756e9 {
		t.Fatalf("peak sizing: %d", l.Bytes())
	}
	if l := parse(nil, "-events-peak-rate", "1000", "-events-buffer", "1h", "-events-event-bytes", "500"); l.Bytes() != 1000*500*3600 {
		t.Fatalf("peak sizing by flags: %d", l.Bytes())
	}
	if l := parse(map[string]string{"EVENTS_MAX_BYTES": "650GB", "EVENTS_MAX_AGE": "72h"}); l.Bytes() != 650e9 || l.MaxAge != 72*time.Hour {
		t.Fatalf("explicit size wins: %d %s", l.Bytes(), l.MaxAge)
	}
	if l := parse(nil, "-events-max-bytes", "2GiB"); l.Bytes() != 2<<30 {
		t.Fatalf("flag size: %d", l.Bytes())
	}
	// A malformed size is an error at start, never a silent default.
	t.Setenv("EVENTS_MAX_BYTES", "lots")
	bad := flag.NewFlagSet("x", flag.ContinueOnError)
	(&natsutil.EventsLimits{}).RegisterFlags(bad)
	if err := svc.Parse(bad, nil); err == nil || !strings.Contains(err.Error(), "EVENTS_MAX_BYTES") {
		t.Fatalf("malformed EVENTS_MAX_BYTES: %v", err)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	(&natsutil.EventsLimits{}).RegisterFlags(fs)
	if err := fs.Parse([]string{"-events-max-bytes", "-5"}); err == nil {
		t.Fatal("negative size accepted")
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "4GiB": 4 << 30, "650GB": 650e9, "650 gb": 650e9, "512MiB": 512 << 20,
		"2T": 2e12, "1KiB": 1024, "7B": 7} {
		if got, err := natsutil.ParseBytes(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "0", "-1", "1.5GB", "4 lots", "99999999999TB"} {
		if got, err := natsutil.ParseBytes(in); err == nil {
			t.Errorf("%q accepted as %d", in, got)
		}
	}
}

// The stored size of an event, which the sizing arithmetic assumes: a
// typical page view as the edge publishes it must fit DefaultEventBytes.
func TestStoredBytesPerEvent(t *testing.T) {
	js := connect(t)
	ctx := context.Background()
	if _, err := natsutil.Ensure(ctx, js, natsutil.Options{EventsMaxBytes: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	const n = 2000
	var payload int
	for i := range n {
		b, _ := pageView(i)
		payload += len(b)
		if err := publish(ctx, js, i); err != nil {
			t.Fatal(err)
		}
	}
	_, st := streamConfig(t, js)
	per := float64(st.Bytes) / float64(st.Msgs)
	t.Logf("page view: %d bytes of JSON, %.0f bytes stored per event", payload/n, per)
	if st.Msgs != n || per < float64(payload/n) || per > natsutil.DefaultEventBytes {
		t.Fatalf("%d messages, %.0f bytes each: the sizing assumes at most %d", st.Msgs, per, natsutil.DefaultEventBytes)
	}
}

// On a three-server cluster, a node started without NATS_REPLICAS (asking
// for one replica) leaves the R3 catalog bucket and EVENTS stream at three
// copies: replicas only grow.
func TestReplicasOnlyGrowOnACluster(t *testing.T) {
	c := testenv.NATSCluster(t)
	nc, err := natsutil.Connect(c.URL(), natsutil.Auth{}, "test", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	replicas := func() (kv, events int) {
		t.Helper()
		k, err := js.Stream(ctx, "KV_"+contract.CatalogBucket)
		if err != nil {
			t.Fatal(err)
		}
		e, err := js.Stream(ctx, contract.EventsStream)
		if err != nil {
			t.Fatal(err)
		}
		return k.CachedInfo().Config.Replicas, e.CachedInfo().Config.Replicas
	}
	small := natsutil.Options{EventsMaxBytes: 64 << 20}
	r1 := small
	if _, err := natsutil.Ensure(ctx, js, r1); err != nil {
		t.Fatal(err)
	}
	if kv, ev := replicas(); kv != 1 || ev != 1 {
		t.Fatalf("first node asked R1: kv R%d, EVENTS R%d", kv, ev)
	}
	r3 := small
	r3.Replicas = 3
	if _, err := natsutil.Ensure(ctx, js, r3); err != nil {
		t.Fatal(err)
	}
	if kv, ev := replicas(); kv != 3 || ev != 3 {
		t.Fatalf("after asking R3: kv R%d, EVENTS R%d", kv, ev)
	}
	kv, err := natsutil.Ensure(ctx, js, r1)
	if err != nil {
		t.Fatal(err)
	}
	if kv, ev := replicas(); kv != 3 || ev != 3 {
		t.Fatalf("a node without NATS_REPLICAS shrank the cluster: kv R%d, EVENTS R%d", kv, ev)
	}
	if _, err := kv.Put(ctx, "probe", []byte("x")); err != nil {
		t.Fatalf("bucket usable after Ensure: %v", err)
	}
}
