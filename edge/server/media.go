package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/catalog"
)

// ObjectSource is where the edge reads media objects from: the content store
// (media/store's Store satisfies it). The edge only reads, by object key.
type ObjectSource interface {
	Get(ctx context.Context, key string) ([]byte, error)
}

// Media answers (contract/media.go). Public pictures come from the KV
// documents the writer's processing job publishes (which variants exist,
// their object keys); a volume's pages from keys derived from its content
// version, per the version's manifest (manifests.go); the bytes from the
// object store through the edge's byte-bounded object cache. PostgreSQL is
// never asked. An object key never changes meaning, so an object never
// changes once cached.
//
// The hot path (a cached page, a cover) allocates nothing: the path is parsed
// in place, the documents are found with the path's bytes, a content token is
// checked once and then remembered, and the cached bytes are the body.

var (
	mediaPrefix = []byte(contract.MediaPrefix)

	hdrETag         = []byte("ETag")
	hdrVary         = []byte("Vary")
	hdrCacheControl = []byte("Cache-Control")
	hdrAcceptRanges = []byte("Accept-Ranges")
	hdrCSP          = []byte("Content-Security-Policy")
	hdrIfNoneMatch  = []byte("If-None-Match")
	hdrIfRange      = []byte("If-Range")
	hdrRange        = []byte("Range")
	hdrAccept       = []byte("Accept")

	valBytes = []byte("bytes")
	// A content-addressed URL never changes meaning.
	ccImmutable = []byte("public, max-age=31536000, immutable")
	// Pages past the preview, and any page of an adult work: the browser
	// keeps them for its reader alone. A CDN enforcing the token itself may
	// cache them (edge/README.md, "Content behind a CDN").
	ccPrivate = []byte("private, max-age=3600")
	// A picture only adult works show: every request is checked against
	// its reader's audience (the browser revalidates, and gets a 304 only
	// after the check), and no shared cache keeps it (issue 30).
	ccAdultImage = []byte("private, no-cache")
	// A preview page may become paid when the content team shortens the
	// preview: shared caches keep it a day, not forever.
	ccPreview = []byte("public, max-age=86400")

	varyAccept      = []byte("Accept")
	varyAcceptAdult = []byte("Accept, Cookie, X-Channel")
	varyAdult       = []byte("Cookie, X-Channel")

	// A sanitized chunk is still HTML served from the store's origin: if it
	// is opened as a page, it runs nothing and fetches nothing but our images.
	cspChunk = []byte("default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox")
	ctChunk  = []byte("text/html; charset=utf-8")

	accAVIF = []byte("image/avif")
	accWebP = []byte("image/webp")
	extHTML = []byte(".html")
)

// Refusals of media requests.
const (
	msgNoMedia        = "이미지를 찾을 수 없습니다."
	msgNoPage         = "회차 내용을 찾을 수 없습니다."
	msgNeedToken      = "이용권이 필요합니다."
	msgMediaTemporary = "일시적인 오류입니다. 잠시 후 다시 시도해 주세요."
	msgBadRange       = "요청한 범위를 제공할 수 없습니다."
)

// serveMedia answers /media/<id> (negotiated) and /media/<id>/<w>.<ext>:
// covers, wide covers, banners and event images, public and immutable,
// except a picture only adult works show (catalog.AdultOnlyImage): that one
// only to an audience that may see adult works (the signed audience cookie
// and the channel, as every answer's variant), private, and varying by both;
// to any other audience it does not exist, in any width or format.
func (s *Server) serveMedia(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		s.writeError(ctx, fasthttp.StatusMethodNotAllowed, msgMethodNotAllowed)
		return
	}
	s.mediaReqs.Inc()
	rest := ctx.Path()[len(mediaPrefix):]
	id, variant, _ := bytes.Cut(rest, slash)
	img := s.store.Image(id)
	adult := img != nil && s.store.AdultOnlyImage(id)
	if img == nil || adult && s.teen(ctx, s.cfg.Now()) {
		s.writeError(ctx, fasthttp.StatusNotFound, msgNoMedia)
		if adult {
			// The refusal is this audience's: an adult asking the same URL
			// must not get it from a cache.
			ctx.Response.Header.SetCanonical(hdrVary, varyAdult)
		}
		return
	}
	v, negotiated := s.pickVariant(ctx, img, variant)
	if v == nil {
		s.writeError(ctx, fasthttp.StatusNotFound, msgNoMedia)
		return
	}
	cc, vary := ccImmutable, []byte(nil)
	switch {
	case adult && negotiated:
		cc, vary = ccAdultImage, varyAcceptAdult
	case adult:
		cc, vary = ccAdultImage, varyAdult
	case negotiated:
		vary = varyAccept
	}
	s.sendObject(ctx, v.Key, contract.MediaContentType(v.Format), cc, vary)
}

var slash = []byte("/")

// serveContent answers /content/<pid>/<no>/<ver>/<n>[/<w>.<ext>|.html] and
// .../<ver>/manifest.json: a page of one version of a volume, or the
// version's manifest. Pages past the volume's preview need a content token
// for exactly this volume (?t=, from the writer's download-auth) in every
// width and format; the teen version gets no page of an adult work; a volume
// not released by the edge's clock does not exist. Which pages, widths and
// formats exist is the version's manifest's to say; their object keys derive
// from the version (contract/media.go).
func (s *Server) serveContent(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		s.writeError(ctx, fasthttp.StatusMethodNotAllowed, msgMethodNotAllowed)
		return
	}
	s.mediaReqs.Inc()
	cp, ok := parseContentPath(ctx.Path())
	if !ok {
		s.writeError(ctx, fasthttp.StatusNotFound, msgNoPage)
		return
	}
	now := s.cfg.Now()
	teen := s.teen(ctx, now)
	access, adult := s.store.Content(now, teen, cp.pid, cp.no, cp.ver, cp.n)
	if access == catalog.PageNotLoaded {
		// A paged work's volume page, not cached: one KV get (shared by
		// every request missing it), then the same question with it.
		pg, err := s.store.EnsureVolumePage(ctx, string(cp.pid), cp.no)
		if err != nil {
			s.log.Warn("read volume page", "pid", string(cp.pid), "no", cp.no, "err", err)
			s.writeError(ctx, fasthttp.StatusServiceUnavailable, msgMediaTemporary)
			return
		}
		if access, adult = s.store.ContentWith(now, teen, cp.pid, cp.no, cp.ver, cp.n, pg); access == catalog.PageNotLoaded {
			s.writeError(ctx, fasthttp.StatusServiceUnavailable, msgMediaTemporary)
			return
		}
	}
	if access == catalog.PageMissing {
		s.writeError(ctx, fasthttp.StatusNotFound, msgNoPage)
		return
	}
	m, err := s.manifest(cp.ver)
	if err != nil {
		s.log.Error("read content manifest", "ver", string(cp.ver), "err", err)
		s.writeError(ctx, fasthttp.StatusServiceUnavailable, msgMediaTemporary)
		return
	}
	if cp.manifest {
		s.sendManifest(ctx, m, adult)
		return
	}
	var img *contract.MediaImage
	var chunk string
	switch {
	case cp.html && m.m.Kind == contract.MediaKindText && cp.n <= len(m.chunks):
		chunk = m.chunks[cp.n-1]
	case !cp.html && cp.n <= len(m.pages):
		img = &m.pages[cp.n-1]
	default:
		s.writeError(ctx, fasthttp.StatusNotFound, msgNoPage)
		return
	}
	cc := ccPreview
	if access == catalog.PagePaid {
		if !s.tokens.valid(s.contentSecret, ctx.QueryArgs().Peek("t"), cp.pid, cp.no, now) {
			s.writeError(ctx, fasthttp.StatusForbidden, msgNeedToken)
			return
		}
		cc = ccPrivate
	}
	if adult {
		cc = ccPrivate
	}
	if chunk != "" {
		ctx.Response.Header.SetCanonical(hdrCSP, cspChunk)
		var vary []byte
		if adult {
			vary = varyAdult
		}
		s.sendObjectCT(ctx, chunk, ctChunk, cc, vary)
		return
	}
	v, negotiated := s.pickVariant(ctx, img, cp.variant)
	if v == nil {
		s.writeError(ctx, fasthttp.StatusNotFound, msgNoPage)
		return
	}
	var vary []byte
	switch {
	case negotiated && adult:
		vary = varyAcceptAdult
	case negotiated:
		vary = varyAccept
	case adult:
		vary = varyAdult
	}
	s.sendObject(ctx, v.Key, contract.MediaContentType(v.Format), cc, vary)
}

var (
	ctManifest = []byte("application/json")
	// An adult work's manifest stays out of shared caches like its pages.
	ccImmutablePrivate = []byte("private, max-age=31536000, immutable")
)

// sendManifest answers a version's manifest: immutable (the version names
// its content), public like a preview page unless the work is adult.
func (s *Server) sendManifest(ctx *fasthttp.RequestCtx, m *contentManifest, adult bool) {
	cc, vary := ccImmutable, []byte(nil)
	if adult {
		cc, vary = ccImmutablePrivate, varyAdult
	}
	ctx.Response.Header.SetContentTypeBytes(ctManifest)
	s.sendBody(ctx, contract.ContentManifestKey(m.m.Ver), cc, vary)
}

// contentPath is a parsed /content/<pid>/<no>/<ver>/<n>... path; its byte
// slices point into the request's path.
type contentPath struct {
	pid, ver []byte
	no, n    int
	variant  []byte // "<w>.<ext>" or empty (negotiated)
	html     bool   // <n>.html: a text chunk
	manifest bool   // manifest.json: the version's manifest
}

var manifestName = []byte("manifest.json")

// parseContentPath parses the path in place. fasthttp has already decoded
// and normalized it (no "..", no %2f left), and every part is checked: the
// pid as a key id, numbers as numbers, the version as hex.
func parseContentPath(p []byte) (cp contentPath, ok bool) {
	rest := p[len(contPrefix):]
	var no, n []byte
	cp.pid, rest, _ = bytes.Cut(rest, slash)
	no, rest, _ = bytes.Cut(rest, slash)
	cp.ver, rest, _ = bytes.Cut(rest, slash)
	n, cp.variant, _ = bytes.Cut(rest, slash)
	if bytes.HasSuffix(n, extHTML) && len(cp.variant) == 0 {
		n, cp.html = n[:len(n)-len(extHTML)], true
	}
	if !validKeyID(cp.pid) || !hexID(cp.ver, 64) || bytes.IndexByte(cp.variant, '/') >= 0 {
		return cp, false
	}
	if cp.no, ok = atoiBytes(no); !ok {
		return cp, false
	}
	if bytes.Equal(n, manifestName) && len(cp.variant) == 0 {
		cp.manifest = true
		return cp, true
	}
	cp.n, ok = atoiBytes(n)
	return cp, ok
}

// atoiBytes parses a positive decimal of at most 9 digits.
func atoiBytes(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0
}

func validKeyID(b []byte) bool {
	if len(b) == 0 || len(b) > 128 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// hexID reports whether b is 1 to max lowercase hex digits.
func hexID(b []byte, max int) bool {
	if len(b) == 0 || len(b) > max {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// pickVariant chooses the variant of img a request asks for: the explicit
// "<w>.<ext>" (exactly that one), or, for a negotiated URL, the best format
// the client's Accept takes (AVIF, then WebP, then JPEG, among those the
// picture has) in the narrowest width of at least ?w= (the widest when none
// is that wide, or when ?w= is absent).
func (s *Server) pickVariant(ctx *fasthttp.RequestCtx, img *contract.MediaImage, explicit []byte) (v *contract.MediaVariant, negotiated bool) {
	if len(explicit) > 0 {
		ws, ext, ok := bytes.Cut(explicit, dot)
		w, wok := atoiBytes(ws)
		if !ok || !wok {
			return nil, false
		}
		for i := range img.Variants {
			x := &img.Variants[i]
			if x.Width == w && string(ext) == contract.MediaExt(x.Format) {
				return x, false
			}
		}
		return nil, false
	}
	accept := ctx.Request.Header.PeekBytes(hdrAccept)
	format := contract.FormatJPEG
	switch {
	case bytes.Contains(accept, accAVIF) && hasFormat(img, contract.FormatAVIF):
		format = contract.FormatAVIF
	case bytes.Contains(accept, accWebP) && hasFormat(img, contract.FormatWebP):
		format = contract.FormatWebP
	case !hasFormat(img, contract.FormatJPEG):
		// Nothing the client names: the most widely decoded we have.
		if hasFormat(img, contract.FormatWebP) {
			format = contract.FormatWebP
		} else if len(img.Variants) > 0 {
			format = img.Variants[0].Format
		}
	}
	want, _ := atoiBytes(ctx.QueryArgs().Peek("w"))
	for i := range img.Variants {
		x := &img.Variants[i]
		if x.Format != format {
			continue
		}
		switch {
		case v == nil:
			v = x
		case want > 0 && x.Width >= want && (v.Width < want || x.Width < v.Width):
			v = x // narrower, still wide enough
		case (want == 0 || v.Width < want) && x.Width > v.Width:
			v = x // wider, nothing wide enough yet
		}
	}
	return v, true
}

var dot = []byte(".")

func hasFormat(img *contract.MediaImage, f string) bool {
	for i := range img.Variants {
		if img.Variants[i].Format == f {
			return true
		}
	}
	return false
}

// sendObject answers an object with its content type.
func (s *Server) sendObject(ctx *fasthttp.RequestCtx, key, ctype string, cc, vary []byte) {
	h := &ctx.Response.Header
	h.SetContentType(ctype)
	s.sendBody(ctx, key, cc, vary)
}

func (s *Server) sendObjectCT(ctx *fasthttp.RequestCtx, key string, ctype, cc, vary []byte) {
	ctx.Response.Header.SetContentTypeBytes(ctype)
	s.sendBody(ctx, key, cc, vary)
}

// sendBody answers object key: ETag (the key itself: it is the bytes' hash),
// 304 for a matching If-None-Match, one byte range (206, 416), or the whole.
func (s *Server) sendBody(ctx *fasthttp.RequestCtx, key string, cc, vary []byte) {
	var etag [2 + 64]byte
	etag[0] = '"'
	n := copy(etag[1:len(etag)-1], key)
	etag[1+n] = '"'
	tag := etag[:n+2]
	h := &ctx.Response.Header
	h.SetCanonical(hdrCacheControl, cc)
	if vary != nil {
		h.SetCanonical(hdrVary, vary)
	}
	h.SetCanonical(hdrETag, tag)
	h.SetCanonical(hdrAcceptRanges, valBytes)
	if inm := ctx.Request.Header.PeekBytes(hdrIfNoneMatch); len(inm) > 0 && (bytes.Contains(inm, tag) || bytes.Equal(inm, star)) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	data, err := s.object(key)
	if err != nil {
		s.log.Error("read media object", "key", key, "err", err)
		s.writeError(ctx, fasthttp.StatusServiceUnavailable, msgMediaTemporary)
		return
	}
	rng := ctx.Request.Header.PeekBytes(hdrRange)
	if ir := ctx.Request.Header.PeekBytes(hdrIfRange); len(ir) > 0 && !bytes.Equal(ir, tag) {
		rng = nil // the client's part is of other bytes: send them all
	}
	if len(rng) > 0 {
		start, end, err := fasthttp.ParseByteRange(rng, len(data))
		if err != nil {
			s.writeError(ctx, fasthttp.StatusRequestedRangeNotSatisfiable, msgBadRange)
			ctx.Response.Header.Set("Content-Range", "bytes */"+strconv.Itoa(len(data)))
			return
		}
		ctx.SetStatusCode(fasthttp.StatusPartialContent)
		h.SetContentRange(start, end, len(data))
		setCachedBody(ctx, data[start:end+1])
		return
	}
	setCachedBody(ctx, data)
}

var star = []byte("*")

// object returns the bytes of key from the object cache, or reads them from
// the store once however many requests miss together.
func (s *Server) object(key string) ([]byte, error) {
	if b := s.objects.Get(key); b != nil {
		return b, nil
	}
	if s.objectSrc == nil {
		return nil, errors.New("no content store configured")
	}
	v, err, _ := s.objFlight.Do(key, func() (any, error) {
		c, cancel := context.WithTimeout(context.Background(), s.cfg.MediaTimeout)
		defer cancel()
		b, err := s.objectSrc.Get(c, key)
		if err != nil {
			return nil, fmt.Errorf("get object %s: %w", key, err)
		}
		s.objects.Set(key, b)
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// tokenMemo remembers checked content tokens, so a reader scrolling through
// sixty strips pays for one HMAC and every further page only for a map
// lookup, without allocating.
type tokenMemo struct {
	mu sync.Mutex
	m  map[string]tokenGrant
}

type tokenGrant struct {
	pid string
	no  int
	exp int64 // unix seconds
}

func (t *tokenMemo) valid(secret, tok, pid []byte, no int, now time.Time) bool {
	if len(tok) == 0 || len(tok) > 256 {
		return false
	}
	t.mu.Lock()
	g, ok := t.m[string(tok)]
	t.mu.Unlock()
	if !ok {
		// Only valid tokens are remembered: a token's MAC binds it to one
		// volume, so its grant is that volume's whatever path asked first,
		// and nobody can poison the memo with a token sent for another path.
		if !contract.VerifyContent(secret, string(tok), string(pid), no, now) {
			return false
		}
		e, _, _ := bytes.Cut(tok, dot)
		exp, _ := strconv.ParseInt(string(e), 10, 64)
		g = tokenGrant{pid: string(pid), no: no, exp: exp}
		t.mu.Lock()
		if t.m == nil || len(t.m) > 100_000 {
			t.m = make(map[string]tokenGrant)
		}
		t.m[string(tok)] = g
		t.mu.Unlock()
	}
	// The token is bound to one volume: remembered for it, it opens no other.
	return g.exp > now.Unix() && g.no == no && g.pid == string(pid)
}
