package cluster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"time"
)

// Balancer is the cluster's load balancer: round robin over the edges whose
// /readyz answered 200 at the last check, X-Forwarded-For naming the reader
// (the edges trust it from this address only, EDGE_TRUSTED_PROXIES). A
// request whose connection to an edge was refused goes to the next edge
// (nothing reached a server, so it cannot be delivered twice) and that edge
// is taken out until its /readyz answers again; a request an edge took and
// did not answer is answered 502, as a real balancer does.
type Balancer struct {
	backends []*backend
	next     atomic.Uint64
	log      *slog.Logger
	// Failovers counts requests sent on to another edge after a refused connection.
	Failovers atomic.Int64
}

type backend struct {
	url   *url.URL
	proxy *httputil.ReverseProxy
	up    atomic.Bool
}

type dialFailed struct{ err error }

func (e dialFailed) Error() string { return e.err.Error() }

// NewBalancer balances over the edges at urls (http://host:port), all taken as up.
func NewBalancer(urls []string, log *slog.Logger) (*Balancer, error) {
	b := &Balancer{log: log}
	for _, u := range urls {
		pu, err := url.Parse(u)
		if err != nil {
			return nil, err
		}
		be := &backend{url: pu}
		be.up.Store(true)
		tr := &http.Transport{
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, network, addr)
				if err != nil {
					return nil, dialFailed{err}
				}
				return c, nil
			},
		}
		be.proxy = &httputil.ReverseProxy{
			Transport: tr,
			Rewrite: func(r *httputil.ProxyRequest) {
				r.SetURL(pu)
				r.Out.Host = r.In.Host
				r.SetXForwarded()
			},
			// The proxy calls this before it wrote anything; ServeHTTP
			// decides between failover and a 502.
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				if p, ok := r.Context().Value(failKey{}).(*error); ok {
					*p = err
				}
			},
			FlushInterval: -1,
		}
		b.backends = append(b.backends, be)
	}
	return b, nil
}

type failKey struct{}

// maxReplayBody is the largest request body kept to be sent again to
// another edge; larger uploads go to one edge, without failover.
const maxReplayBody = 1 << 20

// ServeHTTP sends r to the next edge that is up, failing over on refused connections.
func (b *Balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	replayable := r.Body == nil || r.Body == http.NoBody || (r.ContentLength >= 0 && r.ContentLength <= maxReplayBody)
	if replayable && r.Body != nil && r.Body != http.NoBody {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			writeBadGateway(w)
			return
		}
	}
	var failed error
	r = r.WithContext(context.WithValue(r.Context(), failKey{}, &failed))
	start := int(b.next.Add(1))
	n := len(b.backends)
	// Edges that are up in turn, then those marked down as a last resort
	// (they may be back before the health check has seen it).
	for _, wantUp := range []bool{true, false} {
		for i := range n {
			be := b.backends[(start+i)%n]
			if be.up.Load() != wantUp {
				continue
			}
			if body != nil {
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			failed = nil
			be.proxy.ServeHTTP(w, r)
			if failed == nil {
				return
			}
			var df dialFailed
			if !errors.As(failed, &df) || !replayable {
				b.log.Warn("edge did not answer", "edge", be.url.Host, "err", failed)
				writeBadGateway(w)
				return
			}
			be.up.Store(false)
			b.Failovers.Add(1)
		}
	}
	writeBadGateway(w)
}

func writeBadGateway(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write([]byte(`{"header":{"code":502,"message":"서버에 연결할 수 없습니다. 잠시 후 다시 시도해 주세요."}}`))
}

// Check marks edges up or down by their /readyz every interval until ctx ends.
func (b *Balancer) Check(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for _, be := range b.backends {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, be.url.String()+"/readyz", nil)
			resp, err := probe.Do(req)
			ok := err == nil && resp.StatusCode == http.StatusOK
			if err == nil {
				resp.Body.Close()
			}
			if be.up.Swap(ok) != ok {
				b.log.Info("edge health changed", "edge", be.url.Host, "up", ok)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
