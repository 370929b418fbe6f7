package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// routeClass groups requests for the latency histograms.
type routeClass uint8

const (
	classAPI       routeClass = iota // the edge's own JSON reads (cached or rendered)
	classContent                     // pictures, content pages, processed media
	classStatic                      // the SPA's files
	classTracking                    // tracking events taken by the edge
	classForwarded                   // calls passed to writers or analytics nodes
	classRefused                     // refused before routing (bad path, method)
	classOps                         // /healthz, /readyz, /metrics: not measured
	numClasses
)

var classNames = [numClasses]string{"api", "content", "static", "tracking", "forwarded", "refused", "ops"}

// latencyBuckets, in seconds: a cached hit takes microseconds, a rendered
// answer or a forwarded call milliseconds; the release minute's target is
// p99 < 50 ms at the reader.
var latencyBuckets = []float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5, 5}

// latencies holds one histogram child per route class, resolved once, so an
// observation is a few atomic adds and allocates nothing (the cached hit's
// 0 allocations are kept: BenchmarkCachedHit).
type latencies [numClasses]prometheus.Observer

func newLatencies(reg prometheus.Registerer) *latencies {
	vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "edge_request_duration_seconds",
		Help:    "Time in the edge's handler by route class, from the request read to the answer ready to send (the send itself is not in it).",
		Buckets: latencyBuckets,
	}, []string{"class"})
	reg.MustRegister(vec)
	var l latencies
	for c := range classOps {
		l[c] = vec.WithLabelValues(classNames[c])
	}
	return &l
}

// Observe records one request of class c that took d.
func (l *latencies) Observe(c routeClass, d time.Duration) {
	if c < classOps {
		l[c].Observe(d.Seconds())
	}
}
