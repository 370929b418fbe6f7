package devstack

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Postgres is a PostgreSQL server owned by this process.
type Postgres struct {
	// URL reaches the "postgres" database as the superuser "postgres".
	URL  string
	Port int
	dir  string
	p    *proc
	log  *slog.Logger
	// standbyName is the standby's application_name and replication slot
	// on its primary ("" for a server not started as a standby).
	standbyName string
}

// pgBinDir finds the server binaries: PG_BINDIR, else the newest
// /usr/lib/postgresql/<v>/bin that Debian's packages install.
func pgBinDir() (string, error) {
	if d := os.Getenv("PG_BINDIR"); d != "" {
		return d, nil
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(m) == 0 {
		if p, err := exec.LookPath("postgres"); err == nil {
			return filepath.Dir(p), nil
		}
		return "", fmt.Errorf("no PostgreSQL server binaries found (install postgresql or set PG_BINDIR)")
	}
	sort.Slice(m, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m[j]))))
		return vi < vj
	})
	return filepath.Dir(m[len(m)-1]), nil
}

// StartPostgres initialises dir when it holds no cluster yet and starts a server
// on 127.0.0.1:port with its socket in dir. extra are server settings
// ("fsync=off"), passed as -c options. When running as root, the cluster is owned
// by and runs as the postgres user.
func StartPostgres(ctx context.Context, dir string, port int, log *slog.Logger, extra ...string) (*Postgres, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	cred, err := dropRoot("postgres")
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create postgres dir: %w", err)
	}
	if err := chownTree(dir, cred); err != nil {
		return nil, fmt.Errorf("chown postgres dir: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		log.Info("initialising postgres cluster", "dir", dir)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", dir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("initdb %s: %w: %s", dir, err, out)
		}
	}
	// A server left running on this dir by a killed launcher would hold the lock.
	if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); err == nil {
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "pg_ctl"), "-D", dir, "stop", "-m", "immediate", "-w")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		_ = cmd.Run()
	}
	args := []string{filepath.Join(bin, "postgres"), "-D", dir, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "shared_buffers=256MB",
		// A first run of the demo writes about a gigabyte of WAL; with the
		// default max_wal_size (1 GB) a third of it stayed in the data
		// folder (issue 35). Checkpoints every 96 MB keep it small.
		"-c", "max_wal_size=96MB", "-c", "min_wal_size=32MB",
		"-c", "log_min_messages=warning"}
	for _, e := range extra {
		args = append(args, "-c", e)
	}
	p, err := startProc("postgres", log, cred, filepath.Join(dir, "server.log"), args...)
	if err != nil {
		return nil, err
	}
	pg := &Postgres{URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), Port: port, dir: dir, p: p, log: log}
	err = waitFor(ctx, p, 60*time.Second, func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, pg.URL)
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
	if err != nil {
		_ = p.stop(syscall.SIGQUIT, 5*time.Second)
		return nil, fmt.Errorf("start postgres on port %d (log %s/server.log): %w", port, dir, err)
	}
	log.Info("postgres ready", "port", port, "dir", dir)
	return pg, nil
}

// CreateDatabase creates database name unless it exists and returns its URL.
func (pg *Postgres) CreateDatabase(ctx context.Context, name string) (string, error) {
	return CreateDatabase(ctx, pg.URL, name)
}

// Stop shuts the server down (fast shutdown: open transactions roll back).
func (pg *Postgres) Stop() error {
	return pg.p.stop(syscall.SIGINT, 30*time.Second)
}

// CreateDatabase creates database name on the server of serverURL unless it
// exists, and returns the URL of the new database.
func CreateDatabase(ctx context.Context, serverURL, name string) (string, error) {
	cfg, err := pgx.ParseConfig(serverURL)
	if err != nil {
		return "", fmt.Errorf("parse database url: %w", err)
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("connect %s: %w", cfg.Host, err)
	}
	defer c.Close(ctx)
	var exists bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("look up database %s: %w", name, err)
	}
	if !exists {
		if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
			return "", fmt.Errorf("create database %s: %w", name, err)
		}
	}
	return withDatabase(serverURL, name), nil
}

// DropDatabase drops database name, closing its connections.
func DropDatabase(ctx context.Context, serverURL, name string) error {
	c, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}
