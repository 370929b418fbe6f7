package appmoney_test

import (
	"crypto/rand"
	"crypto/rsa"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"storefront/writer/appmoney"
	"storefront/writer/appmoney/storetest"
)

// creditAndVoid credits a Google purchase to uid and voids it at Google,
// returning the push of the void: accepted, it takes money back.
func (e *env) creditAndVoid(t *testing.T, uid int64, product string) []byte {
	t.Helper()
	token, _ := e.google.Buy(product, "")
	if a := e.post(appmoney.GoogleReceiptPath, uid, "AA", googleReceipt(product, token)); a.status != 200 {
		t.Fatalf("credit: %s", a.raw)
	}
	return e.google.Refund(token)
}

// A push is accepted only with Google's OIDC token of the subscription:
// RS256 by a key of the JWKS, this audience, Google's issuer, the push
// service account with a verified email, not expired. Every other push is
// 401 in the envelope and changes nothing.
func TestGooglePushAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const uid = 51
	push := e.creditAndVoid(t, uid, "bluemoney_3000")
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	claims := func(edit func(gojwt.MapClaims)) gojwt.MapClaims {
		c := e.google.PushClaims(pushAudience)
		edit(c)
		return c
	}
	hs, _ := gojwt.NewWithClaims(gojwt.SigningMethodHS256, e.google.PushClaims(pushAudience)).SignedString([]byte("secret"))
	before := e.snapshot()
	for _, c := range []struct{ name, bearer string }{
		{"missing", ""},
		{"not a JWT", "ya29.an-access-token"},
		{"wrong audience", e.google.PushToken(claims(func(c gojwt.MapClaims) { c["aud"] = "https://other.example/push" }))},
		{"wrong email", e.google.PushToken(claims(func(c gojwt.MapClaims) { c["email"] = "someone@storefront-test.iam.gserviceaccount.com" }))},
		{"email not verified", e.google.PushToken(claims(func(c gojwt.MapClaims) { c["email_verified"] = false }))},
		{"other issuer", e.google.PushToken(claims(func(c gojwt.MapClaims) { c["iss"] = "https://issuer.example" }))},
		{"expired", e.google.PushToken(claims(func(c gojwt.MapClaims) {
			c["iat"], c["exp"] = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
		}))},
		{"no expiry", e.google.PushToken(claims(func(c gojwt.MapClaims) { delete(c, "exp") }))},
		{"signed by another key", storetest.SignRS256(other, storetest.PushKeyID, e.google.PushClaims(pushAudience))},
		{"unknown key id", storetest.SignRS256(other, "another-kid", e.google.PushClaims(pushAudience))},
		{"HS256", hs},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.pushAs(c.bearer, push).refused(t, 401)
			if e.snapshot() != before {
				t.Fatal("changed something")
			}
		})
	}
	// The shared token alone is not enough when OIDC is configured.
	e.post(appmoney.GoogleNotificationPath+"?token=push-secret", 0, "", push).refused(t, 401)
	if e.snapshot() != before || e.balance(uid, "android") != 3000 {
		t.Fatal("a refused push changed something")
	}
	if a := e.notify(push); a.status != 200 || e.balance(uid, "android") != 0 {
		t.Fatalf("valid push: %s, android %d", a.raw, e.balance(uid, "android"))
	}
}

// The shared ?token= works only when configured: alone, it authenticates
// the push; next to OIDC, both are required.
func TestGooglePushSharedToken(t *testing.T) {
	t.Parallel()
	only := newEnv(t, func(c *appmoney.Config) {
		c.GooglePushAudience, c.GooglePushServiceAccount, c.GooglePushToken = "", "", "push-secret"
	})
	push := only.creditAndVoid(t, 52, "bluemoney_1000")
	before := only.snapshot()
	only.post(appmoney.GoogleNotificationPath+"?token=wrong", 0, "", push).refused(t, 401)
	only.post(appmoney.GoogleNotificationPath, 0, "", push).refused(t, 401)
	if only.snapshot() != before {
		t.Fatal("a refused push changed something")
	}
	if a := only.post(appmoney.GoogleNotificationPath+"?token=push-secret", 0, "", push); a.status != 200 || only.balance(52, "android") != 0 {
		t.Fatalf("push with the token: %s, android %d", a.raw, only.balance(52, "android"))
	}

	both := newEnv(t, func(c *appmoney.Config) { c.GooglePushToken = "push-secret" })
	push = both.creditAndVoid(t, 53, "bluemoney_1000")
	before = both.snapshot()
	both.notify(push).refused(t, 401) // OIDC token without ?token=
	if both.snapshot() != before {
		t.Fatal("a refused push changed something")
	}
	bearer := both.google.PushToken(both.google.PushClaims(pushAudience))
	a := both.send(appmoney.GoogleNotificationPath+"?token=push-secret", 0, "", map[string]string{"Authorization": "Bearer " + bearer}, push)
	if a.status != 200 || both.balance(53, "android") != 0 {
		t.Fatalf("push with both: %s, android %d", a.raw, both.balance(53, "android"))
	}

	none := newEnv(t, func(c *appmoney.Config) { c.GooglePushAudience, c.GooglePushServiceAccount = "", "" })
	push = none.creditAndVoid(t, 54, "bluemoney_1000")
	none.notify(push).refused(t, 401)
	if none.balance(54, "android") != 1000 {
		t.Fatal("a push without configured authentication was applied")
	}
}
