package drills

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"storefront/cluster"
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
	stopSharedCluster()
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

// binary returns the path of the built service (edge, writer, analytics or nats-server).
func binary(t *testing.T, name string) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "drills-bin-"); binErr != nil {
			return
		}
		start := time.Now()
		cmd := exec.Command(goTool(), "build", "-o", binDir+string(os.PathSeparator),
			"storefront/edge", "storefront/writer", "storefront/analytics", "github.com/nats-io/nats-server/v2")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build services: %w\n%s", err, out)
			return
		}
		t.Logf("built edge, writer, analytics, nats-server in %s", time.Since(start).Round(time.Millisecond))
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, name)
}

// newService prepares name (a binary of binary()) to listen on port; args
// are its flags besides the listen address. Nothing runs before Start.
func newService(t *testing.T, name, label string, port int, args ...string) *service {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s := &service{Name: label, Addr: addr, LogPath: filepath.Join(t.TempDir(), label+".log"),
		Command: append([]string{binary(t, name), "-addr", addr, "-log-format", "text", "-log-level", "info"}, args...)}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("---- last 60 lines of %s (%s):\n%s", s.Name, s.LogPath, s.Tail(60))
		}
	})
	return s
}

// service is one node run as a child process (package cluster): killed with
// a real signal, started again on the same port.
type service = cluster.Proc
