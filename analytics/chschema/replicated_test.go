package chschema_test

import (
	"testing"

	"storefront/analytics/chschema"
)

func TestReplicateRewritesEveryEngine(t *testing.T) {
	for in, want := range map[string]string{
		"CREATE TABLE IF NOT EXISTS events (\n id String\n) ENGINE = ReplacingMergeTree(ingested_at)\nPARTITION BY toYYYYMM(kst_date)": "CREATE TABLE IF NOT EXISTS events (\n id String\n) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db/events', '{replica}', ingested_at)\nPARTITION BY toYYYYMM(kst_date)",
		"CREATE TABLE IF NOT EXISTS events_dead (x UInt8) ENGINE = MergeTree()\nORDER BY x":                                            "CREATE TABLE IF NOT EXISTS events_dead (x UInt8) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/db/events_dead', '{replica}')\nORDER BY x",
		"CREATE TABLE IF NOT EXISTS w (v UInt64) ENGINE = SummingMergeTree((views, purchases))":                                        "CREATE TABLE IF NOT EXISTS w (v UInt64) ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/db/w', '{replica}', (views, purchases))",
		"CREATE MATERIALIZED VIEW IF NOT EXISTS w_mv TO w AS SELECT 1":                                                                 "CREATE MATERIALIZED VIEW IF NOT EXISTS w_mv TO w AS SELECT 1",
	} {
		if got := chschema.Replicate(in, "db"); got != want {
			t.Errorf("Replicate(%q)\n = %q\nwant %q", in, got, want)
		}
	}
	ms, err := chschema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range ms {
		for _, st := range m.Statements {
			if r := chschema.Replicate(st, "db"); r != st {
				n++
			}
		}
	}
	if n != 11 { // events, events_dead, six rollups, report_audit and two live rollups
		t.Fatalf("%d tables made replicated, want 11", n)
	}
}
