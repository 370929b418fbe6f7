package ingest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"storefront/devstack/testenv"
)

// The backlog and the stream's fullness come from JetStream: events waiting
// for analytics show as pending until an ingester takes them.
func TestStreamGauges(t *testing.T) {
	js, ch := setup(t, testenv.ClickHouseURL(t))
	ctx := context.Background()
	cfg := Config{FlushInterval: 20 * time.Millisecond}
	if _, err := EnsureConsumer(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	in := New(ch, js, cfg, testLog(), reg)
	gauge := func(name string) float64 {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == name {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		t.Fatalf("no %s", name)
		return 0
	}
	now := time.Now().UTC()
	for i := range 5 {
		publish(t, js, event(fmt.Sprintf("gauge-%d", i), now))
	}
	// The consumer's pending count follows the stream a moment after the
	// publish is acknowledged (CI saw 0 once): wait for it, never for less.
	for wait := time.Now().Add(10 * time.Second); gauge("analytics_consumer_pending_messages") != 5; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatalf("pending %v, want 5", gauge("analytics_consumer_pending_messages"))
		}
	}
	if m, b, max := gauge("analytics_events_stream_messages"), gauge("analytics_events_stream_bytes"), gauge("analytics_events_stream_max_bytes"); m != 5 || b <= 0 || max != 256<<20 {
		t.Fatalf("stream messages %v bytes %v max %v, want 5, >0, %d", m, b, max, 256<<20)
	}
	if e := gauge("analytics_events_stream_scrape_errors"); e != 0 {
		t.Fatalf("scrape errors %v", e)
	}
	runIngester(t, in)
	waitScalar(t, ch, "SELECT count() FROM events", 5, 15*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for gauge("analytics_consumer_pending_messages")+gauge("analytics_consumer_ack_pending_messages") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("backlog not back to 0 after the insert")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
