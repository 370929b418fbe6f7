package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/media/store"
	"storefront/natsutil"
)

// publishWindow bounds the publishes in flight: enough to keep the server
// busy, few enough that a slow disk stalls the generator instead of its
// memory.
const publishWindow = 4096

// publisher puts KV values with async publishes in a bounded window.
type publisher struct {
	js    jetstream.JetStream
	docs  atomic.Int64
	bytes atomic.Int64
	err   atomic.Value // first error
}

func newPublisher(nc *nats.Conn) (*publisher, error) {
	p := &publisher{}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(publishWindow),
		jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, m *nats.Msg, err error) {
			p.err.CompareAndSwap(nil, fmt.Errorf("publish %s: %w", m.Subject, err))
		}))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	p.js = js
	return p, nil
}

func (p *publisher) put(d doc) error {
	if e, ok := p.err.Load().(error); ok {
		return e
	}
	// A KV put is a publish on the bucket's subject.
	if _, err := p.js.PublishAsync("$KV."+d.bucket+"."+d.key, d.val, jetstream.WithStallWait(time.Minute)); err != nil {
		return fmt.Errorf("publish %s/%s: %w", d.bucket, d.key, err)
	}
	p.docs.Add(1)
	p.bytes.Add(int64(len(d.val)))
	return nil
}

func (p *publisher) flush(ctx context.Context) error {
	select {
	case <-p.js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	if e, ok := p.err.Load().(error); ok {
		return e
	}
	return nil
}

// ensureBuckets creates the catalog bucket as every service does and the
// volume pages' bucket like it (History 1, values up to 1 MiB).
func ensureBuckets(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:       contract.VolumesBucket,
		Description:  "volume pages of the works in catalog",
		History:      1,
		Storage:      jetstream.FileStorage,
		MaxValueSize: 1 << 20,
	}); err != nil {
		return nil, fmt.Errorf("ensure kv %s: %w", contract.VolumesBucket, err)
	}
	return kv, nil
}

// manifest is what a cached store was generated from.
type manifest struct {
	Params    params    `json:"params"`
	Hash      string    `json:"hash"`
	Docs      int64     `json:"docs"`
	Bytes     int64     `json:"bytes"`
	Volumes   int       `json:"volumes"`
	Releasing int       `json:"releasing"`
	Seconds   float64   `json:"seconds"`
	Written   time.Time `json:"written"`
}

// loadStats are the generation's figures (zero when the cache was reused).
type loadStats struct {
	Reused     bool    `json:"reused"`
	Docs       int64   `json:"docs"`
	ValueBytes int64   `json:"valueBytes"`
	Seconds    float64 `json:"seconds"`
	DocsPerSec float64 `json:"docsPerSec"`
	MBPerSec   float64 `json:"mbPerSec"`
}

// publishCatalog streams every document of c into the server, writes the
// content store's objects and a catalog snapshot (what a running fleet
// always has: an edge starts from it).
func publishCatalog(ctx context.Context, log *slog.Logger, nc *nats.Conn, c *catalog, contentDir string) (loadStats, error) {
	start := time.Now()
	pub, err := newPublisher(nc)
	if err != nil {
		return loadStats{}, err
	}
	kv, err := ensureBuckets(ctx, pub.js)
	if err != nil {
		return loadStats{}, err
	}
	last := time.Now()
	for i := range c.prods {
		docs, err := c.workDocs(i, c.volumesOf(i), c.p.Epoch, 1)
		if err != nil {
			return loadStats{}, err
		}
		st := c.stat(i)
		b, _ := json.Marshal(&st)
		docs = append(docs, doc{contract.CatalogBucket, contract.StatKey(st.PID), b})
		if l := c.reviews(i); l != nil {
			b, _ := json.Marshal(l)
			docs = append(docs, doc{contract.CatalogBucket, contract.KeyReviews + l.PID, b})
		}
		for _, d := range docs {
			if err := pub.put(d); err != nil {
				return loadStats{}, err
			}
		}
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			log.Info("publishing", "works", i, "of", len(c.prods), "docs", pub.docs.Load(), "MB", pub.bytes.Load()>>20)
		}
		if ctx.Err() != nil {
			return loadStats{}, ctx.Err()
		}
	}
	for _, rk := range c.rankings() {
		b, _ := json.Marshal(&rk)
		if err := pub.put(doc{contract.CatalogBucket, contract.KeyRanking + rk.Scope + "." + rk.Tab, b}); err != nil {
			return loadStats{}, err
		}
	}
	if err := pub.flush(ctx); err != nil {
		return loadStats{}, err
	}
	if err := writeContent(ctx, c, contentDir); err != nil {
		return loadStats{}, err
	}
	obs, err := natsutil.EnsureSnapshots(ctx, pub.js, natsutil.Options{})
	if err != nil {
		return loadStats{}, err
	}
	if _, err := natsutil.WriteSnapshot(ctx, kv, obs); err != nil {
		return loadStats{}, fmt.Errorf("write catalog snapshot: %w", err)
	}
	secs := time.Since(start).Seconds()
	return loadStats{Docs: pub.docs.Load(), ValueBytes: pub.bytes.Load(), Seconds: secs,
		DocsPerSec: float64(pub.docs.Load()) / secs, MBPerSec: float64(pub.bytes.Load()) / (1 << 20) / secs}, nil
}

// previewObjects is how many leading pages of each version get objects:
// the preview pages every reader may open.
const previewObjects = 2

// writeContent puts each shared version's manifest and preview pages into
// the content store folder the edge reads.
func writeContent(ctx context.Context, c *catalog, dir string) error {
	st, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	page := make([]byte, 24<<10) // a strip segment's size in WebP
	for i := range page {
		page[i] = byte(i * 31)
	}
	for _, vs := range c.versions {
		for _, v := range vs {
			m := v.Manifest
			b, _ := json.Marshal(&m)
			if err := st.PutObject(ctx, contract.ContentManifestKey(m.Ver), b, "application/json"); err != nil {
				return err
			}
			for n := 1; n <= previewObjects; n++ {
				if m.Kind == contract.MediaKindText {
					html := []byte("<p>" + strconv.Itoa(n) + "번째 단락입니다. 비가 그친 오후, 주인공은 오래된 서점 문을 열었다.</p>")
					if err := st.PutObject(ctx, contract.ContentChunkKey(m.Ver, n), html, "text/html"); err != nil {
						return err
					}
					continue
				}
				if err := st.PutObject(ctx, contract.ContentObjectKey(m.Ver, n, 720, contract.FormatWebP), page, "image/webp"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// prepareStore makes sure dir holds a server store with c's catalog: it
// reuses a store whose manifest has the same parameters' hash and
// regenerates it otherwise. The server must not be running on dir.
func readManifest(dir string) (manifest, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return manifest{}, false
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil {
		return manifest{}, false
	}
	return m, true
}

func writeManifest(dir string, m manifest) error {
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "manifest.json.tmp"), b, 0o644); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return os.Rename(filepath.Join(dir, "manifest.json.tmp"), filepath.Join(dir, "manifest.json"))
}

// bucketInfo is one bucket's size from its stream info.
type bucketInfo struct {
	Bucket string `json:"bucket"`
	Keys   uint64 `json:"keys"`
	Bytes  uint64 `json:"bytes"`
}

func bucketBytes(ctx context.Context, js jetstream.JetStream, bucket string) (bucketInfo, error) {
	s, err := js.Stream(ctx, "KV_"+bucket)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return bucketInfo{Bucket: bucket}, nil
	}
	if err != nil {
		return bucketInfo{}, fmt.Errorf("stream info of %s: %w", bucket, err)
	}
	st := s.CachedInfo().State
	return bucketInfo{Bucket: bucket, Keys: st.Msgs, Bytes: st.Bytes}, nil
}
