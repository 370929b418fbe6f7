package realip_test

import (
	"net/netip"
	"testing"

	"storefront/realip"
)

func TestClientBehindTrustedProxies(t *testing.T) {
	lb, err := realip.Parse("10.0.0.0/8, 192.168.7.3, fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	a := netip.MustParseAddr
	for _, c := range []struct {
		name, peer, xff, want string
		trusted               realip.Trusted
	}{
		{"no proxy trusted: the peer, whatever the header says", "203.0.113.9", "198.51.100.1", "203.0.113.9", realip.Trusted{}},
		{"untrusted peer: its header is ignored", "203.0.113.9", "198.51.100.1", "203.0.113.9", lb},
		{"one balancer", "10.1.2.3", "198.51.100.1", "198.51.100.1", lb},
		{"the client's own made-up entries stay left of the real one", "10.1.2.3", "1.1.1.1, 2.2.2.2, 198.51.100.1", "198.51.100.1", lb},
		{"two trusted hops", "10.1.2.3", "198.51.100.1, 192.168.7.3", "198.51.100.1", lb},
		{"header split over two lines, joined", "10.1.2.3", "198.51.100.1,10.9.9.9", "198.51.100.1", lb},
		{"entries with ports", "10.1.2.3", "[2001:db8::1]:4431, 10.9.9.9:80", "2001:db8::1", lb},
		{"ipv6 balancer", "fd00::7", "2001:db8::2", "2001:db8::2", lb},
		{"ipv4-mapped peer", "::ffff:10.1.2.3", "198.51.100.1", "198.51.100.1", lb},
		{"every hop trusted: the leftmost", "10.1.2.3", "10.4.4.4, 10.5.5.5", "10.4.4.4", lb},
		{"no header from a trusted peer: the peer", "10.1.2.3", "", "10.1.2.3", lb},
		{"garbage written by the client ends the walk", "10.1.2.3", "evil, 10.9.9.9", "10.9.9.9", lb},
		{"empty entries skipped", "10.1.2.3", "198.51.100.1, ,", "198.51.100.1", lb},
	} {
		if got := c.trusted.Client(a(c.peer), c.xff); got != a(c.want) {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestParseRefusesMalformedRanges(t *testing.T) {
	for _, s := range []string{"10.0.0.0/33", "not-an-ip", "10.0.0/8", "10.0.0.1/8/2"} {
		if _, err := realip.Parse(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	var tr realip.Trusted
	if err := tr.Set("127.0.0.0/8,::1"); err != nil || tr.String() != "127.0.0.0/8,::1/128" {
		t.Fatalf("Set: %q %v", tr.String(), err)
	}
}

func BenchmarkClient(b *testing.B) {
	lb, _ := realip.Parse("10.0.0.0/8")
	peer := netip.MustParseAddr("10.1.2.3")
	b.ReportAllocs()
	for b.Loop() {
		_ = lb.Client(peer, "1.1.1.1, 198.51.100.1")
	}
}
