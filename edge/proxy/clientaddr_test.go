package proxy

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"

	"storefront/realip"
)

func requestFrom(peer, xff string) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.SetRequestURI("/home/api/v1/tracking/page-view")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	ctx := new(fasthttp.RequestCtx)
	ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(peer), Port: 40000}, nil)
	return ctx
}

func TestClientAddr(t *testing.T) {
	lb, _ := realip.Parse("10.0.0.0/8")
	for _, c := range []struct {
		peer, xff string
		trusted   realip.Trusted
		want      string
	}{
		{"203.0.113.9", "1.2.3.4", realip.Trusted{}, "203.0.113.9"},
		{"10.1.1.1", "1.2.3.4, 198.51.100.7", lb, "198.51.100.7"},
		{"203.0.113.9", "198.51.100.7", lb, "203.0.113.9"},
	} {
		if got := ClientAddr(requestFrom(c.peer, c.xff), c.trusted).String(); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", c.peer, c.xff, got, c.want)
		}
	}
}

// The tracking path resolves the reader's address per call: nothing
// allocated, behind a balancer or not.
//
//	go test -run XXX -bench ClientAddr -benchmem ./edge/proxy
func BenchmarkClientAddr(b *testing.B) {
	lb, _ := realip.Parse("10.0.0.0/8")
	for name, c := range map[string]struct {
		ctx     *fasthttp.RequestCtx
		trusted realip.Trusted
	}{
		"front-door":      {requestFrom("203.0.113.9", ""), realip.Trusted{}},
		"behind-balancer": {requestFrom("10.1.1.1", "1.2.3.4, 198.51.100.7"), lb},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = ClientAddr(c.ctx, c.trusted)
			}
		})
	}
}
