package realip_test

import (
	"net/netip"
	"strings"
	"testing"

	"storefront/realip"
)

// FuzzClient: behind the edge (a trusted proxy that appends the address it
// saw), the client is that address whatever the client wrote in front of it,
// and a peer that is not trusted is the client whatever the header says.
// Replaces writer/auth's FuzzClientIP: the writer's limiter and events read
// the address realip resolved.
func FuzzClient(f *testing.F) {
	f.Add("")
	f.Add("198.51.100.1, 203.0.113.7")
	f.Add("1.2.3.4,")
	f.Add(",,,")
	f.Add("spoofed")
	f.Add("[::1]:80, 10.0.0.1")
	edges, _ := realip.Parse("10.0.0.0/8")
	edge := netip.MustParseAddr("10.0.0.2")
	const edgeSaw = "203.0.113.7"
	f.Fuzz(func(t *testing.T, clientXFF string) {
		xff := edgeSaw
		if clientXFF != "" {
			xff = clientXFF + ", " + edgeSaw
		}
		if got := edges.Client(edge, xff); got != netip.MustParseAddr(edgeSaw) {
			t.Fatalf("client header %q: %s, want the address the edge saw %s", clientXFF, got, edgeSaw)
		}
		stranger := netip.MustParseAddr("192.0.2.5")
		if got := edges.Client(stranger, xff); got != stranger {
			t.Fatalf("untrusted peer with %q: %s", xff, got)
		}
		// From a trusted peer the answer is the peer or one of the entries.
		got := edges.Client(edge, clientXFF)
		if got == edge {
			return
		}
		for _, e := range strings.Split(clientXFF, ",") {
			e = strings.TrimSpace(e)
			if a, err := netip.ParseAddr(e); err == nil && a.Unmap() == got {
				return
			}
			if a, err := netip.ParseAddrPort(e); err == nil && a.Addr().Unmap() == got {
				return
			}
		}
		t.Fatalf("%q: %s is neither the peer nor an entry", clientXFF, got)
	})
}
