package main

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// databaseDrivers would let the edge reach a database; it answers from memory.
var databaseDrivers = []string{"github.com/jackc/pgx", "github.com/ClickHouse/clickhouse-go", "github.com/ClickHouse/ch-go",
	"github.com/lib/pq", "modernc.org/sqlite"}

// serviceCode is what the edge must never run: the writer's and analytics'
// services, libvips (media/process is cgo and decodes untrusted files), the
// test stacks, and the demo (issue 16: the demo catalog's pictures and pages
// go through the upload pipeline like any content; the edge draws nothing).
var serviceCode = []string{"storefront/writer", "storefront/analytics", "storefront/media/process", "storefront/devstack",
	"storefront/demo", "github.com/davidbyttow/govips"}

// listDeps is `go list -deps` of the patterns: every package they link.
func listDeps(t *testing.T, patterns ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, patterns...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// bannedDeps returns the deps that are one of the banned module or package
// paths or lie under one; a prefix must end at a path element, so
// "storefront/writerkit" is not "storefront/writer".
func bannedDeps(deps, banned []string) []string {
	var hits []string
	for _, dep := range deps {
		for _, b := range banned {
			if dep == b || strings.HasPrefix(dep, b+"/") {
				hits = append(hits, dep)
				break
			}
		}
	}
	return hits
}

// The edge must never reach a database. This fails the build's tests if
// anything pulls a PostgreSQL or ClickHouse driver into the edge binary.
func TestEdgeLinksNoDatabaseDriver(t *testing.T) {
	for _, dep := range bannedDeps(listDeps(t, "storefront/edge"), databaseDrivers) {
		t.Errorf("edge links %s", dep)
	}
}

// The edge serves what the writer's processing made and never runs that
// code. Every package under edge/ is checked, not only the binary's.
func TestEdgeLinksNoServiceOrProcessingCode(t *testing.T) {
	for _, dep := range bannedDeps(listDeps(t, "storefront/edge/..."), serviceCode) {
		t.Errorf("edge links %s", dep)
	}
}

// The checker itself: a guard that cannot fail guards nothing, so it is run
// on import lists that hold each banned kind of package.
func TestBannedDepsFindsEachBannedImport(t *testing.T) {
	cases := []struct {
		name   string
		deps   []string
		banned []string
		want   []string
	}{
		{"clean edge", []string{"storefront/edge/server", "storefront/contract", "github.com/valyala/fasthttp"}, serviceCode, nil},
		{"writer package", []string{"storefront/edge/server", "storefront/writer/member"}, serviceCode, []string{"storefront/writer/member"}},
		{"writer root", []string{"storefront/writer"}, serviceCode, []string{"storefront/writer"}},
		{"analytics package", []string{"storefront/analytics/reports", "fmt"}, serviceCode, []string{"storefront/analytics/reports"}},
		{"demo package", []string{"storefront/demo/catalog"}, serviceCode, []string{"storefront/demo/catalog"}},
		{"libvips", []string{"github.com/davidbyttow/govips/v2/vips"}, serviceCode, []string{"github.com/davidbyttow/govips/v2/vips"}},
		{"media processing, not media", []string{"storefront/media", "storefront/media/process"}, serviceCode, []string{"storefront/media/process"}},
		{"a longer name is not the banned one", []string{"storefront/writerkit", "storefront/demonstration"}, serviceCode, nil},
		{"postgres driver", []string{"github.com/jackc/pgx/v5/pgconn"}, databaseDrivers, []string{"github.com/jackc/pgx/v5/pgconn"}},
		{"clickhouse driver", []string{"github.com/ClickHouse/ch-go/proto"}, databaseDrivers, []string{"github.com/ClickHouse/ch-go/proto"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := bannedDeps(c.deps, c.banned); !reflect.DeepEqual(got, c.want) {
				t.Errorf("bannedDeps(%v) = %v, want %v", c.deps, got, c.want)
			}
		})
	}
}
