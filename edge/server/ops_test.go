package server_test

import (
	"strings"
	"testing"
)

// TestMetricsOffTheReadersOrigin (issue 30): /metrics is served on the
// operators' listener only; on the readers' origin it is a 404 envelope, in
// any spelling that reaches the edge, and no forwarded prefix reaches a
// writer's or analytics node's /metrics. /healthz and /readyz stay on both
// (the balancers check the readers' listener).
func TestMetricsOffTheReadersOrigin(t *testing.T) {
	e := newEnv(t)
	g := startEdge(t, e)
	g.waitReady()
	for _, p := range []string{"/metrics", "/metrics?x=1", "/api/metrics", "/protocol/metrics", "/analytics/api/metrics",
		"/home/api/v1/metrics", "/%6detrics", "/./metrics", "//metrics"} {
		resp, b := g.get(p)
		if strings.Contains(string(b), "edge_requests_total") || strings.Contains(string(b), "# HELP") || strings.Contains(string(b), "go_goroutines") {
			t.Errorf("%s on the readers' origin: %d, metrics in the body", p, resp.StatusCode)
		}
	}
	if resp, b := g.get("/metrics"); resp.StatusCode != 404 {
		t.Errorf("/metrics on the readers' origin: %d", resp.StatusCode)
	} else {
		envelopeMsg(t, "/metrics", b, 404)
	}
	resp, b := g.opsGet("/metrics")
	if resp.StatusCode != 200 || !strings.Contains(string(b), "edge_requests_total") {
		t.Fatalf("/metrics on the operators' listener: %d", resp.StatusCode)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if resp, _ := g.get(p); resp.StatusCode != 200 {
			t.Errorf("%s on the readers' origin: %d", p, resp.StatusCode)
		}
		if resp, _ := g.opsGet(p); resp.StatusCode != 200 {
			t.Errorf("%s on the operators' listener: %d", p, resp.StatusCode)
		}
	}
}
