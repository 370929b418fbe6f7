package outbox

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	pendingDesc = prometheus.NewDesc("writer_outbox_pending_rows",
		"Outbox rows committed and not yet published, by kind (kv: catalog documents, ev: business events).", []string{"kind"}, nil)
	oldestDesc = prometheus.NewDesc("writer_outbox_oldest_pending_seconds",
		"Age of the oldest unpublished outbox row, by kind (0 when none waits).", []string{"kind"}, nil)
	scrapeErrDesc = prometheus.NewDesc("writer_outbox_pending_scrape_errors",
		"1 when the last scrape could not count the pending rows.", nil, nil)
)

// pendingCollector counts unpublished rows at scrape time: the figure is the
// database's, shared by every writer node, so any node's scrape tells it and
// a relay that died still shows its rows waiting. The count reads the
// partial index outbox_pending, small while the relay keeps up.
type pendingCollector struct{ r *Relay }

func (c pendingCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- oldestDesc
	ch <- scrapeErrDesc
}

func (c pendingCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts := map[string]float64{"kv": 0, "ev": 0}
	ages := map[string]float64{"kv": 0, "ev": 0}
	rows, err := c.r.pool.Query(ctx, `SELECT kind, count(*), extract(epoch FROM now() - min(created_at))::float8
		FROM outbox WHERE sent_at IS NULL GROUP BY kind`)
	if err == nil {
		for rows.Next() {
			var kind string
			var n int64
			var age float64
			if err = rows.Scan(&kind, &n, &age); err != nil {
				break
			}
			counts[kind], ages[kind] = float64(n), max(age, 0)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		// No figure rather than a wrong zero: the alert on the scrape error
		// (and absent series) tells the operator.
		ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, 1)
		return
	}
	for kind, n := range counts {
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, n, kind)
		ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, ages[kind], kind)
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, 0)
}
