package images

import "path/filepath"

// HeifModule is libvips's AVIF/HEIF module: the writer encodes AVIF through
// it, and libvips opens it at run time, so no ELF header names it.
var HeifModule = "/usr/lib/x86_64-linux-gnu/vips-modules-8.14/vips-heif.so"

// Specs are the store's four images, from the binaries in binDir (edge,
// writer, analytics, storefront: scripts/images.sh builds them) and the built
// SPA in frontend.
func Specs(binDir, frontend string) []Spec {
	return []Spec{
		{
			Name: "edge", Description: "storefront edge: the read tier and front door, with the built SPA",
			// 8083: the operators' listener (/metrics), never the readers' origin.
			Binary: filepath.Join(binDir, "edge"), Ports: []string{"8080/tcp", "8083/tcp"},
			Env:      []string{"EDGE_ADDR=:8080", "EDGE_OPS_ADDR=:8083", "STATIC_DIR=" + FrontendDir},
			Frontend: frontend,
		},
		{
			Name: "writer", Description: "storefront writer: accounts, money, purchases, admin API; PostgreSQL and the outbox",
			Binary: filepath.Join(binDir, "writer"), Ports: []string{"8081/tcp"},
			Env:     []string{"WRITER_ADDR=:8081"},
			Modules: []string{HeifModule},
		},
		{
			Name: "analytics", Description: "storefront analytics: EVENTS into ClickHouse, rankings, reports",
			Binary: filepath.Join(binDir, "analytics"), Ports: []string{"8082/tcp"},
			Env: []string{"ANALYTICS_ADDR=:8082"},
		},
		{
			// The one-process demo: every service in one container, NATS
			// embedded; PostgreSQL and ClickHouse are given by URL.
			Name: "launcher", Description: "storefront launcher: the whole store in one process for demos (DATABASE_URL and CLICKHOUSE_URL required)",
			Binary: filepath.Join(binDir, "storefront"), Args: []string{"up"}, Ports: []string{"8080/tcp"},
			Env:      []string{"EDGE_ADDR=:8080", "STATIC_DIR=" + FrontendDir, "STOREFRONT_DATA=/data"},
			Frontend: frontend, Modules: []string{HeifModule}, DataDir: "/data",
		},
	}
}
