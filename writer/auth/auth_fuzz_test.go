package auth

// Fuzz targets for what auth parses from requests: the return address of the
// auto-login and social-login redirects, the Origin check of CSRF protection,
// the client address of the login limiter and the email rule.

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// browserNormalize applies what a browser's URL parser does to a Location
// value before resolving it (WHATWG URL): leading and trailing C0 controls and
// spaces are stripped, tabs and newlines anywhere are removed, and in http(s)
// URLs a backslash is a slash.
func browserNormalize(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= 0x20 })
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return strings.ReplaceAll(s, `\`, "/")
}

// FuzzSafeReturn: whatever the new_url / url parameter holds, the redirect the
// browser follows stays on our site: the Location it gets, normalized the way
// the browser does, is a path-absolute URL ("/x", never "//host" or "x:").
func FuzzSafeReturn(f *testing.F) {
	for _, s := range []string{"/", "/webtoon/weekday/mon?tab=1", "//evil.example", "/\\evil.example", "https://evil.example",
		"/\t/evil.example", " //evil.example", "/%2F/evil.example", "/\r\n/evil", "javascript:alert(1)", "\\\\evil.example",
		"/./\\evil.example", "/../..//evil.example", "/\x00/evil.example", "/\u3000/x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ret string) {
		got := safeReturn(ret)
		rec := httptest.NewRecorder()
		http.Redirect(rec, httptest.NewRequest("GET", "/api/v-1/user/login_auto.asp", nil), got, http.StatusFound)
		loc := browserNormalize(rec.Header().Get("Location"))
		if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
			t.Fatalf("safeReturn(%q) = %q: the browser goes to %q", ret, got, loc)
		}
		base, _ := url.Parse("https://store.example/api/v-1/user/login_auto.asp")
		if u, err := url.Parse(loc); err == nil {
			if r := base.ResolveReference(u); r.Host != "store.example" || r.Scheme != "https" {
				t.Fatalf("safeReturn(%q) = %q resolves to %s", ret, got, r)
			}
		}
	})
}

// FuzzSameOrigin: a state-changing call with an Origin header that is neither
// trusted nor names the host the call was made to (Host, or X-Forwarded-Host
// from the edge) is refused unless the browser itself says same-origin.
func FuzzSameOrigin(f *testing.F) {
	f.Add("https://store.example", "store.example", "", "")
	f.Add("https://evil.example", "store.example", "", "cross-site")
	f.Add("https://store.example@evil.example", "store.example", "", "")
	f.Add("null", "store.example", "", "")
	f.Add("https://evil.example", "127.0.0.1:8081", "evil.example", "same-site")
	f.Add("", "store.example", "", "")
	f.Add("https://app.example", "store.example", "", "cross-site")
	f.Add("HTTPS://STORE.EXAMPLE", "store.example", "", "")
	a := &Auth{trusted: map[string]bool{"https://app.example": true}}
	f.Fuzz(func(t *testing.T, origin, host, fwdHost, fetchSite string) {
		r := httptest.NewRequest("POST", "/home/api/v1/reviews/1/like", nil)
		r.Host = host
		for k, v := range map[string]string{"Origin": origin, "X-Forwarded-Host": fwdHost, "Sec-Fetch-Site": fetchSite} {
			if v != "" {
				r.Header.Set(k, v)
			}
		}
		if !a.sameOrigin(r) {
			return
		}
		ok := fetchSite == "same-origin" || fetchSite == "none" || origin == "" && fetchSite == "" || a.trusted[origin]
		if u, err := url.Parse(origin); err == nil && u.Host != "" && (u.Host == host || fwdHost != "" && u.Host == fwdHost) {
			ok = true
		}
		if !ok {
			t.Fatalf("accepted Origin %q for Host %q / X-Forwarded-Host %q, Sec-Fetch-Site %q", origin, host, fwdHost, fetchSite)
		}
	})
}

// FuzzValidEmail: the seed's email rule accepts only what fits in the column
// and has exactly one @ with a dotted domain; it never panics.
func FuzzValidEmail(f *testing.F) {
	for _, s := range []string{"a@example.com", "a@b.c", "a.b-c@x.co.kr", "@example.com", "a@@example.com", "a@example", "' OR 1=1--@x.com", strings.Repeat("a", 250) + "@b.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidEmail(s) {
			return
		}
		local, domain, ok := strings.Cut(s, "@")
		if !ok || len(s) > 254 || local == "" || strings.Contains(domain, "@") || !strings.Contains(domain, ".") ||
			strings.ContainsAny(s, " '\"<>;\\\x00") {
			t.Fatalf("accepted %q", s)
		}
	})
}
