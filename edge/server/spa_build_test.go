package server

import (
	"os"
	"path/filepath"
	"testing"
)

// SPAIndex is index.html as React Router's SPA build writes it (ssr: false):
// module preloads and style sheets in the head, the theme's boot script, the
// hydration fallback, the router context and the module boot script.
const SPAIndex = `<!DOCTYPE html><html lang="ko" data-theme="light"><head><meta charSet="utf-8"/><title>블루페이지</title>` +
	`<link rel="modulepreload" href="/assets/manifest-0a1b.js"/><link rel="modulepreload" href="/assets/entry.client-1.js"/><link rel="modulepreload" href="/assets/root-1.js"/>` +
	`<script>(function(){document.documentElement.setAttribute("data-theme","light")})();</script><link rel="stylesheet" href="/assets/root-1.css"/></head>` +
	`<body><div aria-busy="true" style="min-height:100vh"></div><script>window.__reactRouterContext = {"ssr":false,"isSpaMode":true};</script>` +
	`<script type="module" async="">` + SPABoot + `</script><!--$--><script>window.__reactRouterContext.streamController.close();</script><!--/$--></body></html>`

// SPABoot is the module boot script of SPAIndex.
const SPABoot = "import \"/assets/manifest-0a1b.js\";\nimport * as route0 from \"/assets/root-1.js\";\nwindow.__reactRouterRouteModules = {\"root\":route0};\nimport(\"/assets/entry.client-1.js\");"

// WriteSPABuild writes a small React Router SPA build into dir: SPAIndex and
// its route manifest.
func WriteSPABuild(t testing.TB, dir string) {
	t.Helper()
	files := map[string]string{
		"index.html": SPAIndex,
		"assets/manifest-0a1b.js": `window.__reactRouterManifest={"entry":{"module":"/assets/entry.client-1.js","imports":[],"css":[]},"routes":{` +
			`"root":{"id":"root","module":"/assets/root-1.js","imports":[],"css":["/assets/root-1.css"]},` +
			`"layouts/default":{"id":"layouts/default","module":"/assets/default-1.js","imports":["/assets/root-1.js","/assets/layout-1.js"],"css":["/assets/default-1.css"]},` +
			`"layouts/empty":{"id":"layouts/empty","module":"/assets/empty-1.js","imports":[],"css":[]},` +
			`"routes/home":{"id":"routes/home","module":"/assets/home-1.js","imports":["/assets/layout-1.js","/assets/grid-1.js"],"css":[]},` +
			`"routes/webtoon/genre":{"id":"routes/webtoon/genre","module":"/assets/genre-1.js","imports":["/assets/grid-1.js"],"css":[]},` +
			`"routes/detail":{"id":"routes/detail","module":"/assets/detail-1.js","imports":[],"css":[]},` +
			`"routes/viewer":{"id":"routes/viewer","module":"/assets/viewer-1.js","imports":["/assets/media-1.js"],"css":["/assets/viewer-1.css"]}}};`,
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
