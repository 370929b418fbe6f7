package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"storefront/devstack"
	"storefront/svc"
)

// natsdMain runs the benchmark's JetStream server: this same binary
// re-executed as "catalogbench natsd", so the server is a process of its own
// (its CPU and memory are not the edge's nor the load generator's) and runs
// the project's nats-server version, embedded as devstack does.
func natsdMain(args []string) error {
	fs := flag.NewFlagSet("natsd", flag.ExitOnError)
	dir := fs.String("dir", "", "store folder")
	port := fs.Int("port", 0, "client port")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n, err := devstack.StartNATS(*dir, *port)
	if err != nil {
		return err
	}
	defer n.Stop()
	ctx, cancel := svc.SignalContext()
	defer cancel()
	<-ctx.Done()
	return nil
}

// natsProc is the running server process.
type natsProc struct {
	URL string
	cmd *exec.Cmd
}

// startNATS starts the server process on a free port storing in dir and
// waits until it takes connections.
func startNATS(ctx context.Context, dir, logFile string) (*natsProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own binary: %w", err)
	}
	port, err := devstack.FreePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(logFile), 0o755); err != nil {
		return nil, fmt.Errorf("create log folder: %w", err)
	}
	lf, err := os.Create(logFile)
	if err != nil {
		return nil, fmt.Errorf("create nats log: %w", err)
	}
	defer lf.Close()
	cmd := exec.Command(self, "natsd", "-dir", dir, "-port", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = lf, lf
	// The server dies with the benchmark, whatever way it ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start nats process: %w", err)
	}
	p := &natsProc{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), cmd: cmd}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		nc, err := nats.Connect(p.URL, nats.Timeout(time.Second))
		if err == nil {
			nc.Close()
			return p, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.stop()
			return nil, fmt.Errorf("nats process on port %d not ready (log %s): %w", port, logFile, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends the server cleanly (its store is cached for the next run).
func (p *natsProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}
