// Package testenv gives tests real PostgreSQL, ClickHouse and NATS JetStream.
//
// S3URL hands each call a fresh bucket on a private versitygw (one per test
// binary). PostgresURL and ClickHouseURL hand each call a fresh, empty database on a shared
// server: the one named by DATABASE_URL / CLICKHOUSE_URL when set (the project's
// test script starts one of each for the whole run), otherwise a private server
// started once per test binary and killed when it exits. NATS is always a private
// in-process server per call: it starts in milliseconds and tests may stop it.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/devstack"
)

var (
	pgOnce sync.Once
	pgURL  string
	pgErr  error
	chOnce sync.Once
	chURL  string
	chErr  error
	s3Once sync.Once
	s3Srv  *devstack.S3
	s3Err  error
)

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// tempDir makes a directory other users can traverse: PostgreSQL runs as the
// postgres user when tests run as root, and t.TempDir is private to root.
func tempDir(prefix string) (string, error) {
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	return d, os.Chmod(d, 0o755)
}

// freePort is a free loopback port, or the test fails.
func freePort(t testing.TB) int {
	t.Helper()
	p, err := devstack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func randomName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func postgresServer() (string, error) {
	pgOnce.Do(func() {
		if u := os.Getenv("DATABASE_URL"); u != "" {
			pgURL = u
			return
		}
		dir, err := tempDir("sf-pg-")
		if err != nil {
			pgErr = err
			return
		}
		port, err := devstack.FreePort()
		if err != nil {
			pgErr = err
			return
		}
		pg, err := devstack.StartPostgres(context.Background(), dir+"/data", port, quietLog(),
			"fsync=off", "synchronous_commit=off", "full_page_writes=off")
		if err != nil {
			pgErr = err
			return
		}
		pgURL = pg.URL
	})
	return pgURL, pgErr
}

// PostgresURL returns the URL of a new empty database, dropped when the test ends.
func PostgresURL(t testing.TB) string {
	t.Helper()
	server, err := postgresServer()
	if err != nil {
		t.Fatalf("postgres for tests: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := randomName("t_")
	u, err := devstack.CreateDatabase(ctx, server, name)
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = devstack.DropDatabase(ctx, server, name)
	})
	return u
}

func clickhouseServer() (string, error) {
	chOnce.Do(func() {
		if u := os.Getenv("CLICKHOUSE_URL"); u != "" {
			chURL = u
			return
		}
		ch, err := startClickHouse()
		if err != nil {
			chErr = err
			return
		}
		chURL = ch.URL
	})
	return chURL, chErr
}

func startClickHouse() (*devstack.ClickHouse, error) {
	dir, err := tempDir("sf-ch-")
	if err != nil {
		return nil, err
	}
	// Another package's test may bind a port between FreePort and the
	// server's own bind: a server that fails is tried again on new ports.
	for attempt := 1; ; attempt++ {
		tcp, err := devstack.FreePort()
		if err != nil {
			return nil, err
		}
		http, err := devstack.FreePort()
		if err != nil {
			return nil, err
		}
		ch, err := devstack.StartClickHouse(context.Background(), filepath.Join(dir, strconv.Itoa(attempt)), tcp, http, quietLog())
		if err == nil || attempt == 3 {
			return ch, err
		}
	}
}

// ClickHouseURL returns clickhouse://host:port/<db> of a new empty database,
// dropped when the test ends.
func ClickHouseURL(t testing.TB) string {
	t.Helper()
	server, err := clickhouseServer()
	if err != nil {
		t.Fatalf("clickhouse for tests: %v", err)
	}
	name := randomName("t_")
	if err := clickhouseExec(server, "CREATE DATABASE IF NOT EXISTS "+name); err != nil {
		t.Fatalf("create clickhouse test database: %v", err)
	}
	t.Cleanup(func() { _ = clickhouseExec(server, "DROP DATABASE IF EXISTS "+name) })
	return devstack.WithDatabase(server, name)
}

func clickhouseExec(serverURL, sql string) error {
	opts, err := clickhouse.ParseDSN(serverURL)
	if err != nil {
		return fmt.Errorf("parse clickhouse url: %w", err)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return fmt.Errorf("open clickhouse: %w", err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("clickhouse %q: %w", strings.SplitN(sql, " ", 3)[:2], err)
	}
	return nil
}

// StartClickHouse starts a private ClickHouse the test may stop and restart
// (outage tests). It is slow to start: use ClickHouseURL otherwise.
func StartClickHouse(t testing.TB) *devstack.ClickHouse {
	t.Helper()
	ch, err := startClickHouse()
	if err != nil {
		t.Fatalf("start clickhouse: %v", err)
	}
	t.Cleanup(func() { _ = ch.Stop() })
	return ch
}

// S3URL returns the media/store URL (keys included) of a new empty bucket on a
// real S3-compatible server (versitygw) started once per test binary and
// killed when it exits.
func S3URL(t testing.TB) string {
	t.Helper()
	s3Once.Do(func() {
		dir, err := tempDir("sf-s3-")
		if err != nil {
			s3Err = err
			return
		}
		port, err := devstack.FreePort()
		if err != nil {
			s3Err = err
			return
		}
		s3Srv, s3Err = devstack.StartS3(context.Background(), dir, port, "testaccess", "testsecret-"+randomName(""), quietLog())
	})
	if s3Err != nil {
		t.Fatalf("s3 for tests: %v", s3Err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Bucket names are DNS labels: lowercase, no underscore.
	u, err := s3Srv.CreateBucket(ctx, randomName("t-"))
	if err != nil {
		t.Fatalf("create test bucket: %v", err)
	}
	return u
}

// NATS starts a private in-process JetStream server on a free port, stopped
// when the test ends.
func NATS(t testing.TB) *devstack.NATS {
	t.Helper()
	port := freePort(t)
	n, err := devstack.StartNATS(t.TempDir(), port)
	if err != nil {
		t.Fatalf("start nats: %v", err)
	}
	t.Cleanup(n.Stop)
	return n
}

// JetStream starts a private NATS (as NATS does) and returns a JetStream
// client on it; the connection closes when the test ends.
func JetStream(t testing.TB) jetstream.JetStream {
	t.Helper()
	n := NATS(t)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatalf("connect nats: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	return js
}

// Korean reports whether msg is written for the store's readers: it holds a
// Hangul syllable (parameter and field names such as q or pid may stay in
// Latin letters). Every refusal a reader can get is checked with it.
func Korean(msg string) bool {
	return strings.ContainsFunc(msg, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 })
}

// NATSCluster starts a private three-server JetStream cluster in this process
// (devstack.StartNATSCluster), stopped when the test ends.
func NATSCluster(t testing.TB) *devstack.NATSCluster {
	t.Helper()
	c, err := devstack.StartNATSCluster(t.TempDir(), 3)
	if err != nil {
		t.Fatalf("start nats cluster: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// PgBouncer starts a private PgBouncer in transaction pooling mode in front
// of the server of databaseURL and returns databaseURL through it; it stops
// when the test ends.
func PgBouncer(t testing.TB, databaseURL string) string {
	t.Helper()
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Not t.TempDir: PgBouncer runs as the postgres user, who must reach it.
	dir, err := tempDir("sf-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	b, err := devstack.StartPgBouncer(ctx, dir, port, databaseURL, quietLog())
	if err != nil {
		t.Fatalf("pgbouncer for tests: %v", err)
	}
	t.Cleanup(func() { _ = b.Stop(); _ = os.RemoveAll(dir) })
	return b.URL(databaseURL)
}

// PostgresPair starts a private PostgreSQL primary and a streaming standby of
// it (devstack.StartPostgresStandby), both stopped when the test ends: for
// tests that lose the primary. extra are settings of both servers; both run
// with wal_log_hints=on, so the lost primary can rejoin
// (devstack.RejoinPostgresStandby).
func PostgresPair(t testing.TB, extra ...string) (primary, standby *devstack.Postgres) {
	t.Helper()
	extra = append([]string{"wal_log_hints=on"}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Not t.TempDir: the servers run as the postgres user, who must reach it.
	dir, err := tempDir("sf-pgpair-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if primary, err = devstack.StartPostgres(ctx, filepath.Join(dir, "primary"), freePort(t), quietLog(), extra...); err != nil {
		t.Fatalf("postgres primary: %v", err)
	}
	t.Cleanup(func() { _ = primary.Stop() })
	if standby, err = devstack.StartPostgresStandby(ctx, primary, filepath.Join(dir, "standby"), freePort(t), quietLog(), extra...); err != nil {
		t.Fatalf("postgres standby: %v", err)
	}
	t.Cleanup(func() { _ = standby.Stop() })
	return primary, standby
}

// ClickHouseCluster starts a private ZooKeeper and n ClickHouse replicas
// of one shard, cluster devstack.ClusterName (devstack.StartClickHouseCluster),
// all stopped when the test ends. scripts/setup.sh installs ZooKeeper.
func ClickHouseCluster(t testing.TB, n int) *devstack.ClickHouseCluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := devstack.StartClickHouseCluster(ctx, t.TempDir(), n, 0, quietLog())
	if err != nil {
		t.Fatalf("ClickHouse cluster (scripts/setup.sh installs ZooKeeper): %v", err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// ClickHouseReplicas is ClickHouseCluster's replicas r1..rn.
func ClickHouseReplicas(t testing.TB, n int) []*devstack.ClickHouse {
	t.Helper()
	return ClickHouseCluster(t, n).Replicas
}

// OpenClickHouse opens a connection to url (ClickHouseURL's answer, or a
// replica's), closed when the test ends.
func OpenClickHouse(t testing.TB, url string) driver.Conn {
	t.Helper()
	opts, err := clickhouse.ParseDSN(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
