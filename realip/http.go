package realip

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Middleware resolves each request's client behind the trusted proxies and
// hands next a request whose RemoteAddr is the client's address (the peer's
// port kept) and that carries no X-Forwarded-For: every handler reads the
// client from RemoteAddr (RemoteHost), none from a header a client may have
// written. untrusted, when set, is told of an X-Forwarded-For sent by a peer
// that is not a trusted proxy (a proxy missing from the list collapses all
// its clients into its own address: operators want to hear of it).
func (t Trusted) Middleware(next http.Handler, untrusted func(peer netip.Addr)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		xff := r.Header.Values("X-Forwarded-For")
		if len(xff) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil {
			// Not an IP peer (a test's handler call, a unix socket): no proxy.
			r.Header.Del("X-Forwarded-For")
			next.ServeHTTP(w, r)
			return
		}
		peer := ap.Addr().Unmap()
		if !t.Contains(peer) {
			if untrusted != nil {
				untrusted(peer)
			}
		}
		client := t.Client(peer, strings.Join(xff, ","))
		r2 := r.Clone(r.Context())
		r2.Header.Del("X-Forwarded-For")
		r2.RemoteAddr = netip.AddrPortFrom(client, ap.Port()).String()
		next.ServeHTTP(w, r2)
	})
}

// RemoteHost is the address part of r.RemoteAddr (no port, no brackets):
// behind Middleware, the client's.
func RemoteHost(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
