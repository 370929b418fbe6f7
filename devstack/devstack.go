// Package devstack starts the project's own PostgreSQL, ClickHouse and NATS
// JetStream instances under a data folder, on their own ports, for development,
// demos and tests. It never touches a system-wide service.
//
// Child processes get SIGKILL when the starting process dies (Pdeathsig), so a
// crashed launcher or test binary leaves no server behind holding its port.
//
// Not for production: there every dependency is given by URL.
package devstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// FreePort asks the kernel for a free TCP port on the loopback interface.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// proc is a supervised child process.
type proc struct {
	name string
	log  *slog.Logger
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startProc(name string, log *slog.Logger, cred *syscall.Credential, logFile string, args ...string) (*proc, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true, Credential: cred}
	var out io.Writer = io.Discard
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("open %s log: %w", name, err)
		}
		if cred != nil {
			_ = f.Chown(int(cred.Uid), int(cred.Gid))
		}
		out = f
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, log: log, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		if c, ok := out.(io.Closer); ok {
			c.Close()
		}
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends sig and waits up to grace, then kills.
func (p *proc) stop(sig syscall.Signal, grace time.Duration) error {
	if p.exited() {
		return nil
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s did not stop within %s; killed", p.name, grace)
	}
}

// waitFor polls ready until it succeeds, the process exits or ctx ends.
func waitFor(ctx context.Context, p *proc, timeout time.Duration, ready func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if p.exited() {
			return fmt.Errorf("%s exited during start-up: %v (last check: %v)", p.name, p.err, last)
		}
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		last = ready(cctx)
		ccancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %w (last check: %v)", p.name, ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dropRoot returns the credential of user name when running as root (servers such
// as PostgreSQL refuse to run as root), nil otherwise.
func dropRoot(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("running as root needs user %s: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func chownTree(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return walkChown(dir, int(cred.Uid), int(cred.Gid))
}

func walkChown(dir string, uid, gid int) error {
	if err := os.Lchown(dir, uid, gid); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := dir + "/" + e.Name()
		if e.IsDir() {
			if err := walkChown(p, uid, gid); err != nil {
				return err
			}
		} else if err := os.Lchown(p, uid, gid); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
