package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"storefront/contract"
	"storefront/edge/server"
)

// The edge's /metrics carries a latency histogram per route class, and each
// request is counted in its own class: a scrape after a known mix of requests
// finds exactly that many in each (ops requests, the scrapes among them, in none).
func TestLatencyHistogramsPerRouteClass(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("lat1", contract.SectionWebtoon, "지연 측정 작품"))
	var hits atomic.Int64
	w := fakeWriter(t, "w1", &hits)
	g := startEdge(t, e, func(c *server.Config) { c.WriterURL = w.URL })
	g.waitReady()
	before := scrapeLatency(t, g)

	want := map[string]uint64{"api": 3, "content": 1, "static": 2, "tracking": 1, "forwarded": 2, "refused": 1}
	for range 3 { // a render, then cached hits
		if resp, b := g.get("/home/api/v1/products/lat1", contract.HeaderRequestToken+": t", contract.HeaderSignatureVersion+": 2"); resp.StatusCode != 200 {
			t.Fatalf("detail: %d %s", resp.StatusCode, b)
		}
	}
	g.get("/content/lat1/1/00ab/1")
	g.get("/")
	g.get("/webtoon/detail/lat1")
	resp, err := http.Post(g.url+"/home/api/v1/tracking/page-view", "application/json", strings.NewReader(`{"curPageUrl":"/webtoon"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("page view: %v %v", err, resp)
	}
	resp.Body.Close()
	g.get("/protocol/appapi/mb/user/info/zzim-list")
	g.get("/iam/v2/user-info")
	g.get("/home/api/v1/products/%00")
	g.get("/healthz")

	after := scrapeLatency(t, g)
	for class, n := range want {
		h := after[class]
		if h == nil {
			t.Fatalf("no histogram for class %q", class)
		}
		got := h.GetSampleCount() - before[class].GetSampleCount()
		if got != n {
			t.Errorf("%s: %d requests counted, want %d", class, got, n)
		}
		if h.GetSampleSum() <= 0 {
			t.Errorf("%s: sum %v", class, h.GetSampleSum())
		}
		var prev uint64
		for _, b := range h.GetBucket() {
			if b.GetCumulativeCount() < prev {
				t.Errorf("%s: buckets not cumulative", class)
			}
			prev = b.GetCumulativeCount()
		}
		if prev > h.GetSampleCount() {
			t.Errorf("%s: %d in buckets of %d samples", class, prev, h.GetSampleCount())
		}
	}
	if _, ok := after["ops"]; ok {
		t.Error("ops requests are in the latency histograms")
	}
	if hits.Load() != 2 {
		t.Fatalf("writer got %d calls, want 2", hits.Load())
	}
}

// scrapeLatency reads edge_request_duration_seconds by class from /metrics.
func scrapeLatency(t *testing.T, g *edge) map[string]*dto.Histogram {
	t.Helper()
	_, b := g.opsGet("/metrics")
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	out := map[string]*dto.Histogram{}
	f := fams["edge_request_duration_seconds"]
	if f == nil {
		t.Fatal("edge_request_duration_seconds missing from /metrics")
	}
	if f.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("edge_request_duration_seconds is a %v", f.GetType())
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "class" {
				out[l.GetValue()] = m.GetHistogram()
			}
		}
	}
	return out
}
