// Package chschema owns the ClickHouse schema of analytics: versioned SQL files
// embedded in the binary and a small migrator that applies the ones a database
// has not seen yet, recording each in the table schema_migrations.
//
// The SQL must run on Debian's ClickHouse 18.16 and on current releases: no
// LowCardinality, DateTime64, Map, JSON or window functions. Every statement is
// idempotent (IF NOT EXISTS), so two analytics processes migrating the same
// database at once both succeed; schema_migrations is a ReplacingMergeTree keyed on
// the version, so a version recorded twice still reads as one.
//
// Migrate is not for ad-hoc DDL: add a new numbered file instead of editing an
// applied one (an applied version is never re-run).
package chschema

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

//go:embed sql/*.sql
var files embed.FS

// Migration is one numbered SQL file.
type Migration struct {
	Version    uint32
	Name       string
	Statements []string
}

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	names, err := fs.Glob(files, "sql/*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	seen := map[uint32]string{}
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.ParseUint(num, 10, 32)
		if !ok || err != nil || v == 0 {
			return nil, fmt.Errorf("migration file %s: name must start with a version number and _", base)
		}
		if prev, dup := seen[uint32(v)]; dup {
			return nil, fmt.Errorf("migration version %d used by %s and %s", v, prev, base)
		}
		seen[uint32(v)] = base
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: uint32(v), Name: strings.TrimSuffix(base, ".sql"), Statements: Split(string(b))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Split cuts a SQL file into statements: full-line "--" comments are dropped and
// a statement ends with a semicolon at the end of a line. Semicolons inside a
// line (string literals) are left alone.
func Split(sql string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(sql, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(t, ";") {
			s := strings.TrimSpace(cur.String())
			out = append(out, strings.TrimSpace(strings.TrimSuffix(s, ";")))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

const createMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version     UInt32,
    name        String,
    applied_at  DateTime
) ENGINE = ReplacingMergeTree(applied_at)
ORDER BY version`

// Applied returns the versions recorded in schema_migrations.
func Applied(ctx context.Context, conn driver.Conn) (map[uint32]bool, error) {
	rows, err := conn.Query(ctx, "SELECT DISTINCT version FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	done := map[uint32]bool{}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("scan schema_migrations: %w", err)
		}
		done[v] = true
	}
	return done, rows.Err()
}

// Migrate applies every embedded migration the database has not recorded yet and
// returns how many it applied.
func Migrate(ctx context.Context, conn driver.Conn, log *slog.Logger) (int, error) {
	return migrate(ctx, conn, log, false)
}

// MigrateReplicated is Migrate for one replica of a replicated database:
// every table is made with the Replicated variant of its engine (see
// Replicate), registered in ZooKeeper under the database's name. Run it on
// every replica (each records its own schema_migrations).
func MigrateReplicated(ctx context.Context, conn driver.Conn, log *slog.Logger) (int, error) {
	return migrate(ctx, conn, log, true)
}

func migrate(ctx context.Context, conn driver.Conn, log *slog.Logger, replicated bool) (int, error) {
	ms, err := Migrations()
	if err != nil {
		return 0, err
	}
	var db string
	if replicated {
		if err := conn.QueryRow(ctx, "SELECT currentDatabase()").Scan(&db); err != nil {
			return 0, fmt.Errorf("current database: %w", err)
		}
	}
	if err := conn.Exec(ctx, createMigrations); err != nil {
		return 0, fmt.Errorf("create schema_migrations: %w", err)
	}
	done, err := Applied(ctx, conn)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range ms {
		if done[m.Version] {
			continue
		}
		for i, st := range m.Statements {
			if replicated {
				st = Replicate(st, db)
			}
			if err := conn.Exec(ctx, st); err != nil {
				return n, fmt.Errorf("migration %s statement %d: %w", m.Name, i+1, err)
			}
		}
		// Exec of INSERT ... VALUES hangs on 18.16 with clickhouse-go v2: use a batch.
		b, err := conn.PrepareBatch(ctx, "INSERT INTO schema_migrations (version, name, applied_at)")
		if err != nil {
			return n, fmt.Errorf("record migration %s: %w", m.Name, err)
		}
		if err := b.Append(m.Version, m.Name, time.Now()); err != nil {
			return n, fmt.Errorf("record migration %s: %w", m.Name, err)
		}
		if err := b.Send(); err != nil {
			return n, fmt.Errorf("record migration %s: %w", m.Name, err)
		}
		log.Info("clickhouse migration applied", "version", m.Version, "name", m.Name)
		n++
	}
	return n, nil
}
