// Package proxy forwards the edge's calls to upstream nodes (writers, or
// analytics for the reports API) and resolves the reader's address.
package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"

	"storefront/realip"
)

// Proxy forwards calls to upstream nodes (writers, or analytics for the
// reports API) round-robin, passing cookies and headers both ways. A node that
// refuses the connection is skipped (the request never reached it, so trying
// the next one cannot apply it twice).
type Proxy struct {
	// Trusted are the balancers in front of the edge (EDGE_TRUSTED_PROXIES).
	Trusted realip.Trusted

	nodes   []*fasthttp.HostClient
	next    atomic.Uint64
	timeout time.Duration
	log     *slog.Logger
}

// ErrNoNode means no upstream node took the call.
var ErrNoNode = errors.New("no upstream node reachable")

// NewProxy makes a proxy over base URLs such as http://127.0.0.1:8081; log
// should name the upstream (its warnings say which node was skipped).
func NewProxy(urls []string, timeout time.Duration, log *slog.Logger) (*Proxy, error) {
	p := &Proxy{timeout: timeout, log: log}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("bad upstream URL %q", raw)
		}
		p.nodes = append(p.nodes, &fasthttp.HostClient{
			Addr:                          u.Host,
			IsTLS:                         u.Scheme == "https",
			MaxConns:                      1024,
			ReadTimeout:                   timeout,
			WriteTimeout:                  timeout,
			MaxIdleConnDuration:           30 * time.Second,
			DisableHeaderNamesNormalizing: true,
			DisablePathNormalizing:        true,
			NoDefaultUserAgentHeader:      true,
		})
	}
	return p, nil
}

// SplitURLs splits a comma-separated list of node URLs, dropping blanks.
func SplitURLs(list string) []string {
	var out []string
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// Nodes is how many upstream nodes there are.
func (p *Proxy) Nodes() int { return len(p.nodes) }

// Forward sends ctx's request to a node and puts the answer in ctx.Response.
func (p *Proxy) Forward(ctx *fasthttp.RequestCtx) error {
	if len(p.nodes) == 0 {
		return ErrNoNode
	}
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	ctx.Request.CopyTo(req)
	// The answer is signed over its plain body, so ask for it uncompressed.
	req.Header.Del("Accept-Encoding")
	// The writer trusts this header from its edges only, and takes its
	// one entry as the reader: what the edge resolved, never a list the
	// client started.
	req.Header.Set("X-Forwarded-For", ClientAddr(ctx, p.Trusted).String())
	req.Header.SetBytesV("X-Forwarded-Host", ctx.Host())
	switch proto := ctx.Request.Header.Peek("X-Forwarded-Proto"); {
	case ctx.IsTLS():
		req.Header.Set("X-Forwarded-Proto", "https")
	case fromTrusted(ctx, p.Trusted) && (string(proto) == "https" || string(proto) == "http"):
		// A trusted balancer terminated TLS and says so.
		req.Header.SetBytesV("X-Forwarded-Proto", proto)
	default:
		req.Header.Set("X-Forwarded-Proto", "http")
	}
	start := p.next.Add(1)
	var err error
	for i := range p.nodes {
		n := p.nodes[(int(start)+i)%len(p.nodes)]
		ctx.Response.Reset()
		err = n.DoTimeout(req, &ctx.Response, p.timeout)
		if err == nil {
			return nil
		}
		var op *net.OpError
		dial := errors.As(err, &op) && op.Op == "dial"
		idempotent := req.Header.IsGet() || req.Header.IsHead()
		if !dial && !errors.Is(err, fasthttp.ErrNoFreeConns) && !(idempotent && !errors.Is(err, fasthttp.ErrTimeout)) {
			break
		}
		p.log.Warn("upstream node unreachable, trying the next", "node", n.Addr, "err", err)
	}
	return fmt.Errorf("forward %s: %w", ctx.Path(), err)
}

// ClientAddr is the reader's address: the peer's, or, when the peer is one
// of the trusted balancers in front of the edge, the address they saw
// (realip: X-Forwarded-For read from the right up to the first untrusted
// entry). Nothing a reader writes into X-Forwarded-For is believed.
func ClientAddr(ctx *fasthttp.RequestCtx, trusted realip.Trusted) netip.Addr {
	peer, _ := netip.AddrFromSlice(ctx.RemoteIP())
	if trusted.Empty() {
		return peer.Unmap()
	}
	var xff string
	switch all := ctx.Request.Header.PeekAll("X-Forwarded-For"); len(all) {
	case 0:
	case 1:
		// Read in place: Client keeps nothing of the string.
		xff = unsafe.String(unsafe.SliceData(all[0]), len(all[0]))
	default:
		xff = string(bytes.Join(all, []byte(",")))
	}
	return trusted.Client(peer, xff)
}

func fromTrusted(ctx *fasthttp.RequestCtx, trusted realip.Trusted) bool {
	if trusted.Empty() {
		return false
	}
	peer, _ := netip.AddrFromSlice(ctx.RemoteIP())
	return trusted.Contains(peer)
}
