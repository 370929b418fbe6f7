package chschema

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// ClusterDatabase names the database that holds the Distributed tables over
// the replicated tables of db: the same table names, so a reader that
// connects to it (reports, rankings) runs the same SQL as on one server.
func ClusterDatabase(db string) string { return db + "_all" }

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Distribute makes ClusterDatabase(db) on the server conn talks to and in it
// one Distributed table over every replicated table of the current database
// (events, events_dead and the rollups; not schema_migrations, which each
// replica keeps for itself), on cluster: the name of the servers'
// remote_servers entry that lists the replicas. A read of a Distributed
// table goes to one live replica of each shard (the local one first), so it
// sees the whole cluster and survives a replica that is down.
//
// Run it after MigrateReplicated on every server a reader may connect to:
// a Distributed table is this server's metadata only. A Distributed table
// whose columns no longer match its table (a migration changed the table)
// is made again: it holds no rows (analytics inserts into the local
// replicated tables), so that costs nothing but a moment in which a read
// fails. Returns the tables it created.
func Distribute(ctx context.Context, conn driver.Conn, cluster string, log *slog.Logger) ([]string, error) {
	if !identifier.MatchString(cluster) {
		return nil, fmt.Errorf("cluster name %q: letters, digits and _ only", cluster)
	}
	var db string
	if err := conn.QueryRow(ctx, "SELECT currentDatabase()").Scan(&db); err != nil {
		return nil, fmt.Errorf("current database: %w", err)
	}
	var known uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM system.clusters WHERE cluster = ?", cluster).Scan(&known); err != nil {
		return nil, fmt.Errorf("look up cluster %s: %w", cluster, err)
	}
	if known == 0 {
		return nil, fmt.Errorf("cluster %s is not in the server's remote_servers", cluster)
	}
	dist := ClusterDatabase(db)
	if err := conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+dist); err != nil {
		return nil, fmt.Errorf("create database %s: %w", dist, err)
	}
	tables, err := names(ctx, conn, "SELECT name FROM system.tables WHERE database = ? AND engine LIKE 'Replicated%' ORDER BY name", db)
	if err != nil {
		return nil, fmt.Errorf("replicated tables of %s: %w", db, err)
	}
	var made []string
	for _, t := range tables {
		want, err := columns(ctx, conn, db, t)
		if err != nil {
			return made, err
		}
		have, err := columns(ctx, conn, dist, t)
		if err != nil {
			return made, err
		}
		if have == want {
			continue
		}
		if have != "" {
			log.Info("distributed table out of date, made again", "table", dist+"."+t)
			if err := conn.Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS %s.%s", dist, t)); err != nil {
				return made, fmt.Errorf("drop %s.%s: %w", dist, t, err)
			}
		}
		// Names come from system.tables of our own database: plain identifiers.
		st := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s ENGINE = Distributed(%s, %s, %s)", dist, t, db, t, cluster, db, t)
		if err := conn.Exec(ctx, st); err != nil {
			return made, fmt.Errorf("create %s.%s: %w", dist, t, err)
		}
		made = append(made, t)
	}
	if len(made) > 0 {
		log.Info("clickhouse distributed tables made", "database", dist, "cluster", cluster, "tables", strings.Join(made, " "))
	}
	return made, nil
}

// columns is a table's "name type" list (system.columns gives the table's order; 18.16 has no position column), "" when it does not exist.
func columns(ctx context.Context, conn driver.Conn, db, table string) (string, error) {
	cs, err := names(ctx, conn, "SELECT concat(name, ' ', type) FROM system.columns WHERE database = ? AND table = ?", db, table)
	if err != nil {
		return "", fmt.Errorf("columns of %s.%s: %w", db, table, err)
	}
	return strings.Join(cs, ", "), nil
}

func names(ctx context.Context, conn driver.Conn, sql string, args ...any) ([]string, error) {
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
