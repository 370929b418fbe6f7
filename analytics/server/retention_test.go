package server_test

import (
	"testing"
	"time"

	"storefront/analytics/chschema"
	"storefront/analytics/server"
	"storefront/contract"
)

// The node holding the lease applies the retention on its own schedule: a
// raw event of a month past the retention leaves events, its rollup stays.
func TestRetentionRunsOnSchedule(t *testing.T) {
	e := startWith(t, func(c *server.Config) {
		c.Retention = chschema.Retention{Events: 90 * 24 * time.Hour, Dead: 30 * 24 * time.Hour}
		c.RetentionCheck = 100 * time.Millisecond
	})
	now := time.Now().UTC()
	for i, at := range []time.Time{now.AddDate(-1, 0, 0), now} {
		publish(t, e.js, contract.TrackedEvent{V: 1, ID: "retention-event-" + string(rune('a'+i)), Type: contract.EvViewContent,
			Time: at, PID: "R1", Section: "WT", GenreID: "21"})
	}
	waitCount(t, e.ch, "SELECT toUInt64(sum(views)) FROM work_daily WHERE pid = 'R1'", 2)
	waitCount(t, e.ch, "SELECT count() FROM events WHERE pid = 'R1'", 1)
	if n := count(t, e.ch, "SELECT toUInt64(sum(views)) FROM work_daily WHERE pid = 'R1'"); n != 2 {
		t.Fatalf("rollup lost rows with the raw month: %d views, want 2", n)
	}
}
