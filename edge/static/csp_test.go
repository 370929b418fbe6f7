package static

import (
	"strings"
	"testing"
)

// directive is the sources of one directive of policy, "" when absent.
func directive(policy, name string) string {
	for _, d := range strings.Split(policy, ";") {
		d = strings.TrimSpace(d)
		if d == name || strings.HasPrefix(d, name+" ") {
			return d
		}
	}
	return ""
}

func TestPageCSPAdmitsTheConfiguredOriginsOnly(t *testing.T) {
	page := []byte(`<html><head><script>boot()</script><script src="/assets/a.js"></script></head></html>`)
	plain := PageCSP(page, Sources{})
	if strings.Contains(plain, "https://") || directive(plain, "frame-src") != "" {
		t.Fatalf("no sources configured, yet the policy names another origin: %s", plain)
	}
	if got := directive(plain, "script-src"); !strings.HasPrefix(got, "script-src 'self' 'sha256-") {
		t.Fatalf("script-src %q", got)
	}

	live := PageCSP(page, Sources{
		Script:  []string{"https://cdn.portone.io"},
		Connect: []string{"https://checkout.example"},
		Frame:   []string{"https://window.example"},
	})
	for name, want := range map[string]string{
		"script-src":  "script-src 'self' https://cdn.portone.io 'sha256-",
		"connect-src": "connect-src 'self' https://checkout.example",
		"frame-src":   "frame-src 'self' https://window.example",
	} {
		if got := directive(live, name); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want it to start %q (policy %s)", name, got, want, live)
		}
	}
	// The hash of the inline script is the same either way.
	if h := plain[strings.Index(plain, "'sha256-"):][:52]; !strings.Contains(live, h) {
		t.Errorf("inline script hash %s missing from %s", h, live)
	}
	// Each origin only where it was configured.
	if strings.Count(live, "https://cdn.portone.io") != 1 || strings.Count(live, "https://checkout.example") != 1 {
		t.Errorf("an origin leaked into another directive: %s", live)
	}
}

func TestParseOrigins(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"https://cdn.portone.io": "https://cdn.portone.io",
		"https://cdn.portone.io,https://a.b:8443": "https://cdn.portone.io https://a.b:8443",
	} {
		got, err := ParseOrigins(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{
		"http://cdn.portone.io",                // not https
		"cdn.portone.io",                       // no scheme
		"https://cdn.portone.io/v2/",           // a path
		"https://cdn.portone.io/",              // a path, even /
		"https://cdn.portone.io?x=1",           // a query
		"https://cdn.portone.io#x",             // a fragment
		"https://*.portone.io",                 // a wildcard
		"*",                                    // a wildcard
		"'unsafe-inline'",                      // a keyword
		"https://cdn.portone.io 'unsafe-eval'", // a space smuggling a source
		"https://cdn.portone.io, https://a.b",  // a space
		"https://cdn.portone.io;script-src *",  // another directive
		"https://cdn.portone.io,",              // an empty entry
		"https://",                             // no host
		"https://user@cdn.portone.io",          // credentials
		"data:",                                // a scheme source
	} {
		if got, err := ParseOrigins(in); err == nil {
			t.Errorf("%q accepted as %q", in, got)
		} else if !strings.Contains(err.Error(), "https://host[:port]") {
			t.Errorf("%q: unclear error %v", in, err)
		}
	}
}
