package devstack

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ZooKeeper is a standalone ZooKeeper server owned by this process: what
// ClickHouse 18.16's replicated tables coordinate through (Debian ships
// ZooKeeper 3.8, not ClickHouse Keeper).
type ZooKeeper struct {
	Port int
	p    *proc
}

// StartZooKeeper starts Debian's ZooKeeper (package zookeeper, with a JRE)
// on 127.0.0.1:port with its data in dir.
func StartZooKeeper(ctx context.Context, dir string, port int, log *slog.Logger) (*ZooKeeper, error) {
	jar := os.Getenv("ZOOKEEPER_JAR")
	if jar == "" {
		jar = "/usr/share/java/zookeeper.jar"
	}
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("no ZooKeeper (install zookeeper or set ZOOKEEPER_JAR): %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, fmt.Errorf("create zookeeper dir: %w", err)
	}
	p, err := startProc("zookeeper", log, nil, filepath.Join(dir, "zookeeper.log"),
		"java", "-Xmx256m", "-Dzookeeper.admin.enableServer=false", "-Dzookeeper.4lw.commands.whitelist=srvr",
		"-cp", "/etc/zookeeper/conf:"+jar, "org.apache.zookeeper.server.ZooKeeperServerMain",
		strconv.Itoa(port), filepath.Join(dir, "data"))
	if err != nil {
		return nil, err
	}
	z := &ZooKeeper{Port: port, p: p}
	err = waitFor(ctx, p, 60*time.Second, func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", z.Addr())
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(time.Second))
		// srvr answers with the mode once the server serves sessions
		// (ruok says imok before that).
		if _, err := c.Write([]byte("srvr")); err != nil {
			return err
		}
		b, _ := io.ReadAll(c)
		if !strings.Contains(string(b), "Mode: standalone") {
			return fmt.Errorf("zookeeper not serving yet: %q", b)
		}
		return nil
	})
	if err != nil {
		_ = p.stop(syscall.SIGTERM, 5*time.Second)
		return nil, fmt.Errorf("start zookeeper on port %d (log %s/zookeeper.log): %w", port, dir, err)
	}
	return z, nil
}

// Addr is host:port of the server.
func (z *ZooKeeper) Addr() string { return fmt.Sprintf("127.0.0.1:%d", z.Port) }

// Stop shuts ZooKeeper down.
func (z *ZooKeeper) Stop() error { return z.p.stop(syscall.SIGTERM, 10*time.Second) }
