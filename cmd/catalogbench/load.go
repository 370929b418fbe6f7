package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
)

// client sends what the store's web client sends: JSON with compression,
// the channel header and the signature version (frontend/app/utils/http.ts).
type client struct {
	hc   *http.Client
	base string
}

func newClient(base string, conns int) *client {
	tr := &http.Transport{MaxIdleConns: conns * 2, MaxIdleConnsPerHost: conns * 2, IdleConnTimeout: time.Minute,
		// The benchmark asks for gzip and br itself and decodes only what
		// it checks, as a browser would decode.
		DisableCompression: true}
	return &client{hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}, base: base}
}

// result is one request's outcome.
type result struct {
	kind    string
	path    string
	status  int
	latency time.Duration
	body    []byte // decoded, only when asked for
	err     error
}

func (c *client) get(ctx context.Context, kind, path, accept string, keep bool) result {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return result{kind: kind, path: path, err: err}
	}
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	req.Header.Set("X-Channel", "IW")
	req.Header.Set("X-Signature-Version", "2")
	req.Header.Set("User-Agent", "Mozilla/5.0 (catalogbench)")
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return result{kind: kind, path: path, err: err, latency: time.Since(start)}
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	r := result{kind: kind, path: path, status: resp.StatusCode, latency: time.Since(start), err: err}
	if keep && err == nil {
		r.body, r.err = decode(resp.Header.Get("Content-Encoding"), raw)
	}
	return r
}

func decode(enc string, b []byte) ([]byte, error) {
	switch enc {
	case "":
		return b, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return io.ReadAll(zr)
	case "br":
		return io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	}
	return nil, fmt.Errorf("unexpected Content-Encoding %q", enc)
}

// latencies summarises request durations.
type latencies struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50Ms"`
	P99  float64 `json:"p99Ms"`
	Max  float64 `json:"maxMs"`
	Errs int     `json:"errors"` // transport errors and 5xx
}

func summarize(rs []result) latencies {
	if len(rs) == 0 {
		return latencies{}
	}
	d := make([]time.Duration, len(rs))
	l := latencies{N: len(rs)}
	for i, r := range rs {
		d[i] = r.latency
		if r.err != nil || r.status >= 500 {
			l.Errs++
		}
	}
	slices.Sort(d)
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	l.P50, l.P99, l.Max = ms(at(0.50)), ms(at(0.99)), ms(d[len(d)-1])
	return l
}

// collector gathers results from many goroutines.
type collector struct {
	mu sync.Mutex
	rs []result
}

func (c *collector) add(r result) {
	r.body = nil
	c.mu.Lock()
	c.rs = append(c.rs, r)
	c.mu.Unlock()
}
