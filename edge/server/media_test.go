package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

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

// putAt stores data under a key of the caller's choosing.
func (o *memObjects) putAt(key string, data []byte) {
	o.mu.Lock()
	if o.m == nil {
		o.m = map[string][]byte{}
	}
	o.m[key] = data
	o.mu.Unlock()
}

// putManifest stores a version's manifest where the writer does.
func (o *memObjects) putManifest(m contract.ContentManifest) {
	if m.Formats == nil {
		m.Formats = []string{} // as the writer writes it
	}
	if m.Pages == nil {
		m.Pages = []contract.ManifestPage{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	o.putAt(contract.ContentManifestKey(m.Ver), b)
}

// contentVersion stores version ver of n pages as the writer does: every
// page in 360/720/1080 × avif/webp/jpeg under keys derived from ver, bytes
// naming their variant ("<ver> page <i> <w> <f>"), and the version's
// manifest. It returns ver.
func contentVersion(o *memObjects, ver string, n int) string {
	m := contract.ContentManifest{Ver: ver, Kind: contract.MediaKindImages, Formats: []string{contract.FormatAVIF, contract.FormatWebP, contract.FormatJPEG}}
	for i := 1; i <= n; i++ {
		m.Pages = append(m.Pages, contract.ManifestPage{W: 1080, H: 1600, Widths: []int{360, 720, 1080}})
		for _, w := range []int{360, 720, 1080} {
			for _, f := range m.Formats {
				o.putAt(contract.ContentObjectKey(ver, i, w, f), []byte(fmt.Sprintf("%s page %d %d %s", ver, i, w, f)))
			}
		}
	}
	o.putManifest(m)
	return ver
}

// withContent gives volume no of a product content version ver, and
// replaced versions still readable.
func withContent(no int, ver string, retired ...contract.RetiredContent) func(*contract.Product) {
	return func(p *contract.Product) {
		for i := range p.Volumes {
			if p.Volumes[i].No == no {
				p.Volumes[i].ContentVer, p.Volumes[i].ContentRetired = ver, retired
			}
		}
	}
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

// TestMediaAnswersMatchOpenAPI: pictures, pages, chunks, manifests and their
// refusals as docs/openapi.yaml describes them.
func TestMediaAnswersMatchOpenAPI(t *testing.T) {
	for _, ct := range []string{"image/avif", "image/webp", "image/jpeg"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	e := newEnv(t)
	o := &memObjects{}
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", withContent(1, contentVersion(o, "00ab", 3))))
	e.putProduct(product("n1", contract.SectionNovel, "소설", withContent(1, "00cd")))
	img := mediaImage(o, "cover", 1500)
	e.put(contract.MediaImageKey(img.ID), img)
	o.putAt(contract.ContentChunkKey("00cd", 1), []byte("<p>1장</p>"))
	o.putManifest(contract.ContentManifest{Ver: "00cd", Kind: contract.MediaKindText, Chunks: 1})
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
		{base + "/manifest.json", ""},
		{contract.VolumeMediaBase("n1", 1, "00cd") + "/manifest.json", ""},
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
			e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", withContent(1, "00ab")))
			for _, f := range []string{contract.FormatWebP, contract.FormatJPEG} {
				if err := st.PutObject(ctx, contract.ContentObjectKey("00ab", 1, 720, f), bytes.Repeat([]byte(f), 50_000), contract.MediaContentType(f)); err != nil {
					t.Fatal(err)
				}
			}
			// The manifest names a 360 width whose objects were never stored.
			man, _ := json.Marshal(contract.ContentManifest{Ver: "00ab", Kind: contract.MediaKindImages, Formats: []string{contract.FormatWebP, contract.FormatJPEG},
				Pages: []contract.ManifestPage{{W: 720, H: 1000, Widths: []int{360, 720}}}})
			if err := st.PutObject(ctx, contract.ContentManifestKey("00ab"), man, "application/json"); err != nil {
				t.Fatal(err)
			}
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
