package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"storefront/devstack"
)

// edgeProc is the real edge binary under test, one core (GOMAXPROCS=1 and,
// when taskset exists, pinned to one CPU).
type edgeProc struct {
	cmd     *exec.Cmd
	Pid     int
	URL     string // readers' origin
	OpsURL  string
	Pinned  string // the CPU it is pinned to, "" when taskset is missing
	started time.Time
}

// startEdge starts bin against natsURL with contentDir as its content store.
func startEdge(bin, natsURL, contentDir, workDir, logFile string, cpu int) (*edgeProc, error) {
	port, err := devstack.FreePort()
	if err != nil {
		return nil, err
	}
	opsPort, err := devstack.FreePort()
	if err != nil {
		return nil, err
	}
	static := filepath.Join(workDir, "static")
	if err := os.MkdirAll(static, 0o755); err != nil {
		return nil, fmt.Errorf("create static folder: %w", err)
	}
	lf, err := os.Create(logFile)
	if err != nil {
		return nil, fmt.Errorf("create edge log: %w", err)
	}
	defer lf.Close()
	e := &edgeProc{URL: fmt.Sprintf("http://127.0.0.1:%d", port), OpsURL: fmt.Sprintf("http://127.0.0.1:%d", opsPort)}
	args := []string{bin}
	if ts, err := exec.LookPath("taskset"); err == nil {
		e.Pinned = strconv.Itoa(cpu)
		args = append([]string{ts, "-c", e.Pinned}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(),
		"GOMAXPROCS=1",
		"NATS_URL="+natsURL,
		fmt.Sprintf("EDGE_ADDR=127.0.0.1:%d", port),
		fmt.Sprintf("EDGE_OPS_ADDR=127.0.0.1:%d", opsPort),
		"CONTENT_STORE_URL="+contentDir,
		"STATIC_DIR="+static,
		// One edge, and the benchmark wrote the snapshot it starts from:
		// no snapshot writing in the middle of a measurement.
		"EDGE_SNAPSHOT_EVERY=0",
		"LOG_LEVEL=warn",
		// Memory as the production overlay gives an edge
		// (deploy/k8s/overlays/production: a 2 GiB limit, caches of
		// 256 MB): the soft limit svc.SetMemoryLimit derives from it
		// (MEMORY_LIMIT_FRACTION 0.9). Without it the collector lets the
		// heap grow to twice the live bytes, which no deployed edge does.
		"GOMEMLIMIT=1843MiB",
		"EDGE_CACHE_MB=256",
		"EDGE_MEDIA_CACHE_MB=256",
	)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	e.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start edge %s: %w", bin, err)
	}
	e.cmd, e.Pid = cmd, cmd.Process.Pid // taskset execs the edge: same pid
	return e, nil
}

// waitReady polls /readyz until it answers 200 and returns the time from
// the process start.
func (e *edgeProc) waitReady(ctx context.Context, bound time.Duration) (time.Duration, error) {
	exited := make(chan error, 1)
	go func() { exited <- e.cmd.Wait() }()
	c := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(bound)
	for {
		resp, err := c.Get(e.OpsURL + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(e.started), nil
			}
		}
		select {
		case err := <-exited:
			return 0, fmt.Errorf("edge exited before ready: %v", err)
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("edge not ready within %s", bound)
		}
	}
}

func (e *edgeProc) stop() {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	t := time.AfterFunc(20*time.Second, func() { _ = e.cmd.Process.Kill() })
	defer t.Stop()
	for range 200 {
		if syscall.Kill(e.Pid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// cpuSeconds is the process's user+system CPU time (/proc/<pid>/stat
// fields 14 and 15).
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read stat of %d: %w", pid, err)
	}
	// The command name may hold spaces: fields count from after its ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0, fmt.Errorf("stat of %d: %d fields", pid, len(f))
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / clockTicks, nil
}

// memKB reads a /proc/<pid>/status field in kB (VmHWM, VmRSS).
func memKB(pid int, field string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read status of %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("status of %d has no %s", pid, field)
}

// pageFetches sums the edge's /metrics counters of origin gets of volume
// pages: every series whose name has "volume_page" and "fetch", the
// counters (_total) when there are any, else histogram counts (_count).
// found is false when the edge exposes none.
func (e *edgeProc) pageFetches() (total float64, names []string, found bool, err error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(e.OpsURL + "/metrics")
	if err != nil {
		return 0, nil, false, fmt.Errorf("read edge metrics: %w", err)
	}
	defer resp.Body.Close()
	sums := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		base, _, _ := strings.Cut(name, "{")
		if !strings.Contains(base, "volume_page") || !strings.Contains(base, "fetch") {
			continue
		}
		if v, perr := strconv.ParseFloat(strings.TrimSpace(rest), 64); perr == nil {
			sums[base] += v
		}
	}
	if err := sc.Err(); err != nil {
		return 0, nil, false, fmt.Errorf("read edge metrics: %w", err)
	}
	for _, suffix := range []string{"_total", "_count"} {
		for base, v := range sums {
			if strings.HasSuffix(base, suffix) {
				total += v
				names = append(names, base)
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			return total, names, true, nil
		}
	}
	return 0, nil, false, nil
}
