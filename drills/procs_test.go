package drills

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The service binaries are built once per test binary, on first use, from
// this tree's main packages: the drills run exactly what is deployed.
var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if root := os.Getenv("GOROOT"); root != "" {
		return filepath.Join(root, "bin", "go")
	}
	return "go"
}

// binary returns the path of the built service (edge, writer or analytics).
func binary(t *testing.T, name string) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "drills-bin-"); binErr != nil {
			return
		}
		start := time.Now()
		cmd := exec.Command(goTool(), "build", "-o", binDir+string(os.PathSeparator),
			"storefront/edge", "storefront/writer", "storefront/analytics")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build services: %w\n%s", err, out)
			return
		}
		t.Logf("built edge, writer, analytics in %s", time.Since(start).Round(time.Millisecond))
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, name)
}

// service is one service binary run as a child process on a fixed address, so
// it can be killed with a real signal and started again on the same port.
type service struct {
	t       *testing.T
	name    string
	bin     string
	addr    string // 127.0.0.1:port
	args    []string
	logPath string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// blockedEnv are variables of the test's environment that must not reach a
// service: every dependency is given by flag, and a stray PAYMENT_URL or
// ADMIN_TOKEN would change behaviour the drills rely on.
var blockedEnv = []string{"DATABASE_URL=", "NATS_URL=", "CLICKHOUSE_URL=", "WRITER_URL=", "PAYMENT_URL=", "ADMIN_TOKEN=", "ANALYTICS_URL="}

func serviceEnv() []string {
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

// newService prepares name (a binary of binary()) to listen on port; args
// are its flags besides the listen address. Nothing runs before Start.
func newService(t *testing.T, name, label string, port int, args ...string) *service {
	t.Helper()
	s := &service{t: t, name: label, bin: binary(t, name), addr: fmt.Sprintf("127.0.0.1:%d", port),
		logPath: filepath.Join(t.TempDir(), label+".log")}
	s.args = append([]string{"-addr", s.addr, "-log-format", "text", "-log-level", "info"}, args...)
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			s.dumpLog(60)
		}
	})
	return s
}

// URL is the service's base URL.
func (s *service) URL() string { return "http://" + s.addr }

// Start runs the process and waits until /readyz answers 200.
func (s *service) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.cmd != nil && !s.exited() {
		s.mu.Unlock()
		return fmt.Errorf("%s already running", s.name)
	}
	f, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	fmt.Fprintf(f, "---- %s start %s\n", s.name, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(s.bin, s.args...)
	cmd.Env = serviceEnv()
	cmd.Stdout, cmd.Stderr = f, f
	// Pdeathsig: a crashed test binary leaves no service holding its port.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		s.mu.Unlock()
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(done)
	}()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	return s.waitReady(ctx, 90*time.Second)
}

func (s *service) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Alive reports whether the process is running.
func (s *service) Alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil && !s.exited()
}

func (s *service) waitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	last := "no answer yet"
	for {
		if !s.Alive() {
			return fmt.Errorf("%s exited during start-up (log %s)", s.name, s.logPath)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/readyz", nil)
		if resp, err := c.Do(req); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %s", s.name, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Kill sends SIGKILL (kill -9) and waits until the process is gone.
func (s *service) Kill() {
	s.signal(syscall.SIGKILL, 0)
}

// Stop sends SIGTERM and waits up to 20 s, then kills.
func (s *service) Stop() {
	s.signal(syscall.SIGTERM, 20*time.Second)
}

func (s *service) signal(sig syscall.Signal, grace time.Duration) {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
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

// dumpLog prints the last n lines of the service's log into the test output.
func (s *service) dumpLog(n int) {
	f, err := os.Open(s.logPath)
	if err != nil {
		return
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
	s.t.Logf("---- last %d lines of %s (%s):\n%s", len(lines), s.name, s.logPath, strings.Join(lines, "\n"))
}
