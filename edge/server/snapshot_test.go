package server_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/edge/server"
	"storefront/natsutil"
)

func snapshotStore(t *testing.T, e *env) jetstream.ObjectStore {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	obs, err := natsutil.EnsureSnapshots(ctx, e.js, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

func writeSnapshot(t *testing.T, e *env, obs jetstream.ObjectStore) natsutil.SnapshotInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := natsutil.WriteSnapshot(ctx, e.kv, obs)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

var snapshotPaths = []string{"/home/api/v1/webtoon/best", "/home/api/v1/webtoon/weekday/mon", "/home/api/v1/search?q=%EC%9E%91%ED%92%88"}

func snapshotPIDs() []string { return []string{"w1", "w2", "w3", "w4", "w5", "w6"} }

// An edge started from a snapshot, then the bucket's changes after it
// (updates, deletes, new works, a key deleted before the snapshot too),
// answers exactly like one that replayed the whole bucket.
func TestStartFromSnapshotEqualsFullReplay(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, pid := range []string{"w1", "w2", "w3", "w4", "w6"} {
		e.putProduct(product(pid, "WT", "작품 "+pid))
	}
	if err := e.kv.Delete(ctx, contract.ProductKey("w4")); err != nil {
		t.Fatal(err)
	}
	obs := snapshotStore(t, e)
	info := writeSnapshot(t, e, obs)
	if info.Records != 5 || info.Revision != 6 {
		t.Fatalf("snapshot %+v, want 5 records (4 works, 1 delete marker) up to revision 6", info)
	}
	e.putProduct(product("w1", "WT", "바뀐 제목"))
	if err := e.kv.Delete(ctx, contract.ProductKey("w2")); err != nil {
		t.Fatal(err)
	}
	if err := e.kv.Purge(ctx, contract.ProductKey("w3")); err != nil {
		t.Fatal(err)
	}
	e.putProduct(product("w5", "WT", "새 작품"))
	e.putProduct(product("w4", "WT", "돌아온 작품"))

	now := func(c *server.Config) { c.Now = func() time.Time { return t0 } }
	snap := startEdge(t, e, now)
	full := startEdge(t, e, now, func(c *server.Config) { c.NoSnapshot = true })
	snap.waitReady()
	full.waitReady()
	if got := metric(t, snap, "edge_catalog_snapshot_loaded_revision"); got != 6 {
		t.Fatalf("edge started from snapshot revision %v, want 6", got)
	}
	if got := metric(t, full, "edge_catalog_snapshot_loaded_revision"); got != 0 {
		t.Fatalf("edge with snapshots off loaded revision %v", got)
	}
	// The snapshot's 5 records, then the 5 entries after it: the watch
	// resumed after the snapshot (a replay would bring w6 again).
	if got := metric(t, snap, "edge_catalog_entries_applied_total"); got != 10 {
		t.Fatalf("edge from snapshot applied %v entries, want 5 + 5", got)
	}
	if ok, n, err := snap.srv.CaughtUp(ctx); err != nil || !ok || n != 4 {
		t.Fatalf("snapshot edge CaughtUp = %v, %d works, %v; want true, 4", ok, n, err)
	}
	paths := append([]string{}, snapshotPaths...)
	for _, pid := range snapshotPIDs() {
		paths = append(paths, "/home/api/v1/products/"+pid)
	}
	for _, p := range paths {
		r1, b1 := snap.get(p)
		r2, b2 := full.get(p)
		if r1.StatusCode != r2.StatusCode || !bytes.Equal(b1, b2) {
			t.Errorf("GET %s: from snapshot %d %s\nfull replay %d %s", p, r1.StatusCode, b1, r2.StatusCode, b2)
		}
	}
	_, b := snap.get("/home/api/v1/products/w1")
	if !strings.Contains(string(b), "바뀐 제목") {
		t.Fatalf("update after the snapshot missing: %s", b)
	}
}

// A damaged snapshot is refused whole (nothing of it applied) and the edge
// replays the bucket.
func TestDamagedSnapshotFallsBackToReplay(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, pid := range []string{"w1", "w2"} {
		e.putProduct(product(pid, "WT", "작품 "+pid))
	}
	obs := snapshotStore(t, e)
	writeSnapshot(t, e, obs)
	oi, err := obs.GetInfo(ctx, natsutil.SnapshotObject)
	if err != nil {
		t.Fatal(err)
	}
	// Same metadata, bytes that are no zstd stream.
	if _, err := obs.Put(ctx, jetstream.ObjectMeta{Name: natsutil.SnapshotObject, Metadata: oi.Metadata},
		strings.NewReader(strings.Repeat("not a snapshot ", 100))); err != nil {
		t.Fatal(err)
	}
	if err := e.kv.Delete(ctx, contract.ProductKey("w2")); err != nil {
		t.Fatal(err)
	}
	g := startEdge(t, e)
	g.waitReady()
	if got := metric(t, g, "edge_catalog_snapshot_loaded_revision"); got != 0 {
		t.Fatalf("damaged snapshot loaded (revision %v)", got)
	}
	if ok, n, err := g.srv.CaughtUp(ctx); err != nil || !ok || n != 1 {
		t.Fatalf("CaughtUp = %v, %d works, %v; want true, 1", ok, n, err)
	}
	if r, _ := g.get("/home/api/v1/products/w2"); r.StatusCode != 404 {
		t.Fatalf("deleted work answers %d after the fallback", r.StatusCode)
	}
}

// A snapshot of a bucket since deleted and created again (its revisions
// restarted) is not read against the new one.
func TestSnapshotOfAnotherBucketIncarnationIsRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, pid := range []string{"w1", "w2", "w3"} {
		e.putProduct(product(pid, "WT", "작품 "+pid))
	}
	obs := snapshotStore(t, e)
	writeSnapshot(t, e, obs)
	if err := e.js.DeleteKeyValue(ctx, contract.CatalogBucket); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // a different creation time
	kv, err := natsutil.Ensure(ctx, e.js, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.kv = kv
	for _, pid := range []string{"w9", "w8", "w7", "w6"} {
		e.putProduct(product(pid, "WT", "작품 "+pid))
	}
	g := startEdge(t, e)
	g.waitReady()
	if got := metric(t, g, "edge_catalog_snapshot_loaded_revision"); got != 0 {
		t.Fatalf("snapshot of the old bucket loaded (revision %v)", got)
	}
	if r, _ := g.get("/home/api/v1/products/w1"); r.StatusCode != 404 {
		t.Fatalf("work of the old bucket answers %d", r.StatusCode)
	}
}

// Snapshots are written by the holder of the snapshot lease only: while
// another holds it the edge writes none, and once it is released the edge
// takes it and writes snapshots that follow the bucket.
func TestOnlyTheLeaseHolderWritesSnapshots(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("w1", "WT", "작품"))
	ctx := context.Background()
	// A short TTL (the edge takes the bucket's) makes the edge retry every second.
	leases, ttl, err := natsutil.EnsureLeases(ctx, e.js, 3*time.Second, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := natsutil.NewLease(leases, natsutil.SnapshotLease, "another edge", ttl, quietLog())
	lctx, release := context.WithCancel(ctx)
	held := make(chan struct{})
	go func() { other.Run(lctx); close(held) }()
	eventually(t, "the other holder's lease", other.Held)

	g := startEdge(t, e, func(c *server.Config) { c.SnapshotEvery = 50 * time.Millisecond })
	g.waitReady()
	obs := snapshotStore(t, e)
	// Ten of the edge's ticks while the bucket moved and another holds the lease.
	e.putProduct(product("w2", "WT", "작품"))
	time.Sleep(500 * time.Millisecond)
	if n := metric(t, g, "edge_catalog_snapshots_written_total"); n != 0 {
		t.Fatalf("edge wrote %v snapshots while another held the lease", n)
	}
	if _, err := natsutil.LatestSnapshot(ctx, obs, contract.CatalogBucket); !errors.Is(err, natsutil.ErrNoSnapshot) {
		t.Fatalf("a snapshot exists while another held the lease: %v", err)
	}
	release()
	<-held
	for i := range 3 {
		rev := e.put(contract.ProductKey("w1"), product("w1", "WT", "제목 "+string(rune('A'+i))))
		eventually(t, "a snapshot of the newest revision", func() bool {
			info, err := natsutil.LatestSnapshot(ctx, obs, contract.CatalogBucket)
			return err == nil && info.Revision >= rev
		})
	}
	if n := metric(t, g, "edge_catalog_snapshots_written_total"); n < 1 {
		t.Fatalf("edge wrote %v snapshots after taking the lease", n)
	}
}

// Review lists loaded at start (from the snapshot or the replay) are kept
// as JSON and decoded on first read; they answer exactly like lists decoded
// as they arrive after the start, in every shape, sort and filter, and a
// list changed after the start replaces the loaded one, while one that does
// not decode is skipped (the previous list stays) as before.
func TestLazilyDecodedReviewsAnswerTheSame(t *testing.T) {
	e := newEnv(t)
	reviews := func(pid string, n int) contract.ReviewList {
		l := contract.ReviewList{Version: 1}
		if pid != "w2" {
			l.PID = pid // w2's omits its pid: the key names it
		}
		for i := range n {
			l.Reviews = append(l.Reviews, contract.Review{ID: int64(i + 1), UserName: "ab***", Body: "리뷰 " + pid,
				Point: 6 + 2*(i%3), Vol: 1 + i%4, IsBuyerReview: i%3 == 0, LikeCnt: (i * 7) % 5, IsSpoiler: i%5 == 0,
				CreatedAt: t0.Add(-time.Duration(i%4) * time.Hour)})
		}
		return l
	}
	for _, pid := range []string{"w1", "w2", "w3"} {
		e.putProduct(product(pid, "WT", "작품 "+pid))
	}
	e.put(contract.KeyReviews+"w1", reviews("w1", 7))
	e.put(contract.KeyReviews+"w2", reviews("w2", 30))
	writeSnapshot(t, e, snapshotStore(t, e))
	e.put(contract.KeyReviews+"w3", reviews("w3", 4)) // after the snapshot: replayed

	now := func(c *server.Config) { c.Now = func() time.Time { return t0 } }
	snap := startEdge(t, e, now)
	full := startEdge(t, e, now, func(c *server.Config) { c.NoSnapshot = true })
	snap.waitReady()
	full.waitReady()
	var paths []string
	for _, pid := range []string{"w1", "w2", "w3", "w4"} {
		for _, q := range []string{"", "?buyer=Y", "?sort=recent&size=3&page=2", "?sort=like"} {
			paths = append(paths, "/home/api/v1/products/"+pid+"/reviews"+q, "/home/api/v1/products/"+pid+"/reviews/v2"+q)
		}
	}
	// The answers decoded eagerly: a third edge started empty gets the
	// same documents after its start.
	e2 := newEnv(t)
	live := startEdge(t, e2, now)
	live.waitReady()
	for _, pid := range []string{"w1", "w2", "w3"} {
		e2.putProduct(product(pid, "WT", "작품 "+pid))
	}
	e2.put(contract.KeyReviews+"w1", reviews("w1", 7))
	e2.put(contract.KeyReviews+"w2", reviews("w2", 30))
	e2.put(contract.KeyReviews+"w3", reviews("w3", 4))
	eventually(t, "the live edge's reviews", func() bool {
		_, b := live.get("/home/api/v1/products/w3/reviews")
		return strings.Contains(string(b), "리뷰 w3")
	})
	compare := func(when string) {
		t.Helper()
		for _, p := range paths {
			r1, b1 := snap.get(p)
			r2, b2 := full.get(p)
			r3, b3 := live.get(p)
			if r1.StatusCode != r3.StatusCode || !bytes.Equal(b1, b3) || r2.StatusCode != r3.StatusCode || !bytes.Equal(b2, b3) {
				t.Errorf("%s: GET %s: from snapshot %d %s\nreplayed %d %s\ndecoded live %d %s", when, p, r1.StatusCode, b1, r2.StatusCode, b2, r3.StatusCode, b3)
			}
		}
	}
	compare("loaded")
	if _, b := snap.get("/home/api/v1/products/w2/reviews?size=1"); !strings.Contains(string(b), "리뷰 w2") {
		t.Fatalf("w2's reviews from the snapshot: %s", b)
	}
	// After the start: a new list replaces the loaded one; a document that
	// does not decode is skipped and the list before it stays.
	for _, env := range []*env{e, e2} {
		if _, err := env.kv.Put(context.Background(), contract.KeyReviews+"w2", []byte(`{"reviews":"not a list"}`)); err != nil {
			t.Fatal(err)
		}
		env.put(contract.KeyReviews+"w1", reviews("w1", 2)) // after it: once w1 changed, w2's was applied
	}
	for _, g := range []*edge{snap, full, live} {
		eventually(t, "the changed list", func() bool {
			_, b := g.get("/home/api/v1/products/w1/reviews")
			return strings.Count(string(b), "리뷰 w1") == 2
		})
	}
	compare("changed")
	if _, b := snap.get("/home/api/v1/products/w2/reviews?size=1"); !strings.Contains(string(b), "리뷰 w2") {
		t.Fatalf("w2's reviews after a bad document: %s", b)
	}
}
