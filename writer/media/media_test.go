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

func (e *env) volumeDoc(pid string, no int, ok func(contract.VolumeMedia) bool) contract.VolumeMedia {
	e.T.Helper()
	var vm contract.VolumeMedia
	writertest.WaitKV(e.T, e.KV, contract.VolumeMediaKey(pid, no), 10*time.Second, func(b []byte) bool {
		vm = contract.VolumeMedia{}
		return json.Unmarshal(b, &vm) == nil && ok(vm)
	})
	return vm
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

// checkObjects reads every variant of pages back from the store.
func (e *env) checkObjects(pages []contract.MediaImage) {
	e.T.Helper()
	for _, p := range pages {
		for _, v := range p.Variants {
			b, err := e.store.Get(context.Background(), v.Key)
			if err != nil {
				e.T.Fatalf("page %s variant %d %s: %v", p.ID, v.Width, v.Format, err)
			}
			if int64(len(b)) != v.Size || formatOf(b) != v.Format || store.Key(b) != v.Key {
				e.T.Fatalf("page %s variant %d %s: %d bytes of %s under %s", p.ID, v.Width, v.Format, len(b), formatOf(b), v.Key)
			}
		}
	}
}

func TestCoverJobPointsTheWorkAtItsPicture(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P2", "CM")
	cover := pngOf(t, picture(600, 800, 3))
	j := e.runJob(map[string]any{"target": "cover", "pid": "P2", "uploads": []string{e.sendOK(cover)}})
	id := store.Key(cover)
	if j.URL != contract.MediaURL(id) {
		t.Fatalf("job url %s, want %s", j.URL, contract.MediaURL(id))
	}
	writertest.WaitKV(t, e.KV, "prod.P2", 10*time.Second, func(b []byte) bool {
		var p contract.Product
		return json.Unmarshal(b, &p) == nil && p.ThumbURL == contract.MediaURL(id)
	})
	var img contract.MediaImage
	writertest.WaitKV(t, e.KV, contract.MediaImageKey(id), 10*time.Second, func(b []byte) bool {
		return json.Unmarshal(b, &img) == nil
	})
	// 600 wide: 240 and 480, then 600 itself; three formats each.
	if img.ID != id || img.Width != 600 || img.Height != 800 || len(img.Variants) != 9 {
		t.Fatalf("cover document: %+v", img)
	}
	e.checkObjects([]contract.MediaImage{img})

	wide := jpegOf(t, picture(1200, 600, 4))
	e.runJob(map[string]any{"target": "wide", "pid": "P2", "uploads": []string{e.sendOK(wide)}})
	writertest.WaitKV(t, e.KV, "prod.P2", 10*time.Second, func(b []byte) bool {
		var p contract.Product
		return json.Unmarshal(b, &p) == nil && p.ThumbWideURL == contract.MediaURL(store.Key(wide)) && p.ThumbURL == contract.MediaURL(id)
	})
}

func TestBannerAndEventPicturesReachTheirDocuments(t *testing.T) {
	t.Parallel()
	e := start(t)
	now := time.Now().UTC().Truncate(time.Second)
	st, body := e.Admin.Do("POST", "/admin/api/v1/banners", contract.Banner{Place: "home", Title: "배너", StartAt: now, EndAt: now.Add(time.Hour)})
	if st != http.StatusCreated {
		t.Fatalf("banner: %d %s", st, body)
	}
	banner := decode[int64](t, body, "id")
	st, body = e.Admin.Do("POST", "/admin/api/v1/events", contract.Event{Kind: contract.EventHoneyBenefit, Title: "꿀혜택", StartAt: now, EndAt: now.Add(time.Hour)})
	if st != http.StatusCreated {
		t.Fatalf("event: %d %s", st, body)
	}
	event := decode[int64](t, body, "id")
	bannerPic, eventPic := jpegOf(t, picture(900, 300, 31)), pngOf(t, picture(800, 400, 32))
	e.runJob(map[string]any{"target": "banner", "id": banner, "uploads": []string{e.sendOK(bannerPic)}})
	e.runJob(map[string]any{"target": "event", "id": event, "uploads": []string{e.sendOK(eventPic)}})
	writertest.WaitKV(t, e.KV, fmt.Sprintf("banner.%d", banner), 10*time.Second, func(b []byte) bool {
		var d contract.Banner
		return json.Unmarshal(b, &d) == nil && d.ImageURL == contract.MediaURL(store.Key(bannerPic))
	})
	writertest.WaitKV(t, e.KV, fmt.Sprintf("event.%d", event), 10*time.Second, func(b []byte) bool {
		var d contract.Event
		return json.Unmarshal(b, &d) == nil && d.BannerURL == contract.MediaURL(store.Key(eventPic))
	})
	for _, pic := range [][]byte{bannerPic, eventPic} {
		var img contract.MediaImage
		writertest.WaitKV(t, e.KV, contract.MediaImageKey(store.Key(pic)), 10*time.Second, func(b []byte) bool {
			return json.Unmarshal(b, &img) == nil
		})
		e.checkObjects([]contract.MediaImage{img})
	}
	if st, _ := e.Admin.Do("POST", "/admin/api/v1/media/jobs", map[string]any{"target": "banner", "id": 987654, "uploads": []string{e.sendOK(bannerPic)}}); st != http.StatusNotFound {
		t.Fatalf("a picture for a banner that does not exist: %d", st)
	}
}
