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
// decodes untrusted files), and of the demo only the art that still draws the
// generated pages of volumes without processed content (issue 16: it goes
// once the demo catalog is loaded through the upload pipeline, and this list
// shrinks to nothing).
func TestEdgeLinksNoServiceOrProcessingCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "storefront/edge").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowedDemo := map[string]bool{"storefront/demo/art": true, "storefront/demo/prose": true}
	for _, dep := range strings.Split(string(out), "\n") {
		for _, banned := range []string{"storefront/writer", "storefront/analytics", "storefront/media/process", "storefront/devstack", "github.com/davidbyttow/govips"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("edge links %s", dep)
			}
		}
		if (dep == "storefront/demo" || strings.HasPrefix(dep, "storefront/demo/")) && !allowedDemo[dep] {
			t.Errorf("edge links %s (only the generated art may remain until the demo goes through the pipeline)", dep)
		}
	}
}
