package auth

import (
	"net/http"
	"net/url"
	"strings"
)

// CSRF protection (documented in writer/README.md): every state-changing call
// (not GET/HEAD/OPTIONS) made by a browser must come from our own origin.
// Browsers send Sec-Fetch-Site and Origin on such calls; a call whose
// Sec-Fetch-Site is cross-site/same-site, or whose Origin names another host
// than the one the call was made to (Host, or X-Forwarded-Host set by the
// edge) or a trusted origin, is refused with 403. Calls without either header
// do not come from a browser page (native apps, tools) and carry no ambient
// authority an attacker could borrow. Session cookies are also SameSite=Lax.
func (a *Auth) csrf(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		if !a.sameOrigin(r) {
			a.fail(w, r, errCSRF)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (a *Auth) sameOrigin(r *http.Request) bool {
	sfs := r.Header.Get("Sec-Fetch-Site")
	if sfs == "same-origin" || sfs == "none" {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return sfs == ""
	}
	if a.trusted[origin] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if u.Host == r.Host {
		return true
	}
	fh := r.Header.Get("X-Forwarded-Host")
	return fh != "" && u.Host == fh
}

// clientIP is the caller's address. Behind the edge it is the last entry of
// X-Forwarded-For: the edge appends the address it saw, and everything before
// it is whatever the client wrote (a login limiter keyed on the first entry
// could be walked around with a new made-up address per attempt).
func clientIP(r *http.Request) string {
	if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
		if ip := strings.TrimSpace(xff[strings.LastIndexByte(xff, ',')+1:]); ip != "" {
			return ip
		}
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		return host[:i]
	}
	return host
}
