package server

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/devstack/testenv"
	"storefront/natsutil"
)

// BenchmarkStartupSnapshot100k compares an edge's start against a bucket
// of 100,000 demo works (5 volumes each, no media) by replaying the bucket
// (replay-*, -snapshot=false) and from a snapshot of it (snapshot-*): from
// New to ready. -v logs what writing that snapshot cost.
func BenchmarkStartupSnapshot100k(b *testing.B) {
	n := testenv.NATS(b)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{})
	if err != nil {
		b.Fatal(err)
	}
	put100kWorks(b, js)
	obs, err := natsutil.EnsureSnapshots(ctx, js, natsutil.Options{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	info, err := natsutil.WriteSnapshot(ctx, kv, obs)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("snapshot: %d records up to revision %d, %d MB compressed, written in %s",
		info.Records, info.Revision, info.Size>>20, time.Since(start).Round(time.Millisecond))
	// Both starts in each iteration, alternating, so the shared machine's
	// load weighs on both alike.
	var wall, cpu [2]time.Duration
	for b.Loop() {
		for i, noSnapshot := range []bool{true, false} {
			w, c := startOnce(b, n.URL, noSnapshot)
			wall[i] += w
			cpu[i] += c
		}
	}
	runs := float64(b.N)
	b.ReportMetric(wall[0].Seconds()/runs, "replay-s-to-ready")
	b.ReportMetric(cpu[0].Seconds()/runs, "replay-cpu-s")
	b.ReportMetric(wall[1].Seconds()/runs, "snapshot-s-to-ready")
	b.ReportMetric(cpu[1].Seconds()/runs, "snapshot-cpu-s")
}

// startOnce starts an edge, waits for its initial sync and stops it: the
// wall time to ready and the process's CPU time meanwhile (edge and the
// in-process NATS server).
func startOnce(b *testing.B, url string, noSnapshot bool) (time.Duration, time.Duration) {
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	start := time.Now()
	rctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := New(rctx, Config{Addr: "127.0.0.1:0", NATSURL: url, StaticDir: filepath.Join(b.TempDir(), "none"), NoSnapshot: noSnapshot},
		slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(rctx) }()
	for !s.synced.Load() {
		time.Sleep(time.Millisecond)
	}
	wall := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano()) * time.Nanosecond
	if _, _, _, products := s.store.Stats(); products != 100000 {
		b.Fatalf("%d products after sync", products)
	}
	if got := s.snap.from != 0; got == noSnapshot {
		b.Fatalf("started from a snapshot: %v, want %v", got, !noSnapshot)
	}
	cancel()
	<-done
	return wall, cpu
}
