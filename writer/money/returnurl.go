package money

import (
	"net/url"
	"strings"
)

// Where the gateway sends the buyer back (successUrl, failUrl). The success
// address receives the payment key in its query, and the client opens either
// one: an address we hand out must be the store's own (issue 30). Allowed: a
// path on the store's origin ("/payment/recharge.asp?..."), or an http(s)
// address whose origin is one of Config.ReturnOrigins or whose host is the one
// the request came to (Host, or X-Forwarded-Host from the edge: the store's
// address as the reader reached it). Refused: any other scheme (javascript:, data:), another host,
// userinfo, a protocol-relative "//host", backslashes and control characters
// (browsers read "/\host" as "//host").

const msgReturnURL = "결제 후 이동할 주소(URL)는 이 상점의 주소여야 합니다."

// ownReturnURL reports whether raw may be a return address for a request made
// to one of hosts (empty ones ignored); "" (none given) may.
func ownReturnURL(raw string, origins map[string]bool, hosts ...string) bool {
	if raw == "" {
		return true
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return false
		}
	}
	if strings.HasPrefix(raw, "/") {
		return !strings.HasPrefix(raw, "//")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return false
	}
	h := strings.ToLower(u.Host)
	if origins[scheme+"://"+h] {
		return true
	}
	for _, host := range hosts {
		if host != "" && h == strings.ToLower(host) {
			return true
		}
	}
	return false
}

// returnOrigins normalizes the configured origins ("https://store.example",
// a trailing slash or upper case allowed) into a set.
func returnOrigins(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, o := range list {
		if o = strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/")); o != "" {
			m[o] = true
		}
	}
	return m
}
