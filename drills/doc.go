// Package drills holds the fault drills: each one starts the real service
// binaries (edge, writer, analytics, built from this tree) as child processes
// against real NATS JetStream, PostgreSQL and ClickHouse, puts them under a
// steady load from a generator inside the test, breaks one piece with a real
// signal (kill -9, a stopped server) and checks what the clients saw and what
// the databases hold afterwards. See README.md for what each drill asserts.
//
// The package has only tests. `go test ./drills/` runs the short variants
// (a few seconds of outage each); DRILLS_LONG=1 (scripts/drills.sh) runs the
// long ones. -short skips the package.
//
// PostgreSQL and ClickHouse instances that a drill stops are private to the
// drill (started through devstack in a temporary folder on free ports), never
// the shared servers of DATABASE_URL / CLICKHOUSE_URL that other tests use.
package drills
