package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/demo"
	"storefront/devstack/testenv"
	"storefront/media/store"
	writerserver "storefront/writer/server"
)

// A fresh data folder: the launcher's demo loader imports the catalog and
// gives every work its cover and wide cover and every volume its pages through
// the upload and processing path; the edge's documents (KV) name objects that
// are in the store, and the pool is encoded once however many volumes share
// it. A second run queues and encodes nothing.
func TestDemoCatalogGoesThroughTheMediaPipelineOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the demo's pool of originals")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dbURL := testenv.PostgresURL(t)
	ns := testenv.NATS(t)
	content := t.TempDir()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	w, err := writerserver.New(ctx, writerserver.Config{Addr: "127.0.0.1:0", DatabaseURL: dbURL, NATSURL: ns.URL,
		AdminToken: "t", ContentStoreURL: content, MediaWorkers: 2, RelayPoll: 50 * time.Millisecond}, log)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Error(err)
		}
	}()
	f := upFlags{works: 30, seed: 1}
	f.deps.data = t.TempDir()
	if err := loadDemo(ctx, dbURL, f, w.Media(), log); err != nil {
		t.Fatal(err)
	}
	if err := waitMedia(ctx, w.Media(), false, log); err != nil {
		t.Fatal(err)
	}
	if err := markDemoMedia(f); err != nil {
		t.Fatal(err)
	}
	if err := waitOutboxDrained(ctx, w.Pool()); err != nil {
		t.Fatal(err)
	}
	encoded := w.Media().Encoded()
	db := w.Pool()
	var banners, events int
	if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM banners), (SELECT count(*) FROM events)`).Scan(&banners, &events); err != nil {
		t.Fatal(err)
	}
	// The pool's pictures and pages, each banner and event picture: nothing
	// per work or volume.
	if most := int64(demo.PoolCovers() + demo.PoolWides + demo.PoolEpisodes*(demo.PoolStrips+demo.PoolComicPages) + banners + events); encoded > most || encoded == 0 {
		t.Fatalf("%d pictures encoded for 30 works, want at most %d (the pool, banners and events)", encoded, most)
	}
	st, err := store.Open(ctx, content)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	nc, err := nats.Connect(ns.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(ctx, contract.CatalogBucket)
	if err != nil {
		t.Fatal(err)
	}
	get := func(key string, into any) {
		t.Helper()
		e, err := kv.Get(ctx, key)
		if err != nil {
			t.Fatalf("KV %s: %v", key, err)
		}
		if err := json.Unmarshal(e.Value(), into); err != nil {
			t.Fatalf("KV %s: %v", key, err)
		}
	}
	vols, err := js.KeyValue(ctx, contract.VolumesBucket)
	if err != nil {
		t.Fatal(err)
	}
	getVols := func(key string, into any) {
		t.Helper()
		e, err := vols.Get(ctx, key)
		if err != nil {
			t.Fatalf("KV %s: %v", key, err)
		}
		if err := json.Unmarshal(e.Value(), into); err != nil {
			t.Fatalf("KV %s: %v", key, err)
		}
	}
	checked := map[string]bool{}
	exists := func(what, key string) {
		t.Helper()
		if checked[key] {
			return
		}
		if ok, err := st.Exists(ctx, key); err != nil || !ok {
			t.Fatalf("%s: object %s is not in the store (%v)", what, key, err)
		}
		checked[key] = true
	}
	picture := func(what, url string) {
		t.Helper()
		id, ok := strings.CutPrefix(url, contract.MediaPrefix)
		if !ok {
			t.Fatalf("%s is %q, not a processed picture", what, url)
		}
		var img contract.MediaImage
		get(contract.MediaImageKey(id), &img)
		if len(img.Variants) == 0 {
			t.Fatalf("%s: no variants", what)
		}
		for _, v := range img.Variants {
			exists(what, v.Key)
		}
	}
	rows, err := db.Query(ctx, `SELECT pid FROM works ORDER BY pid`)
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for rows.Next() {
		var pid string
		_ = rows.Scan(&pid)
		pids = append(pids, pid)
	}
	rows.Close()
	if len(pids) != 30 {
		t.Fatalf("%d works", len(pids))
	}
	volumes := 0
	manifests := map[string]*contract.ContentManifest{}
	for _, pid := range pids {
		var head contract.Product
		get(contract.ProductKey(pid), &head)
		var pages []contract.VolumePage
		if head.VolumeIndex != nil {
			for _, ref := range head.VolumeIndex.Pages {
				var pg contract.VolumePage
				getVols(contract.VolumePageKey(pid, ref.Index), &pg)
				pages = append(pages, pg)
			}
		}
		p, err := contract.JoinVolumes(&head, pages)
		if err != nil {
			t.Fatal(err)
		}
		picture(pid+" cover", p.ThumbURL)
		picture(pid+" wide cover", p.ThumbWideURL)
		for _, v := range p.Volumes {
			m := manifests[v.ContentVer]
			if m == nil && v.ContentVer != "" {
				raw, err := st.Get(ctx, contract.ContentManifestKey(v.ContentVer))
				m = &contract.ContentManifest{}
				if err != nil || json.Unmarshal(raw, m) != nil {
					t.Fatalf("%s/%d: manifest of %q: %v", pid, v.No, v.ContentVer, err)
				}
				manifests[v.ContentVer] = m
				for _, k := range contract.ContentKeys(m) {
					exists(fmt.Sprintf("%s/%d", pid, v.No), k)
				}
			}
			if m == nil || m.Count() != v.Pages || v.Pages != demo.PoolPages(p.Section) {
				t.Fatalf("%s/%d: version %q processed, the catalog says %d pages", pid, v.No, v.ContentVer, v.Pages)
			}
			volumes++
		}
	}
	// Volumes given the same pooled episode share its version: one per
	// section and episode, however many volumes.
	if len(manifests) > 3*demo.PoolEpisodes {
		t.Fatalf("%d versions for %d volumes, want at most %d", len(manifests), volumes, 3*demo.PoolEpisodes)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k := range keys.Keys() {
		if strings.HasPrefix(k, contract.VolumeMediaKeyPrefix) {
			t.Fatalf("KV key %s: volumes have no media document", k)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM media_refs WHERE owner LIKE 'vol:%' OR owner LIKE 'orig:%'`); n != 0 {
		t.Fatalf("%d media_refs rows per volume or job", n)
	}
	for _, q := range []string{`SELECT 'banner ' || id, image_url FROM banners`, `SELECT 'event ' || eid, banner_url FROM events`} {
		rows, err := db.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var what, url string
			_ = rows.Scan(&what, &url)
			picture(what, url)
		}
		rows.Close()
	}
	t.Logf("%d works, %d volumes, %d objects checked, %d pictures encoded", len(pids), volumes, len(checked), encoded)

	// A second run: the catalog and media are loaded, nothing is drawn,
	// queued or encoded.
	jobs := count(t, db, `SELECT count(*) FROM media_jobs`)
	if err := loadDemo(ctx, dbURL, f, w.Media(), log); err != nil {
		t.Fatal(err)
	}
	// A run interrupted before its media were done: the originals are
	// drawn again (the same bytes) and find their jobs.
	if err := writeStamp(f, demoStamp{Seed: f.seed, Works: f.works}); err != nil {
		t.Fatal(err)
	}
	if err := loadDemo(ctx, dbURL, f, w.Media(), log); err != nil {
		t.Fatal(err)
	}
	if n, _, err := w.Media().Pending(ctx); err != nil || n != 0 {
		t.Fatalf("%d jobs pending after a second run (%v)", n, err)
	}
	if again := count(t, db, `SELECT count(*) FROM media_jobs`); again != jobs {
		t.Fatalf("a second run queued %d jobs", again-jobs)
	}
	if w.Media().Encoded() != encoded {
		t.Fatalf("a second run encoded %d pictures", w.Media().Encoded()-encoded)
	}
}

func count(t *testing.T, db *pgxpool.Pool, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
