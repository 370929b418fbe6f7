package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/server"
)

// TestContentPagesGated: preview pages of a version are public; every other
// page, in every width and format, negotiated or explicit, needs the content
// token of exactly this volume; expired tokens and tokens of other volumes
// open nothing.
func TestContentPagesGated(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	ver := "0a1b2c3d4e5f6a7b"
	// Two volumes given the same files share one version and its objects.
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", withContent(1, contentVersion(o, ver, 4)), withContent(2, ver)))
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
	if resp.StatusCode != 200 || string(b) != ver+" page 1 1080 webp" || resp.Header.Get("Cache-Control") != "public, max-age=86400" {
		t.Fatalf("preview page: %d %q %s", resp.StatusCode, b, resp.Header.Get("Cache-Control"))
	}
	if resp, b := g.get(base + "/2/360.avif"); resp.StatusCode != 200 || string(b) != ver+" page 2 360 avif" {
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
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), ver+" page ") || resp.Header.Get("Cache-Control") != "private, max-age=3600" {
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
	if resp, b := g.get(base+"/1", "Range: bytes=0-3"); resp.StatusCode != 206 || string(b) != ver[:4] {
		t.Errorf("range of a page: %d %q", resp.StatusCode, b)
	}
	// The store down: a page not cached yet is a 503 in the envelope, not a hang or a 200.
	o.fail.Store(true)
	resp, b = g.get(base + "/4/720.webp?t=" + tok)
	if resp.StatusCode != 200 {
		// 4/720.webp was read above and is cached
		t.Errorf("cached page with the store down: %d", resp.StatusCode)
	}
	resp, b = g.get(contract.VolumeMediaBase("w1", 2, ver) + "/2/720.jpg")
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
	retire := t0.Add(30 * time.Minute)
	contentVersion(o, "00aa", 3)
	contentVersion(o, "00bb", 3)
	w1 := func(version int64, mods ...func(*contract.Product)) contract.Product {
		mods = append([]func(*contract.Product){func(p *contract.Product) {
			p.Volumes[2].ReleaseAt = t0.Add(time.Hour) // volume 3 comes out in an hour
			p.Version = version
		}, withContent(3, contentVersion(o, "00cc", 3))}, mods...)
		return product("w1", contract.SectionWebtoon, "웹툰", mods...)
	}
	e.putProduct(w1(2, withContent(1, "00bb", contract.RetiredContent{Ver: "00aa", Until: retire})))
	e.putProduct(product("ad1", contract.SectionWebtoon, "성인 웹툰", func(p *contract.Product) { p.Age = 19 }, withContent(1, contentVersion(o, "00dd", 3))))
	g := startEdge(t, e, withObjects(o), func(c *server.Config) { c.Now = clk.Now })
	g.waitReady()
	status := func(p string, hs ...string) int { resp, _ := g.get(p, hs...); return resp.StatusCode }
	oldURL, newURL := contract.VolumeMediaBase("w1", 1, "00aa")+"/1", contract.VolumeMediaBase("w1", 1, "00bb")+"/1"
	if status(oldURL) != 200 || status(newURL) != 200 {
		t.Fatalf("both versions within the grace period: %d %d", status(oldURL), status(newURL))
	}
	// a late, older document does not bring the old version back as current
	e.putProduct(w1(1, withContent(1, "00aa")))
	e.putProduct(product("w2", contract.SectionWebtoon, "웹툰 2", withContent(2, contentVersion(o, "00ee", 1))))
	eventually(t, "the later document applied", func() bool { return status(contract.VolumeMediaBase("w2", 2, "00ee")+"/1") == 200 })
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
	// Every audience that may not see adult works (issue 30): a preview
	// page of an adult work is not theirs either, in any width or format.
	for _, hs := range [][]string{nil, {audCookie(0, exp)}, {audCookie(1, exp)}, {audCookie(3, exp)}, {audCookie(2, exp), "X-Channel: AA"}, {audCookie(2, exp), "X-Channel: IA"},
		{audCookie(3, exp), "Accept: image/avif"}, {audCookie(1, exp), "Accept: image/webp"}} {
		if st := status(adultURL, hs...); st != 404 {
			t.Errorf("adult page for the teen version %v: %d, want 404", hs, st)
		}
		for _, variant := range []string{"/360.avif", "/720.webp", "/1080.jpg"} {
			if st := status(adultURL+variant, hs...); st != 404 {
				t.Errorf("adult page %s for the teen version %v: %d, want 404", variant, hs, st)
			}
		}
	}
	resp, _ := g.get(adultURL, audCookie(2, exp), "Accept: image/webp")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Cache-Control"), "private") || !strings.Contains(resp.Header.Get("Vary"), "Cookie") {
		t.Errorf("adult page for an adult: %d %s / %s", resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("Vary"))
	}
	// the volume's content removed: its pages are gone
	e.putProduct(w1(3, withContent(1, "00bb"), withContent(3, "")))
	eventually(t, "pages of a removed version gone", func() bool { return status(vol3) == 404 })
}

// TestNovelChunks: a novel's sanitized chunks are HTML that runs nothing if
// opened as a page; the same gating as pictures.
func TestNovelChunks(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	e.putProduct(product("n1", contract.SectionNovel, "소설", withContent(1, "0123")))
	for i := 1; i <= 3; i++ {
		o.putAt(contract.ContentChunkKey("0123", i), []byte(fmt.Sprintf("<p>%d장</p>", i)))
	}
	o.putManifest(contract.ContentManifest{Ver: "0123", Kind: contract.MediaKindText, Chunks: 3})
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
	// the second page was narrower than 1080: two widths, and no AVIF
	// for any page then
	o.putManifest(contract.ContentManifest{Ver: "00ab", Kind: contract.MediaKindImages, Formats: []string{contract.FormatWebP, contract.FormatJPEG},
		Pages: []contract.ManifestPage{{W: 1080, H: 1600, Widths: []int{360, 720, 1080}}, {W: 720, H: 900, Widths: []int{360, 720}}}})
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", withContent(1, "00ab")))
	e.putProduct(product("ad1", contract.SectionWebtoon, "성인 웹툰", func(p *contract.Product) { p.Age = 19 }, withContent(1, contentVersion(o, "00dd", 1))))
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
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", withContent(1, contentVersion(o, "00ac", 1)), func(p *contract.Product) { p.Version = 2 }))
	for _, path := range []string{"/home/api/v1/products/w1/volumes/1/media", "/home/api/v1/products/w1", "/home/api/v1/products/w1/volumes"} {
		eventually(t, "the new version in "+path, func() bool {
			_, b := g.get(path)
			return bytes.Contains(b, []byte(`00ac`))
		})
	}
}

// TestContentManifestObject: a version's manifest is one immutable object
// the edge reads once from the store and serves cacheably forever (public
// for everybody's work, private for an adult one, nothing for the teen
// version of it); a volume's pages have no document of their own: their
// keys derive from the version, so the edge reads only what is asked.
func TestContentManifestObject(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", withContent(1, contentVersion(o, "00ab", 3))))
	e.putProduct(product("ad1", contract.SectionWebtoon, "성인 웹툰", func(p *contract.Product) { p.Age = 19 }, withContent(1, contentVersion(o, "00dd", 1))))
	g := startEdge(t, e, withObjects(o))
	g.waitReady()
	url := contract.VolumeMediaBase("w1", 1, "00ab") + "/manifest.json"
	before := o.reads.Load()
	for range 3 {
		resp, b := g.get(url)
		var m contract.ContentManifest
		if resp.StatusCode != 200 || json.Unmarshal(b, &m) != nil || m.Ver != "00ab" || len(m.Pages) != 3 ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("Content-Type") != "application/json" ||
			resp.Header.Get("ETag") == "" {
			t.Fatalf("manifest: %d %s %s %.200s", resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("Content-Type"), b)
		}
	}
	if n := o.reads.Load() - before; n != 1 {
		t.Errorf("manifest read %d times from the store, want once", n)
	}
	// pages of the same version: one read each, by their derived keys
	before = o.reads.Load()
	for range 2 {
		if resp, _ := g.get(contract.VolumeMediaBase("w1", 1, "00ab") + "/1/720.webp"); resp.StatusCode != 200 {
			t.Fatalf("page: %d", resp.StatusCode)
		}
	}
	if n := o.reads.Load() - before; n != 1 {
		t.Errorf("page read %d times from the store, want once", n)
	}
	// a version the volume does not have is not read at all
	before = o.reads.Load()
	if resp, _ := g.get(contract.VolumeMediaBase("w1", 1, "00dd") + "/manifest.json"); resp.StatusCode != 404 {
		t.Errorf("another volume's version: %d", resp.StatusCode)
	}
	if n := o.reads.Load() - before; n != 0 {
		t.Errorf("a version the volume does not have read the store %d times", n)
	}
	adult := contract.VolumeMediaBase("ad1", 1, "00dd") + "/manifest.json"
	if resp, _ := g.get(adult); resp.StatusCode != 404 {
		t.Errorf("adult manifest for the teen version: %d", resp.StatusCode)
	}
	resp, _ := g.get(adult, audCookie(2, time.Now().Add(time.Hour)))
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "private, max-age=31536000, immutable" || !strings.Contains(resp.Header.Get("Vary"), "Cookie") {
		t.Errorf("adult manifest for an adult: %d %s %s", resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("Vary"))
	}
}
