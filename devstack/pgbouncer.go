package devstack

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// PgBouncer is a PgBouncer in transaction pooling mode owned by this
// process, in front of one PostgreSQL server: a server connection belongs to
// a client for one transaction only, so session state (prepared statements,
// LISTEN, session advisory locks, SET) does not survive between transactions.
type PgBouncer struct {
	Port int
	p    *proc
}

func pgbouncerBin() (string, error) {
	if b := os.Getenv("PGBOUNCER_BIN"); b != "" {
		return b, nil
	}
	for _, c := range []string{"/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"} {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("no pgbouncer found (scripts/setup.sh installs it; or set PGBOUNCER_BIN)")
}

// StartPgBouncer starts PgBouncer on 127.0.0.1:port, configured under dir,
// in transaction pooling mode in front of the server of serverURL (trust
// authentication, as devstack's PostgreSQL). Any database name is passed
// through. When running as root it runs as the postgres user (PgBouncer
// refuses root).
func StartPgBouncer(ctx context.Context, dir string, port int, serverURL string, log *slog.Logger) (*PgBouncer, error) {
	bin, err := pgbouncerBin()
	if err != nil {
		return nil, err
	}
	cred, err := dropRoot("postgres")
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("parse server url: %w", err)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create pgbouncer dir: %w", err)
	}
	user := u.User.Username()
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s user=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
ignore_startup_parameters = extra_float_digits
logfile = %s
pidfile = %s
admin_users = %s
`, u.Hostname(), u.Port(), user, port, filepath.Join(dir, "userlist.txt"), filepath.Join(dir, "pgbouncer.log"),
		filepath.Join(dir, "pgbouncer.pid"), user)
	if err := os.WriteFile(filepath.Join(dir, "pgbouncer.ini"), []byte(ini), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "userlist.txt"), []byte(strconv.Quote(user)+` ""`+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := chownTree(dir, cred); err != nil {
		return nil, fmt.Errorf("chown pgbouncer dir: %w", err)
	}
	p, err := startProc("pgbouncer", log, cred, "", bin, filepath.Join(dir, "pgbouncer.ini"))
	if err != nil {
		return nil, err
	}
	b := &PgBouncer{Port: port, p: p}
	probe := b.URL(serverURL)
	err = waitFor(ctx, p, 20*time.Second, func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, probe)
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
	if err != nil {
		_ = p.stop(syscall.SIGTERM, 5*time.Second)
		return nil, fmt.Errorf("start pgbouncer on port %d (log %s/pgbouncer.log): %w", port, dir, err)
	}
	return b, nil
}

// URL is databaseURL (a database of the server behind the bouncer) reached
// through the bouncer instead.
func (b *PgBouncer) URL(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return databaseURL
	}
	u.Host = fmt.Sprintf("127.0.0.1:%d", b.Port)
	return u.String()
}

// Stop shuts PgBouncer down.
func (b *PgBouncer) Stop() error { return b.p.stop(syscall.SIGTERM, 10*time.Second) }
