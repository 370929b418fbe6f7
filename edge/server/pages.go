package server

import (
	"bytes"
	"context"
	"html"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/cache"
	"storefront/edge/catalog"
	"storefront/edge/render"
	"storefront/edge/static"
)

// The first screen comes with the page (issue 16 "Measure", issue 23 item 4).
// The SPA (ssr: false) draws nothing before its JavaScript has crossed the
// network and run, and then asks the API before drawing the route: on a
// phone that was 2.3 s to the first paint and 3 to 3.7 s to the largest. For
// the routes readers land on (home, genre lists, a work's detail, the
// viewer), the edge, which holds the catalog and the media manifests,
// answers index.html with two additions built from the catalog:
//
//   - a head fragment: the route's chunks as modulepreload (they were found
//     only once the entry had run) and a preload of the picture the first
//     screen shows, at high priority: the viewer's first strip with the very
//     srcset and sizes the viewer asks, the home's first banner, the covers;
//   - a first screen, <sf-first>: a static drawing of what the route shows
//     first (the same pictures at the same places, the work's title), laid
//     over the page until the app has drawn its route and removes it
//     (frontend/app/shell/firstScreen.ts). It is not a React node: React 19
//     skips unknown tags in <body> when it hydrates, so the SPA boots as
//     before (ssr: false).
//
// The app starts once the drawing is on screen. A fresh phone browser
// compiling and running the app's 140 KB of modules paints nothing until they
// are done (Lighthouse saw the first paint at 2.2 s with the drawing already
// in the page), so in a drawn page the modules are not preloaded from the
// head: a small starter adds the modulepreloads and React Router's own boot
// script (kept verbatim as an inert <script type="text/plain" id="sf-boot">,
// so the page's CSP hash of it still holds) once the drawing's largest picture
// has painted (largest-contentful-paint), or at the load event where the
// browser has no such entry, or at once for a page in the background. The
// pictures come first on the wire, the app's modules right after them.
//
// A page is built once per catalog change, like every cached body: rendered
// under the store's read lock with the tags it read and the instant it
// changes by the clock, cached per audience (the teen version draws no adult
// work), compressed in the background, and served from the cache without
// allocating. A route with nothing to draw (an unknown work, an adult work,
// a volume without a public first page) gets the plain index.html, uncached.
//
// Only public pictures go into a page: covers, banners, and a volume's first
// page when it is a preview page. Never a page past the preview: the HTML is
// the same for every reader of an audience, entitled or not.
//
// A work's detail also carries its share preview (issue 19, shareTags): the
// head fragment is built from what the route read, so the Open Graph tags
// are cached with the page and cost a hit nothing.

// pageKind is a route the edge draws a first screen for.
type pageKind byte

const (
	pageNone   pageKind = 0
	pageHome   pageKind = 'h'
	pageGenre  pageKind = 'g'
	pageDetail pageKind = 'd'
	pageViewer pageKind = 'v'
)

// pageKey appends the cache key of the page a request for path asks for and
// tells which page it is; pageNone for routes the edge does not draw. The key
// holds only what the page depends on (tracking parameters in the address do
// not make new pages). It allocates nothing.
func pageKey(key, path []byte, args *fasthttp.Args) ([]byte, pageKind) {
	key = append(key, 'p', 'a') // [1] is the audience, set by the caller
	switch {
	case len(path) == 1:
		if tab := args.Peek("tab"); len(tab) > 0 && string(tab) != "series" {
			return key, pageNone
		}
		return append(key, byte(pageHome)), pageHome
	case string(path) == "/viewer" || string(path) == "/viewer/":
		no := args.Peek("no")
		if len(no) == 0 {
			no = args.Peek("vol")
		}
		pid := args.Peek("pid")
		if len(pid) == 0 || len(no) == 0 || len(no) > 6 {
			return key, pageNone
		}
		key = append(append(append(append(key, byte(pageViewer)), pid...), '/'), no...)
		return key, pageViewer
	}
	// /<section>/detail/<pid> and /<area>/genre[/<category>]
	rest := path[1:]
	i := bytes.IndexByte(rest, '/')
	if i <= 0 {
		return key, pageNone
	}
	area, rest := rest[:i], bytes.TrimSuffix(rest[i+1:], slash)
	switch {
	case bytes.HasPrefix(rest, []byte("detail/")):
		pid := rest[len("detail/"):]
		if len(pid) == 0 || bytes.IndexByte(pid, '/') >= 0 {
			return key, pageNone
		}
		return append(append(key, byte(pageDetail)), pid...), pageDetail
	case (string(area) == "webtoon" || string(area) == "comic") && (string(rest) == "genre" || bytes.HasPrefix(rest, []byte("genre/"))):
		cat := bytes.TrimPrefix(bytes.TrimPrefix(rest, []byte("genre")), slash)
		if bytes.IndexByte(cat, '/') >= 0 {
			return key, pageNone // a page past the first
		}
		return append(append(append(append(key, byte(pageGenre)), area...), '/'), cat...), pageGenre
	}
	return key, pageNone
}

// servePage answers a drawn page from the cache or draws it; false when the
// route has none (the caller serves the plain index.html).
func (s *Server) servePage(ctx *fasthttp.RequestCtx) bool {
	if s.shell == nil {
		return false
	}
	kp := keyPool.Get().(*[]byte)
	defer keyPool.Put(kp)
	key, kind := pageKey((*kp)[:0], ctx.Path(), ctx.QueryArgs())
	*kp = key
	if kind == pageNone {
		return false
	}
	now := s.cfg.Now()
	if s.teen(ctx, now) {
		key[1] = 't'
	}
	e := s.cache.Get(key, now.UnixNano())
	if e == nil {
		sk := string(key)
		req := pageRequest(kind, ctx)
		v, _, _ := s.flight.Do(sk, func() (any, error) { return s.renderPage(sk, req, now, key[1] == 't'), nil })
		if e = v.(*cache.Entry); e == nil {
			return false
		}
		if !e.Valid(now.UnixNano()) {
			if e = s.renderPage(sk, req, now, key[1] == 't'); e == nil {
				return false
			}
		}
	}
	h := &ctx.Response.Header
	h.SetContentTypeBytes(ctHTML)
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding, Cookie, X-Channel")
	h.Set("Content-Security-Policy", s.shell.csp)
	setEncodedBody(ctx, e)
	return true
}

var ctHTML = []byte("text/html; charset=utf-8")

// page is what a drawn route depends on, read from the request on a miss.
type page struct {
	kind           pageKind
	pid, area, cat string
	no             int
	routeIDs       []string
}

func pageRequest(kind pageKind, ctx *fasthttp.RequestCtx) page {
	p := page{kind: kind}
	seg := strings.Split(strings.Trim(string(ctx.Path()), "/"), "/")
	switch kind {
	case pageHome:
		p.routeIDs = []string{"layouts/default", "routes/home"}
	case pageGenre:
		p.area, p.cat = seg[0], "all"
		if len(seg) > 2 && seg[2] != "" {
			p.cat = seg[2]
		}
		p.routeIDs = []string{"layouts/default", "routes/" + p.area + "/genre"}
	case pageDetail:
		p.pid = seg[2]
		p.routeIDs = []string{"layouts/default", "routes/detail"}
	case pageViewer:
		args := ctx.QueryArgs()
		p.pid = string(args.Peek("pid"))
		no := args.Peek("no")
		if len(no) == 0 {
			no = args.Peek("vol")
		}
		p.no, _ = strconv.Atoi(string(no))
		p.routeIDs = []string{"layouts/empty", "routes/viewer"}
	}
	return p
}

// firstScreen is what a page adds to index.html.
type firstScreen struct {
	head strings.Builder // into <head>: preloads (and, with issue 19, meta tags)
	body strings.Builder // the inside of <sf-first>
	kind string          // the drawing's layout (CSS class)
}

// renderPage draws req's page, caches and returns it; nil when there is
// nothing to draw.
func (s *Server) renderPage(key string, req page, now time.Time, teen bool) *cache.Entry {
	var fs *firstScreen
	if req.no > 0 {
		// The viewer's strip needs the version's manifest: read it (if
		// need be from the store) before taking the catalog's lock.
		s.prefetchManifest(req.pid, req.no)
	}
	refs, until, err := s.readPaged(context.Background(), now, teen, func(v *catalog.View) { fs = s.drawPage(v, req) })
	if err != nil || fs == nil {
		// Without its volume pages the page is not drawn: the SPA draws it.
		return nil
	}
	mods, _ := s.static.RouteModules(req.routeIDs...)
	b := s.shell.assemble(fs, mods)
	e := cache.NewPlainEntry(200, b, until, refs)
	s.cache.Set([]byte(key), e)
	if e.NeedsCompression() {
		s.compressLater(key, e)
	}
	return e
}

// pageShell is index.html made ready for drawn pages once per build: the
// modulepreloads out of the head, React Router's boot script made inert
// beside the starter that runs it.
type pageShell struct {
	html []byte
	csp  string
	// modules the index preloaded; bootAt is where a page's own go, inside
	// sf-boot's data-modules attribute.
	modules string
	bootAt  int
}

var (
	modulePreload = regexp.MustCompile(`<link rel="modulepreload" href="([^"]+)"/>`)
	bootScript    = regexp.MustCompile(`(?s)<script type="module" async="">(.*?)</script>`)
)

// bootStarter runs the boot script kept in sf-boot once the drawing's lead
// picture (data-lead; any of its pictures when none leads) has painted: the
// browser's largest-contentful-paint entry for it. Where there is no such
// entry (browsers without LCP), at the load event; at once when the drawing
// has no picture or the page is in the background; and whatever happens
// after 3 s or when a picture fails, so the app always starts. The load
// event is not enough where LCP exists: Chrome paints nothing while the
// modules run, and the pictures are loaded before the first frame.
const bootStarter = `<script>(function(){var d=document,b=d.getElementById("sf-boot"),go=false;` +
	`function start(){if(go)return;go=true;b.getAttribute("data-modules").split(" ").forEach(function(h){if(!h)return;var l=d.createElement("link");l.rel="modulepreload";l.href=h;d.head.appendChild(l)});` +
	`var s=d.createElement("script");s.type="module";s.setAttribute("async","");s.textContent=b.textContent;b.parentNode.replaceChild(s,b)}` +
	`var imgs=d.querySelectorAll("sf-first img"),lead=d.querySelector("sf-first img[data-lead]");` +
	`if(!imgs.length||d.visibilityState!=="visible"){start();return}` +
	`setTimeout(start,3000);d.addEventListener("visibilitychange",start);` +
	`for(var i=0;i<imgs.length;i++)imgs[i].addEventListener("error",start);` +
	`var lcp=window.PerformanceObserver&&PerformanceObserver.supportedEntryTypes&&PerformanceObserver.supportedEntryTypes.indexOf("largest-contentful-paint")>=0;` +
	`if(!lcp){addEventListener("load",start);return}` +
	`new PerformanceObserver(function(l){l.getEntries().forEach(function(e){var el=e.element;if(el&&el.tagName==="IMG"&&(lead?el===lead:el.closest("sf-first")))start()})}).observe({type:"largest-contentful-paint",buffered:true})` +
	`})()</script>`

// newPageShell prepares index for drawn pages; ok is false for a build it
// does not recognise (its routes are then served as they are).
func newPageShell(index []byte, sources static.Sources) (*pageShell, bool) {
	boot := bootScript.FindSubmatchIndex(index)
	if boot == nil || !bytes.Contains(index, []byte("</head>")) || !bytes.Contains(index, []byte("<body>")) {
		return nil, false
	}
	var mods []string
	for _, m := range modulePreload.FindAllSubmatch(index, -1) {
		mods = append(mods, html.EscapeString(string(m[1])))
	}
	var b bytes.Buffer
	b.Write(index[:boot[0]])
	b.WriteString(`<script type="text/plain" id="sf-boot" data-modules="` + strings.Join(mods, " "))
	bootAt := b.Len()
	b.WriteString(`">`)
	b.Write(index[boot[2]:boot[3]])
	b.WriteString(`</script>` + bootStarter)
	b.Write(index[boot[1]:])
	// Taking the preloads out moves every later offset, bootAt with them.
	out := b.Bytes()
	before := len(out)
	out = modulePreload.ReplaceAll(out, nil)
	bootAt -= before - len(out)
	return &pageShell{html: out, csp: static.PageCSP(out, sources), modules: strings.Join(mods, " "), bootAt: bootAt}, true
}

// assemble puts a first screen into the shell: its head fragment and style
// at the end of <head>, the drawing first in <body>, the route's modules
// after the index's in sf-boot.
func (p *pageShell) assemble(fs *firstScreen, routeModules []string) []byte {
	he := bytes.Index(p.html, []byte("</head>"))
	bo := bytes.Index(p.html, []byte("<body>")) + len("<body>")
	var b bytes.Buffer
	b.Grow(len(p.html) + fs.head.Len() + fs.body.Len() + len(firstScreenCSS) + 2048)
	b.Write(p.html[:he])
	b.WriteString(fs.head.String())
	b.WriteString(firstScreenCSS)
	b.Write(p.html[he:bo])
	b.WriteString(`<sf-first aria-hidden="true" class="` + fs.kind + `">`)
	b.WriteString(fs.body.String())
	b.WriteString(`</sf-first>`)
	b.Write(p.html[bo:p.bootAt])
	for _, m := range routeModules {
		b.WriteString(" " + html.EscapeString(m))
	}
	b.Write(p.html[p.bootAt:])
	return b.Bytes()
}

// firstScreenCSS lays the drawing out as the app lays out the same pictures
// (frontend: layouts/default.css.ts, Header, routes/home.css.ts,
// components/product/product.css.ts, components/detail/detail.css.ts,
// components/viewer/viewer.css.ts), over the page, in the theme's colours
// (the boot script sets data-theme before the first paint). e2e
// first-screen.spec.ts checks each picture lands where the app puts it.
const firstScreenCSS = `<style>` +
	`sf-first{display:block;position:absolute;top:0;left:0;right:0;min-height:100vh;z-index:2147483000;background:#fff;color:#111;pointer-events:none;overflow:hidden}` +
	`:root[data-theme=dark] sf-first{background:#1c1c1c;color:#eee}` +
	`sf-first>div{max-width:720px;margin:0 auto}` +
	`sf-first img{display:block;width:100%;height:100%;object-fit:cover}` +
	`sf-first .hd{height:100px;box-sizing:border-box;padding:14px 16px 0;font-size:22px;line-height:24px;font-weight:800;color:#1a66f0}` +
	`sf-first .bn{padding:12px 16px 0;height:167px;box-sizing:content-box}` +
	`sf-first .bn i{display:block;width:88%;aspect-ratio:2/1;border-radius:10px;overflow:hidden}` +
	`sf-first .gr{display:grid;grid-template-columns:repeat(3,minmax(96px,1fr));gap:63px 10px;padding:0 16px}` +
	`sf-first .gr i{display:block;aspect-ratio:3/4;border-radius:8px;overflow:hidden}` +
	`sf-first .sp{height:60px}sf-first .ls{height:126px}` +
	`sf-first .hero{position:relative;overflow:hidden;height:178px}` +
	`sf-first .hero>img{position:absolute;inset:0;filter:blur(18px) saturate(1.2);opacity:.55;transform:scale(1.2)}` +
	`sf-first .hero>i{position:absolute;left:16px;top:18px;width:108px;aspect-ratio:3/4;border-radius:10px;overflow:hidden}` +
	`sf-first .hero>b{position:absolute;left:138px;right:16px;bottom:16px;font-size:20px;font-weight:800;line-height:1.3;word-break:keep-all}` +
	`sf-first.v,:root[data-theme=dark] sf-first.v{background:#111;color:#eee}sf-first .st{padding-top:48px}sf-first .st img{height:auto;background:#222}` +
	`</style>`

// drawPage draws req's first screen from v; nil when there is nothing to draw.
func (s *Server) drawPage(v *catalog.View, req page) *firstScreen {
	switch req.kind {
	case pageHome:
		return s.drawHome(v)
	case pageGenre:
		return s.drawGenre(v, req.area, req.cat)
	case pageDetail:
		return s.drawDetail(v, req.pid)
	case pageViewer:
		return s.drawViewer(v, req.pid, req.no)
	}
	return nil
}

// gridCovers is how many covers a list's first screen draws (two rows of
// three: what a phone shows; the app loads the same six eagerly).
const gridCovers = 6

func (s *Server) drawHome(v *catalog.View) *firstScreen {
	status, body := render.HomePage(v, "all")
	h, ok := body.(render.Home)
	if status != 200 || !ok || len(h.Banners) == 0 && len(h.Sections) == 0 {
		return nil
	}
	fs := &firstScreen{kind: "home"}
	s.drawHeader(fs)
	if len(h.Banners) > 0 && publicPath(h.Banners[0].ImageURL) {
		u := html.EscapeString(h.Banners[0].ImageURL)
		preloadImage(fs, u, "", "")
		fs.body.WriteString(`<div class="bn"><i><img src="` + u + `" alt="" width="320" height="160" fetchpriority="high" data-lead=""/></i></div>`)
	}
	if len(h.Sections) > 0 {
		fs.body.WriteString(`<div class="sp"></div>`)
		drawCovers(fs, h.Sections[0].List)
	}
	fs.body.WriteString(`</div>`)
	return fs
}

func (s *Server) drawGenre(v *catalog.View, area, cat string) *firstScreen {
	args := fasthttp.AcquireArgs()
	defer fasthttp.ReleaseArgs(args)
	args.Set("page", "1") // what the list route asks (loadList, page 1)
	fn, ok := s.routeSegs([]string{area, "genre", cat}, &query{args: args})
	if !ok {
		return nil
	}
	status, body := fn(v)
	l, ok := body.(render.List)
	if status != 200 || !ok || len(l.List) == 0 {
		return nil
	}
	fs := &firstScreen{kind: "list"}
	s.drawHeader(fs)
	fs.body.WriteString(`<div class="ls"></div>`)
	drawCovers(fs, l.List)
	fs.body.WriteString(`</div>`)
	return fs
}

func (s *Server) drawDetail(v *catalog.View, pid string) *firstScreen {
	d, ok := publicDetail(v, pid)
	if !ok || !publicPath(d.ProdInfo.ThumbURL) {
		return nil
	}
	fs := &firstScreen{kind: "detail"}
	s.drawHeader(fs)
	u := html.EscapeString(d.ProdInfo.ThumbURL)
	preloadImage(fs, u, "", "")
	s.shareTags(fs, d, pid)
	fs.body.WriteString(`<div class="hero"><img src="` + u + `" alt="" width="360" height="200" fetchpriority="high" data-lead=""/><i><img src="` + u + `" alt="" width="108" height="144"/></i><b>` +
		html.EscapeString(d.ProdInfo.Title) + `</b></div></div>`)
	return fs
}

// shareTags are the Open Graph and Twitter tags a chat or a social network
// reads for a shared link (they run no JavaScript). Only for a public work:
// an adult or unknown one is not drawn at all, so it gets index.html's own
// generic title and no cover.
func (s *Server) shareTags(fs *firstScreen, d render.Detail, pid string) {
	title := html.EscapeString(d.ProdInfo.Title)
	desc := html.EscapeString(d.ProdInfo.Summary)
	img := html.EscapeString(s.publicURL + d.ProdInfo.ThumbURL)
	// One canonical address whichever section path the link came by.
	page := html.EscapeString(s.publicURL + "/" + strings.ToLower(contract.ContentType(d.ProdInfo.Section)) + "/detail/" + pid)
	h := &fs.head
	h.WriteString(`<link rel="canonical" href="` + page + `"/>`)
	h.WriteString(`<meta property="og:type" content="website"/><meta property="og:site_name" content="` + s.pageBrand + `"/>`)
	h.WriteString(`<meta property="og:title" content="` + title + `"/><meta property="og:description" content="` + desc + `"/>`)
	h.WriteString(`<meta property="og:image" content="` + img + `"/><meta property="og:url" content="` + page + `"/>`)
	h.WriteString(`<meta name="twitter:card" content="summary_large_image"/><meta name="twitter:title" content="` + title + `"/>`)
	h.WriteString(`<meta name="twitter:description" content="` + desc + `"/><meta name="twitter:image" content="` + img + `"/>`)
}

// drawViewer draws a webtoon volume's first strip, when it is a preview
// page (public): with the srcset and sizes the viewer gives its own img, so
// the browser downloads it once, from the document.
func (s *Server) drawViewer(v *catalog.View, pid string, no int) *firstScreen {
	d, ok := publicDetail(v, pid)
	if !ok || d.ProdInfo.Section != contract.SectionWebtoon {
		return nil
	}
	var vol *render.Vol
	for i := range d.VolList {
		if d.VolList[i].No == no {
			vol = &d.VolList[i]
		}
	}
	if vol == nil || vol.PreviewPages < 1 {
		return nil
	}
	fs := &firstScreen{kind: "v"}
	fs.body.WriteString(`<div class="st">`)
	if vol.MediaBase == "" {
		return nil // not processed yet: the viewer says so, nothing to draw
	}
	status, body := render.VolumeMediaOf(v, pid, no, s.cachedManifest)
	m, ok := body.(render.VolumeManifest)
	if status != 200 || !ok || m.Kind != contract.MediaKindImages || len(m.Pages) == 0 || m.PreviewPages < 1 || !publicPath(m.Base) {
		return nil
	}
	set := html.EscapeString(ladderSrcSet(m.Base, 1))
	preloadImage(fs, "", set, stripSizes)
	p := m.Pages[0]
	fs.body.WriteString(`<img srcset="` + set + `" sizes="` + stripSizes + `" alt="" width="` + strconv.Itoa(p.W) + `" height="` + strconv.Itoa(p.H) + `" fetchpriority="high" data-lead=""/></div>`)
	return fs
}

// stripLadder and stripSizes are the viewer's own (frontend
// components/viewer/media.ts LADDER; Viewer.tsx sizes at the default width
// setting of 100 %): the same candidates and sizes pick the same URL, so
// the strip the page preloads is the one the viewer shows.
var stripLadder = [...]int{360, 720, 1080}

const stripSizes = "100vw"

func ladderSrcSet(base string, n int) string {
	var b strings.Builder
	for i, w := range stripLadder {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(base + "/" + strconv.Itoa(n) + "?w=" + strconv.Itoa(w) + " " + strconv.Itoa(w) + "w")
	}
	return b.String()
}

// publicDetail is pid's detail when it may be drawn for everybody of the
// audience: a known work, not an adult one (its pictures are private).
func publicDetail(v *catalog.View, pid string) (render.Detail, bool) {
	if !contract.ValidKeyID(pid) {
		return render.Detail{}, false
	}
	status, body := render.ProductDetail(v, pid)
	d, ok := body.(render.Detail)
	return d, ok && status == 200 && !d.AdultVerificationNeeded && !d.ProdInfo.IsAdult
}

// publicPath accepts a picture address of this origin only.
func publicPath(u string) bool {
	return strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//")
}

func (s *Server) drawHeader(fs *firstScreen) {
	fs.body.WriteString(`<div><div class="hd">` + s.pageBrand + `</div>`)
}

func drawCovers(fs *firstScreen, items []render.Item) {
	fs.body.WriteString(`<div class="gr">`)
	for i, it := range items {
		if i == gridCovers {
			break
		}
		if !publicPath(it.Thumbnail) {
			continue
		}
		u := html.EscapeString(it.Thumbnail)
		if i < 3 {
			preloadImage(fs, u, "", "")
		}
		fs.body.WriteString(`<i><img src="` + u + `" alt="" width="96" height="128"/></i>`)
	}
	fs.body.WriteString(`</div>`)
}

// preloadImage adds a high-priority image preload: href, or srcset and sizes
// (already escaped).
func preloadImage(fs *firstScreen, href, srcset, sizes string) {
	if srcset != "" {
		fs.head.WriteString(`<link rel="preload" as="image" imagesrcset="` + srcset + `" imagesizes="` + sizes + `" fetchpriority="high"/>`)
		return
	}
	fs.head.WriteString(`<link rel="preload" as="image" href="` + href + `" fetchpriority="high"/>`)
}

// pageTitle is the text of index.html's <title>: the product name.
func pageTitle(index []byte) string {
	_, t, ok := bytes.Cut(index, []byte("<title>"))
	if !ok {
		return ""
	}
	t, _, _ = bytes.Cut(t, []byte("</title>"))
	return html.UnescapeString(string(t))
}
