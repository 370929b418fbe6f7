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

// The edge serves what the writer's processing made and never runs that
// code: no writer or analytics package, no libvips (media/process is cgo and
// decodes untrusted files), and nothing of the demo (issue 16: the demo
// catalog's pictures and pages go through the upload pipeline like any
// content; the edge draws nothing). Every package under edge/ is checked,
// not only the binary's.
func TestEdgeLinksNoServiceOrProcessingCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "storefront/edge/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Split(string(out), "\n") {
		for _, banned := range []string{"storefront/writer", "storefront/analytics", "storefront/media/process", "storefront/devstack",
			"storefront/demo", "github.com/davidbyttow/govips"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("edge links %s", dep)
			}
		}
	}
}
