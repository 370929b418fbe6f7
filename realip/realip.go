// Package realip finds the address of the client behind trusted proxies:
// the load balancers in front of the edges (for the edge) and the edges (for
// the writer). X-Forwarded-For is a list each proxy appends its peer to, and
// anything before the first proxy's entry is whatever the client wrote, so
// it is read from the right: the peer, then each entry a trusted proxy
// added, until the first address that is not a trusted proxy. That address
// is the client. Nothing from an untrusted peer is believed.
//
// The zero Trusted trusts nobody: the client is the peer.
package realip

import (
	"fmt"
	"net/netip"
	"strings"
)

// Trusted is a set of proxy address ranges. It is safe for concurrent use.
type Trusted struct {
	nets []netip.Prefix
}

// Parse reads a comma-separated list of CIDR ranges or single addresses
// ("10.0.0.0/8, 192.168.7.3, fd00::/8"); empty trusts nobody.
func Parse(list string) (Trusted, error) {
	var t Trusted
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return Trusted{}, fmt.Errorf("trusted proxy range %q: %w", f, err)
			}
			t.nets = append(t.nets, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return Trusted{}, fmt.Errorf("trusted proxy address %q: %w", f, err)
		}
		a = a.Unmap()
		t.nets = append(t.nets, netip.PrefixFrom(a, a.BitLen()))
	}
	return t, nil
}

// Set parses list into t (a flag.Value, so a malformed range stops the
// service at start).
func (t *Trusted) Set(list string) error {
	n, err := Parse(list)
	if err != nil {
		return err
	}
	*t = n
	return nil
}

// String lists the ranges.
func (t *Trusted) String() string {
	if t == nil {
		return ""
	}
	s := make([]string, len(t.nets))
	for i, p := range t.nets {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// Empty reports whether t trusts nobody.
func (t Trusted) Empty() bool { return len(t.nets) == 0 }

// Contains reports whether a is a trusted proxy.
func (t Trusted) Contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t.nets {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client is the client's address of a request that came from peer with the
// X-Forwarded-For header xff (its values joined by commas, as HTTP allows).
// When every address is a trusted proxy, the leftmost is the client. An
// entry that is not an address where the walk needs one ends it: the last
// good address is the client (a trusted proxy does not write garbage, so
// the garbage is the client's, and the proxy after it saw the client).
func (t Trusted) Client(peer netip.Addr, xff string) netip.Addr {
	peer = peer.Unmap()
	if !t.Contains(peer) {
		return peer
	}
	client := peer
	for xff != "" {
		i := strings.LastIndexByte(xff, ',')
		entry := strings.TrimSpace(xff[i+1:])
		if i < 0 {
			xff = ""
		} else {
			xff = xff[:i]
		}
		if entry == "" {
			continue
		}
		a, err := parseEntry(entry)
		if err != nil {
			return client
		}
		client = a
		if !t.Contains(a) {
			return a
		}
	}
	return client
}

// parseEntry reads an X-Forwarded-For entry: an address, maybe with a port
// ("1.2.3.4:5678", "[2001:db8::1]:443") as some proxies write it.
func parseEntry(s string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), nil
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return netip.Addr{}, err
	}
	return ap.Addr().Unmap(), nil
}
