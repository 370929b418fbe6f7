package server_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/edge/server"
)

// The launcher's first run imports the catalog while the edge starts on an
// empty bucket: the edge must not log that as a synced empty store, and
// CaughtUp must count the works published after its start (issue 24).
func TestCaughtUpCountsWorksPublishedAfterStart(t *testing.T) {
	e := newEnv(t)
	static := t.TempDir()
	writeFile(t, filepath.Join(static, "index.html"), "<!doctype html><title>sf</title>")
	var logs testenv.LogBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := server.New(ctx, server.Config{Addr: "127.0.0.1:0", NATSURL: e.nats.URL, StaticDir: static, WriterURL: "http://127.0.0.1:1"},
		slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() { cancel(); <-done }()
	g := &edge{t: t, srv: srv, url: "http://" + srv.Addr()}
	g.waitReady()

	if ok, n, err := srv.CaughtUp(ctx); err != nil || !ok || n != 0 {
		t.Fatalf("empty bucket: CaughtUp = %v, %d, %v; want true, 0", ok, n, err)
	}
	line := logs.String()
	if strings.Contains(line, "catalog synced") || !strings.Contains(line, "no works published yet") {
		t.Fatalf("start on an empty bucket logged %q; want it to say no works are published yet", line)
	}

	for _, pid := range []string{"w1", "w2", "w3"} {
		e.putProduct(product(pid, "WT", "작품 "+pid))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, n, err := srv.CaughtUp(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if n != 3 {
				t.Fatalf("caught up with %d works, want 3", n)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("edge not caught up in 10s (%d works)", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A watch whose ordered consumer is deleted on the server while the
// connection stays up delivers nothing more, and nats.go only notices after
// missing two 5 s heartbeats. The edge sees the bucket move on without it:
// the staleness grows (it stayed 0 before, the connection being up), the
// watch is restarted from the last revision, the edge catches up and the
// staleness is back to 0.
func TestStalenessShowsAWatchWhoseConsumerDied(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("w1", "WT", "첫 제목"))
	g := startEdge(t, e, func(c *server.Config) { c.WatchCheck = 200 * time.Millisecond })
	g.waitReady()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	kvStream, err := e.js.Stream(ctx, "KV_"+contract.CatalogBucket)
	if err != nil {
		t.Fatal(err)
	}
	deleted := 0
	names := kvStream.ConsumerNames(ctx)
	for name := range names.Name() {
		if err := kvStream.DeleteConsumer(ctx, name); err != nil {
			t.Fatal(err)
		}
		deleted++
	}
	if deleted != 1 {
		t.Fatalf("%d consumers on the bucket, want the edge's one watch", deleted)
	}
	e.putProduct(product("w1", "WT", "바뀐 제목"))

	var most time.Duration
	deadline := time.Now().Add(20 * time.Second)
	for {
		most = max(most, g.srv.Staleness())
		ok, _, err := g.srv.CaughtUp(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("edge not caught up 20s after its watch's consumer died (staleness %s)", g.srv.Staleness())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if most < 200*time.Millisecond {
		t.Fatalf("staleness peaked at %s while the edge missed an update with its connection up", most)
	}
	if s := g.srv.Staleness(); s != 0 {
		t.Fatalf("staleness %s after catching up", s)
	}
	_, body := g.opsGet("/metrics")
	if !strings.Contains(string(body), "edge_catalog_watch_restarts_total 1") {
		t.Fatalf("watch restart not counted:\n%s", grepLines(string(body), "edge_catalog_watch"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
