package security

import (
	"strings"
	"testing"
)

// TestMetricsNotOnTheReadersOrigin (issue 30): no path a reader can send to
// the edge answers Prometheus metrics, the edge's own or a writer's behind
// it (the writer serves /metrics at its root; the edge forwards only its API
// prefixes), and the detours through those prefixes do not reach it either.
func TestMetricsNotOnTheReadersOrigin(t *testing.T) {
	s := startStack(t, options{})
	c := s.visitor()
	for _, p := range []string{"/metrics", "/metrics/", "/%6detrics", "/api/metrics", "/api/../metrics", "/api/%2e%2e/metrics",
		"/protocol/metrics", "/protocol/../metrics", "/iam/metrics", "/admin/api/metrics", "/pc/api/metrics",
		"/analytics/api/metrics", "/home/api/v1/metrics", "/api//metrics", "/api/%2fmetrics"} {
		st, b := c.get(p)
		if strings.Contains(string(b), "# HELP") || strings.Contains(string(b), "# TYPE") {
			t.Errorf("%s through the edge: %d with metrics", p, st)
		}
	}
}
