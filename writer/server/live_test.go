package server_test

import (
	"context"
	"strings"
	"testing"

	"storefront/writer/internal/writertest"
	"storefront/writer/push"
	"storefront/writer/server"
)

// A live store refuses every development value: the admin token, the
// secrets shared with the edge, the sandbox gateway's keys, the payment
// sandbox itself (it confirms any payment) and the identity sandbox (it
// verifies anyone of any age). The check runs before anything is connected.
func TestLiveModeRefusesDevelopmentValues(t *testing.T) {
	t.Parallel()
	_, err := server.New(context.Background(), server.Config{Addr: "127.0.0.1:0", DatabaseURL: "postgres://unused",
		CookieMode: "live", PaymentSandbox: true, Identity: server.IdentityConfig{Sandbox: true}}, writertest.Log())
	if err == nil {
		t.Fatal("live mode started with development values")
	}
	for _, name := range []string{"ADMIN_TOKEN", "AUDIENCE_SECRET", "CONTENT_SECRET", "TRACK_IP_SALT",
		"PAYMENT_SECRET_KEY", "PAYMENT_CLIENT_KEY", "PAYMENT_SANDBOX", "VAPID_PRIVATE_KEY", "ANALYST_SECRET",
		"CI_HASH_SECRET", "IDENTITY_API_SECRET", "identity sandbox", "IDENTITY_SANDBOX", "BILLING_KEY_SECRET"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%s not named: %v", name, err)
		}
	}
}

// With its own secrets and a real gateway (or none), the live writer runs.
func TestLiveModeRunsWithItsOwnSecrets(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) {
		c.CookieMode, c.AdminToken = "live", "tok"
		c.AudienceSecret, c.ContentSecret, c.IPSalt = "a-secret", "c-secret", "salt"
		c.AnalystSecret = "an-secret"
		c.PaymentSecretKey, c.PaymentClientKey, c.PaymentSandbox = "live_sk_x", "live_ck_x", false
		c.BillingKeySecret = "live-billing-secret"
		c.Push.PublicKey, c.Push.PrivateKey = liveVAPIDPublic, liveVAPIDPrivate
		c.Identity = server.IdentityConfig{URL: "https://api.portone.io", Secret: "live-portone-secret", StoreID: "store-live", ChannelKey: "channel-live", CISecret: "live-ci"}
	})
	// StartWriter waited for /readyz; the live admin API takes its token.
	// (404: the token was accepted, the work does not exist.)
	if st, body := e.Admin.Do("GET", "/admin/api/v1/works/NOPE", nil); st != 404 {
		t.Fatalf("admin call: %d %s", st, body)
	}
}

// A VAPID pair that is not the dev one (webpush.GenerateVAPIDKeys).
const (
	liveVAPIDPublic  = "BCfaY_GEcv7YjUX-JpTl0YJEobILWKnjmdepB7RgpMiaeN_E9MG_KOAkrlBqP3zQqTHk09MDqEFgRr4c87SEDQ4"
	liveVAPIDPrivate = "CioIBIPe9-3Ye0-_aw_Ic188IS3-gleFCD1xEpX_JGQ"
)

// Finding 3 of issue 30: with every secret set and the payment sandbox off,
// a live writer whose adult verification is the identity sandbox does not
// start (it once did, and "verified" any name and adult birth date).
func TestLiveModeRefusesTheIdentitySandbox(t *testing.T) {
	t.Parallel()
	live := func(id server.IdentityConfig) error {
		_, err := server.New(context.Background(), server.Config{Addr: "127.0.0.1:0", DatabaseURL: "postgres://unused",
			CookieMode: "live", AdminToken: "tok", AudienceSecret: "a", ContentSecret: "c", IPSalt: "s", AnalystSecret: "an",
			PaymentSecretKey: "live_sk_x", PaymentClientKey: "live_ck_x", PaymentURL: "https://api.tosspayments.com",
			Push: push.Config{PublicKey: liveVAPIDPublic, PrivateKey: liveVAPIDPrivate}, Identity: id}, writertest.Log())
		return err
	}
	for name, id := range map[string]server.IdentityConfig{
		"sandbox started":       {Sandbox: true, Secret: "live-secret", CISecret: "ci"},
		"sandbox page":          {URL: "https://api.portone.io", PageURL: "http://127.0.0.1:9999", Secret: "live-secret", CISecret: "ci"},
		"sandbox secret by URL": {URL: "http://127.0.0.1:9999", CISecret: "ci"},
		"dev CI secret":         {URL: "https://api.portone.io", Secret: "live-secret"},
	} {
		err := live(id)
		if err == nil || !strings.Contains(err.Error(), "COOKIE_MODE=live") {
			t.Errorf("%s: live writer started or failed otherwise: %v", name, err)
		}
	}
}
