package server_test

import (
	"flag"
	"io"
	"strings"
	"testing"

	"storefront/contract"
	"storefront/edge/server"
	"storefront/svc"
)

// parseEdgeFlags parses args with the edge's flags and environment fallbacks.
func parseEdgeFlags(args ...string) (server.Config, error) {
	var c server.Config
	fs := flag.NewFlagSet("edge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.RegisterFlags(fs)
	return c, svc.Parse(fs, args)
}

// TestPageCSPAdmitsTheIdentitySDKOnlyWhenConfigured: live adult verification
// loads PortOne's SDK from its CDN, which the pages' policy refuses unless
// the operator names the origin (EDGE_CSP_SCRIPT_ORIGINS); then both the
// build's pages and the pages the edge draws admit it, and nothing else.
func TestPageCSPAdmitsTheIdentitySDKOnlyWhenConfigured(t *testing.T) {
	t.Setenv("EDGE_CSP_SCRIPT_ORIGINS", "https://cdn.portone.io")
	cfg, err := parseEdgeFlags("-csp-connect-origins", "https://checkout.example")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰"))
	dir := t.TempDir()
	server.WriteSPABuild(t, dir)
	plain := startEdge(t, e, func(c *server.Config) { c.StaticDir = dir })
	live := startEdge(t, e, func(c *server.Config) { c.StaticDir = dir; c.PageSources = cfg.PageSources })
	plain.waitReady()
	live.waitReady()
	for _, p := range []string{"/", "/index.html", "/webtoon/detail/w1"} {
		resp, _ := plain.get(p)
		if csp := resp.Header.Get("Content-Security-Policy"); csp == "" || strings.Contains(csp, "portone") || strings.Contains(csp, "checkout.example") {
			t.Errorf("%s without sources: %q", p, csp)
		}
		resp, _ = live.get(p)
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "; script-src 'self' https://cdn.portone.io 'sha256-") ||
			!strings.Contains(csp, "; connect-src 'self' https://checkout.example;") || strings.Count(csp, "https://") != 2 {
			t.Errorf("%s with sources: %q", p, csp)
		}
	}
}

// TestPageCSPFlagsRefuseMalformedOrigins: an origin list that would loosen
// the policy more than an origin (a wildcard, a keyword, a path, a smuggled
// source) stops the edge at start-up with the variable's name.
func TestPageCSPFlagsRefuseMalformedOrigins(t *testing.T) {
	for _, v := range []string{"http://cdn.portone.io", "https://*.portone.io", "'unsafe-inline'", "https://cdn.portone.io/v2/browser-sdk.js", "https://cdn.portone.io 'unsafe-eval'"} {
		for _, env := range []string{"EDGE_CSP_SCRIPT_ORIGINS", "EDGE_CSP_CONNECT_ORIGINS", "EDGE_CSP_FRAME_ORIGINS"} {
			t.Setenv(env, v)
			if _, err := parseEdgeFlags(); err == nil || !strings.Contains(err.Error(), env) || !strings.Contains(err.Error(), "https://host[:port]") {
				t.Errorf("%s=%q: %v", env, v, err)
			}
			t.Setenv(env, "")
		}
		if _, err := parseEdgeFlags("-csp-script-origins", v); err == nil {
			t.Errorf("-csp-script-origins %q accepted", v)
		}
	}
}
