package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"storefront/contract"
	"storefront/edge/server"
)

// firstScreen returns the drawing and the head of a drawn page.
func firstScreen(t *testing.T, g *edge, path string) (head, drawing string, page []byte) {
	t.Helper()
	resp, b := g.get(path)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("%s: %d %v", path, resp.StatusCode, resp.Header)
	}
	h, _, _ := bytes.Cut(b, []byte("</head>"))
	m := regexp.MustCompile(`(?s)<sf-first aria-hidden="true" class="[a-z]+">(.*?)</sf-first>`).FindSubmatch(b)
	if m == nil {
		return string(h), "", b
	}
	return string(h), string(m[1]), b
}

func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// TestFirstScreen: the routes readers land on come with their first screen
// drawn by the edge from the catalog: the viewer's first strip preloaded
// with the srcset and sizes the viewer asks, a work's cover and title, a
// list's first covers; the app's modules start after the drawing (React
// Router's boot script kept verbatim, allowed by the page's policy). Nothing
// a visitor may not open is ever named: no page past the preview, no adult
// work; a route with nothing to draw is the plain index.html.
func TestFirstScreen(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	e.putProduct(product("w1", contract.SectionWebtoon, `웹툰 <b>"하나"</b>`, func(p *contract.Product) {
		p.Volumes[1].PreviewPages = 0 // volume 2: paid, no preview
	}, withContent(1, contentVersion(o, "00ab", 3)), withContent(2, contentVersion(o, "00cd", 3))))
	e.putProduct(product("ad1", contract.SectionWebtoon, "성인 웹툰", func(p *contract.Product) { p.Age = 19 }, withContent(1, contentVersion(o, "00ef", 2))))
	dir := t.TempDir()
	server.WriteSPABuild(t, dir)
	g := startEdge(t, e, withObjects(o), func(c *server.Config) { c.StaticDir = dir; c.PublicURL = "https://store.example" })
	g.waitReady()

	// The viewer: the first strip (a preview page) in the viewer's srcset and sizes.
	head, drawing, page := firstScreen(t, g, "/viewer?pid=w1&no=1&utm_source=x")
	base := "/content/w1/1/00ab"
	set := fmt.Sprintf("%s/1?w=360 360w, %s/1?w=720 720w, %s/1?w=1080 1080w", base, base, base)
	if !strings.Contains(head, `<link rel="preload" as="image" imagesrcset="`+set+`" imagesizes="100vw" fetchpriority="high"/>`) {
		t.Fatalf("viewer: no preload of the first strip in the head: %s", head)
	}
	if !strings.Contains(drawing, `<img srcset="`+set+`" sizes="100vw" alt="" width="1080" height="1600"`) {
		t.Fatalf("viewer: drawing %s", drawing)
	}
	if strings.Contains(string(page), base+"/2") || strings.Contains(string(page), "?t=") {
		t.Fatal("viewer: the page names more than the first strip")
	}
	// The app starts after the drawing: no module preloaded from the head,
	// the boot script inert with the modules of the index and the route, and
	// the policy allows it and the starter.
	if strings.Contains(head, `rel="modulepreload"`) || strings.Contains(string(page), `<script type="module"`) {
		t.Fatalf("viewer: modules still start with the document: %s", page)
	}
	boot := regexp.MustCompile(`(?s)<script type="text/plain" id="sf-boot" data-modules="([^"]*)">(.*?)</script><script>(.*?)</script>`).FindStringSubmatch(string(page))
	if boot == nil || boot[2] != server.SPABoot || boot[1] != "/assets/manifest-0a1b.js /assets/entry.client-1.js /assets/root-1.js /assets/empty-1.js /assets/viewer-1.js /assets/media-1.js" {
		t.Fatalf("viewer: boot %q", boot)
	}
	resp, _ := g.get("/viewer?pid=w1&no=1")
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, hashSource(server.SPABoot)) || !strings.Contains(csp, hashSource(boot[3])) {
		t.Fatalf("viewer: policy %q does not allow the boot script and its starter", csp)
	}

	// Nothing for a paid volume without a preview, a volume not processed
	// yet (the edge draws no pages of its own), an adult work, an unknown
	// one, a volume that does not exist: the build's own index.html.
	for _, p := range []string{"/viewer?pid=w1&no=2", "/viewer?pid=w1&no=3", "/viewer?pid=ad1&no=1", "/adult/detail/ad1", "/webtoon/detail/nope", "/viewer?pid=w1&no=9", "/viewer?pid=w1", "/webtoon/genre/all/2"} {
		_, drawing, b := firstScreen(t, g, p)
		if drawing != "" || string(b) != server.SPAIndex {
			t.Errorf("%s: drawn %q", p, drawing)
		}
		if strings.Contains(string(b), "/content/w1/2") || strings.Contains(string(b), "ad1") || strings.Contains(string(b), "og:image") {
			t.Errorf("%s: names content it must not", p)
		}
	}

	// A work's detail: cover and title, escaped.
	head, drawing, _ = firstScreen(t, g, "/webtoon/detail/w1")
	if !strings.Contains(head, `<link rel="preload" as="image" href="/img/cover/w1.svg" fetchpriority="high"/>`) ||
		!strings.Contains(drawing, `<b>웹툰 &lt;b&gt;&#34;하나&#34;&lt;/b&gt;</b>`) {
		t.Fatalf("detail: %s\n%s", head, drawing)
	}
	// Its share preview: the work's title and summary, escaped, its cover
	// and page as absolute addresses on the public origin.
	const title = `웹툰 &lt;b&gt;&#34;하나&#34;&lt;/b&gt;`
	for _, tag := range []string{
		`<link rel="canonical" href="https://store.example/webtoon/detail/w1"/>`,
		`<meta property="og:type" content="website"/>`,
		`<meta property="og:site_name" content="`,
		`<meta property="og:title" content="` + title + `"/>`,
		`<meta property="og:description" content="요약"/>`,
		`<meta property="og:image" content="https://store.example/img/cover/w1.svg"/>`,
		`<meta property="og:url" content="https://store.example/webtoon/detail/w1"/>`,
		`<meta name="twitter:card" content="summary_large_image"/>`,
		`<meta name="twitter:title" content="` + title + `"/>`,
		`<meta name="twitter:description" content="요약"/>`,
		`<meta name="twitter:image" content="https://store.example/img/cover/w1.svg"/>`,
	} {
		if !strings.Contains(head, tag) {
			t.Errorf("detail share preview lacks %s:\n%s", tag, head)
		}
	}

	// A list's first covers, in the order of the list the route asks.
	var list struct {
		List []struct{ Thumbnail string } `json:"list"`
	}
	g.getJSON("/home/api/v1/webtoon/genre/all?page=1", 200, &list)
	_, drawing, _ = firstScreen(t, g, "/webtoon/genre")
	if len(list.List) == 0 || !strings.Contains(drawing, `<img src="`+list.List[0].Thumbnail+`"`) {
		t.Fatalf("genre: %s", drawing)
	}

	// A catalog change draws the page again.
	e.putProduct(product("w1", contract.SectionWebtoon, "새 제목", func(p *contract.Product) { p.Version = 2 }))
	eventually(t, "the renamed work drawn", func() bool {
		_, drawing, _ := firstScreen(t, g, "/webtoon/detail/w1")
		return strings.Contains(drawing, "<b>새 제목</b>")
	})

	// Compressed like every cached body, and the same page once decoded.
	eventually(t, "a brotli page", func() bool {
		resp, _ := g.get("/webtoon/detail/w1", "Accept-Encoding: br")
		return resp.Header.Get("Content-Encoding") == "br"
	})
}

func TestParsePublicURL(t *testing.T) {
	for in, want := range map[string]string{"https://store.example": "https://store.example", "http://127.0.0.1:8080/": "http://127.0.0.1:8080"} {
		if got, err := server.ParsePublicURL(in); err != nil || got != want {
			t.Errorf("%s: %q %v", in, got, err)
		}
	}
	for _, in := range []string{"", "store.example", "ftp://store.example", "https://store.example/shop", "https://store.example?x=1", "https://"} {
		if _, err := server.ParsePublicURL(in); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}
