package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/edge/server"
	"storefront/media/store"
)

// memObjects is a content store in memory that counts its reads.
type memObjects struct {
	mu    sync.Mutex
	m     map[string][]byte
	reads atomic.Int64
	fail  atomic.Bool
}

func (o *memObjects) Get(_ context.Context, key string) ([]byte, error) {
	o.reads.Add(1)
	if o.fail.Load() {
		return nil, errors.New("store down")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.m[key]
	if !ok {
		return nil, fmt.Errorf("object %s: not found", key)
	}
	return b, nil
}

// put stores data under its hash and returns the key.
func (o *memObjects) put(data []byte) string {
	sum := sha256.Sum256(data)
	k := hex.EncodeToString(sum[:])
	o.mu.Lock()
	if o.m == nil {
		o.m = map[string][]byte{}
	}
	o.m[k] = data
	o.mu.Unlock()
	return k
}

func hexOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// mediaImage makes a picture in 360/720/1080 × avif/webp/jpeg whose bytes
// name their variant ("<name> 720 webp"), stored in o.
func mediaImage(o *memObjects, name string, h1080 int) contract.MediaImage {
	img := contract.MediaImage{ID: hexOf(name), Width: 1080, Height: h1080}
	for _, w := range []int{360, 720, 1080} {
		for _, f := range []string{contract.FormatAVIF, contract.FormatWebP, contract.FormatJPEG} {
			data := []byte(fmt.Sprintf("%s %d %s", name, w, f))
			img.Variants = append(img.Variants, contract.MediaVariant{Width: w, Height: h1080 * w / 1080, Format: f, Key: o.put(data), Size: int64(len(data))})
		}
	}
	return img
}

// volumeMedia makes n pages of version ver ("<pid>/<no>/<ver> page <i>").
func volumeMedia(o *memObjects, pid string, no int, ver string, n int) contract.VolumeMediaVersion {
	v := contract.VolumeMediaVersion{Ver: ver, Kind: contract.MediaKindImages}
	for i := 1; i <= n; i++ {
		v.Pages = append(v.Pages, mediaImage(o, fmt.Sprintf("%s/%d/%s page %d", pid, no, ver, i), 1600))
	}
	return v
}

func withObjects(o server.ObjectSource) edgeOpt {
	return func(c *server.Config) { c.Objects = o }
}

// envelopeMsg checks a refusal is the seed's envelope in Korean and returns its message.
func envelopeMsg(t *testing.T, what string, b []byte, code int) {
	t.Helper()
	want := fmt.Sprintf(`{"header":{"code":%d,"message":"`, code)
	if !strings.HasPrefix(string(b), want) || !containsHangul(string(b)) {
		t.Errorf("%s: body %.200s, want the envelope with code %d in Korean", what, b, code)
	}
}

func containsHangul(s string) bool {
	for _, r := range s {
		if r >= 0xAC00 && r <= 0xD7A3 {
			return true
		}
	}
	return false
}

// TestMediaImagesNegotiatedAndExplicit: a public picture comes in the best
// format the browser's Accept takes (AVIF, WebP, JPEG), in the narrowest
// width of at least ?w=, or exactly as an explicit variant URL names it;
// immutable, with the object's hash as ETag, 304 and byte ranges.
func TestMediaImagesNegotiatedAndExplicit(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	img := mediaImage(o, "cover", 1500)
	e.put(contract.MediaImageKey(img.ID), img)
	g := startEdge(t, e, withObjects(o))
	g.waitReady()
	u := contract.MediaURL(img.ID)
	for _, tc := range []struct {
		path, accept, want, ctype string
		vary                      bool
	}{
		{u, "image/avif,image/webp,image/apng,image/*,*/*;q=0.8", "cover 1080 avif", "image/avif", true},
		{u, "image/webp,*/*", "cover 1080 webp", "image/webp", true},
		{u, "image/png,image/*;q=0.8", "cover 1080 jpeg", "image/jpeg", true},
		{u, "", "cover 1080 jpeg", "image/jpeg", true},
		{u + "?w=400", "image/webp", "cover 720 webp", "image/webp", true},
		{u + "?w=360", "image/avif", "cover 360 avif", "image/avif", true},
		{u + "?w=4000", "image/avif", "cover 1080 avif", "image/avif", true},
		{u + "/360.webp", "image/avif", "cover 360 webp", "image/webp", false},
		{u + "/1080.jpg", "", "cover 1080 jpeg", "image/jpeg", false},
	} {
		var hs []string
		if tc.accept != "" {
			hs = append(hs, "Accept: "+tc.accept)
		}
		resp, b := g.get(tc.path, hs...)
		if resp.StatusCode != 200 || string(b) != tc.want || resp.Header.Get("Content-Type") != tc.ctype {
			t.Errorf("%s (Accept %q): %d %s %q, want %q %s", tc.path, tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), b, tc.want, tc.ctype)
			continue
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", tc.path, cc)
		}
		if vary := resp.Header.Get("Vary"); (vary == "Accept") != tc.vary {
			t.Errorf("%s: Vary %q, negotiated %v", tc.path, vary, tc.vary)
		}
		if et := resp.Header.Get("ETag"); et != `"`+hexOf(tc.want)+`"` {
			t.Errorf("%s: ETag %s, want the object key", tc.path, et)
		}
	}
	// 304 for the ETag the browser holds, and byte ranges of the object.
	key := hexOf("cover 1080 jpeg")
	if resp, b := g.get(u+"/1080.jpg", `If-None-Match: "`+key+`"`); resp.StatusCode != 304 || len(b) != 0 {
		t.Errorf("If-None-Match: %d %q, want 304 without a body", resp.StatusCode, b)
	}
	if resp, _ := g.get(u+"/1080.jpg", `If-None-Match: "`+hexOf("other")+`"`); resp.StatusCode != 200 {
		t.Errorf("other ETag: %d, want 200", resp.StatusCode)
	}
	if resp, b := g.get(u+"/1080.jpg", "Range: bytes=6-9"); resp.StatusCode != 206 || string(b) != "1080" ||
		resp.Header.Get("Content-Range") != "bytes 6-9/15" {
		t.Errorf("Range: %d %q %s", resp.StatusCode, b, resp.Header.Get("Content-Range"))
	}
	if resp, b := g.get(u+"/1080.jpg", "Range: bytes=11-"); resp.StatusCode != 206 || string(b) != "jpeg" {
		t.Errorf("open Range: %d %q", resp.StatusCode, b)
	}
	if resp, b := g.get(u+"/1080.jpg", "Range: bytes=6-9", `If-Range: "`+hexOf("old")+`"`); resp.StatusCode != 200 || string(b) != "cover 1080 jpeg" {
		t.Errorf("If-Range of other bytes: %d %q, want the whole object", resp.StatusCode, b)
	}
	resp, b := g.get(u+"/1080.jpg", "Range: bytes=100-200")
	if resp.StatusCode != 416 || resp.Header.Get("Content-Range") != "bytes */15" {
		t.Errorf("unsatisfiable Range: %d %s", resp.StatusCode, resp.Header.Get("Content-Range"))
	}
	envelopeMsg(t, "416", b, 416)
	// Unknown pictures and variants are 404 in the envelope.
	for _, p := range []string{contract.MediaURL(hexOf("nope")), u + "/500.webp", u + "/720.gif", u + "/720", u + "/x.webp", "/media/", "/media/" + img.ID + "/../x"} {
		resp, b := g.get(p)
		if resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
			continue
		}
		envelopeMsg(t, p, b, 404)
	}
	if resp, _ := g.get(u, "Accept: image/avif"); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	// Every object read once: the rest came from the edge's cache.
	reads := o.reads.Load()
	for range 5 {
		g.get(u, "Accept: image/avif")
	}
	if o.reads.Load() != reads {
		t.Errorf("%d store reads for cached objects", o.reads.Load()-reads)
	}
}

// TestContentPagesGated: preview pages of a version are public; every other
// page, in every width and format, negotiated or explicit, needs the content
// token of exactly this volume; expired tokens and tokens of other volumes
// open nothing.
func TestContentPagesGated(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰"))
	ver := "0a1b2c3d4e5f6a7b"
	cur := volumeMedia(o, "w1", 1, ver, 4)
	e.put(contract.VolumeMediaKey("w1", 1), contract.VolumeMedia{PID: "w1", No: 1, Current: cur, Version: 1})
	e.put(contract.VolumeMediaKey("w1", 2), contract.VolumeMedia{PID: "w1", No: 2, Current: volumeMedia(o, "w1", 2, ver, 4), Version: 1})
	g := startEdge(t, e, withObjects(o))
	g.waitReady()
	secret := []byte("dev-content-secret")
	base := contract.VolumeMediaBase("w1", 1, ver)
	tok := contract.SignContent(secret, "w1", 1, time.Now().Add(time.Hour))
	other := contract.SignContent(secret, "w1", 2, time.Now().Add(time.Hour))
	otherWork := contract.SignContent(secret, "w2", 1, time.Now().Add(time.Hour))
	expired := contract.SignContent(secret, "w1", 1, time.Now().Add(-time.Second))
	forged := tok[:len(tok)-2] + "AA"

	// preview (pages 1-2): public, cacheable by anyone
	resp, b := g.get(base+"/1", "Accept: image/webp")
	if resp.StatusCode != 200 || string(b) != "w1/1/"+ver+" page 1 1080 webp" || resp.Header.Get("Cache-Control") != "public, max-age=86400" {
		t.Fatalf("preview page: %d %q %s", resp.StatusCode, b, resp.Header.Get("Cache-Control"))
	}
	if resp, b := g.get(base + "/2/360.avif"); resp.StatusCode != 200 || string(b) != "w1/1/"+ver+" page 2 360 avif" {
		t.Errorf("preview variant: %d %q", resp.StatusCode, b)
	}
	// past the preview: every variant refused without the right token, served with it
	var paths []string
	for n := 3; n <= 4; n++ {
		paths = append(paths, fmt.Sprintf("%s/%d", base, n), fmt.Sprintf("%s/%d?w=360", base, n))
		for _, w := range []int{360, 720, 1080} {
			for _, ext := range []string{"avif", "webp", "jpg"} {
				paths = append(paths, fmt.Sprintf("%s/%d/%d.%s", base, n, w, ext))
			}
		}
	}
	for _, p := range paths {
		for _, bad := range []string{"", "?t=" + other, "?t=" + otherWork, "?t=" + expired, "?t=" + forged, "?t=garbage"} {
			q := bad
			if strings.Contains(p, "?") && q != "" {
				q = "&" + q[1:]
			}
			for _, accept := range []string{"image/avif", "image/webp", ""} {
				resp, b := g.get(p+q, "Accept: "+accept)
				if resp.StatusCode != 403 {
					t.Fatalf("%s%s (Accept %s): %d %q, want 403", p, q, accept, resp.StatusCode, b)
				}
				envelopeMsg(t, p+q, b, 403)
			}
		}
		q := "?t=" + tok
		if strings.Contains(p, "?") {
			q = "&t=" + tok
		}
		resp, b := g.get(p+q, "Accept: image/avif")
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "w1/1/"+ver+" page ") || resp.Header.Get("Cache-Control") != "private, max-age=3600" {
			t.Errorf("%s with its token: %d %q %s", p, resp.StatusCode, b, resp.Header.Get("Cache-Control"))
		}
	}
	// The token of volume 1 remembered by the edge still opens nothing of volume 2.
	if resp, _ := g.get(contract.VolumeMediaBase("w1", 2, ver) + "/3?t=" + tok); resp.StatusCode != 403 {
		t.Errorf("volume 2 with volume 1's token: %d", resp.StatusCode)
	}
	if resp, _ := g.get(contract.VolumeMediaBase("w1", 2, ver) + "/3?t=" + other); resp.StatusCode != 200 {
		t.Errorf("volume 2 with its token: %d", resp.StatusCode)
	}
	// Pages and versions that do not exist, and malformed paths.
	for _, p := range []string{base + "/5", base + "/0", base + "/1.html", contract.VolumeMediaBase("w1", 1, "ffff") + "/1",
		contract.VolumeMediaBase("w1", 3, ver) + "/1", contract.VolumeMediaBase("w9", 1, ver) + "/1", contract.VolumeMediaBase("w1", 1, "XYZ") + "/1",
		base + "/1/1080.png", base + "/1/1080.jpg/x", base + "/-1"} {
		resp, b := g.get(p + "?t=" + tok)
		if resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
			continue
		}
		envelopeMsg(t, p, b, 404)
	}
	if resp, b := g.get(base+"/1", "Range: bytes=0-3"); resp.StatusCode != 206 || string(b) != "w1/1" {
		t.Errorf("range of a page: %d %q", resp.StatusCode, b)
	}
	// The store down: a page not cached yet is a 503 in the envelope, not a hang or a 200.
	o.fail.Store(true)
	resp, b = g.get(base + "/4/720.webp?t=" + tok)
	if resp.StatusCode != 200 {
		// 4/720.webp was read above and is cached
		t.Errorf("cached page with the store down: %d", resp.StatusCode)
	}
	resp, b = g.get(contract.VolumeMediaBase("w1", 2, ver) + "/4/720.webp?t=" + other)
	if resp.StatusCode != 503 {
		t.Errorf("uncached page with the store down: %d %q", resp.StatusCode, b)
	}
	envelopeMsg(t, "store down", b, 503)
}

// TestContentVersionsReleaseAndAudience: a replaced version keeps serving
// until its RetireAt, then is gone; an older document arriving late changes
// nothing; a volume not released by the edge's clock has no pages; the teen
// version gets no page of an adult work, and an adult's pages stay out of
// shared caches.
func TestContentVersionsReleaseAndAudience(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	clk := &clock{t: t0}
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", func(p *contract.Product) {
		p.Volumes[2].ReleaseAt = t0.Add(time.Hour) // volume 3 comes out in an hour
	}))
	e.putProduct(product("ad1", contract.SectionWebtoon, "성인 웹툰", func(p *contract.Product) { p.Age = 19 }))
	retire := t0.Add(30 * time.Minute)
	oldV, newV := volumeMedia(o, "w1", 1, "00aa", 3), volumeMedia(o, "w1", 1, "00bb", 3)
	oldV.RetireAt = &retire
	e.put(contract.VolumeMediaKey("w1", 1), contract.VolumeMedia{PID: "w1", No: 1, Current: newV, Retired: []contract.VolumeMediaVersion{oldV}, Version: 2})
	e.put(contract.VolumeMediaKey("w1", 3), contract.VolumeMedia{PID: "w1", No: 3, Current: volumeMedia(o, "w1", 3, "00cc", 3), Version: 1})
	e.put(contract.VolumeMediaKey("ad1", 1), contract.VolumeMedia{PID: "ad1", No: 1, Current: volumeMedia(o, "ad1", 1, "00dd", 3), Version: 1})
	g := startEdge(t, e, withObjects(o), func(c *server.Config) { c.Now = clk.Now })
	g.waitReady()
	status := func(p string, hs ...string) int { resp, _ := g.get(p, hs...); return resp.StatusCode }
	oldURL, newURL := contract.VolumeMediaBase("w1", 1, "00aa")+"/1", contract.VolumeMediaBase("w1", 1, "00bb")+"/1"
	if status(oldURL) != 200 || status(newURL) != 200 {
		t.Fatalf("both versions within the grace period: %d %d", status(oldURL), status(newURL))
	}
	// a late, older document does not bring the old version back as current
	e.put(contract.VolumeMediaKey("w1", 1), contract.VolumeMedia{PID: "w1", No: 1, Current: oldV, Version: 1})
	e.put(contract.VolumeMediaKey("w1", 2), contract.VolumeMedia{PID: "w1", No: 2, Current: volumeMedia(o, "w1", 2, "00ee", 1), Version: 1})
	eventually(t, "the later document applied", func() bool { return status(contract.VolumeMediaBase("w1", 2, "00ee")+"/1") == 200 })
	var m struct {
		Ver string `json:"ver"`
	}
	g.getJSON("/home/api/v1/products/w1/volumes/1/media", 200, &m)
	if m.Ver != "00bb" {
		t.Errorf("manifest version %q after a late older document, want 00bb", m.Ver)
	}
	clk.Set(retire)
	if status(oldURL) != 404 || status(newURL) != 200 {
		t.Errorf("after RetireAt: old %d (want 404), new %d", status(oldURL), status(newURL))
	}
	vol3 := contract.VolumeMediaBase("w1", 3, "00cc") + "/1"
	if st := status(vol3); st != 404 {
		t.Errorf("unreleased volume: %d, want 404", st)
	}
	clk.Set(t0.Add(time.Hour))
	if st := status(vol3); st != 200 {
		t.Errorf("released volume: %d, want 200", st)
	}
	adultURL := contract.VolumeMediaBase("ad1", 1, "00dd") + "/1"
	exp := clk.Now().Add(time.Hour)
	for _, hs := range [][]string{nil, {audCookie(1, exp)}, {audCookie(2, exp), "X-Channel: AA"}} {
		if st := status(adultURL, hs...); st != 404 {
			t.Errorf("adult page for the teen version %v: %d, want 404", hs, st)
		}
	}
	resp, _ := g.get(adultURL, audCookie(2, exp), "Accept: image/webp")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Cache-Control"), "private") || !strings.Contains(resp.Header.Get("Vary"), "Cookie") {
		t.Errorf("adult page for an adult: %d %s / %s", resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("Vary"))
	}
	// the volume's document deleted: its pages are gone
	if err := e.kv.Delete(context.Background(), contract.VolumeMediaKey("w1", 3)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "pages of a deleted document gone", func() bool { return status(vol3) == 404 })
}

// TestNovelChunks: a novel's sanitized chunks are HTML that runs nothing if
// opened as a page; the same gating as pictures.
func TestNovelChunks(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	e.putProduct(product("n1", contract.SectionNovel, "소설"))
	v := contract.VolumeMediaVersion{Ver: "0123", Kind: contract.MediaKindText}
	for i := 1; i <= 3; i++ {
		data := []byte(fmt.Sprintf("<p>%d장</p>", i))
		v.Texts = append(v.Texts, contract.MediaText{Key: o.put(data), Size: int64(len(data))})
	}
	e.put(contract.VolumeMediaKey("n1", 1), contract.VolumeMedia{PID: "n1", No: 1, Current: v, Version: 1})
	g := startEdge(t, e, withObjects(o))
	g.waitReady()
	base := contract.VolumeMediaBase("n1", 1, "0123")
	resp, b := g.get(base + "/1.html")
	if resp.StatusCode != 200 || string(b) != "<p>1장</p>" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("chunk: %d %q %s / %s", resp.StatusCode, b, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"))
	}
	if st, _ := g.get(base + "/3.html"); st.StatusCode != 403 {
		t.Errorf("paid chunk without a token: %d", st.StatusCode)
	}
	tok := contract.SignContent([]byte("dev-content-secret"), "n1", 1, time.Now().Add(time.Hour))
	if resp, b := g.get(base + "/3.html?t=" + tok); resp.StatusCode != 200 || string(b) != "<p>3장</p>" {
		t.Errorf("paid chunk with its token: %d %q", resp.StatusCode, b)
	}
	// a chunk is no picture, and the manifest counts chunks
	if st, _ := g.get(base + "/1"); st.StatusCode != 404 {
		t.Errorf("chunk as a picture: %d", st.StatusCode)
	}
	var m struct {
		Kind   string `json:"kind"`
		Chunks int    `json:"chunks"`
		Base   string `json:"base"`
	}
	g.getJSON("/home/api/v1/products/n1/volumes/1/media", 200, &m)
	if m.Kind != contract.MediaKindText || m.Chunks != 3 || m.Base != base {
		t.Errorf("novel manifest %+v", m)
	}
}

// TestVolumeManifest: the viewer learns the current version, every page's
// size and widths and the formats every page has before any byte arrives.
func TestVolumeManifest(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰"))
	e.putProduct(product("ad1", contract.SectionWebtoon, "성인 웹툰", func(p *contract.Product) { p.Age = 19 }))
	cur := volumeMedia(o, "w1", 1, "00ab", 2)
	// the second page was narrower than 1080: two widths, no AVIF
	cur.Pages[1].Width, cur.Pages[1].Height = 720, 900
	var vs []contract.MediaVariant
	for _, x := range cur.Pages[1].Variants {
		if x.Width <= 720 && x.Format != contract.FormatAVIF {
			vs = append(vs, x)
		}
	}
	cur.Pages[1].Variants = vs
	e.put(contract.VolumeMediaKey("w1", 1), contract.VolumeMedia{PID: "w1", No: 1, Current: cur, Version: 1})
	e.put(contract.VolumeMediaKey("ad1", 1), contract.VolumeMedia{PID: "ad1", No: 1, Current: volumeMedia(o, "ad1", 1, "00dd", 1), Version: 1})
	g := startEdge(t, e, withObjects(o))
	g.waitReady()
	var m struct {
		Header       contract.Header `json:"header"`
		Ver          string          `json:"ver"`
		Base         string          `json:"base"`
		Kind         string          `json:"kind"`
		PreviewPages int             `json:"previewPages"`
		Formats      []string        `json:"formats"`
		Pages        []struct {
			W, H   int
			Widths []int
		} `json:"pages"`
	}
	g.getJSON("/home/api/v1/products/w1/volumes/1/media", 200, &m)
	if m.Header.Code != 200 || m.Ver != "00ab" || m.Base != "/content/w1/1/00ab" || m.Kind != "images" || m.PreviewPages != 2 ||
		fmt.Sprint(m.Formats) != "[webp jpeg]" || len(m.Pages) != 2 ||
		m.Pages[0].W != 1080 || m.Pages[0].H != 1600 || fmt.Sprint(m.Pages[0].Widths) != "[360 720 1080]" ||
		m.Pages[1].W != 720 || m.Pages[1].H != 900 || fmt.Sprint(m.Pages[1].Widths) != "[360 720]" {
		t.Errorf("manifest %+v", m)
	}
	for _, tc := range []struct {
		path    string
		headers []string
		want    int
	}{
		{"/home/api/v1/products/w1/volumes/2/media", nil, 404}, // no content yet
		{"/home/api/v1/products/w1/volumes/9/media", nil, 404},
		{"/home/api/v1/products/w1/volumes/x/media", nil, 404},
		{"/home/api/v1/products/nope/volumes/1/media", nil, 404},
		{"/home/api/v1/products/ad1/volumes/1/media", nil, 403},
		{"/home/api/v1/products/ad1/volumes/1/media", []string{audCookie(2, time.Now().Add(time.Hour))}, 200},
	} {
		resp, b := g.get(tc.path, tc.headers...)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d want %d %.200s", tc.path, resp.StatusCode, tc.want, b)
		} else if tc.want != 200 {
			envelopeMsg(t, tc.path, b, tc.want)
		}
	}
	// The detail and the volume list name the current version of each
	// volume that has processed content, and only those.
	var d struct {
		VolList []struct {
			No        int     `json:"no"`
			MediaBase *string `json:"mediaBase"`
		} `json:"volList"`
	}
	for _, path := range []string{"/home/api/v1/products/w1", "/home/api/v1/products/w1/volumes"} {
		g.getJSON(path, 200, &d)
		if len(d.VolList) != 3 || d.VolList[0].MediaBase == nil || *d.VolList[0].MediaBase != "/content/w1/1/00ab" || d.VolList[1].MediaBase != nil {
			t.Errorf("%s: volList media bases %+v", path, d.VolList)
		}
	}
	// a new version is in the manifest, the detail and the list at once
	e.put(contract.VolumeMediaKey("w1", 1), contract.VolumeMedia{PID: "w1", No: 1, Current: volumeMedia(o, "w1", 1, "00ac", 1), Version: 2})
	for _, path := range []string{"/home/api/v1/products/w1/volumes/1/media", "/home/api/v1/products/w1", "/home/api/v1/products/w1/volumes"} {
		eventually(t, "the new version in "+path, func() bool {
			_, b := g.get(path)
			return bytes.Contains(b, []byte(`00ac`))
		})
	}
}

// TestMediaAnswersMatchOpenAPI: pictures, pages, chunks, manifests and their
// refusals as docs/openapi.yaml describes them.
func TestMediaAnswersMatchOpenAPI(t *testing.T) {
	for _, ct := range []string{"image/avif", "image/webp", "image/jpeg"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	e := newEnv(t)
	o := &memObjects{}
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰"))
	e.putProduct(product("n1", contract.SectionNovel, "소설"))
	img := mediaImage(o, "cover", 1500)
	e.put(contract.MediaImageKey(img.ID), img)
	e.put(contract.VolumeMediaKey("w1", 1), contract.VolumeMedia{PID: "w1", No: 1, Current: volumeMedia(o, "w1", 1, "00ab", 3), Version: 1})
	chunk := []byte("<p>1장</p>")
	e.put(contract.VolumeMediaKey("n1", 1), contract.VolumeMedia{PID: "n1", No: 1, Version: 1,
		Current: contract.VolumeMediaVersion{Ver: "00cd", Kind: contract.MediaKindText, Texts: []contract.MediaText{{Key: o.put(chunk), Size: int64(len(chunk))}}}})
	g := startEdge(t, e, withObjects(o))
	g.waitReady()
	doc, err := openapi3.NewLoader().LoadFromFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = openapi3.Servers{{URL: g.url}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(g.url)
	base := contract.VolumeMediaBase("w1", 1, "00ab")
	for _, c := range []struct{ path, header string }{
		{contract.MediaURL(img.ID), "Accept: image/avif"},
		{contract.MediaURL(img.ID) + "?w=360", "Accept: image/webp"},
		{contract.MediaURL(img.ID) + "/720.jpg", ""},
		{contract.MediaURL(img.ID) + "/720.jpg", "Range: bytes=0-3"},
		{contract.MediaURL(img.ID) + "/720.jpg", "Range: bytes=900-"},
		{contract.MediaURL(hexOf("none")), ""},
		{contract.MediaURL(img.ID) + "/1.gif", ""},
		{base + "/1", "Accept: image/avif"},
		{base + "/1/360.webp", ""},
		{base + "/3", ""},
		{base + "/3/360.webp", ""},
		{base + "/9", ""},
		{contract.VolumeMediaBase("n1", 1, "00cd") + "/1.html", ""},
		{"/home/api/v1/products/w1/volumes/1/media", ""},
		{"/home/api/v1/products/n1/volumes/1/media", ""},
		{"/home/api/v1/products/w1/volumes/2/media", ""},
	} {
		req, _ := http.NewRequest("GET", g.url+c.path, nil)
		req.Host = u.Host
		if k, v, ok := strings.Cut(c.header, ": "); ok {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		validate(t, router, req, resp, body)
	}
}

// TestMediaFromContentStore: the edge opens CONTENT_STORE_URL itself and
// serves what processing put there, from a folder and from a real
// S3-compatible server (versitygw); a document naming an object the store
// lacks is a 503, not a 200 with nothing.
func TestMediaFromContentStore(t *testing.T) {
	for name, storeURL := range map[string]string{"folder": t.TempDir(), "s3": testenv.S3URL(t)} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, storeURL)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			e := newEnv(t)
			e.putProduct(product("w1", contract.SectionWebtoon, "웹툰"))
			var vs []contract.MediaVariant
			for _, f := range []string{contract.FormatWebP, contract.FormatJPEG} {
				data := bytes.Repeat([]byte(f), 50_000)
				key, err := st.Put(ctx, data, contract.MediaContentType(f))
				if err != nil {
					t.Fatal(err)
				}
				vs = append(vs, contract.MediaVariant{Width: 720, Height: 1000, Format: f, Key: key, Size: int64(len(data))})
			}
			lost := contract.MediaVariant{Width: 360, Height: 500, Format: contract.FormatJPEG, Key: hexOf("never stored"), Size: 10}
			page := contract.MediaImage{ID: hexOf("p1"), Width: 720, Height: 1000, Variants: append(vs, lost)}
			e.put(contract.VolumeMediaKey("w1", 1), contract.VolumeMedia{PID: "w1", No: 1, Version: 1,
				Current: contract.VolumeMediaVersion{Ver: "00ab", Kind: contract.MediaKindImages, Pages: []contract.MediaImage{page}}})
			g := startEdge(t, e, func(c *server.Config) { c.ContentStoreURL = storeURL })
			g.waitReady()
			base := contract.VolumeMediaBase("w1", 1, "00ab")
			resp, b := g.get(base+"/1", "Accept: image/webp")
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/webp" || !bytes.Equal(b, bytes.Repeat([]byte("webp"), 50_000)) {
				t.Errorf("webp page: %d %s %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(b))
			}
			if resp, b := g.get(base+"/1/720.jpg", "Range: bytes=199996-"); resp.StatusCode != 206 || string(b) != "jpeg" {
				t.Errorf("jpeg tail: %d %q", resp.StatusCode, b)
			}
			resp, b = g.get(base + "/1/360.jpg")
			if resp.StatusCode != 503 {
				t.Errorf("object missing from the store: %d", resp.StatusCode)
			}
			envelopeMsg(t, "missing object", b, 503)
		})
	}
}
