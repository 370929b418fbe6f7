package ingest

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/contract"
)

var (
	consumerPendingDesc = prometheus.NewDesc("analytics_consumer_pending_messages",
		"Messages of EVENTS the analytics consumer has not been delivered yet: the ingestion backlog.", nil, nil)
	consumerAckPendingDesc = prometheus.NewDesc("analytics_consumer_ack_pending_messages",
		"Messages delivered to analytics and not acked yet (in batches, or waiting for ClickHouse).", nil, nil)
	streamMsgsDesc = prometheus.NewDesc("analytics_events_stream_messages",
		"Messages the EVENTS stream holds.", nil, nil)
	streamBytesDesc = prometheus.NewDesc("analytics_events_stream_bytes",
		"Bytes the EVENTS stream holds.", nil, nil)
	streamMaxBytesDesc = prometheus.NewDesc("analytics_events_stream_max_bytes",
		"The EVENTS stream's byte limit (-1: none); a full stream refuses new events.", nil, nil)
	streamScrapeErrDesc = prometheus.NewDesc("analytics_events_stream_scrape_errors",
		"1 when the last scrape could not read the stream or consumer state from JetStream.", nil, nil)
)

// streamCollector reads the EVENTS stream and the analytics consumer from
// JetStream at scrape time: the backlog and the stream's fullness are
// JetStream's figures, the same from every analytics node.
type streamCollector struct{ js jetstream.JetStream }

func (c streamCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{consumerPendingDesc, consumerAckPendingDesc, streamMsgsDesc, streamBytesDesc, streamMaxBytesDesc, streamScrapeErrDesc} {
		ch <- d
	}
}

func (c streamCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	st, err := c.js.Stream(ctx, contract.EventsStream)
	if err == nil {
		var si *jetstream.StreamInfo
		if si, err = st.Info(ctx); err == nil {
			gauge(streamMsgsDesc, float64(si.State.Msgs))
			gauge(streamBytesDesc, float64(si.State.Bytes))
			gauge(streamMaxBytesDesc, float64(si.Config.MaxBytes))
			var cons jetstream.Consumer
			if cons, err = st.Consumer(ctx, contract.AnalyticsConsumer); err == nil {
				var ci *jetstream.ConsumerInfo
				if ci, err = cons.Info(ctx); err == nil {
					gauge(consumerPendingDesc, float64(ci.NumPending))
					gauge(consumerAckPendingDesc, float64(ci.NumAckPending))
				}
			}
		}
	}
	if err != nil {
		gauge(streamScrapeErrDesc, 1)
		return
	}
	gauge(streamScrapeErrDesc, 0)
}
