// Package enrich gives the writer's business events the request enrichment
// the edge gives page views (contract.Enrich: session id from the sf_sid
// cookie, channel, app version, user-agent class, salted IP hash), so a
// purchase joins the visit that led to it in analytics.
//
// Middleware computes it once per request and puts it into the request's
// context; writer/outbox.Event applies it to every event enqueued under that
// context. Code outside a request (the relay, imports, tests) has none, and
// its events carry only what their producer set.
package enrich

import (
	"context"
	"net/http"

	"storefront/contract"
	"storefront/realip"
)

type ctxKey struct{}

// With returns ctx carrying e.
func With(ctx context.Context, e contract.Enrichment) context.Context {
	return context.WithValue(ctx, ctxKey{}, e)
}

// From returns the enrichment ctx carries (zero when none).
func From(ctx context.Context) contract.Enrichment {
	e, _ := ctx.Value(ctxKey{}).(contract.Enrichment)
	return e
}

// FromRequest computes the enrichment of r with the edge's rules and salt.
func FromRequest(r *http.Request, salt []byte) contract.Enrichment {
	var sid string
	if c, err := r.Cookie(contract.SessionCookie); err == nil {
		sid = c.Value
	}
	return contract.Enrich(salt, r.Header.Get(contract.HeaderChannel), r.Header.Get(contract.HeaderAppVersion),
		realip.RemoteHost(r), r.UserAgent(), sid)
}

// Middleware puts the enrichment of every request into its context, except
// for requests skip accepts (server-to-server calls such as the payment
// gateway's webhook: their address and agent are not a reader's).
func Middleware(salt []byte, skip func(*http.Request) bool, next http.Handler) http.Handler {
	salt = append([]byte(nil), salt...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if skip == nil || !skip(r) {
			r = r.WithContext(With(r.Context(), FromRequest(r, salt)))
		}
		next.ServeHTTP(w, r)
	})
}
