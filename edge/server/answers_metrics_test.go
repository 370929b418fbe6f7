package server_test

import (
	"testing"

	"storefront/contract"
)

// Every answer is counted by status class: the release-minute dashboard and
// the EdgeServerErrors alert read edge_answers_total.
func TestAnswersCountedByStatusClass(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("a", contract.SectionWebtoon, "에이"))
	g := startEdge(t, e)
	g.waitReady()
	ok, notFound := metric(t, g, `edge_answers_total{class="2xx"}`), metric(t, g, `edge_answers_total{class="4xx"}`)
	g.get("/home/api/v1/products/a")
	g.get("/home/api/v1/products/a")
	g.get("/home/api/v1/products/nope")
	// Scrapes go to the operators' listener: they are not readers' answers.
	if d := metric(t, g, `edge_answers_total{class="2xx"}`) - ok; d != 2 {
		t.Errorf("2xx answers grew by %v, want 2 (2 reads; metric scrapes are not counted)", d)
	}
	if d := metric(t, g, `edge_answers_total{class="4xx"}`) - notFound; d != 1 {
		t.Errorf("4xx answers grew by %v, want 1", d)
	}
}
