package cluster

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is one service node run as a child process on a fixed address, so it
// can be killed with a real signal (kill -9 is SIGKILL to it) and started
// again on the same port with the same command line.
type Proc struct {
	Name string
	Addr string // 127.0.0.1:port the node listens on
	// OpsAddr is an edge's operators' listener (/metrics); "" for others,
	// whose /metrics is on Addr (they are not the readers' origin).
	OpsAddr string
	Command []string
	LogPath string
	// Ready reports whether the started node serves; nil: its /readyz answers 200.
	Ready func(ctx context.Context) error

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// blockedEnv are variables of the launcher's environment that must not reach a
// node: every dependency is given by flag, and a stray PAYMENT_URL or
// ADMIN_TOKEN in the caller's shell would change what the node does.
var blockedEnv = []string{"DATABASE_URL=", "DATABASE_MIGRATE_URL=", "NATS_URL=", "NATS_REPLICAS=", "CLICKHOUSE_URL=",
	"CLICKHOUSE_REPLICATED=", "WRITER_URL=", "PAYMENT_URL=", "PAYMENT_CHECKOUT_URL=", "ADMIN_TOKEN=", "ANALYTICS_URL=", "CONTENT_STORE_URL="}

// NodeEnv is the launcher's environment without the variables of blockedEnv.
func NodeEnv() []string {
	var env []string
next:
	for _, kv := range os.Environ() {
		for _, b := range blockedEnv {
			if strings.HasPrefix(kv, b) {
				continue next
			}
		}
		env = append(env, kv)
	}
	return env
}

// URL is the node's base URL.
func (p *Proc) URL() string { return "http://" + p.Addr }

// Start runs the process and waits until it is ready.
func (p *Proc) Start(ctx context.Context) error {
	p.mu.Lock()
	if p.cmd != nil && !p.exited() {
		p.mu.Unlock()
		return fmt.Errorf("%s already running", p.Name)
	}
	f, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.mu.Unlock()
		return fmt.Errorf("open %s log: %w", p.Name, err)
	}
	// The command line heads each start in the log: the flags a node of a
	// real cluster needs, as this one got them.
	fmt.Fprintf(f, "---- %s start %s: %s\n", p.Name, time.Now().Format(time.RFC3339Nano), strings.Join(p.Command, " "))
	cmd := exec.Command(p.Command[0], p.Command[1:]...)
	cmd.Env = NodeEnv()
	cmd.Stdout, cmd.Stderr = f, f
	// Pdeathsig: a crashed launcher or test binary leaves no node holding its port.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		p.mu.Unlock()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(done)
	}()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	return p.waitReady(ctx, 90*time.Second)
}

func (p *Proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Alive reports whether the process is running.
func (p *Proc) Alive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil && !p.exited()
}

// Pid is the process id of the running node (0 when none runs).
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.exited() {
		return 0
	}
	return p.cmd.Process.Pid
}

func (p *Proc) waitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	ready := p.Ready
	if ready == nil {
		ready = p.readyz
	}
	var last error
	for {
		if !p.Alive() {
			return fmt.Errorf("%s exited during start-up (log %s):\n%s", p.Name, p.LogPath, p.Tail(15))
		}
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		last = ready(cctx)
		ccancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready (log %s): %v", p.Name, p.LogPath, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

var probe = &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

func (p *Proc) readyz(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL()+"/readyz", nil)
	resp, err := probe.Do(req)
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz %d %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return nil
}

// Kill sends SIGKILL (kill -9) and waits until the process is gone.
func (p *Proc) Kill() { p.signal(syscall.SIGKILL, 0) }

// Stop sends SIGTERM and waits up to 20 s, then kills.
func (p *Proc) Stop() { p.signal(syscall.SIGTERM, 20*time.Second) }

func (p *Proc) signal(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	_ = cmd.Process.Signal(sig)
	if grace > 0 {
		select {
		case <-done:
			return
		case <-time.After(grace):
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	<-done
}

// Tail returns the last n lines of the node's log.
func (p *Proc) Tail(n int) string {
	f, err := os.Open(p.LogPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
