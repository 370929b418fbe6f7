package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Defaults of the statement and lock timeouts. No request of the writer runs
// a statement near 30 s; a lock held 10 s means something is stuck, and
// waiting longer only piles requests up behind it (each holding a pool
// connection) instead of answering 503 and letting the client retry.
const (
	DefaultStatementTimeout = 30 * time.Second
	DefaultLockTimeout      = 10 * time.Second
)

// Bounds the writer puts on its side of a connection unless the URL sets
// them (connect_timeout, pool_ping_timeout). A server that froze or was cut
// off (the old primary of a switchover that nobody killed) breaks no
// connection and answers nothing, and its own statement_timeout cannot fire:
// without them a new connection, or the ping of an idle one on acquire,
// waits for ever and holds the request that asked. With a multi-host URL
// connect_timeout is per host, so new connections skip the frozen one.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultPingTimeout    = 5 * time.Second
)

// boundWaits applies the default connect and ping bounds where the URL set none.
func boundWaits(c *pgxpool.Config) {
	if c.ConnConfig.ConnectTimeout == 0 {
		c.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	if c.PingTimeout == 0 {
		c.PingTimeout = DefaultPingTimeout
	}
}

// openDatabase opens the writer's pool on DATABASE_URL and the direct pool
// for migrations and LISTEN (the same pool unless DATABASE_MIGRATE_URL is
// given).
//
// Directly connected, every connection starts with the statement and lock
// timeouts as startup parameters. Through a transaction pooler
// (DATABASE_POOLED, PgBouncer pool_mode=transaction) a server connection is
// ours for one transaction only:
//   - no named prepared statements: pgx's default caches them per
//     connection, and the next transaction may run on another server
//     connection ("prepared statement does not exist"). The pool uses
//     QueryExecModeCacheDescribe: the unnamed statement, parsed in the same
//     round trip as it runs, with the parameter and result types cached by
//     pgx (binary formats kept: []byte into jsonb still works, which
//     QueryExecModeExec's text format would refuse);
//   - no LISTEN through it, no session advisory lock (goose's migration
//     lock): both go to DATABASE_MIGRATE_URL, which is then required;
//   - no startup parameters beyond the few PgBouncer tracks: the timeouts
//     are the role's (ALTER ROLE ... SET statement_timeout / lock_timeout)
//     or the pooler's; the writer reads what it got and warns when a
//     timeout it was asked for is missing.
func openDatabase(ctx context.Context, cfg Config, log *slog.Logger) (pool, direct *pgxpool.Pool, err error) {
	if cfg.DBPooled && cfg.DatabaseMigrateURL == "" {
		return nil, nil, errors.New("writer: DATABASE_POOLED needs DATABASE_MIGRATE_URL, a direct connection for migrations and LISTEN")
	}
	pcfg, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, nil, fmt.Errorf("parse database url: %w", err)
	}
	pcfg.MaxConns = int32(cfg.DBMaxConns)
	boundWaits(pcfg)
	if cfg.DBPooled {
		pcfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	} else {
		setTimeouts(pcfg.ConnConfig, cfg)
	}
	if pool, err = pgxpool.NewWithConfig(ctx, pcfg); err != nil {
		return nil, nil, fmt.Errorf("connect postgres: %w", err)
	}
	if cfg.DBPooled {
		checkPooledTimeouts(ctx, pool, cfg, log)
	}
	if cfg.DatabaseMigrateURL == "" {
		return pool, pool, nil
	}
	dcfg, err := pgxpool.ParseConfig(cfg.DatabaseMigrateURL)
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("parse database migrate url: %w", err)
	}
	// Migrations (one at a time under goose's lock) and one LISTEN.
	dcfg.MaxConns = 3
	boundWaits(dcfg)
	if direct, err = pgxpool.NewWithConfig(ctx, dcfg); err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("connect postgres (migrate url): %w", err)
	}
	return pool, direct, nil
}

func setTimeouts(c *pgx.ConnConfig, cfg Config) {
	if cfg.DBStatementTimeout > 0 {
		c.RuntimeParams["statement_timeout"] = strconv.FormatInt(cfg.DBStatementTimeout.Milliseconds(), 10)
	}
	if cfg.DBLockTimeout > 0 {
		c.RuntimeParams["lock_timeout"] = strconv.FormatInt(cfg.DBLockTimeout.Milliseconds(), 10)
	}
}

func checkPooledTimeouts(ctx context.Context, pool *pgxpool.Pool, cfg Config, log *slog.Logger) {
	for _, t := range []struct {
		name string
		want time.Duration
	}{{"statement_timeout", cfg.DBStatementTimeout}, {"lock_timeout", cfg.DBLockTimeout}} {
		if t.want <= 0 {
			continue
		}
		var ms int64
		err := pool.QueryRow(ctx, "SELECT setting::bigint FROM pg_settings WHERE name = $1", t.name).Scan(&ms)
		if err != nil {
			log.Warn("cannot read a PostgreSQL setting through the pooler", "setting", t.name, "err", err)
			continue
		}
		if ms == 0 {
			log.Warn("no "+t.name+" through the pooler: set it on the role (ALTER ROLE ... SET "+t.name+")", "asked", t.want)
		}
	}
}
