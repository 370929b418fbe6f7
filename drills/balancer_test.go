package drills

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// balancer is the client side of the read drills: what a load balancer or a
// browser with several edge addresses does. Reads go round robin over the
// edges that are up, on kept-alive connections.
//
// The failure policy is what the edge drill's assertion rests on: a read is
// resent to the next edge only when its connection was refused (the dial
// failed: nothing reached any server, so resending cannot be a second
// delivery), and that edge is then marked down until its /readyz answers 200
// again. A read that reached an edge and got no answer is NOT resent by the
// balancer: it is a failed read. (Go's transport itself resends a GET once when
// a kept-alive connection turns out to be closed before an answer began; that
// resend dials anew and, for a dead edge, is refused and failed over. This is
// the ordinary behaviour of HTTP clients and browsers, and it is in place.)
type balancer struct {
	nodes     []string
	down      []atomic.Bool
	next      atomic.Uint64
	client    *http.Client
	failovers atomic.Int64
	// busy counts reads under way per edge, so a kill can be timed to land
	// while the victim is serving.
	busy []atomic.Int64
}

func newBalancer(nodes ...string) *balancer {
	return &balancer{
		nodes: nodes,
		down:  make([]atomic.Bool, len(nodes)),
		busy:  make([]atomic.Int64, len(nodes)),
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
			DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		}},
	}
}

// read is one GET through the balancer.
type read struct {
	seq    int
	path   string
	first  int // edge tried first
	node   int // edge that answered or failed it
	start  time.Time
	end    time.Time
	status int
	body   []byte
	err    error
}

func isDialErr(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// get sends GET path to an edge, failing over on refused connections only.
func (b *balancer) get(ctx context.Context, seq int, path string) read {
	r := read{seq: seq, path: path, start: time.Now(), first: -1}
	start := int(b.next.Add(1))
	// Edges that are up in round-robin order, then those marked down (a
	// last resort: maybe they are back and the health check has not seen it).
	order := make([]int, 0, len(b.nodes))
	for _, wantDown := range []bool{false, true} {
		for i := range b.nodes {
			n := (start + i) % len(b.nodes)
			if b.down[n].Load() == wantDown {
				order = append(order, n)
			}
		}
	}
	for _, n := range order {
		if r.first < 0 {
			r.first = n
		}
		r.node = n
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.nodes[n]+path, nil)
		if err != nil {
			r.err = err
			break
		}
		b.busy[n].Add(1)
		resp, err := b.client.Do(req)
		if err == nil {
			r.status = resp.StatusCode
			r.body, r.err = io.ReadAll(resp.Body)
			resp.Body.Close()
			b.busy[n].Add(-1)
			break
		}
		b.busy[n].Add(-1)
		r.err = err
		if !isDialErr(err) {
			break
		}
		b.down[n].Store(true)
		b.failovers.Add(1)
	}
	r.end = time.Now()
	return r
}

// healthCheck marks edges up again once their /readyz answers 200.
func (b *balancer) healthCheck(ctx context.Context) {
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for i, n := range b.nodes {
			if !b.down[i].Load() {
				continue
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n+"/readyz", nil)
			if resp, err := c.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					b.down[i].Store(false)
				}
			}
		}
	}
}
