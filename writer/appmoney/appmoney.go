// Package appmoney turns the app stores' purchases into app money: the app
// posts its store receipt, the writer asks the store's own server about it
// (Google Play Developer API, App Store Server API) and credits Android or
// iOS money once per store transaction through writer/money's ledger; the
// stores' refund notifications (Real-time developer notifications over
// Pub/Sub push, App Store Server Notifications v2) take it back.
//
// Nothing a client or a notification says is trusted by itself: a Google
// receipt and a Google notification are only the purchase token to look up,
// an Apple transaction id is fetched from Apple, and Apple's signed data
// (JWS) must chain to the pinned root certificate.
package appmoney

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/writer/money"
)

// DefaultProducts are the money products of both stores: product id ->
// won credited.
const DefaultProducts = "bluemoney_1000=1000,bluemoney_3000=3000,bluemoney_5000=5000,bluemoney_10000=10000,bluemoney_30000=30000,bluemoney_50000=50000"

// Products maps store product ids to the money they credit.
type Products map[string]int64

// ParseProducts reads "id=amount,id=amount".
func ParseProducts(s string) (Products, error) {
	p := Products{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, amt, ok := strings.Cut(part, "=")
		n, err := strconv.ParseInt(strings.TrimSpace(amt), 10, 64)
		if !ok || strings.TrimSpace(id) == "" || err != nil || n <= 0 {
			return nil, fmt.Errorf("product %q: want id=amount (won > 0)", part)
		}
		p[strings.TrimSpace(id)] = n
	}
	return p, nil
}

func (p Products) String() string {
	ids := make([]string, 0, len(p))
	for id := range p {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for i, id := range ids {
		ids[i] = fmt.Sprintf("%s=%d", id, p[id])
	}
	return strings.Join(ids, ",")
}

// Set makes Products a flag.Value.
func (p *Products) Set(s string) error {
	v, err := ParseProducts(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Config holds the stores' settings. A store without its credentials
// answers 503 on its routes.
type Config struct {
	Products Products
	// Google Play: the API's base URL, the app's package name, the service
	// account key file (JSON). Pub/Sub pushes are authenticated by the OIDC
	// ID token of the subscription (its audience and push service account,
	// Google's keys at GooglePushCertsURL) and/or a token the subscription
	// puts into its endpoint URL (?token=).
	GoogleAPIURL             string
	GooglePackage            string
	GoogleServiceAccount     string // path of the key file
	GooglePushAudience       string
	GooglePushServiceAccount string // email
	GooglePushCertsURL       string
	GooglePushToken          string
	// App Store: the API's base URL, the in-app purchase key (issuer id, key
	// id, .p8 file), the bundle id, the environment (Production or Sandbox)
	// and the root certificate (PEM, Apple Root CA - G3) signed data must
	// chain to.
	AppleAPIURL      string
	AppleIssuerID    string
	AppleKeyID       string
	AppleKeyFile     string
	AppleBundleID    string
	AppleEnvironment string
	AppleRootCert    string // path of the PEM file

	// Set directly by tests and embedders instead of the files above.
	GoogleAccount *ServiceAccount
	AppleKeyPEM   []byte
	AppleRootPEM  []byte
	HTTPClient    *http.Client
	Now           func() time.Time
}

// RegisterFlags registers the settings with environment fallbacks.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	if c.Products == nil {
		c.Products, _ = ParseProducts(DefaultProducts)
	}
	fs.Var(&c.Products, "app-products", "app money products of both stores, id=won,... (env APP_PRODUCTS, default "+DefaultProducts+")")
	fs.StringVar(&c.GoogleAPIURL, "google-play-api-url", "https://androidpublisher.googleapis.com", "Google Play Developer API base URL (env GOOGLE_PLAY_API_URL)")
	fs.StringVar(&c.GooglePackage, "google-play-package", "", "the Android app's package name (env GOOGLE_PLAY_PACKAGE)")
	fs.StringVar(&c.GoogleServiceAccount, "google-play-service-account", "", "service account key file (JSON) with access to the Play Console (env GOOGLE_PLAY_SERVICE_ACCOUNT)")
	fs.StringVar(&c.GooglePushAudience, "google-play-push-audience", "", "audience of the OIDC token the Pub/Sub push subscription of real-time developer notifications sends (env GOOGLE_PLAY_PUSH_AUDIENCE)")
	fs.StringVar(&c.GooglePushServiceAccount, "google-play-push-service-account", "", "email of the push subscription's service account, the OIDC token's email (env GOOGLE_PLAY_PUSH_SERVICE_ACCOUNT)")
	fs.StringVar(&c.GooglePushCertsURL, "google-play-push-certs-url", GoogleCertsURL, "JWKS of the keys Google signs OIDC tokens with (env GOOGLE_PLAY_PUSH_CERTS_URL)")
	fs.StringVar(&c.GooglePushToken, "google-play-push-token", "", "token the push subscription sends as ?token=, required too when set (env GOOGLE_PLAY_PUSH_TOKEN)")
	fs.StringVar(&c.AppleAPIURL, "app-store-api-url", "https://api.storekit.itunes.apple.com", "App Store Server API base URL (env APP_STORE_API_URL)")
	fs.StringVar(&c.AppleIssuerID, "app-store-issuer-id", "", "App Store Connect issuer id of the in-app purchase key (env APP_STORE_ISSUER_ID)")
	fs.StringVar(&c.AppleKeyID, "app-store-key-id", "", "id of the in-app purchase key (env APP_STORE_KEY_ID)")
	fs.StringVar(&c.AppleKeyFile, "app-store-key-file", "", "the in-app purchase key (.p8) file (env APP_STORE_KEY_FILE)")
	fs.StringVar(&c.AppleBundleID, "app-store-bundle-id", "", "the iOS app's bundle id (env APP_STORE_BUNDLE_ID)")
	fs.StringVar(&c.AppleEnvironment, "app-store-environment", "Production", "Production or Sandbox (env APP_STORE_ENVIRONMENT)")
	fs.StringVar(&c.AppleRootCert, "app-store-root-cert", "", "PEM of the root certificate Apple's signed data chains to, Apple Root CA - G3 (env APP_STORE_ROOT_CERT)")
}

// Service verifies receipts and notifications and moves app money.
type Service struct {
	pool     *pgxpool.Pool
	money    *money.Service
	cfg      Config
	log      *slog.Logger
	google   *GooglePlay
	apple    *AppStore
	verifier *Verifier
	push     *PushAuth
}

// New makes the service. A store whose settings are incomplete is off (its
// routes answer 503); a setting given but unreadable is an error.
func New(ctx context.Context, pool *pgxpool.Pool, ms *money.Service, cfg Config, log *slog.Logger) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Products == nil {
		cfg.Products, _ = ParseProducts(DefaultProducts)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	s := &Service{pool: pool, money: ms, cfg: cfg, log: log}
	if cfg.GoogleAccount == nil && cfg.GoogleServiceAccount != "" {
		b, err := os.ReadFile(cfg.GoogleServiceAccount)
		if err != nil {
			return nil, fmt.Errorf("appmoney: %w", err)
		}
		sa, err := ParseServiceAccount(b)
		if err != nil {
			return nil, fmt.Errorf("appmoney: %w", err)
		}
		cfg.GoogleAccount = &sa
	}
	if cfg.GoogleAccount != nil && cfg.GooglePackage != "" && cfg.GoogleAPIURL != "" {
		s.google = NewGooglePlay(ctx, strings.TrimRight(cfg.GoogleAPIURL, "/"), cfg.GooglePackage, *cfg.GoogleAccount, cfg.HTTPClient)
		if cfg.GooglePushCertsURL == "" {
			cfg.GooglePushCertsURL = GoogleCertsURL
		}
		push, err := NewPushAuth(ctx, cfg.GooglePushAudience, cfg.GooglePushServiceAccount, cfg.GooglePushCertsURL,
			cfg.GooglePushToken, cfg.HTTPClient, cfg.Now, log)
		if err != nil {
			return nil, fmt.Errorf("appmoney: %w", err)
		}
		s.push = push
	}
	keyPEM, rootPEM := cfg.AppleKeyPEM, cfg.AppleRootPEM
	for _, f := range []struct {
		path string
		dst  *[]byte
	}{{cfg.AppleKeyFile, &keyPEM}, {cfg.AppleRootCert, &rootPEM}} {
		if *f.dst == nil && f.path != "" {
			b, err := os.ReadFile(f.path)
			if err != nil {
				return nil, fmt.Errorf("appmoney: %w", err)
			}
			*f.dst = b
		}
	}
	if keyPEM != nil && rootPEM != nil && cfg.AppleBundleID != "" && cfg.AppleIssuerID != "" && cfg.AppleKeyID != "" {
		key, err := ParseAppStoreKey(keyPEM)
		if err != nil {
			return nil, fmt.Errorf("appmoney: %w", err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(rootPEM) {
			return nil, errors.New("appmoney: app store root certificate: no PEM certificate")
		}
		s.apple = &AppStore{BaseURL: strings.TrimRight(cfg.AppleAPIURL, "/"), IssuerID: cfg.AppleIssuerID, KeyID: cfg.AppleKeyID,
			BundleID: cfg.AppleBundleID, Key: key, Client: cfg.HTTPClient, Now: cfg.Now}
		env := cfg.AppleEnvironment
		if env == "" {
			env = "Production"
		}
		s.verifier = &Verifier{Roots: roots, BundleID: cfg.AppleBundleID, Environment: env, Now: cfg.Now}
	}
	return s, nil
}
