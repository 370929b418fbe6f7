package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// StartPostgresStandby starts a streaming standby of primary on
// 127.0.0.1:port with its cluster in dir. When dir holds no cluster yet it
// is cloned from primary with pg_basebackup through a physical replication
// slot of its own (so the primary keeps the WAL the standby has not
// received, however long it is down), and marked as a standby
// (standby.signal, primary_conninfo and primary_slot_name in
// postgresql.auto.conf). A dir that already holds the standby is started
// as it is: it reconnects and catches up. extra are server settings, as for
// StartPostgres.
//
// It returns once the primary reports the standby streaming. The standby
// is a hot standby: it answers reads, refuses writes, until Promote.
//
// Replication is asynchronous unless primary.SetSynchronousStandby names
// this standby.
func StartPostgresStandby(ctx context.Context, primary *Postgres, dir string, port int, log *slog.Logger, extra ...string) (*Postgres, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	name := "standby_" + strconv.Itoa(port)
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		if err := cloneStandby(ctx, primary, dir, name, log); err != nil {
			return nil, err
		}
	}
	sb, err := startStandby(ctx, primary, dir, port, name, log, extra)
	if err != nil {
		return nil, err
	}
	log.Info("postgres standby streaming", "port", port, "primary_port", primary.Port, "dir", dir)
	return sb, nil
}

// startStandby starts the standby name in dir and waits until it streams
// from primary. Its socket is not in its data folder (TCP only): promoted,
// it is pg_rewind's source for the lost primary, and pg_rewind reads every
// file of the source's folder, which a socket refuses.
func startStandby(ctx context.Context, primary *Postgres, dir string, port int, name string, log *slog.Logger, extra []string) (*Postgres, error) {
	sb, err := StartPostgres(ctx, dir, port, log, append([]string{"unix_socket_directories="}, extra...)...)
	if err != nil {
		return nil, err
	}
	sb.standbyName = name
	if err := primary.waitStreaming(ctx, name, false); err != nil {
		_ = sb.Stop()
		return nil, err
	}
	return sb, nil
}

// cloneStandby copies primary into dir (which must be empty or absent) and
// makes it a standby streaming from primary through the slot name.
func cloneStandby(ctx context.Context, primary *Postgres, dir, name string, log *slog.Logger) error {
	cred, err := dropRoot("postgres")
	if err != nil {
		return err
	}
	if err := createSlot(ctx, primary, name); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create standby dir: %w", err)
	}
	if err := chownTree(dir, cred); err != nil {
		return fmt.Errorf("chown standby dir: %w", err)
	}
	log.Info("cloning postgres standby", "dir", dir, "primary_port", primary.Port)
	// -X stream: the WAL written during the copy comes with it, so the clone
	// is consistent on its own; --no-sync: dev and test data, as initdb.
	if err := runPG(ctx, cred, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port),
		"-U", "postgres", "-D", dir, "-X", "stream", "-S", name, "--checkpoint=fast", "--no-sync"); err != nil {
		return err
	}
	return followPrimary(dir, primary, name, cred)
}

// RejoinPostgresStandby makes old, a former primary that is stopped (shut
// down or crashed) and was replaced by primary (a promoted standby), a
// standby of primary: pg_rewind takes back what old wrote after the two
// parted (commits no standby had: nobody may rely on them), then old is
// started on its folder and port, streaming from primary through a slot of
// its own. old must have run with wal_log_hints=on (pg_rewind needs it;
// testenv.PostgresPair sets it). extra are server settings, as for
// StartPostgres.
func RejoinPostgresStandby(ctx context.Context, old, primary *Postgres, log *slog.Logger, extra ...string) (*Postgres, error) {
	if !old.p.exited() {
		return nil, fmt.Errorf("postgres on port %d is still running: stop it before it rejoins", old.Port)
	}
	cred, err := dropRoot("postgres")
	if err != nil {
		return nil, err
	}
	name := "standby_" + strconv.Itoa(old.Port)
	if err := createSlot(ctx, primary, name); err != nil {
		return nil, err
	}
	if err := prepareRewind(ctx, old.dir, cred); err != nil {
		return nil, err
	}
	log.Info("rewinding postgres to rejoin as a standby", "dir", old.dir, "primary_port", primary.Port)
	// A target that crashed is first recovered by pg_rewind itself (single-user mode).
	if err := runPG(ctx, cred, "pg_rewind", "-D", old.dir, "--no-sync",
		fmt.Sprintf("--source-server=host=127.0.0.1 port=%d user=postgres dbname=postgres", primary.Port)); err != nil {
		return nil, err
	}
	if err := followPrimary(old.dir, primary, name, cred); err != nil {
		return nil, err
	}
	sb, err := startStandby(ctx, primary, old.dir, old.Port, name, log, extra)
	if err != nil {
		return nil, err
	}
	log.Info("postgres rejoined as a standby", "port", old.Port, "primary_port", primary.Port)
	return sb, nil
}

// prepareRewind checks that the cluster in dir ran with wal_log_hints=on
// (pg_control records the setting of its last start) and writes settings
// for pg_rewind's crash recovery into its postgresql.auto.conf: that
// recovery runs in single-user mode without the -c options the server ran
// with, so it would record wal_log_hints off before pg_rewind checks it, and
// its end-of-recovery checkpoint would recycle the WAL back to the last
// checkpoint before the servers parted, which pg_rewind reads.
func prepareRewind(ctx context.Context, dir string, cred *syscall.Credential) error {
	bin, err := pgBinDir()
	if err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "pg_controldata"), "-D", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_controldata %s: %w: %s", dir, err, out)
	}
	if !regexp.MustCompile(`(?m)^wal_log_hints setting:\s+on$`).Match(out) {
		return fmt.Errorf("%s did not run with wal_log_hints=on: pg_rewind cannot rewind it (clone a new standby instead)", dir)
	}
	f, err := os.OpenFile(filepath.Join(dir, "postgresql.auto.conf"), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("settings for pg_rewind: %w", err)
	}
	_, err = f.WriteString("wal_log_hints = on\nwal_keep_size = '1GB'\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("settings for pg_rewind: %w", err)
	}
	return chownTree(dir, cred)
}

// createSlot creates the physical replication slot name on primary unless
// it exists, and checkpoints primary: a promoted standby's pg_control names
// its new timeline only after its first checkpoint, and until then
// pg_rewind sees both servers on the old one and rewinds nothing.
func createSlot(ctx context.Context, primary *Postgres, name string) error {
	c, err := pgx.Connect(ctx, primary.URL)
	if err != nil {
		return fmt.Errorf("connect primary: %w", err)
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `SELECT pg_create_physical_replication_slot($1) WHERE NOT EXISTS
		(SELECT 1 FROM pg_replication_slots WHERE slot_name = $1)`, name)
	if err != nil {
		return fmt.Errorf("create replication slot %s: %w", name, err)
	}
	if _, err := c.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("checkpoint primary: %w", err)
	}
	return nil
}

// runPG runs one of PostgreSQL's programs (as the postgres user when root).
func runPG(ctx context.Context, cred *syscall.Credential, prog string, args ...string) error {
	bin, err := pgBinDir()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, prog), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", prog, err, out)
	}
	return nil
}

// followPrimary marks the cluster in dir, a copy of primary's, as its
// standby streaming through slot name.
func followPrimary(dir string, primary *Postgres, name string, cred *syscall.Credential) error {
	// The primary's log came with the copy; the standby writes its own.
	_ = os.Remove(filepath.Join(dir, "server.log"))
	// application_name is how the primary names this standby in
	// pg_stat_replication and synchronous_standby_names. The copied
	// postgresql.auto.conf may name another primary and slot (a rewound
	// former primary gets the promoted standby's); the last setting wins,
	// and synchronous_standby_names is the primary's business only.
	conf := fmt.Sprintf("primary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=%s'\nprimary_slot_name = '%s'\nsynchronous_standby_names = ''\n",
		primary.Port, name, name)
	f, err := os.OpenFile(filepath.Join(dir, "postgresql.auto.conf"), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("standby settings: %w", err)
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("standby settings: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "standby.signal"), nil, 0o600); err != nil {
		return fmt.Errorf("standby.signal: %w", err)
	}
	return chownTree(dir, cred)
}

// waitStreaming waits until standby name streams from pg (and, with sync, is
// its synchronous standby).
func (pg *Postgres) waitStreaming(ctx context.Context, name string, sync bool) error {
	return waitFor(ctx, pg.p, 60*time.Second, func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, pg.URL)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		var state, syncState string
		err = c.QueryRow(ctx, `SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1`, name).Scan(&state, &syncState)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("standby %s not connected", name)
		case err != nil:
			return err
		case state != "streaming":
			return fmt.Errorf("standby %s is %s", name, state)
		case sync && syncState != "sync":
			return fmt.Errorf("standby %s is %s, not sync", name, syncState)
		}
		return nil
	})
}

// SetSynchronousStandby makes every commit on pg wait until standby has the
// commit on disk (synchronous_standby_names, synchronous_commit on), so a
// commit a client was told about survives the loss of pg. The price: while
// the standby is away, commits on pg wait for it.
func (pg *Postgres) SetSynchronousStandby(ctx context.Context, standby *Postgres) error {
	if standby.standbyName == "" {
		return fmt.Errorf("port %d is not a standby started by StartPostgresStandby", standby.Port)
	}
	c, err := pgx.Connect(ctx, pg.URL)
	if err != nil {
		return fmt.Errorf("connect primary: %w", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "ALTER SYSTEM SET synchronous_standby_names = "+pgx.Identifier{standby.standbyName}.Sanitize()); err != nil {
		return fmt.Errorf("set synchronous_standby_names: %w", err)
	}
	if _, err := c.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("reload primary settings: %w", err)
	}
	return pg.waitStreaming(ctx, standby.standbyName, true)
}

// Promote makes the standby a primary (pg_promote) and waits until it takes
// writes. The old primary is not told: it must not be started again as a
// primary (RejoinPostgresStandby makes it a standby of this one).
func (pg *Postgres) Promote(ctx context.Context) error {
	c, err := pgx.Connect(ctx, pg.URL)
	if err != nil {
		return fmt.Errorf("connect standby: %w", err)
	}
	defer c.Close(ctx)
	var ok bool
	if err := c.QueryRow(ctx, "SELECT pg_promote(true, 60)").Scan(&ok); err != nil {
		return fmt.Errorf("promote standby on port %d: %w", pg.Port, err)
	}
	if !ok {
		return fmt.Errorf("standby on port %d not promoted within 60 s (log %s/server.log)", pg.Port, pg.dir)
	}
	pg.log.Info("postgres standby promoted", "port", pg.Port)
	return nil
}

// StopImmediate stops the server as a crash would (immediate shutdown:
// every connection is cut, nothing is flushed or checkpointed; the next
// start replays WAL).
func (pg *Postgres) StopImmediate() error {
	return pg.p.stop(syscall.SIGQUIT, 30*time.Second)
}
