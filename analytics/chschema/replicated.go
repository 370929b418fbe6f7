package chschema

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

var (
	createTable = regexp.MustCompile(`(?i)CREATE TABLE (?:IF NOT EXISTS )?([A-Za-z_][A-Za-z0-9_]*)`)
	engineOf    = regexp.MustCompile(`ENGINE = ([A-Za-z]*)MergeTree\(`)
)

// Replicate rewrites a CREATE TABLE statement with a *MergeTree engine into
// its Replicated variant, the syntax of ClickHouse 18.16 and of current
// releases: ReplacingMergeTree(ingested_at) becomes
// ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/<db>/<table>',
// '{replica}', ingested_at). The {shard} and {replica} macros come from each
// server's configuration. Other statements (materialized views, ALTERs) are
// returned as they are: a view writes into its replicated target table.
func Replicate(stmt, db string) string {
	t := createTable.FindStringSubmatch(stmt)
	loc := engineOf.FindStringSubmatchIndex(stmt)
	if t == nil || loc == nil {
		return stmt
	}
	kind := stmt[loc[2]:loc[3]]
	args := loc[1] // just after "MergeTree("
	path := fmt.Sprintf("'/clickhouse/tables/{shard}/%s/%s', '{replica}'", db, t[1])
	sep := ", "
	if strings.HasPrefix(strings.TrimSpace(stmt[args:]), ")") {
		sep = ""
	}
	return stmt[:loc[0]] + "ENGINE = Replicated" + kind + "MergeTree(" + path + sep + stmt[args:]
}

// BlockDedup reports whether the events table drops an insert block
// identical to one it already stored (the Replicated engines do, across
// replicas, through ZooKeeper): then a failed insert is retried as the same
// block and needs no look-up (see ingest.Config.BlockDedup).
func BlockDedup(ctx context.Context, conn driver.Conn) (bool, error) {
	var engine string
	err := conn.QueryRow(ctx, "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'events'").Scan(&engine)
	if err != nil {
		return false, fmt.Errorf("engine of events: %w", err)
	}
	return strings.HasPrefix(engine, "Replicated"), nil
}
