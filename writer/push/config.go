// Package push rings the new-volume alarm by Web Push (issue 19): members'
// browser subscriptions (RFC 8030 push endpoints with their RFC 8291 keys),
// the routes that store and remove them, and the worker that, at the release
// instant of a volume, sends one notification per subscriber of the work
// through github.com/SherClockHolmes/webpush-go (aes128gcm payload, VAPID
// RFC 8292). The app web views (channels AA/AO/AC/IA) ring through the app's
// bridge instead and never subscribe here.
package push

import (
	"crypto/ecdh"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// The development VAPID key pair (webpush.GenerateVAPIDKeys, made once and
// kept here like the other dev secrets): stable across restarts, since a
// browser's subscription is bound to the key it was made with. Refused with
// COOKIE_MODE=live.
const (
	DevPublicKey  = "BIKiuuMoDc8VNBu5Ydrpu0K4snJ25lKi-eE5y1KQTSrycf_Hw0B9eP6kK76CsgowaXGWhZ1xHpjcXuo6AJL_TF8"
	DevPrivateKey = "KUIaa19PNM_y7eXtk6medHblkSFWQLYtQu4-nYNPqKg"
)

// DefaultEndpointHosts are the push services of the browsers a reader uses
// (Chrome/Edge through FCM, Firefox, Safari, Windows). A member chooses the
// endpoint the writer posts to, so only these hosts are accepted: without the
// list the worker could be pointed at any address. A leading dot matches
// subdomains.
const DefaultEndpointHosts = "fcm.googleapis.com,updates.push.services.mozilla.com,.push.apple.com,.notify.windows.com"

// Config is the push settings of the writer.
type Config struct {
	PublicKey  string // VAPID public key, uncompressed P-256 point, base64url
	PrivateKey string // VAPID private key, 32 bytes, base64url
	Subject    string // VAPID sub: mailto: or https: contact of the operator
	// EndpointHosts (comma-separated; ".example.com" matches subdomains) are
	// the push services subscriptions may point at.
	EndpointHosts string
	// AllowHTTP accepts http:// endpoints (the fake push service of tests);
	// the server sets it only outside live mode.
	AllowHTTP bool
	// Poll is the longest the worker waits before it looks at the push
	// schedule and the due deliveries again (it wakes at the next release or
	// retry sooner); it reads push tables only, never the catalog.
	Poll time.Duration
	// Window is how late a release is still announced (a writer down over
	// a release catches up within it; older releases stay silent).
	Window time.Duration
	// Lease is how long a taken delivery is left to its worker before
	// another may send it again.
	Lease       time.Duration
	Concurrency int           // notifications in flight per worker
	Batch       int           // deliveries taken per claim
	MaxAttempts int           // tries before a delivery is given up
	RetryBase   time.Duration // first retry delay, doubled per attempt
	RetryMax    time.Duration // longest retry delay (also caps Retry-After)
	TTL         time.Duration // how long the push service keeps an undelivered notification
	// Now is the worker's clock (nil = time.Now).
	Now func() time.Time
}

// RegisterFlags registers the push flags with environment fallbacks.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.PublicKey, "vapid-public-key", DevPublicKey, "VAPID public key of Web Push, base64url uncompressed P-256 point; the dev key is refused with cookie-mode live (env VAPID_PUBLIC_KEY, default the dev key)")
	fs.StringVar(&c.PrivateKey, "vapid-private-key", DevPrivateKey, "VAPID private key of Web Push, base64url; the dev key is refused with cookie-mode live (env VAPID_PRIVATE_KEY, default the dev key)")
	fs.StringVar(&c.Subject, "vapid-subject", "mailto:push@storefront.invalid", "VAPID contact (sub claim), mailto: or https: URL (env VAPID_SUBJECT, default mailto:push@storefront.invalid)")
	fs.StringVar(&c.EndpointHosts, "push-endpoint-hosts", DefaultEndpointHosts, "push services a subscription may point at, comma-separated, .domain matches subdomains (env PUSH_ENDPOINT_HOSTS, default "+DefaultEndpointHosts+")")
	fs.DurationVar(&c.Poll, "push-poll", time.Second, "longest wait of the push worker between looks at its schedule and due notifications; it wakes at the next release or retry sooner (env PUSH_POLL, default 1s)")
	fs.DurationVar(&c.Window, "push-window", time.Hour, "how late a release is still announced by Web Push (env PUSH_WINDOW, default 1h)")
	fs.IntVar(&c.Concurrency, "push-concurrency", 32, "Web Push notifications in flight per writer (env PUSH_CONCURRENCY, default 32)")
}

func (c *Config) defaults() {
	if c.PublicKey == "" && c.PrivateKey == "" {
		c.PublicKey, c.PrivateKey = DevPublicKey, DevPrivateKey
	}
	if c.Subject == "" {
		c.Subject = "mailto:push@storefront.invalid"
	}
	if c.EndpointHosts == "" {
		c.EndpointHosts = DefaultEndpointHosts
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Window <= 0 {
		c.Window = time.Hour
	}
	if c.Lease <= 0 {
		c.Lease = time.Minute
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 32
	}
	if c.Batch <= 0 {
		c.Batch = 8 * c.Concurrency
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 8
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 5 * time.Second
	}
	if c.RetryMax <= 0 {
		c.RetryMax = time.Hour
	}
	if c.TTL <= 0 {
		c.TTL = 24 * time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Check refuses keys that are not a matching P-256 pair and a subject that
// is not a mailto: or https: contact, so a typo fails at start instead of
// at the first release.
func (c *Config) Check() error {
	c.defaults()
	pub, err := decodeKey(c.PublicKey)
	if err != nil {
		return fmt.Errorf("VAPID_PUBLIC_KEY: %w", err)
	}
	if _, err := ecdh.P256().NewPublicKey(pub); err != nil {
		return fmt.Errorf("VAPID_PUBLIC_KEY: not an uncompressed P-256 point: %w", err)
	}
	priv, err := decodeKey(c.PrivateKey)
	if err != nil {
		return fmt.Errorf("VAPID_PRIVATE_KEY: %w", err)
	}
	k, err := ecdh.P256().NewPrivateKey(priv)
	if err != nil {
		return fmt.Errorf("VAPID_PRIVATE_KEY: not a P-256 private key: %w", err)
	}
	if string(k.PublicKey().Bytes()) != string(pub) {
		return errors.New("VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY")
	}
	if !strings.HasPrefix(c.Subject, "mailto:") && !strings.HasPrefix(c.Subject, "https://") {
		return fmt.Errorf("VAPID_SUBJECT %q: must be a mailto: or https:// contact", c.Subject)
	}
	for _, h := range strings.Split(c.EndpointHosts, ",") {
		if strings.TrimSpace(h) == "" {
			return fmt.Errorf("PUSH_ENDPOINT_HOSTS %q: empty host", c.EndpointHosts)
		}
	}
	return nil
}

// decodeKey reads base64url with or without padding (browsers give keys
// unpadded; some tools pad).
func decodeKey(s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fmt.Errorf("not base64url: %w", err)
	}
	return b, nil
}

// checkEndpoint accepts an absolute https URL (http only with AllowHTTP) on
// one of the allowed hosts.
func (c *Config) checkEndpoint(raw string) bool {
	if len(raw) > 1024 {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.Host == "" || u.Fragment != "" {
		return false
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !c.AllowHTTP) {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, h := range strings.Split(c.EndpointHosts, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == host || strings.HasPrefix(h, ".") && strings.HasSuffix(host, h) {
			return true
		}
	}
	return false
}

// checkKeys accepts the subscription's public key (a P-256 point) and its
// 16-byte authentication secret (RFC 8291 §3).
func checkKeys(p256dh, auth string) (okKey, okAuth bool) {
	if b, err := decodeKey(p256dh); err == nil {
		_, err = ecdh.P256().NewPublicKey(b)
		okKey = err == nil
	}
	b, err := decodeKey(auth)
	return okKey, err == nil && len(b) == 16
}
