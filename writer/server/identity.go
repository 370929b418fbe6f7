package server

import (
	"flag"
	"fmt"
	"net/http"
	"time"

	"storefront/devsecrets"
	"storefront/svc"
	"storefront/writer/auth"
	"storefront/writer/identity"
	"storefront/writer/identity/portonesandbox"
)

// IdentityConfig is the identity-verification provider of adult verification
// (PortOne V2; its sandbox, writer/identity/portonesandbox, in development).
type IdentityConfig struct {
	// URL is the provider's API (IDENTITY_URL, https://api.portone.io in
	// production). Empty with Sandbox on: the writer starts the sandbox.
	URL        string
	Secret     string // V2 API secret (IDENTITY_API_SECRET)
	StoreID    string // IDENTITY_STORE_ID
	ChannelKey string // identity verification channel (IDENTITY_CHANNEL_KEY)
	// PageURL is a separately run sandbox whose certification page stands in
	// for the provider's window (IDENTITY_PAGE_URL); empty with the real
	// provider, whose browser SDK the page loads.
	PageURL string
	// Sandbox starts the sandbox on a free port when URL is empty.
	Sandbox bool
	// CISecret keys the HMAC of stored CIs (CI_HASH_SECRET).
	CISecret string
	// Provider overrides the client (tests).
	Provider auth.IdentityProvider
}

// RegisterFlags registers the identity flags with environment fallbacks.
func (c *IdentityConfig) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.URL, "identity-url", "", "identity verification provider API, PortOne V2 (https://api.portone.io); empty starts the sandbox (env IDENTITY_URL)")
	fs.StringVar(&c.Secret, "identity-api-secret", portonesandbox.DefaultSecret, "PortOne V2 API secret (env IDENTITY_API_SECRET)")
	fs.StringVar(&c.StoreID, "identity-store-id", portonesandbox.DefaultStoreID, "PortOne store id (env IDENTITY_STORE_ID)")
	fs.StringVar(&c.ChannelKey, "identity-channel-key", portonesandbox.DefaultChannelKey, "PortOne identity verification channel key (env IDENTITY_CHANNEL_KEY)")
	fs.StringVar(&c.PageURL, "identity-page-url", "", "base URL of a separately run identity sandbox whose certification page stands in for the provider's window (env IDENTITY_PAGE_URL)")
	fs.BoolVar(&c.Sandbox, "identity-sandbox", true, "start the local identity sandbox when no identity-url is given; refused with cookie-mode live (env IDENTITY_SANDBOX)")
	fs.StringVar(&c.CISecret, "ci-hash-secret", devsecrets.CISecret, "secret of the HMAC under which CIs of verified members are stored (env CI_HASH_SECRET)")
}

func (c *IdentityConfig) defaults() {
	if c.Secret == "" {
		c.Secret = portonesandbox.DefaultSecret
	}
	if c.StoreID == "" {
		c.StoreID = portonesandbox.DefaultStoreID
	}
	if c.ChannelKey == "" {
		c.ChannelKey = portonesandbox.DefaultChannelKey
	}
	if c.CISecret == "" {
		c.CISecret = devsecrets.CISecret
	}
}

// sandboxOn reports whether the configuration runs on the sandbox: started
// here, or reached by URL with the sandbox's secret.
func (c *IdentityConfig) sandboxOn() bool {
	return (c.URL == "" && c.Sandbox && c.Provider == nil) || c.Secret == portonesandbox.DefaultSecret
}

// identity starts the sandbox when asked and fills auth's identity settings.
func (s *Server) identity(ac *auth.Config) error {
	c := s.cfg.Identity
	ac.IdentityStoreID, ac.IdentityChannelKey, ac.IdentityPageURL, ac.CISecret = c.StoreID, c.ChannelKey, c.PageURL, c.CISecret
	// Verifications on a TEST channel prove nobody's age: live refuses them.
	ac.IdentityTestChannels = !s.live()
	if c.Provider != nil {
		ac.Identity = c.Provider
		return nil
	}
	if c.URL == "" && c.Sandbox {
		sb, err := portonesandbox.Start("127.0.0.1:0", portonesandbox.Config{Secret: c.Secret, StoreID: c.StoreID,
			ChannelKey: c.ChannelKey, Log: s.log.With("part", "portonesandbox"), Now: s.cfg.Now})
		if err != nil {
			return fmt.Errorf("writer: %w", err)
		}
		s.idsb = sb
		c.URL = sb.URL
		if ac.IdentityPageURL == "" {
			ac.IdentityPageURL = sb.URL
		}
		s.log.Info("identity verification sandbox started", "url", sb.URL)
	}
	if c.URL == "" {
		return nil // adult verification answers 503
	}
	ac.Identity = &identity.Client{BaseURL: c.URL, Secret: c.Secret, StoreID: c.StoreID, HTTP: &http.Client{Timeout: 10 * time.Second}}
	return nil
}

func (s *Server) live() bool { return s.cfg.CookieMode == svc.ModeLive }
