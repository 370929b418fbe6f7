package media_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/media/store"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

type env struct {
	*writertest.Env
	store *store.Store
	clock *atomic.Int64 // seconds added to the real clock
}

func start(t *testing.T, edit ...func(*server.Config)) *env {
	t.Helper()
	storeURL := testenv.S3URL(t)
	clock := &atomic.Int64{}
	e := writertest.StartWriter(t, func(c *server.Config) {
		c.ContentStoreURL = storeURL
		c.MediaGrace = time.Hour
		c.Now = func() time.Time { return time.Now().Add(time.Duration(clock.Load()) * time.Second) }
		for _, f := range edit {
			f(c)
		}
	})
	st, err := store.Open(context.Background(), storeURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return &env{Env: e, store: st, clock: clock}
}

func picture(w, h int, seed uint64) *image.RGBA {
	r := rand.New(rand.NewPCG(seed, 1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := uint8(r.IntN(16))
			img.Set(x, y, color.RGBA{uint8(x) + n, uint8(y) + n, uint8(seed * 40), 255})
		}
	}
	return img
}

func jpegOf(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngOf(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func work(pid, section string) map[string]any {
	return map[string]any{
		"pid": pid, "section": section, "title": "시험 작품", "genreId": "05", "age": 0,
		"authors": []map[string]any{{"authorName": "작가", "isWriter": true}},
		"volumes": []map[string]any{{"no": 1, "title": "1화", "isFree": true, "pages": 10, "previewPages": 2}},
	}
}

func (e *env) createWork(pid, section string) {
	e.T.Helper()
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", work(pid, section)); st != http.StatusCreated {
		e.T.Fatalf("create work: %d %s", st, body)
	}
}

type upload struct {
	ID       string `json:"id"`
	Parts    int    `json:"parts"`
	Received int64  `json:"received"`
	State    string `json:"state"`
	Kind     string `json:"kind"`
}

func decode[T any](t testing.TB, body []byte, field string) T {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	var v T
	if err := json.Unmarshal(m[field], &v); err != nil {
		t.Fatalf("answer field %s of %s: %v", field, body, err)
	}
	return v
}

// send uploads data in parts of partSize and completes it.
func (e *env) send(data []byte, partSize int) (string, int, []byte) {
	e.T.Helper()
	st, body := e.Admin.Do("POST", "/admin/api/v1/media/uploads", map[string]any{"size": len(data), "name": "file"})
	if st != http.StatusCreated {
		e.T.Fatalf("create upload: %d %s", st, body)
	}
	id := decode[upload](e.T, body, "upload").ID
	for n, off := 1, 0; off < len(data); n, off = n+1, off+partSize {
		part := data[off:min(off+partSize, len(data))]
		if st, body := e.Admin.Do("PUT", fmt.Sprintf("/admin/api/v1/media/uploads/%s/parts/%d", id, n), part); st != http.StatusOK {
			e.T.Fatalf("part %d: %d %s", n, st, body)
		}
	}
	st, body = e.Admin.Do("POST", "/admin/api/v1/media/uploads/"+id+"/complete", nil)
	return id, st, body
}

func (e *env) sendOK(data []byte) string {
	e.T.Helper()
	id, st, body := e.send(data, 1<<20)
	if st != http.StatusOK {
		e.T.Fatalf("complete: %d %s", st, body)
	}
	return id
}

type job struct {
	ID     int64  `json:"id"`
	State  string `json:"state"`
	Reason string `json:"reason"`
	URL    string `json:"url"`
}

func (e *env) runJob(req map[string]any) job {
	e.T.Helper()
	st, body := e.Admin.Do("POST", "/admin/api/v1/media/jobs", req)
	if st != http.StatusAccepted {
		e.T.Fatalf("create job: %d %s", st, body)
	}
	id := decode[job](e.T, body, "job").ID
	var j job
	writertest.Eventually(e.T, 60*time.Second, "job done", func() bool {
		_, body := e.Admin.Do("GET", fmt.Sprintf("/admin/api/v1/media/jobs/%d", id), nil)
		j = decode[job](e.T, body, "job")
		return j.State == "done" || j.State == "failed"
	})
	if j.State != "done" {
		e.T.Fatalf("job %d %s: %s", id, j.State, j.Reason)
	}
	return j
}

// content waits until volume no of pid (in its work's document) names a
// content version ok accepts, and returns the volume and the version's
// manifest read from the store.
func (e *env) content(pid string, no int, ok func(contract.Volume, contract.ContentManifest) bool) (contract.Volume, contract.ContentManifest) {
	e.T.Helper()
	var vol contract.Volume
	var m contract.ContentManifest
	writertest.WaitKV(e.T, e.KV, contract.ProductKey(pid), 10*time.Second, func(b []byte) bool {
		p, whole := writertest.Work(e.T, e.KV, b)
		if !whole {
			return false
		}
		for _, v := range p.Volumes {
			if v.No != no || v.ContentVer == "" {
				continue
			}
			raw, err := e.store.Get(context.Background(), contract.ContentManifestKey(v.ContentVer))
			m = contract.ContentManifest{}
			if err != nil || json.Unmarshal(raw, &m) != nil {
				return false
			}
			vol = v
			return ok(v, m)
		}
		return false
	})
	return vol, m
}

// noVolumeDocuments checks that nothing is enumerated per volume or per
// variant: no media.vol.* key in the bucket, no media_refs row owned by a
// volume, and originals referenced once each.
func (e *env) noVolumeDocuments() {
	e.T.Helper()
	keys, err := e.KV.ListKeys(context.Background())
	if err != nil {
		e.T.Fatal(err)
	}
	for k := range keys.Keys() {
		if strings.HasPrefix(k, contract.VolumeMediaKeyPrefix) {
			e.T.Errorf("KV key %s: volumes have no media document", k)
		}
	}
	if n := e.Count(`SELECT count(*) FROM media_refs WHERE owner NOT LIKE 'img:%' AND owner <> 'orig'`); n != 0 {
		e.T.Errorf("%d media_refs rows owned by volumes or jobs", n)
	}
	if n := e.Count(`SELECT count(*) FROM volume_media WHERE doc IS NOT NULL`); n != 0 {
		e.T.Errorf("%d volume_media rows carry a document", n)
	}
}

func formatOf(b []byte) string {
	switch {
	case len(b) > 12 && string(b[4:12]) == "ftypavif":
		return contract.FormatAVIF
	case len(b) > 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return contract.FormatWebP
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return contract.FormatJPEG
	}
	return "?"
}

// checkVersion reads every object of a version back from the store, at
// the keys derived from it.
func (e *env) checkVersion(m contract.ContentManifest) {
	e.T.Helper()
	for i, p := range m.Pages {
		for _, w := range p.Widths {
			for _, f := range m.Formats {
				k := contract.ContentObjectKey(m.Ver, i+1, w, f)
				b, err := e.store.Get(context.Background(), k)
				if err != nil || formatOf(b) != f {
					e.T.Fatalf("page %d %d %s (%s): %d bytes of %s, %v", i+1, w, f, k, len(b), formatOf(b), err)
				}
			}
		}
	}
	for i := range m.Chunks {
		if _, err := e.store.Get(context.Background(), contract.ContentChunkKey(m.Ver, i+1)); err != nil {
			e.T.Fatalf("chunk %d: %v", i+1, err)
		}
	}
}
