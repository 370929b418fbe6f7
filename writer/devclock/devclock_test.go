package devclock_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"storefront/writer/devclock"
)

func TestMiddlewareMovesOnlyTheRequestThatAsks(t *testing.T) {
	var seen time.Duration
	called := false
	h := devclock.Middleware(slog.New(slog.NewTextHandler(io.Discard, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		called = true
		seen = devclock.Offset(r.Context())
	}))
	do := func(cookie string) *httptest.ResponseRecorder {
		called, seen = false, -1
		r := httptest.NewRequest("GET", "/home/api/v1/coupons?pid=w1", nil)
		if cookie != "" {
			r.AddCookie(&http.Cookie{Name: devclock.Cookie, Value: cookie})
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if do(""); !called || seen != 0 {
		t.Fatalf("no cookie: called %v offset %v", called, seen)
	}
	if do("7200"); !called || seen != 2*time.Hour {
		t.Fatalf("7200: called %v offset %v", called, seen)
	}
	for _, bad := range []string{"-1", "abc", "1.5", "31622401", "99999999999999999999"} {
		w := do(bad)
		var env struct {
			Header struct{ Code int } `json:"header"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &env)
		if called || w.Code != 400 || env.Header.Code != 400 {
			t.Errorf("%q: called %v status %d body %s", bad, called, w.Code, w.Body)
		}
	}
	if devclock.Offset(httptest.NewRequest("GET", "/", nil).Context()) != 0 {
		t.Fatal("a request that did not pass the middleware has an offset")
	}
}
