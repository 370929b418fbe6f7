package pushtest_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/SherClockHolmes/webpush-go"
	"github.com/golang-jwt/jwt/v5"

	"storefront/writer/push"
	"storefront/writer/push/pushtest"
)

// edit is an HTTP client that changes each request before sending it, to
// show what the fake refuses.
type edit func(*http.Request)

func (e edit) Do(r *http.Request) (*http.Response, error) {
	e(r)
	return http.DefaultClient.Do(r)
}

// vapid signs claims with the dev key, as a sender would.
func vapid(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	d, _ := base64.RawURLEncoding.DecodeString(push.DevPrivateKey)
	k := &ecdsa.PrivateKey{D: new(big.Int).SetBytes(d)}
	k.Curve = elliptic.P256()
	k.X, k.Y = k.Curve.ScalarBaseMult(d)
	tok, err := jwt.NewWithClaims(jwt.SigningMethodES256, claims).SignedString(k)
	if err != nil {
		t.Fatal(err)
	}
	return "vapid t=" + tok + ", k=" + push.DevPublicKey
}

// TestFakeChecksWhatAPushServiceChecks: a message webpush-go sends is
// accepted (201 with a Location) and decrypted to what was sent; the fake
// refuses what a push service or the browser would not take.
func TestFakeChecksWhatAPushServiceChecks(t *testing.T) {
	f, err := pushtest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := f.NewSubscription(push.DevPublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sub := &webpush.Subscription{Endpoint: s.Endpoint, Keys: webpush.Keys{P256dh: s.Keys.P256dh, Auth: s.Keys.Auth}}
	send := func(msg string, change func(*http.Request)) int {
		t.Helper()
		opts := &webpush.Options{Subscriber: "ops@example.com", TTL: 60, Urgency: webpush.UrgencyHigh, Topic: "vol1",
			VAPIDPublicKey: push.DevPublicKey, VAPIDPrivateKey: push.DevPrivateKey}
		if change != nil {
			opts.HTTPClient = edit(change)
		}
		resp, err := webpush.SendNotification([]byte(msg), sub, opts)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 201 && resp.Header.Get("Location") == "" {
			t.Error("201 without Location")
		}
		return resp.StatusCode
	}
	if st := send(`{"title":"좋아요"}`, nil); st != 201 {
		t.Fatalf("a good message: %d %v", st, f.Refused())
	}
	m := f.Messages(s.Endpoint)
	if len(m) != 1 || string(m[0].Raw) != `{"title":"좋아요"}` || m[0].TTL != 60 || m[0].Urgency != "high" || m[0].Topic != "vol1" || m[0].Subject != "mailto:ops@example.com" {
		t.Fatalf("recorded %+v", m)
	}
	aud := strings.TrimSuffix(f.URL, "/")
	for name, c := range map[string]struct {
		change func(*http.Request)
		want   int
	}{
		"no TTL":           {func(r *http.Request) { r.Header.Del("TTL") }, 400},
		"bad urgency":      {func(r *http.Request) { r.Header.Set("Urgency", "now") }, 400},
		"long topic":       {func(r *http.Request) { r.Header.Set("Topic", strings.Repeat("a", 33)) }, 400},
		"other encoding":   {func(r *http.Request) { r.Header.Set("Content-Encoding", "aesgcm") }, 400},
		"no authorization": {func(r *http.Request) { r.Header.Del("Authorization") }, 403},
		"wrong audience": {func(r *http.Request) {
			r.Header.Set("Authorization", vapid(t, jwt.MapClaims{"aud": "https://elsewhere.example", "exp": time.Now().Add(time.Hour).Unix(), "sub": "mailto:a@b"}))
		}, 403},
		"exp beyond a day": {func(r *http.Request) {
			r.Header.Set("Authorization", vapid(t, jwt.MapClaims{"aud": aud, "exp": time.Now().Add(25 * time.Hour).Unix(), "sub": "mailto:a@b"}))
		}, 403},
		"expired": {func(r *http.Request) {
			r.Header.Set("Authorization", vapid(t, jwt.MapClaims{"aud": aud, "exp": time.Now().Add(-time.Minute).Unix(), "sub": "mailto:a@b"}))
		}, 403},
		"no sub": {func(r *http.Request) {
			r.Header.Set("Authorization", vapid(t, jwt.MapClaims{"aud": aud, "exp": time.Now().Add(time.Hour).Unix()}))
		}, 403},
		"signature altered": {func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), ".", ".e30", 1))
		}, 403},
		"ciphertext altered": {func(r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			b[len(b)-20] ^= 1
			r.Body = io.NopCloser(bytes.NewReader(b))
		}, 400},
	} {
		if st := send(`{"title":"x"}`, c.change); st != c.want {
			t.Errorf("%s: %d, want %d", name, st, c.want)
		}
	}
	if st := send(`{"title":"y"}`, func(r *http.Request) {
		r.Header.Set("Authorization", vapid(t, jwt.MapClaims{"aud": aud, "exp": time.Now().Add(time.Hour).Unix(), "sub": "mailto:a@b"}))
	}); st != 201 {
		t.Fatalf("a hand-made good JWT: %d %v", st, f.Refused())
	}
	if n := len(f.Messages(s.Endpoint)); n != 2 {
		t.Fatalf("%d recorded, want the two good ones", n)
	}
	// Scripted answers, then a gone subscription.
	f.Script(s.Endpoint, pushtest.Answer{Status: 429, RetryAfter: "3"})
	if st := send("{}", nil); st != 429 {
		t.Fatalf("scripted: %d", st)
	}
	f.Gone(s.Endpoint, 410)
	if st := send("{}", nil); st != 410 {
		t.Fatalf("gone: %d", st)
	}
}
