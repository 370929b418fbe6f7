package server

import "testing"

// Reports and rankings read CLICKHOUSE_READ_URL when given, else with a
// cluster the Distributed database on CLICKHOUSE_URL's hosts, else
// CLICKHOUSE_URL.
func TestReadURL(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{ClickHouseURL: "clickhouse://ch1:9000/a"}, "clickhouse://ch1:9000/a"},
		{Config{ClickHouseURL: "clickhouse://ch1:9000/a", ClickHouseCluster: "c"}, "clickhouse://ch1:9000/a_all"},
		{Config{ClickHouseURL: "clickhouse://ch1:9000,ch2:9000?dial_timeout=1s", ClickHouseCluster: "c"}, "clickhouse://ch1:9000,ch2:9000/default_all?dial_timeout=1s"},
		{Config{ClickHouseURL: "clickhouse://ch1:9000/a", ClickHouseCluster: "c", ClickHouseReadURL: "clickhouse://ch1:9000,ch2:9000/a_all"}, "clickhouse://ch1:9000,ch2:9000/a_all"},
	} {
		got, err := c.cfg.readURL()
		if err != nil || got != c.want {
			t.Errorf("readURL(%+v) = %q, %v; want %q", c.cfg, got, err, c.want)
		}
	}
}
