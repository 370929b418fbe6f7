package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"storefront/svc"
)

type metrics struct {
	applied   prometheus.Counter
	requests  *prometheus.CounterVec
	forwarded *prometheus.CounterVec
	tracked   *prometheus.CounterVec
	latency   *latencies
	// watchRestarts counts watches restarted because they stopped delivering.
	watchRestarts prometheus.Counter
	// answers[status/100], resolved once: the hot path does no label lookup.
	answers [6]prometheus.Counter
}

// countAnswer counts one answer by its status class.
func (m *metrics) countAnswer(status int) {
	if c := status / 100; c >= 1 && c <= 5 {
		m.answers[c].Inc()
	}
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		applied: prometheus.NewCounter(prometheus.CounterOpts{Name: "edge_catalog_entries_applied_total", Help: "KV entries applied to the read models."}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "edge_requests_total", Help: "Requests by kind."},
			[]string{"kind"}),
		forwarded: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "edge_forwarded_total", Help: "Calls forwarded to writers by outcome."},
			[]string{"outcome"}),
		tracked: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "edge_tracking_events_total", Help: "Tracking events by outcome."},
			[]string{"outcome"}),
		watchRestarts: prometheus.NewCounter(prometheus.CounterOpts{Name: "edge_catalog_watch_restarts_total",
			Help: "Catalog watches restarted because they delivered nothing while the bucket moved on (connection up)."}),
	}
	m.latency = newLatencies(s.reg)
	answers := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "edge_answers_total", Help: "Answers by status class (2xx, 3xx, 4xx, 5xx)."},
		[]string{"class"})
	for c := 1; c <= 5; c++ {
		m.answers[c] = answers.WithLabelValues(fmt.Sprintf("%dxx", c))
	}
	s.reg.MustRegister(m.applied, m.requests, m.forwarded, m.tracked, m.watchRestarts, answers,
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_tracking_bundles_total", Help: "Messages of tracking events acked by JetStream (bundles of calls)."},
			func() float64 { return float64(s.tracker.Bundler.Messages.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_tracking_bundled_calls_total", Help: "Tracking calls those bundles held: divided by edge_tracking_bundles_total, the mean bundle."},
			func() float64 { return float64(s.tracker.Bundler.Calls.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_cache_hits_total", Help: "Rendered bodies served from the cache."},
			func() float64 { return float64(s.cache.Hits.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_cache_misses_total", Help: "Bodies rendered because none was cached."},
			func() float64 { return float64(s.cache.Misses.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_cache_invalidated_total", Help: "Cached bodies found invalid (catalog update or release instant) and dropped."},
			func() float64 { return float64(s.cache.Stale.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_cache_stale_served_total", Help: "Cached bodies out of date only by list counters served while one background render replaced them (EDGE_STALE_RENDER)."},
			func() float64 { return float64(s.staleServed.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_release_answers_rendered_total", Help: "Answers of releasing works rendered ahead for their release instant."},
			func() float64 { return float64(s.ahead.rendered.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_release_answers_served_total", Help: "Misses answered with an answer rendered ahead for a release instant instead of a render."},
			func() float64 { return float64(s.ahead.served.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_media_cache_hits_total", Help: "Media objects served from the edge's object cache."},
			func() float64 { return float64(s.objects.Hits.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_media_cache_misses_total", Help: "Media objects read from the content store."},
			func() float64 { return float64(s.objects.Misses.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "edge_media_cache_bytes", Help: "Bytes the media object cache holds."},
			func() float64 { return float64(s.objects.Bytes()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_volume_page_hits_total", Help: "Volume page lookups the page cache answered."},
			func() float64 { return float64(s.volPages.Hits.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_volume_page_misses_total", Help: "Volume page lookups the page cache did not have (a render or content request then fetches them)."},
			func() float64 { return float64(s.volPages.Misses.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_volume_page_fetches_total", Help: "Volume pages read from the catalog-vols bucket (origin calls; concurrent misses of a page are one)."},
			func() float64 { return float64(s.volPages.Fetches.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "edge_volume_pages_pinned_bytes", Help: "Bytes of the volume page cache pinned for the release minute (part of edge_cache_bytes{cache=\"volume_pages\"})."},
			func() float64 { return float64(s.volPages.PinnedBytes()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "edge_volume_page_pins_refused_total", Help: "Volume pages to be pinned for the release minute that found the pinned share (3/4) of the page cache's budget full and were cached as ordinary pages."},
			func() float64 { return float64(s.volPages.PinsRefused.Load()) }),
		memoryCollector{s},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "edge_catalog_products", Help: "Products in memory."},
			func() float64 { _, _, _, n := s.store.Stats(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "edge_catalog_revision", Help: "Last applied KV revision."},
			func() float64 { r, _, _, _ := s.store.Stats(); return float64(r) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "edge_catalog_last_update_age_seconds", Help: "Seconds since the last catalog update was applied."},
			func() float64 {
				_, at, _, _ := s.store.Stats()
				if at.IsZero() {
					return -1
				}
				return s.cfg.Now().Sub(at).Seconds()
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "edge_catalog_stale_seconds", Help: "Seconds the edge has been cut off from catalog updates: NATS lost, or a bucket revision its watch has not delivered (0 when caught up)."},
			func() float64 { return s.Staleness().Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "edge_nats_connected", Help: "1 when connected to NATS."},
			func() float64 {
				if s.nc.IsConnected() {
					return 1
				}
				return 0
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "edge_catalog_synced", Help: "1 once the initial catalog sync finished."},
			func() float64 {
				if s.synced.Load() {
					return 1
				}
				return 0
			}),
	)
	return m
}

var (
	cacheBytesDesc = prometheus.NewDesc("edge_cache_bytes",
		"Bytes each cache holds: bodies (rendered answers in ristretto, as counted against its bound), media (objects), audiences (verified audience tokens, estimated), volume_pages (paged works' volume pages, estimated, pinned ones included), release_answers (answers rendered ahead of a release), comments (episode comment heads and pages, estimated, pinned ones included).", []string{"cache"}, nil)
	cacheMaxDesc = prometheus.NewDesc("edge_cache_max_bytes",
		"Each cache's bound from its flag (EDGE_CACHE_MB, EDGE_MEDIA_CACHE_MB, EDGE_VOLUME_PAGES_BYTES, EDGE_COMMENT_BYTES; audiences: EDGE_AUDIENCE_CACHE_ENTRIES at ~160 bytes).", []string{"cache"}, nil)
	catalogBytesDesc = prometheus.NewDesc("edge_catalog_bytes",
		"Estimated bytes of the in-memory read models by kind (products, reviews, rankings, other, from their documents' sizes; lists, the list indexes' entries; search, the search index; pins, the pin index).", []string{"model"}, nil)
)

// memoryCollector reports what the edge's memory goes to, at scrape time:
// the figures of the memory budget in edge/README.md.
type memoryCollector struct{ s *Server }

func (c memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- cacheBytesDesc
	ch <- cacheMaxDesc
	ch <- catalogBytesDesc
}

func (c memoryCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	for _, x := range []struct {
		name     string
		used, mx int64
	}{
		{"bodies", s.cache.Bytes(), s.cache.MaxBytes()},
		{"media", s.objects.Bytes(), s.objects.MaxBytes()},
		{"audiences", s.auds.Bytes(), int64(s.auds.max) * (audEntryBytes + 96)},
		{"volume_pages", s.volPages.Bytes(), s.volPages.MaxBytes()},
		{"release_answers", s.aheadBytes(), aheadMaxBytes},
		{"comments", s.comments.Bytes(), s.comments.MaxBytes()},
	} {
		ch <- prometheus.MustNewConstMetric(cacheBytesDesc, prometheus.GaugeValue, float64(x.used), x.name)
		ch <- prometheus.MustNewConstMetric(cacheMaxDesc, prometheus.GaugeValue, float64(x.mx), x.name)
	}
	for model, n := range s.store.Bytes() {
		ch <- prometheus.MustNewConstMetric(catalogBytesDesc, prometheus.GaugeValue, float64(n), model)
	}
}

// readyDetail adds the catalog's state to /readyz: ready stays true while NATS
// is down (the edge serves its last catalog) but says how stale it is.
func (s *Server) readyDetail() string {
	rev, at, applied, products := s.store.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "catalog_synced %v\ncatalog_products %d\ncatalog_revision %d\ncatalog_entries_applied %d\n", s.synced.Load(), products, rev, applied)
	if !at.IsZero() {
		fmt.Fprintf(&b, "catalog_last_update_age %s\n", s.cfg.Now().Sub(at).Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "nats_connected %v\nstale_seconds %.1f\n", s.nc.IsConnected(), s.Staleness().Seconds())
	return b.String()
}

func opsHandler(s *Server) fasthttp.RequestHandler {
	return fasthttpadaptor.NewFastHTTPHandler(svc.OpsMux(&s.ready, s.reg, s.readyDetail))
}
