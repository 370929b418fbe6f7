package appmoney

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	gojwt "github.com/golang-jwt/jwt/v5"
)

// GoogleCertsURL is where Google publishes the keys of its OIDC ID tokens (JWKS).
const GoogleCertsURL = "https://www.googleapis.com/oauth2/v3/certs"

// googleIssuers are the two spellings of iss Google's ID tokens carry.
var googleIssuers = []string{"accounts.google.com", "https://accounts.google.com"}

// PushAuth authenticates Pub/Sub push requests. A push subscription with
// authentication sends "Authorization: Bearer <ID token>" signed by Google
// for the subscription's service account and audience; a shared token in the
// endpoint URL (?token=) is the older, weaker means. Each is required when
// configured; with neither, every push is refused.
type PushAuth struct {
	Audience       string // the audience set on the subscription
	ServiceAccount string // the email of the subscription's push service account
	Token          string // the endpoint URL's ?token= ("" = not used)
	keys           keyfunc.Keyfunc
	now            func() time.Time
}

var errPushAuth = errors.New("push not authenticated")

// NewPushAuth fetches and caches Google's JWKS from certsURL (refreshed
// hourly and, at most every five minutes, when a token names an unknown
// key). Without audience and service account only the shared token is used.
func NewPushAuth(ctx context.Context, audience, serviceAccount, certsURL, token string, hc *http.Client, now func() time.Time, log *slog.Logger) (*PushAuth, error) {
	a := &PushAuth{Audience: audience, ServiceAccount: serviceAccount, Token: token, now: now}
	if audience == "" && serviceAccount == "" {
		return a, nil
	}
	if audience == "" || serviceAccount == "" || certsURL == "" {
		return nil, errors.New("google play push: audience, service account and certs URL go together")
	}
	// The cache lives as long as the service, not a request.
	kf, err := keyfunc.NewDefaultOverrideCtx(context.WithoutCancel(ctx), []string{certsURL}, keyfunc.Override{
		Client: hc,
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				log.ErrorContext(ctx, "refresh Google's push token keys", "url", u, "err", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("google play push keys: %w", err)
	}
	a.keys = kf
	return a, nil
}

// Check authenticates a push request; the error says why not (for the log).
func (a *PushAuth) Check(r *http.Request) error {
	if a.keys == nil && a.Token == "" {
		return fmt.Errorf("%w: no push authentication configured", errPushAuth)
	}
	if a.Token != "" && subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(a.Token)) != 1 {
		return fmt.Errorf("%w: wrong or no ?token=", errPushAuth)
	}
	if a.keys == nil {
		return nil
	}
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || raw == "" {
		return fmt.Errorf("%w: no bearer token", errPushAuth)
	}
	var c struct {
		gojwt.RegisteredClaims
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
	}
	_, err := gojwt.ParseWithClaims(raw, &c, a.keys.KeyfuncCtx(r.Context()),
		gojwt.WithValidMethods([]string{"RS256"}), gojwt.WithAudience(a.Audience),
		gojwt.WithExpirationRequired(), gojwt.WithIssuedAt(), gojwt.WithTimeFunc(a.now), gojwt.WithLeeway(30*time.Second))
	switch {
	case err != nil:
		return fmt.Errorf("%w: %v", errPushAuth, err)
	case !slices.Contains(googleIssuers, c.Issuer):
		return fmt.Errorf("%w: issuer %q", errPushAuth, c.Issuer)
	case c.Email != a.ServiceAccount || !c.EmailVerified:
		return fmt.Errorf("%w: service account %q (verified %v)", errPushAuth, c.Email, c.EmailVerified)
	}
	return nil
}
