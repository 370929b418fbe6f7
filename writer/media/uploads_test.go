package media_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
)

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
	_, m := e.content("P1", 1, func(contract.Volume, contract.ContentManifest) bool { return true })
	if j.URL != contract.VolumeMediaBase("P1", 1, m.Ver) {
		t.Fatalf("job url %s, version %s", j.URL, m.Ver)
	}
	// 3000 and 2000 high at 720 wide: segments of at most 1440, so 3 + 2.
	if m.Kind != contract.MediaKindImages || len(m.Pages) != 5 {
		t.Fatalf("%d pages of kind %s, want 5 segments", len(m.Pages), m.Kind)
	}
	total := 0
	for i, p := range m.Pages {
		if p.W != 720 || p.H > 1440 || len(p.Widths)*len(m.Formats) != 6 {
			t.Fatalf("page %d: %dx%d with widths %v in %v", i, p.W, p.H, p.Widths, m.Formats)
		}
		total += p.H
	}
	if total != 5000 {
		t.Fatalf("segments add up to %d, want 5000", total)
	}
	e.checkVersion(m)
	e.noVolumeDocuments()

	// The same files again are the same version: nothing new.
	again := e.runJob(map[string]any{"target": "volume", "pid": "P1", "no": 1, "uploads": []string{id, second}})
	if again.URL != j.URL {
		t.Fatalf("same files, new version %s (was %s)", again.URL, j.URL)
	}
	if n := e.Count(`SELECT count(*) FROM volume_media WHERE pid = 'P1'`); n != 1 {
		t.Fatalf("%d versions after the same upload twice", n)
	}
	// Each job is a staff change in the audit trail (issue 31), by whom
	// and with which uploads.
	if n := e.Count(`SELECT count(*) FROM staff_audit WHERE action = 'POST media/jobs' AND target = 'volume:P1/1'
		AND actor_role = 'machine' AND after->'uploads' = $1::jsonb`, `["`+id+`", "`+second+`"]`); n != 2 {
		t.Fatalf("%d audit rows for the two jobs of P1/1, want 2", n)
	}
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
	if n := e.Count(`SELECT count(*) FROM staff_audit WHERE action = 'POST media/jobs'`); n != 0 {
		t.Fatalf("%d audit rows written by refused jobs", n)
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
