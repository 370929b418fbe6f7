package auth

import (
	"net/http"
	"net/url"
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
