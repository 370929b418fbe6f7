package server

import (
	"fmt"
	"net/url"
	"strings"

	"storefront/devsecrets"
	"storefront/doubles"
	"storefront/svc"
	"storefront/writer/auth"
	"storefront/writer/identity/portonesandbox"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/push"
)

// refuseDoubles names every test double cfg uses and, in live mode, refuses
// to start with any of them (package doubles holds the one list).
func refuseDoubles(cfg Config) error {
	secrets := svc.DevSecrets(
		svc.DevDefault{Name: "ADMIN_TOKEN", Value: cfg.AdminToken, Dev: devsecrets.AdminToken},
		svc.DevDefault{Name: "AUDIENCE_SECRET", Value: cfg.AudienceSecret, Dev: devsecrets.AudienceSecret},
		svc.DevDefault{Name: "ANALYST_SECRET", Value: cfg.AnalystSecret, Dev: devsecrets.AnalystSecret},
		svc.DevDefault{Name: "CONTENT_SECRET", Value: cfg.ContentSecret, Dev: devsecrets.ContentSecret},
		svc.DevDefault{Name: "TRACK_IP_SALT", Value: cfg.IPSalt, Dev: devsecrets.IPSalt},
		svc.DevDefault{Name: "CI_HASH_SECRET", Value: cfg.Identity.CISecret, Dev: devsecrets.CISecret},
		svc.DevDefault{Name: "BILLING_KEY_SECRET", Value: cfg.BillingKeySecret, Dev: devsecrets.BillingKeySecret},
		svc.DevDefault{Name: "PAYMENT_SECRET_KEY", Value: cfg.PaymentSecretKey, Dev: tosssandbox.DefaultSecretKey},
		svc.DevDefault{Name: "PAYMENT_CLIENT_KEY", Value: cfg.PaymentClientKey, Dev: tosssandbox.DefaultClientKey},
		svc.DevDefault{Name: "VAPID_PRIVATE_KEY", Value: cfg.Push.PrivateKey, Dev: push.DevPrivateKey},
		svc.DevDefault{Name: "IDENTITY_API_SECRET", Value: cfg.Identity.Secret, Dev: portonesandbox.DefaultSecret},
	)
	am := cfg.AppMoney
	err := doubles.Check(cfg.CookieMode == svc.ModeLive,
		secrets,
		// With no gateway URL the writer starts the sandbox, which confirms
		// any payment: a live store would hand out money.
		doubles.Use{Name: doubles.PaymentSandbox, On: cfg.PaymentURL == "" && cfg.PaymentSandbox || cfg.PaymentCheckoutURL != "",
			Setting: "set PAYMENT_URL, or PAYMENT_SANDBOX=false; no PAYMENT_CHECKOUT_URL"},
		// The sandbox verifies anyone of any age.
		doubles.Use{Name: doubles.IdentitySandbox, On: cfg.Identity.sandboxOn() || cfg.Identity.PageURL != "",
			Setting: "set IDENTITY_URL, IDENTITY_API_SECRET, or IDENTITY_SANDBOX=false; no IDENTITY_PAGE_URL"},
		doubles.Use{Name: doubles.StoreFakes, On: !realHost(am.GoogleAPIURL, "androidpublisher.googleapis.com") ||
			!realHost(am.AppleAPIURL, "api.storekit.itunes.apple.com", "api.storekit-sandbox.itunes.apple.com") ||
			!realHost(am.GooglePushCertsURL, "www.googleapis.com"),
			Setting: "GOOGLE_PLAY_API_URL, GOOGLE_PLAY_PUSH_CERTS_URL and APP_STORE_API_URL at Google's and Apple's hosts"},
		doubles.Use{Name: doubles.AppleSandbox, On: strings.EqualFold(am.AppleEnvironment, "Sandbox"),
			Setting: "APP_STORE_ENVIRONMENT=Production"},
		doubles.Use{Name: doubles.PushFake, On: fakePushHosts(cfg.Push.EndpointHosts),
			Setting: "PUSH_ENDPOINT_HOSTS without loopback hosts"},
		doubles.Use{Name: doubles.DevClock, On: cfg.DevClock, Setting: "no -dev-clock"},
		doubles.Use{Name: doubles.OAuthFake, On: fakeOAuth(cfg.Providers), Setting: "KAKAO_* and NAVER_* URLs at Kakao's and Naver's hosts"},
	)
	if err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	return nil
}

// realHost reports whether u is empty (the default) or on one of hosts.
func realHost(u string, hosts ...string) bool {
	if u == "" {
		return true
	}
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" {
		return false
	}
	for _, h := range hosts {
		if p.Hostname() == h {
			return true
		}
	}
	return false
}

// fakePushHosts reports whether the push endpoint hosts admit a service on
// this machine (the fake push service of the browser tests).
func fakePushHosts(hosts string) bool {
	for _, h := range strings.Split(hosts, ",") {
		switch strings.TrimSpace(h) {
		case "127.0.0.1", "localhost", "::1", "[::1]":
			return true
		}
	}
	return false
}

// oauthHosts are the social login providers' hosts (auth.DefaultProviders).
var oauthHosts = []string{"kauth.kakao.com", "kapi.kakao.com", "nid.naver.com", "openapi.naver.com"}

// fakeOAuth reports whether a configured social login talks to anything but
// Kakao and Naver (the fake OAuth2 provider of the tests).
func fakeOAuth(providers map[string]auth.Provider) bool {
	if providers == nil {
		providers = auth.DefaultProviders()
	}
	for _, p := range providers {
		if !realHost(p.AuthURL, oauthHosts...) || !realHost(p.TokenURL, oauthHosts...) || !realHost(p.ProfileURL, oauthHosts...) {
			return true
		}
	}
	return false
}
