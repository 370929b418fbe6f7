// Package static serves the built SPA (STATIC_DIR): its files, precompressed,
// with the page's Content-Security-Policy.
package static

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/valyala/fasthttp"

	"storefront/contract"
)

type file struct {
	body, gz, br []byte
	ctype        string
	cacheControl string
	// csp is the Content-Security-Policy of an HTML page: scripts only from
	// this origin or inline ones whose hash the build made, so markup that
	// slipped into a page cannot run.
	csp string
}

// inlineScript finds the scripts written into a page (not those with src).
var inlineScript = regexp.MustCompile(`(?s)<script(\s[^>]*)?>(.*?)</script>`)

// Sources are origins a page may use besides its own, per directive: the
// scripts and windows of a third party the page talks to in the browser
// (PortOne's identity verification SDK in live mode). Empty in development,
// where the writer's sandboxes stand in for them on our own origins.
type Sources struct {
	Script, Connect, Frame []string
}

// PageCSP is the policy of a built page. Images may come from any https host
// (the ad pixel); everything else is this origin and the extra sources.
func PageCSP(html []byte, extra Sources) string {
	var b strings.Builder
	b.WriteString("default-src 'self'; script-src 'self'")
	for _, o := range extra.Script {
		b.WriteString(" " + o)
	}
	for _, m := range inlineScript.FindAllSubmatch(html, -1) {
		if bytes.Contains(m[1], []byte("src=")) {
			continue
		}
		sum := sha256.Sum256(m[2])
		b.WriteString(" 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'")
	}
	b.WriteString("; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https:; font-src 'self' data:; connect-src 'self'")
	for _, o := range extra.Connect {
		b.WriteString(" " + o)
	}
	if len(extra.Frame) > 0 {
		// Without frame-src, frames fall back to default-src 'self'.
		b.WriteString("; frame-src 'self'")
		for _, o := range extra.Frame {
			b.WriteString(" " + o)
		}
	}
	b.WriteString("; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'")
	return b.String()
}

// ParseOrigins reads a comma-separated list of https origins
// ("https://cdn.portone.io,https://host:8443") for Sources. Anything that is
// not exactly an https origin is refused rather than loosening the policy
// more than its operator meant: another scheme, a path, query or fragment, a
// wildcard, a keyword such as 'unsafe-inline', spaces (which would add a
// source of their own), an empty entry. An empty v is no origins.
func ParseOrigins(v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	var out []string
	for _, o := range strings.Split(v, ",") {
		u, err := url.Parse(o)
		if err != nil || strings.ContainsAny(o, " \t\r\n;'*\"") || u.Scheme != "https" || u.Host == "" || u.Hostname() == "" ||
			u.Opaque != "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.HasSuffix(o, "#") {
			return nil, fmt.Errorf("origin %q: want https://host[:port], comma-separated, without spaces, paths or wildcards", o)
		}
		out = append(out, "https://"+u.Host)
	}
	return out, nil
}

// Static serves the built SPA from memory: index.html for every route the SPA
// owns, hashed assets under /assets/ as immutable, and precompressed .br/.gz
// siblings when the build made them. The build is small, so it is read once at
// start; a new build needs a restart (deploys restart edges anyway).
type Static struct {
	files map[string]*file
	index *file
	// routes are the build's route modules by route id (React Router's
	// manifest), so a page the edge draws can name its route's chunks.
	routes map[string]routeAssets
	// preloaded are the modules and style sheets index.html already loads.
	preloaded map[string]bool
}

// routeAssets is one route of React Router's build manifest.
type routeAssets struct {
	Module  string   `json:"module"`
	Imports []string `json:"imports"`
	CSS     []string `json:"css"`
}

const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheRevalid   = "no-cache"
	cacheShort     = "public, max-age=3600"
)

// placeholder is served when no build exists, so a back-end-only run still
// answers / with something that says what is missing.
var placeholder = []byte(`<!doctype html><html lang="ko"><meta charset="utf-8"><title>storefront</title><p>The frontend is not built (STATIC_DIR has no index.html). The API is under /home/api/v1/.</p></html>`)

// LoadStatic reads every file under dir. A missing dir is not an error.
// extra are the origins its pages' policy admits besides their own.
func LoadStatic(dir string, extra Sources, log *slog.Logger) (*Static, error) {
	s := &Static{files: make(map[string]*file)}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		urlPath := "/" + filepath.ToSlash(rel)
		if strings.HasSuffix(urlPath, ".gz") || strings.HasSuffix(urlPath, ".br") {
			return nil // loaded as variants of their originals
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		f := &file{body: b, ctype: mime.TypeByExtension(path.Ext(urlPath))}
		if f.ctype == "" {
			f.ctype = "application/octet-stream"
		}
		if gz, err := os.ReadFile(p + ".gz"); err == nil {
			f.gz = gz
		}
		if br, err := os.ReadFile(p + ".br"); err == nil {
			f.br = br
		}
		if strings.HasSuffix(urlPath, ".webmanifest") {
			// Not in Go's table; browsers want this type for the manifest.
			f.ctype = "application/manifest+json"
		}
		switch {
		case strings.HasPrefix(urlPath, "/assets/"):
			f.cacheControl = cacheImmutable
		case urlPath == "/sw.js" || strings.HasSuffix(urlPath, ".webmanifest"):
			// The service worker and the manifest name the release: a
			// cached old one would keep readers on the old release (the
			// browser's worker update check honours max-age up to 24 h).
			f.cacheControl = cacheRevalid
		case strings.HasSuffix(urlPath, ".html"):
			f.cacheControl = cacheRevalid
			f.csp = PageCSP(b, extra)
		default:
			f.cacheControl = cacheShort
		}
		s.files[urlPath] = f
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load static files from %s: %w", dir, err)
	}
	s.index = s.files["/index.html"]
	if s.index != nil {
		s.loadRoutes(log)
	}
	if s.index == nil {
		log.Warn("no built frontend, serving a placeholder page", "dir", dir)
		s.index = &file{body: placeholder, ctype: "text/html; charset=utf-8", cacheControl: cacheRevalid}
	}
	return s, nil
}

var (
	manifestRef  = regexp.MustCompile(`/assets/manifest-[A-Za-z0-9_-]+\.js`)
	modulePreRef = regexp.MustCompile(`<link rel="(?:modulepreload|stylesheet)" href="([^"]+)"`)
)

// loadRoutes reads React Router's route manifest the index names
// (window.__reactRouterManifest={...};). A build without one (or one the
// edge cannot read) only loses the route preloads of drawn pages.
func (s *Static) loadRoutes(log *slog.Logger) {
	s.preloaded = map[string]bool{}
	for _, m := range modulePreRef.FindAllSubmatch(s.index.body, -1) {
		s.preloaded[string(m[1])] = true
	}
	f := s.files[string(manifestRef.Find(s.index.body))]
	if f == nil {
		return
	}
	b := bytes.TrimSpace(f.body)
	b = bytes.TrimPrefix(b, []byte("window.__reactRouterManifest="))
	b = bytes.TrimSuffix(b, []byte(";"))
	var m struct {
		Routes map[string]routeAssets `json:"routes"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		log.Warn("cannot read the route manifest of the build", "err", err)
		return
	}
	s.routes = m.Routes
}

// Index is the build's index.html and its Content-Security-Policy: the page
// the edge adds a route's own head and first screen to.
func (s *Static) Index() (html []byte, csp string) { return s.index.body, s.index.csp }

// RouteModules lists the modules and style sheets of the given routes
// (React Router route ids, e.g. "layouts/default", "routes/home") that
// index.html does not preload already, each once, in order.
func (s *Static) RouteModules(ids ...string) (modules, css []string) {
	seen := map[string]bool{}
	for _, id := range ids {
		r, ok := s.routes[id]
		if !ok {
			continue
		}
		for _, u := range append([]string{r.Module}, r.Imports...) {
			if u != "" && !seen[u] && !s.preloaded[u] {
				seen[u] = true
				modules = append(modules, u)
			}
		}
		for _, u := range r.CSS {
			if !seen[u] && !s.preloaded[u] {
				seen[u] = true
				css = append(css, u)
			}
		}
	}
	return modules, css
}

// notFoundBody answers a missing file in the seed's envelope, like every
// other refusal of the edge.
var notFoundBody = contract.ErrorBody(fasthttp.StatusNotFound, "요청한 파일을 찾을 수 없습니다.")

// Serve answers a GET or HEAD for a non-API path.
func (s *Static) Serve(ctx *fasthttp.RequestCtx) {
	p := string(ctx.Path())
	f := s.files[p]
	if f == nil {
		ext := path.Ext(p)
		// The seed's legacy pages (/join/event.asp, /payment/recharge.asp)
		// are SPA routes that old app builds open directly.
		if strings.HasPrefix(p, "/assets/") || ext != "" && ext != ".asp" && p != "/index.html" {
			// A missing hashed asset must not turn into index.html: the
			// browser would cache HTML as a script.
			ctx.SetStatusCode(fasthttp.StatusNotFound)
			ctx.SetContentType("application/json; charset=utf-8")
			ctx.Response.Header.Set("Cache-Control", "no-store")
			ctx.Response.SetBodyRaw(notFoundBody)
			return
		}
		f = s.index
	}
	h := &ctx.Response.Header
	h.SetContentType(f.ctype)
	h.Set("Cache-Control", f.cacheControl)
	h.Set("Vary", "Accept-Encoding")
	if f.csp != "" {
		h.Set("Content-Security-Policy", f.csp)
	}
	switch {
	case f.br != nil && ctx.Request.Header.HasAcceptEncoding("br"):
		h.Set("Content-Encoding", "br")
		ctx.Response.SetBodyRaw(f.br)
	case f.gz != nil && ctx.Request.Header.HasAcceptEncoding("gzip"):
		h.Set("Content-Encoding", "gzip")
		ctx.Response.SetBodyRaw(f.gz)
	default:
		ctx.Response.SetBodyRaw(f.body)
	}
}

// Has reports whether the build holds urlPath.
func (s *Static) Has(urlPath string) bool { return s.files[urlPath] != nil }

// IsPlaceholder reports whether no build was found.
func (s *Static) IsPlaceholder() bool { return bytes.Equal(s.index.body, placeholder) }
