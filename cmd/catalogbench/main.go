// Command catalogbench is issue 35's benchmark at a real store's size: it
// generates a catalog (150,000 works, 15 million volumes by default) with a
// long tail of volume counts, streams it into a NATS JetStream process of
// its own (cached between runs under the data folder), starts the real edge
// binary on one core against it and reports bucket bytes, the edge's ready
// time, CPU-seconds and peak memory, a replayed 23:00 release and a zzim
// storm. See README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/svc"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "natsd" {
		if err := natsdMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "catalogbench natsd:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(run(os.Args[1:]))
}

// config is the command's flags.
type config struct {
	params
	Small        bool
	Data         string
	Edge         string
	Out          string
	StormFor     time.Duration
	WriteRate    int
	Readers      int
	ReadRate     int
	ReleaseLead  time.Duration
	ReadyBound   time.Duration
	SkipRelease  bool
	SkipStorm    bool
	KeepCache    bool
	epochRFC3339 string
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("catalogbench", flag.ContinueOnError)
	fs.IntVar(&c.Works, "works", 150_000, "works in the catalog")
	fs.IntVar(&c.Volumes, "volumes", 15_000_000, "volumes in the catalog, all works together (target)")
	fs.Int64Var(&c.Seed, "seed", 1, "generator seed")
	fs.StringVar(&c.epochRFC3339, "epoch", "2026-11-01T14:00:00Z", "the writer's clock at generation (RFC 3339): past release times derive from it")
	fs.Float64Var(&c.ReleaseShare, "release-share", 0.02, "share of works releasing a new volume at T0 (ongoing, all-ages works only)")
	fs.Float64Var(&c.ReviewShare, "review-share", 0.3, "share of works with reviews")
	fs.BoolVar(&c.Small, "small", false, "the test command's variant: 2,000 works, 100,000 volumes, 10 s storm (flags given explicitly still win)")
	fs.StringVar(&c.Data, "data", ".data", "data folder; the cached store is <data>/catalogbench/<params hash>")
	fs.StringVar(&c.Edge, "edge", "", "edge binary; empty = go build ./edge into the data folder")
	fs.StringVar(&c.Out, "out", "", "JSON report file; empty = <cache>/report.json")
	fs.DurationVar(&c.StormFor, "storm", 60*time.Second, "zzim storm duration (the baseline of reads alone lasts as long)")
	fs.IntVar(&c.WriteRate, "storm-rate", 50, "zzim writes a second during the storm")
	fs.IntVar(&c.Readers, "readers", 50, "concurrent list readers")
	fs.IntVar(&c.ReadRate, "read-rate", 500, "list reads a second, all readers together (open loop)")
	fs.DurationVar(&c.ReleaseLead, "release-lead", 60*time.Second, "how long before T0 the new volumes are published: the writer delivers scheduled episodes ahead, and the edge pins their pages and renders their answers within the minute before their release")
	fs.DurationVar(&c.ReadyBound, "ready-bound", 5*time.Minute, "fail when the edge is not ready within this")
	fs.BoolVar(&c.SkipRelease, "no-release", false, "skip the release replay")
	fs.BoolVar(&c.SkipStorm, "no-storm", false, "skip the zzim storm")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.Small {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["works"] {
			c.Works = 2000
		}
		if !set["volumes"] {
			c.Volumes = 100_000
		}
		if !set["storm"] {
			c.StormFor = 10 * time.Second
		}
		if !set["release-lead"] {
			c.ReleaseLead = 5 * time.Second
		}
	}
	var err error
	if c.Epoch, err = time.Parse(time.RFC3339, c.epochRFC3339); err != nil {
		return c, fmt.Errorf("-epoch: %w", err)
	}
	if c.Works < 10 || c.Volumes < c.Works {
		return c, errors.New("-works must be at least 10 and -volumes at least -works")
	}
	if c.WriteRate < 1 || c.Readers < 1 || c.ReadRate < c.Readers {
		return c, errors.New("-storm-rate and -readers must be positive, -read-rate at least -readers")
	}
	c.Generator = generatorVersion
	return c, nil
}

// report is every figure of one run.
type report struct {
	Params       params         `json:"params"`
	Hash         string         `json:"hash"`
	Volumes      int            `json:"volumes"`
	Releasing    int            `json:"releasing"`
	Tail         tail           `json:"volumeTail"`
	Load         loadStats      `json:"load"`
	Buckets      []bucketInfo   `json:"buckets"`
	EdgeBinary   string         `json:"edgeBinary"`
	PinnedCPU    string         `json:"pinnedCpu"`
	ReadySeconds float64        `json:"readySeconds"`
	ReadyCPU     float64        `json:"readyCpuSeconds"`
	ReadyHWMMB   float64        `json:"readyPeakRssMB"`
	PeakRSSMB    float64        `json:"peakRssMB"` // VmHWM at the end
	EndRSSMB     float64        `json:"endRssMB"`
	Release      *releaseReport `json:"release,omitempty"`
	Storm        *stormReport   `json:"storm,omitempty"`
	Problems     []string       `json:"problems"`
	StartedAt    time.Time      `json:"startedAt"`
}

func run(args []string) int {
	cfg, err := parseFlags(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogbench:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := svc.SignalContext()
	defer cancel()
	rep, err := bench(ctx, log, cfg)
	if rep != nil {
		printReport(os.Stdout, rep)
		if werr := writeJSON(cfg, rep); werr != nil {
			log.Error("write report", "err", werr)
		}
	}
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "catalogbench:", err)
		return 1
	case len(rep.Problems) > 0:
		fmt.Fprintf(os.Stderr, "catalogbench: %d functional problems (see report)\n", len(rep.Problems))
		return 1
	}
	return 0
}

func writeJSON(cfg config, rep *report) error {
	out := cfg.Out
	if out == "" {
		out = filepath.Join(cacheDir(cfg), "report.json")
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Println("report:", out)
	return nil
}

func cacheDir(cfg config) string {
	return filepath.Join(cfg.Data, "catalogbench", cfg.params.hash())
}

func bench(ctx context.Context, log *slog.Logger, cfg config) (*report, error) {
	dir, err := filepath.Abs(cacheDir(cfg))
	if err != nil {
		return nil, err
	}
	rep := &report{Params: cfg.params, Hash: cfg.params.hash(), StartedAt: time.Now().UTC(), Problems: []string{}}
	edgeBin, err := edgeBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep.EdgeBinary = edgeBin
	t := time.Now()
	c := newCatalog(cfg.params)
	rep.Volumes, rep.Releasing, rep.Tail = c.totalVolumes(), len(c.releasing), c.tail()
	log.Info("catalog drawn", "works", cfg.Works, "volumes", rep.Volumes, "releasing", rep.Releasing, "took", time.Since(t).Round(time.Millisecond))

	unlock, err := lockCache(filepath.Dir(dir), rep.Hash)
	if err != nil {
		return nil, err
	}
	defer unlock()
	m, reuse := readManifest(dir)
	reuse = reuse && m.Hash == rep.Hash
	if !reuse {
		// A partial or other store: start over.
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("clear %s: %w", dir, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	nproc, err := startNATS(ctx, filepath.Join(dir, "nats"), filepath.Join(dir, "nats.log"))
	if err != nil {
		return nil, err
	}
	defer nproc.stop()
	nc, err := nats.Connect(nproc.URL, nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", nproc.URL, err)
	}
	defer nc.Close()
	contentDir := filepath.Join(dir, "content")
	if reuse {
		rep.Load = loadStats{Reused: true, Docs: m.Docs, ValueBytes: m.Bytes, Seconds: m.Seconds}
		log.Info("reusing the cached store", "dir", dir, "docs", m.Docs)
	} else {
		log.Info("generating and publishing", "dir", dir)
		if rep.Load, err = publishCatalog(ctx, log, nc, c, contentDir); err != nil {
			return rep, err
		}
		if err := writeManifest(dir, manifest{Params: cfg.params, Hash: rep.Hash, Docs: rep.Load.Docs, Bytes: rep.Load.ValueBytes,
			Volumes: rep.Volumes, Releasing: rep.Releasing, Seconds: rep.Load.Seconds, Written: time.Now().UTC()}); err != nil {
			return rep, err
		}
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return rep, fmt.Errorf("jetstream: %w", err)
	}
	for _, b := range []string{contract.CatalogBucket, contract.VolumesBucket} {
		bi, err := bucketBytes(ctx, js, b)
		if err != nil {
			return rep, err
		}
		rep.Buckets = append(rep.Buckets, bi)
	}

	e, err := startEdge(edgeBin, nproc.URL, contentDir, dir, filepath.Join(dir, "edge.log"), runtime.NumCPU()-1)
	if err != nil {
		return rep, err
	}
	defer e.stop()
	rep.PinnedCPU = e.Pinned
	ready, err := e.waitReady(ctx, cfg.ReadyBound)
	if err != nil {
		return rep, fmt.Errorf("%w (log %s)", err, filepath.Join(dir, "edge.log"))
	}
	rep.ReadySeconds = ready.Seconds()
	if rep.ReadyCPU, err = cpuSeconds(e.Pid); err != nil {
		return rep, err
	}
	hwm, err := memKB(e.Pid, "VmHWM")
	if err != nil {
		return rep, err
	}
	rep.ReadyHWMMB = float64(hwm) / 1024
	log.Info("edge ready", "seconds", rep.ReadySeconds, "cpu", rep.ReadyCPU, "hwmMB", rep.ReadyHWMMB)

	if !cfg.SkipRelease {
		rr, problems, err := replayRelease(ctx, log, nc, c, e, cfg.ReleaseLead)
		rep.Release = &rr
		rep.Problems = append(rep.Problems, problems...)
		if err != nil {
			return rep, err
		}
		log.Info("release replayed", "requests", rr.Requests.N, "p99ms", rr.Requests.P99)
	}
	if !cfg.SkipStorm {
		sr, problems, err := runStorm(ctx, nc, c, e, cfg.StormFor, cfg.WriteRate, cfg.Readers, cfg.ReadRate)
		rep.Storm = &sr
		rep.Problems = append(rep.Problems, problems...)
		if err != nil {
			return rep, err
		}
	}
	if hwm, err = memKB(e.Pid, "VmHWM"); err != nil {
		return rep, err
	}
	rep.PeakRSSMB = float64(hwm) / 1024
	rss, err := memKB(e.Pid, "VmRSS")
	if err != nil {
		return rep, err
	}
	rep.EndRSSMB = float64(rss) / 1024
	return rep, nil
}

// edgeBinary is -edge, or the edge of this tree built into the data folder.
func edgeBinary(ctx context.Context, cfg config) (string, error) {
	if cfg.Edge != "" {
		return filepath.Abs(cfg.Edge)
	}
	out, err := filepath.Abs(filepath.Join(cfg.Data, "catalogbench", "bin", "edge"))
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./edge")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./edge (run from the repository root, or give -edge): %w", err)
	}
	return out, nil
}

// lockCache holds <cache root>/<hash>.lock for the run: two runs of the same
// parameters (the test command's and a developer's) would otherwise start
// two servers on one store or delete it under each other.
func lockCache(root, hash string) (func(), error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", root, err)
	}
	f, err := os.OpenFile(filepath.Join(root, hash+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open cache lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}
