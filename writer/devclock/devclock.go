// Package devclock moves the writer's clock for one browser, for end-to-end
// tests of timers (the wait-for-free coupon). A request carrying the cookie
// sf_devclock=<seconds> is handled as if that much time had passed; requests
// without it, from other browsers and members, see the real clock, so tests
// running side by side do not disturb each other.
//
// It is a test hook: the writer installs Middleware only with -dev-clock,
// which it refuses together with COOKIE_MODE=live. Without the middleware
// Offset is always zero, whatever cookies a client sends.
package devclock

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"storefront/writer/httpapi"
)

// Cookie holds the offset in whole seconds.
const Cookie = "sf_devclock"

// Max bounds an offset: a year is more than any coupon timer.
const Max = 366 * 24 * time.Hour

type key struct{}

// Offset is how far the request's clock is moved (zero without the middleware).
func Offset(ctx context.Context) time.Duration {
	d, _ := ctx.Value(key{}).(time.Duration)
	return d
}

// With returns ctx whose clock is moved by d.
func With(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, key{}, d)
}

// Middleware moves the clock of requests that carry the cookie. A value that
// is not 0 to Max seconds is answered 400 and the call is not made.
func Middleware(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(Cookie)
		if err != nil || c.Value == "" {
			next.ServeHTTP(w, r)
			return
		}
		n, err := strconv.ParseInt(c.Value, 10, 64)
		if err != nil || n < 0 || time.Duration(n)*time.Second > Max {
			httpapi.WriteError(w, r, log, httpapi.BadRequest("%s must be 0 to %d seconds", Cookie, int64(Max/time.Second)))
			return
		}
		next.ServeHTTP(w, r.WithContext(With(r.Context(), time.Duration(n)*time.Second)))
	})
}
