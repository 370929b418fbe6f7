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
	"storefront/media/process"
	"storefront/media/store"
	"storefront/writer/internal/writertest"
	"storefront/writer/media"
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

func TestStripEpisodeUploadedInResumablePartsIsProcessedAndPublished(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P1", "WT")
	strip1 := jpegOf(t, picture(720, 3000, 1))
	strip2 := jpegOf(t, picture(720, 2000, 2))

	// Part by part, with a dropped connection's resend and mistakes.
	st, body := e.Admin.Do("POST", "/admin/api/v1/media/uploads", map[string]any{"size": len(strip1), "name": "001.jpg"})
	if st != http.StatusCreated {
		t.Fatalf("create upload: %d %s", st, body)
	}
	id := decode[upload](t, body, "upload").ID
	third := len(strip1) / 3
	parts := [][]byte{strip1[:third], strip1[third : 2*third], strip1[2*third:]}
	put := func(n int, b []byte) (int, []byte) {
		return e.Admin.Do("PUT", fmt.Sprintf("/admin/api/v1/media/uploads/%s/parts/%d", id, n), b)
	}
	if st, _ := put(1, parts[0]); st != http.StatusOK {
		t.Fatalf("part 1: %d", st)
	}
	if st, body := put(3, parts[2]); st != http.StatusConflict || !testenv.Korean(writertest.Message(t, body)) {
		t.Fatalf("part 3 before 2: %d %s", st, body)
	}
	if st, _ := put(1, parts[0]); st != http.StatusOK {
		t.Fatalf("part 1 again, same bytes: %d", st)
	}
	if st, _ := put(1, parts[1]); st != http.StatusConflict {
		t.Fatalf("part 1 again, other bytes: %d", st)
	}
	_, body = e.Admin.Do("GET", "/admin/api/v1/media/uploads/"+id, nil)
	if u := decode[upload](t, body, "upload"); u.Parts != 1 || u.Received != int64(third) || u.State != "uploading" {
		t.Fatalf("progress after part 1: %+v", u)
	}
	if st, _ := e.Admin.Do("POST", "/admin/api/v1/media/uploads/"+id+"/complete", nil); st != http.StatusBadRequest {
		t.Fatalf("complete before the last part: %d", st)
	}
	put(2, parts[1])
	put(3, parts[2])
	st, body = e.Admin.Do("POST", "/admin/api/v1/media/uploads/"+id+"/complete", nil)
	if u := decode[upload](t, body, "upload"); st != http.StatusOK || u.State != "complete" || u.Kind != "jpeg" {
		t.Fatalf("complete: %d %s", st, body)
	}
	if keys, _ := e.store.List(context.Background(), "uploads/"); len(keys) != 0 {
		t.Fatalf("parts left behind: %v", keys)
	}
	second := e.sendOK(strip2)

	j := e.runJob(map[string]any{"target": "volume", "pid": "P1", "no": 1, "uploads": []string{id, second}})
	vm := e.volumeDoc("P1", 1, func(v contract.VolumeMedia) bool { return v.Current.Ver != "" })
	if j.URL != contract.VolumeMediaBase("P1", 1, vm.Current.Ver) {
		t.Fatalf("job url %s, document version %s", j.URL, vm.Current.Ver)
	}
	// 3000 and 2000 high at 720 wide: segments of at most 1440, so 3 + 2.
	if vm.Current.Kind != contract.MediaKindImages || len(vm.Current.Pages) != 5 {
		t.Fatalf("%d pages of kind %s, want 5 segments", len(vm.Current.Pages), vm.Current.Kind)
	}
	total := 0
	for i, p := range vm.Current.Pages {
		if p.Width != 720 || p.Height > 1440 || len(p.Variants) != 6 || !contract.ValidMediaID(p.ID) {
			t.Fatalf("page %d: %dx%d with %d variants, id %q", i, p.Width, p.Height, len(p.Variants), p.ID)
		}
		total += p.Height
	}
	if total != 5000 {
		t.Fatalf("segments add up to %d, want 5000", total)
	}
	e.checkObjects(vm.Current.Pages)

	// The same files again are the same version: nothing new.
	again := e.runJob(map[string]any{"target": "volume", "pid": "P1", "no": 1, "uploads": []string{id, second}})
	if again.URL != j.URL {
		t.Fatalf("same files, new version %s (was %s)", again.URL, j.URL)
	}
	if n := e.Count(`SELECT count(*) FROM volume_media WHERE pid = 'P1'`); n != 1 {
		t.Fatalf("%d versions after the same upload twice", n)
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

func TestReplacedVersionIsReadableUntilItsGraceEndsThenRemoved(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P3", "CM")
	shared := jpegOf(t, picture(500, 700, 5))
	onlyOld := jpegOf(t, picture(500, 700, 6))
	onlyNew := jpegOf(t, picture(500, 700, 7))
	s, o, n := e.sendOK(shared), e.sendOK(onlyOld), e.sendOK(onlyNew)

	old := e.runJob(map[string]any{"target": "volume", "pid": "P3", "no": 1, "uploads": []string{s, o}})
	first := e.volumeDoc("P3", 1, func(v contract.VolumeMedia) bool { return len(v.Current.Pages) == 2 })
	replaced := e.runJob(map[string]any{"target": "volume", "pid": "P3", "no": 1, "uploads": []string{s, n}})
	if replaced.URL == old.URL {
		t.Fatal("other files made the same version")
	}
	vm := e.volumeDoc("P3", 1, func(v contract.VolumeMedia) bool { return v.Current.Ver != first.Current.Ver })
	if len(vm.Retired) != 1 || vm.Retired[0].Ver != first.Current.Ver || vm.Retired[0].RetireAt == nil {
		t.Fatalf("the old version is not retiring: %+v", vm.Retired)
	}
	if until := time.Until(*vm.Retired[0].RetireAt); until < 50*time.Minute || until > 61*time.Minute {
		t.Fatalf("retires in %s, want the hour of grace", until)
	}
	// Within the grace period nothing is removed: a reader of the old
	// version keeps reading.
	if n, err := e.Srv.Media().Sweep(context.Background()); err != nil || n != 0 {
		t.Fatalf("sweep within grace: %d, %v", n, err)
	}
	e.checkObjects(first.Current.Pages)

	e.clock.Store(int64(2 * time.Hour / time.Second))
	if n, err := e.Srv.Media().Sweep(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep after grace: %d, %v", n, err)
	}
	after := e.volumeDoc("P3", 1, func(v contract.VolumeMedia) bool { return len(v.Retired) == 0 })
	if after.Current.Ver != vm.Current.Ver {
		t.Fatalf("current changed by the sweep: %s", after.Current.Ver)
	}
	// The page both versions share stays; the old version's own page goes.
	e.checkObjects(after.Current.Pages)
	for _, v := range first.Current.Pages[1].Variants {
		if ok, _ := e.store.Exists(context.Background(), v.Key); ok {
			t.Fatalf("the retired version's %d %s is still stored", v.Width, v.Format)
		}
	}
	if first.Current.Pages[0].ID != after.Current.Pages[0].ID {
		t.Fatal("the shared page got another id")
	}
}

func TestCrashedJobsAreTakenUpAgainAndPoisonJobsStop(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P4", "CM")
	page := jpegOf(t, picture(400, 600, 8))
	id := e.sendOK(page)
	key := store.Key(page)
	ctx := context.Background()
	insert := func(attempts int, lease time.Duration) int64 {
		var jid int64
		if err := e.Pool.QueryRow(ctx, `INSERT INTO media_jobs (target, pid, no, originals, kinds, state, attempts, lease_until)
			VALUES ('volume', 'P4', 1, $1, '{jpeg}', 'running', $2, $3) RETURNING id`,
			[]string{key}, attempts, time.Now().Add(lease)).Scan(&jid); err != nil {
			t.Fatal(err)
		}
		return jid
	}
	// A worker died holding this one (lease ran out); another is alive and
	// working on that one; this one crashed its worker three times.
	crashed := insert(1, -time.Minute)
	alive := insert(1, time.Hour)
	poison := insert(3, -time.Minute)
	_ = id
	state := func(jid int64) (string, string, int) {
		var s, r string
		var a int
		if err := e.Pool.QueryRow(ctx, `SELECT state, reason, attempts FROM media_jobs WHERE id = $1`, jid).Scan(&s, &r, &a); err != nil {
			t.Fatal(err)
		}
		return s, r, a
	}
	writertest.Eventually(t, 30*time.Second, "crashed and poison jobs settled", func() bool {
		a, _, _ := state(crashed)
		b, _, _ := state(poison)
		return a == "done" && b == "failed"
	})
	if s, _, a := state(crashed); s != "done" || a != 2 {
		t.Fatalf("crashed job: %s after %d attempts", s, a)
	}
	if s, r, _ := state(poison); s != "failed" || !testenv.Korean(r) {
		t.Fatalf("poison job: %s %q", s, r)
	}
	if s, _, a := state(alive); s != "running" || a != 1 {
		t.Fatalf("a job another worker holds was taken: %s, %d attempts", s, a)
	}
	e.volumeDoc("P4", 1, func(v contract.VolumeMedia) bool { return len(v.Current.Pages) == 1 })
}

func TestBadUploadsAreRefusedAndStoreNothing(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P5", "WT")
	e.createWork("P6", "EB")
	good := jpegOf(t, picture(64, 64, 9))
	pngBomb := func() []byte { // a valid PNG header declaring 60,000 × 60,000
		var b bytes.Buffer
		png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
		h := b.Bytes()
		h[16], h[17], h[18], h[19] = 0, 0, 0xEA, 0x60
		h[20], h[21], h[22], h[23] = 0, 0, 0xEA, 0x60
		crc := crc32IEEE(h[12:29])
		h[29], h[30], h[31], h[32] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
		return h
	}()
	refused := []struct {
		name string
		data []byte
		code int
	}{
		{"svg named like a picture", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), http.StatusUnsupportedMediaType},
		{"html", []byte(`<html><script>alert(1)</script></html>`), http.StatusUnsupportedMediaType},
		{"pixel bomb", pngBomb, http.StatusRequestEntityTooLarge},
		{"zip with ../", zipOf(t, map[string][]byte{"../../x.jpg": good}), http.StatusBadRequest},
		{"zip bomb", zipOf(t, map[string][]byte{"a.jpg": make([]byte, 30<<20)}), http.StatusBadRequest},
		{"epub with script", epubWith(t, `<p>안녕</p><script>alert(1)</script>`), http.StatusBadRequest},
	}
	for _, c := range refused {
		id, st, body := e.send(c.data, 1<<20)
		if st != c.code || !testenv.Korean(writertest.Message(t, body)) {
			t.Errorf("%s: %d %s, want %d with a Korean reason", c.name, st, body, c.code)
		}
		_, body = e.Admin.Do("GET", "/admin/api/v1/media/uploads/"+id, nil)
		if u := decode[upload](t, body, "upload"); u.State != "aborted" {
			t.Errorf("%s: upload %s after refusal", c.name, u.State)
		}
	}

	id := e.sendOK(good)
	zipID := e.sendOK(zipOf(t, map[string][]byte{"1.jpg": good}))
	epubID := e.sendOK(epubWith(t, `<p>안녕</p>`))
	st, body := e.Admin.Do("POST", "/admin/api/v1/media/uploads", map[string]any{"size": 50})
	open := decode[upload](t, body, "upload").ID
	noToken := &writertest.Client{T: t, Base: e.Base}
	wrongToken := &writertest.Client{T: t, Base: e.Base, Token: "nope"}
	calls := []struct {
		name   string
		c      *writertest.Client
		method string
		path   string
		body   any
		code   int
	}{
		{"upload without admin", noToken, "POST", "/admin/api/v1/media/uploads", map[string]any{"size": 10}, 401},
		{"part without admin", wrongToken, "PUT", "/admin/api/v1/media/uploads/" + open + "/parts/1", "x", 401},
		{"job without admin", noToken, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "cover", "pid": "P5", "uploads": []string{id}}, 401},
		{"oversize file", e.Admin, "POST", "/admin/api/v1/media/uploads", map[string]any{"size": 1 << 40}, 413},
		{"no size", e.Admin, "POST", "/admin/api/v1/media/uploads", map[string]any{"name": "x"}, 400},
		{"unknown field", e.Admin, "POST", "/admin/api/v1/media/uploads", map[string]any{"size": 1, "pid": "P5"}, 400},
		{"part out of order", e.Admin, "PUT", "/admin/api/v1/media/uploads/" + open + "/parts/2", "x", 409},
		{"part number zero", e.Admin, "PUT", "/admin/api/v1/media/uploads/" + open + "/parts/0", "x", 400},
		{"empty part", e.Admin, "PUT", "/admin/api/v1/media/uploads/" + open + "/parts/1", "", 400},
		{"more than declared", e.Admin, "PUT", "/admin/api/v1/media/uploads/" + open + "/parts/1", strings.Repeat("x", 51), 400},
		{"unknown upload", e.Admin, "GET", "/admin/api/v1/media/uploads/0123456789abcdef0123456789abcdef", nil, 404},
		{"unfinished upload", e.Admin, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "volume", "pid": "P5", "no": 1, "uploads": []string{open}}, 400},
		{"unknown volume", e.Admin, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "volume", "pid": "P5", "no": 9, "uploads": []string{id}}, 404},
		{"unknown work", e.Admin, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "cover", "pid": "P404", "uploads": []string{id}}, 404},
		{"bad target", e.Admin, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "avatar", "pid": "P5", "uploads": []string{id}}, 400},
		{"epub for a webtoon", e.Admin, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "volume", "pid": "P5", "no": 1, "uploads": []string{epubID}}, 400},
		{"zip for a cover", e.Admin, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "cover", "pid": "P5", "uploads": []string{zipID}}, 400},
		{"zip and a picture", e.Admin, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "volume", "pid": "P5", "no": 1, "uploads": []string{zipID, id}}, 400},
		{"no uploads", e.Admin, "POST", "/admin/api/v1/media/jobs", map[string]any{"target": "volume", "pid": "P6", "no": 1, "uploads": []string{}}, 400},
		{"unknown job", e.Admin, "GET", "/admin/api/v1/media/jobs/999999", nil, 404},
		{"jobs without pid", e.Admin, "GET", "/admin/api/v1/media/jobs", nil, 400},
	}
	for _, c := range calls {
		st, body := c.c.Do(c.method, c.path, c.body)
		if st != c.code || writertest.Code(t, body) != c.code {
			t.Errorf("%s: %d %s, want %d", c.name, st, body, c.code)
		}
		if st != 401 && !testenv.Korean(writertest.Message(t, body)) {
			t.Errorf("%s: %q is not Korean", c.name, writertest.Message(t, body))
		}
	}
	if n := e.Count(`SELECT count(*) FROM media_jobs`); n != 0 {
		t.Fatalf("%d jobs made by refused calls", n)
	}
	if n := e.Count(`SELECT count(*) FROM media_upload_parts WHERE upload_id = $1`, open); n != 0 {
		t.Fatalf("refused parts recorded: %d", n)
	}
	// The store holds the three good originals and nothing of the refused.
	keys, err := e.store.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 {
		t.Fatalf("store holds %d objects, want the 3 accepted originals: %v", len(keys), keys)
	}
	_ = st
}

func TestComicZipAndNovelEPUBBecomeVersions(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P7", "CM")
	e.createWork("P8", "EB")
	p1, p2 := jpegOf(t, picture(300, 450, 11)), pngOf(t, picture(300, 450, 12))
	e.runJob(map[string]any{"target": "volume", "pid": "P7", "no": 1,
		"uploads": []string{e.sendOK(zipOf(t, map[string][]byte{"p10.png": p2, "p9.jpg": p1, "ComicInfo.xml": []byte("<x/>")}))}})
	comic := e.volumeDoc("P7", 1, func(v contract.VolumeMedia) bool { return len(v.Current.Pages) == 2 })
	// Comic pages are kept whole (no slicing), at their own width.
	for _, p := range comic.Current.Pages {
		if p.Width != 300 || p.Height != 450 || len(p.Variants) != 3 {
			t.Fatalf("comic page %+v", p)
		}
	}
	e.checkObjects(comic.Current.Pages)

	book := epubWithPicture(t, `<h1 style="x">제1장</h1><p onmouseover="" >첫 문장</p>`, pngOf(t, picture(200, 300, 13)))
	if _, st, _ := e.send(book, 1<<20); st != http.StatusBadRequest {
		t.Fatalf("an EPUB with an event handler: %d", st)
	}
	book = epubWithPicture(t, `<h1 style="color:red">제1장</h1><p>첫 문장</p><p><img src="a.png" alt="삽화"/></p>`, pngOf(t, picture(200, 300, 13)))
	j := e.runJob(map[string]any{"target": "volume", "pid": "P8", "no": 1, "uploads": []string{e.sendOK(book)}})
	novel := e.volumeDoc("P8", 1, func(v contract.VolumeMedia) bool { return v.Current.Kind == contract.MediaKindText })
	if len(novel.Current.Texts) != 1 || len(novel.Current.Pages) != 1 {
		t.Fatalf("novel: %d chunks, %d pictures", len(novel.Current.Texts), len(novel.Current.Pages))
	}
	chunk, err := e.store.Get(context.Background(), novel.Current.Texts[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	want := `<h1>제1장</h1><p>첫 문장</p><p><img src="` + j.URL + `/1" alt="삽화"/></p>`
	if string(chunk) != want || int64(len(chunk)) != novel.Current.Texts[0].Size {
		t.Fatalf("chunk:\n%s\nwant:\n%s", chunk, want)
	}
	e.checkObjects(novel.Current.Pages)
}

func TestAbandonedUploadsAreDroppedAfterADay(t *testing.T) {
	t.Parallel()
	e := start(t)
	st, body := e.Admin.Do("POST", "/admin/api/v1/media/uploads", map[string]any{"size": 10})
	if st != http.StatusCreated {
		t.Fatalf("create upload: %d %s", st, body)
	}
	id := decode[upload](t, body, "upload").ID
	if st, _ := e.Admin.Do("PUT", "/admin/api/v1/media/uploads/"+id+"/parts/1", "12345"); st != http.StatusOK {
		t.Fatalf("part: %d", st)
	}
	ctx := context.Background()
	// Half a day later it is still someone's resumable upload.
	e.clock.Store(int64(12 * time.Hour / time.Second))
	if _, err := e.Srv.Media().Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if keys, _ := e.store.List(ctx, "uploads/"+id+"/"); len(keys) != 1 {
		t.Fatalf("a fresh upload's parts were removed: %v", keys)
	}
	e.clock.Store(int64(25 * time.Hour / time.Second))
	if _, err := e.Srv.Media().Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if keys, _ := e.store.List(ctx, "uploads/"+id+"/"); len(keys) != 0 {
		t.Fatalf("an abandoned upload's parts stay: %v", keys)
	}
	_, body = e.Admin.Do("GET", "/admin/api/v1/media/uploads/"+id, nil)
	if u := decode[upload](t, body, "upload"); u.State != "aborted" {
		t.Fatalf("abandoned upload is %s", u.State)
	}
	if st, _ := e.Admin.Do("PUT", "/admin/api/v1/media/uploads/"+id+"/parts/2", "67890"); st != http.StatusConflict {
		t.Fatalf("a part for an abandoned upload: %d", st)
	}
}

func TestEnqueueInProcessReusesWhatItAlreadyMade(t *testing.T) {
	t.Parallel()
	e := start(t, func(c *server.Config) { c.MediaWorkers = 2 })
	e.createWork("P9", "CM")
	ctx := context.Background()
	svc := e.Srv.Media()
	pages := [][]byte{jpegOf(t, picture(300, 400, 21)), jpegOf(t, picture(300, 400, 22))}
	cover := jpegOf(t, picture(300, 400, 23))
	vol, err := svc.Enqueue(ctx, media.Job{Target: media.TargetVolume, PID: "P9", No: 1}, pages)
	if err != nil {
		t.Fatal(err)
	}
	cov, err := svc.Enqueue(ctx, media.Job{Target: media.TargetCover, PID: "P9"}, [][]byte{cover})
	if err != nil {
		t.Fatal(err)
	}
	writertest.Eventually(t, 60*time.Second, "both jobs done", func() bool {
		a, _, _ := svc.JobState(ctx, vol)
		b, _, _ := svc.JobState(ctx, cov)
		return a == "done" && b == "done"
	})
	e.volumeDoc("P9", 1, func(v contract.VolumeMedia) bool { return len(v.Current.Pages) == 2 })
	// A second run of the launcher: the same files find their done jobs.
	again, err := svc.Enqueue(ctx, media.Job{Target: media.TargetVolume, PID: "P9", No: 1}, pages)
	if err != nil || again != vol {
		t.Fatalf("same pages again: job %d (%v), want %d", again, err, vol)
	}
	if n := e.Count(`SELECT count(*) FROM media_jobs`); n != 2 {
		t.Fatalf("%d jobs after enqueuing the same files twice", n)
	}
	_, err = svc.Enqueue(ctx, media.Job{Target: media.TargetVolume, PID: "P9", No: 1}, [][]byte{[]byte(`<svg onload="alert(1)"/>`)})
	if _, ok := process.AsRefusal(err); !ok {
		t.Fatalf("an SVG page: %v, want a refusal", err)
	}
	if _, err := svc.Enqueue(ctx, media.Job{Target: media.TargetVolume, PID: "P9", No: 7}, pages); err == nil {
		t.Fatal("pages for a volume that does not exist were queued")
	}
	if n := e.Count(`SELECT count(*) FROM media_jobs`); n != 2 {
		t.Fatalf("%d jobs after refused enqueues", n)
	}
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

func TestOneOriginalGivenToManyVolumesIsEncodedOnce(t *testing.T) {
	t.Parallel()
	e := start(t)
	w := work("P11", "CM")
	var vols []map[string]any
	var refs []media.Volume
	for no := 1; no <= 40; no++ {
		vols = append(vols, map[string]any{"no": no, "title": fmt.Sprintf("%d권", no), "isFree": true, "pages": 2, "previewPages": 1})
		refs = append(refs, media.Volume{PID: "P11", No: no})
	}
	w["volumes"] = vols
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", w); st != http.StatusCreated {
		t.Fatalf("create work: %d %s", st, body)
	}
	e.createWork("P12", "CM")
	ctx := context.Background()
	svc := e.Srv.Media()
	pages := [][]byte{jpegOf(t, picture(300, 400, 41)), jpegOf(t, picture(300, 400, 42))}
	n, err := svc.EnqueueVolumes(ctx, pages, refs)
	if err != nil || n != 40 {
		t.Fatalf("queued %d (%v), want 40", n, err)
	}
	// The same first page as another work's cover: another recipe, made on its own.
	if _, err := svc.Enqueue(ctx, media.Job{Target: media.TargetCover, PID: "P12"}, pages[:1]); err != nil {
		t.Fatal(err)
	}
	writertest.Eventually(t, 120*time.Second, "every job done", func() bool {
		return e.Count(`SELECT count(*) FROM media_jobs WHERE state <> 'done'`) == 0
	})
	first := e.volumeDoc("P11", 1, func(v contract.VolumeMedia) bool { return len(v.Current.Pages) == 2 })
	for no := 2; no <= 40; no++ {
		vm := e.volumeDoc("P11", no, func(v contract.VolumeMedia) bool { return len(v.Current.Pages) == 2 })
		a, _ := json.Marshal(vm.Current)
		b, _ := json.Marshal(first.Current)
		if string(a) != string(b) {
			t.Fatalf("volume %d: %s, volume 1: %s", no, a, b)
		}
	}
	e.checkObjects(first.Current.Pages)
	// Two pages for forty volumes and one cover: three pictures encoded.
	if got := svc.Encoded(); got != 3 {
		t.Fatalf("%d pictures encoded for 2 pages given to 40 volumes and a cover, want 3", got)
	}
	// A second run queues nothing.
	if n, err := svc.EnqueueVolumes(ctx, pages, refs); err != nil || n != 0 {
		t.Fatalf("the same pages again queued %d (%v)", n, err)
	}
	// A volume that is not there refuses the whole call.
	if _, err := svc.EnqueueVolumes(ctx, pages, []media.Volume{{PID: "P11", No: 41}, {PID: "P11", No: 1}}); err == nil {
		t.Fatal("pages for a volume that does not exist were queued")
	}
	if n := e.Count(`SELECT count(*) FROM media_jobs`); n != 41 {
		t.Fatalf("%d jobs, want 41", n)
	}
	if svc.Encoded() != 3 {
		t.Fatalf("encoded %d after the second run", svc.Encoded())
	}
}
