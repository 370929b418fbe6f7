package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The edge must never reach a database: it answers from memory. This fails
// the build's tests if anything pulls a PostgreSQL or ClickHouse driver into
// the edge binary.
func TestEdgeLinksNoDatabaseDriver(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "storefront/edge").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Split(string(out), "\n") {
		for _, banned := range []string{"github.com/jackc/pgx", "github.com/ClickHouse/clickhouse-go", "github.com/ClickHouse/ch-go", "github.com/lib/pq", "modernc.org/sqlite"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("edge links %s", dep)
			}
		}
	}
}
