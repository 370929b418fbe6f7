package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// What the edge and the writer both read from a request to enrich the events
// it causes. Page views (edge) and business events (writer) must agree on
// every one of them, or a purchase cannot be joined to the visit that led to
// it: same cookie, same headers, same hash of the same address with the same
// salt (TRACK_IP_SALT, configured identically on both).
const (
	// SessionCookie holds the tracking session id the edge hands out on
	// tracking calls; it reaches the writer on every forwarded call.
	SessionCookie = "sf_sid"
	// HeaderAppVersion carries the app's version in app web views.
	HeaderAppVersion = "X-App-Version"
)

// Enrichment is the request-derived part of a TrackedEvent.
type Enrichment struct {
	Channel    string
	AppVersion string
	IPHash     string
	UAClass    string
	SessionID  string
}

// Apply fills the fields of ev its producer left empty.
func (e Enrichment) Apply(ev *TrackedEvent) {
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&ev.Channel, e.Channel)
	fill(&ev.AppVersion, e.AppVersion)
	fill(&ev.IPHash, e.IPHash)
	fill(&ev.UAClass, e.UAClass)
	fill(&ev.SessionID, e.SessionID)
}

// Enrich computes the enrichment of a request from its parts: the X-Channel
// header, the X-App-Version header, the client address (the one the edge saw),
// the User-Agent and the sf_sid cookie. A session id that ValidSessionID
// refuses is left out. The app version is cut to 32 bytes and the channel to
// 8: both are client-chosen, and an event must stay small.
func Enrich(salt []byte, channel, appVersion, clientIP, userAgent, sessionID string) Enrichment {
	channel = strings.ToUpper(channel)
	e := Enrichment{
		Channel:    clip(channel, 8),
		AppVersion: clip(appVersion, 32),
		UAClass:    UAClass(userAgent, channel),
	}
	if clientIP != "" {
		e.IPHash = IPHash(salt, clientIP)
	}
	if ValidSessionID(sessionID) {
		e.SessionID = sessionID
	}
	return e
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// IPHash is the salted hash of a client address kept in events instead of
// the address: 32 hex digits, equal for equal addresses under one salt.
func IPHash(salt []byte, ip string) string {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte{0})
	h.Write([]byte(ip))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ValidSessionID reports whether a tracking session id is acceptable: 16 to
// 64 of [A-Za-z0-9_-] (the edge makes 32 hex digits). Anything else in the
// cookie is a client's invention and is not copied into events.
func ValidSessionID(id string) bool {
	if len(id) < 16 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// UAClass classifies a user agent: android-app, ios-app, android-web,
// ios-web, desktop or bot. The channel header wins when present.
func UAClass(ua, channel string) string {
	switch channel {
	case "AA", "AC", "AO":
		return "android-app"
	case "IA":
		return "ios-app"
	case "AW":
		return "android-web"
	case "IW":
		return "ios-web"
	}
	l := strings.ToLower(ua)
	switch {
	case strings.Contains(l, "bot") || strings.Contains(l, "crawler") || strings.Contains(l, "spider") || strings.Contains(l, "headlesschrome"):
		return "bot"
	case strings.Contains(l, "android") && strings.Contains(l, "; wv)"):
		return "android-app"
	case strings.Contains(l, "android"):
		return "android-web"
	case (strings.Contains(l, "iphone") || strings.Contains(l, "ipad")) && !strings.Contains(l, "safari"):
		return "ios-app"
	case strings.Contains(l, "iphone") || strings.Contains(l, "ipad"):
		return "ios-web"
	}
	return "desktop"
}
