package server

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/demo/art"
	"storefront/edge/cache"
	"storefront/edge/catalog"
)

// serveArt serves covers, banners (of the banner slots and of events), icons and
// volume content (contract/content.go),
// drawn by demo/art (a CDN serves real files in production) and cached like
// API bodies. Content pages up to the volume's PreviewPages are public; the rest
// need a content token from the writer's download-auth, checked on every hit.
// A volume not released yet by the edge's clock does not exist.
func (s *Server) serveArt(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		s.writeError(ctx, fasthttp.StatusMethodNotAllowed, msgMethodNotAllowed)
		return
	}
	s.m.requests.WithLabelValues("art").Inc()
	now := s.cfg.Now()
	// Reading is gated like the detail: the teen version gets no page of an
	// adult work, preview or not. Pictures of the catalog (covers, banners)
	// are the same for everyone.
	content := bytes.HasPrefix(ctx.Path(), contPrefix)
	teen := content && s.teen(ctx, now)
	kp := keyPool.Get().(*[]byte)
	defer keyPool.Put(kp)
	key := append((*kp)[:0], 'i')
	if teen {
		key[0] = 'j'
	}
	key = append(key, ctx.Path()...)
	*kp = key
	e := s.cache.Get(key, now.UnixNano())
	if e == nil {
		var status int
		var body []byte
		var ctype string
		var private bool
		refs, until := s.store.Read(now, teen, func(v *catalog.View) {
			status, body, ctype, private = s.drawArt(v, string(ctx.Path()))
		})
		e = cache.NewEntry(status, body, until, refs)
		e.CType, e.Private = ctype, private
		s.cache.Set(key, e)
	}
	if e.Status != 200 {
		// The body of a refusal is its message, sent in the envelope.
		s.writeError(ctx, e.Status, string(e.Body))
		return
	}
	cc, vary := "public, max-age=86400", "Accept-Encoding"
	if content && !teen {
		// The adult version may get an adult work's page: no shared cache may
		// keep it for the next reader, and a browser keeps it per cookie.
		cc, vary = "private, max-age=3600", "Accept-Encoding, Cookie, X-Channel"
	}
	if e.Private {
		pid, no, ok := contentVolume(string(ctx.Path()))
		tok := string(ctx.QueryArgs().Peek("t"))
		if !ok || !contract.VerifyContent(s.contentSecret, tok, pid, no, now) {
			s.writeError(ctx, fasthttp.StatusForbidden, "이용권이 필요합니다.")
			return
		}
		cc = "private, max-age=3600"
	}
	h := &ctx.Response.Header
	h.SetContentType(e.CType)
	h.Set("Cache-Control", cc)
	h.Set("Vary", vary)
	switch {
	case e.Brotli != nil && ctx.Request.Header.HasAcceptEncoding("br"):
		h.Set("Content-Encoding", "br")
		ctx.Response.SetBodyRaw(e.Brotli)
	case e.Gzip != nil && ctx.Request.Header.HasAcceptEncoding("gzip"):
		h.Set("Content-Encoding", "gzip")
		ctx.Response.SetBodyRaw(e.Gzip)
	default:
		ctx.Response.SetBodyRaw(e.Body)
	}
}

const (
	ctSVG  = "image/svg+xml"
	ctText = "text/plain; charset=utf-8"
)

// contentVolume parses /content/<pid>/<no>/... .
func contentVolume(p string) (pid string, no int, ok bool) {
	parts := strings.Split(strings.TrimPrefix(p, contract.ContentPrefix), "/")
	if len(parts) != 3 {
		return "", 0, false
	}
	no, err := strconv.Atoi(parts[1])
	return parts[0], no, err == nil
}

// Messages of the art refusals (the body of their cache entry).
const (
	msgNoImage    = "이미지를 찾을 수 없습니다."
	msgNoContent  = "회차 내용을 찾을 수 없습니다."
	msgCannotDraw = "일시적인 오류입니다."
)

// drawArt renders the file at path p; private reports that a content token is needed.
func (s *Server) drawArt(v *catalog.View, p string) (status int, body []byte, ctype string, private bool) {
	var b bytes.Buffer
	missing := msgNoImage
	if strings.HasPrefix(p, contract.ContentPrefix) {
		missing = msgNoContent
	}
	notFound := func() (int, []byte, string, bool) { return 404, []byte(missing), "text/plain", false }
	if strings.HasPrefix(p, contract.ContentPrefix) {
		pid, no, ok := contentVolume(p)
		name := p[strings.LastIndexByte(p, '/')+1:]
		base, ext, _ := strings.Cut(name, ".")
		n, err := strconv.Atoi(base)
		if !ok || err != nil || n < 1 || !contract.ValidKeyID(pid) || (ext != "svg" && ext != "txt") {
			return notFound()
		}
		prod := v.Product(pid) // nil for an adult work in the teen version
		if prod == nil || ext == "txt" && prod.Section != contract.SectionNovel {
			return notFound()
		}
		var vol *contract.Volume
		for _, x := range v.Volumes(prod) {
			if x.No == no {
				vol = &x
				break
			}
		}
		if vol == nil || n > max(vol.Pages, vol.PreviewPages) {
			return notFound()
		}
		if ext == "txt" {
			err = art.Text(&b, &prod.Product, no, n)
			ctype = ctText
		} else {
			err = art.Page(&b, &prod.Product, no, n)
			ctype = ctSVG
		}
		if err != nil {
			return 500, []byte(msgCannotDraw), "text/plain", false
		}
		return 200, b.Bytes(), ctype, n > vol.PreviewPages
	}
	parts := strings.Split(strings.TrimPrefix(p, "/img/"), "/")
	if len(parts) != 2 || !strings.HasSuffix(parts[1], ".svg") {
		return notFound()
	}
	kind, id := parts[0], strings.TrimSuffix(parts[1], ".svg")
	if !contract.ValidKeyID(id) {
		return notFound()
	}
	var err error
	switch kind {
	case "cover", "wide":
		prod := v.Lookup(id)
		if prod == nil {
			return notFound()
		}
		if kind == "cover" {
			err = art.Cover(&b, &prod.Product)
		} else {
			err = art.Wide(&b, &prod.Product)
		}
	case "banner":
		var found bool
		if found, err = drawBanner(&b, v, p, id); !found {
			return notFound()
		}
	case "icon":
		err = art.Icon(&b, id)
	default:
		return notFound()
	}
	if err != nil {
		return 500, []byte(msgCannotDraw), "text/plain", false
	}
	return 200, b.Bytes(), ctSVG, false
}

// promoBanners are the banners the writer names in the side info
// (writer/money: join bonus and first charge), drawn as their events.
var promoBanners = map[string]struct{ kind, title string }{
	"join-bonus":   {contract.EventJoin, "신규 가입 혜택"},
	"first-charge": {contract.EventFirstCharge, "첫 충전 보너스"},
}

// drawBanner draws /img/banner/<id>.svg. Banner slots and events share the
// folder (the demo gives event eid the banner /img/banner/<eid>.svg), so the
// document whose own image address is p is drawn: a banner first, then an
// event; ids that no document names are not found.
func drawBanner(b *bytes.Buffer, v *catalog.View, p, id string) (found bool, err error) {
	if pb, ok := promoBanners[id]; ok {
		return true, art.EventBanner(b, 0, pb.kind, pb.title)
	}
	n, perr := strconv.ParseInt(id, 10, 64)
	if perr != nil {
		return false, nil
	}
	if bn := v.Banner(n); bn != nil && bn.ImageURL == p {
		return true, art.Banner(b, bn.ID, bn.Title)
	}
	if ev := v.Event(n); ev != nil && ev.BannerURL == p {
		return true, art.EventBanner(b, ev.EID, ev.Kind, ev.Title)
	}
	return false, nil
}
