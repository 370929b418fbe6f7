package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	analyticsserver "storefront/analytics/server"
	"storefront/demo"
	"storefront/demo/originals"
	edgeserver "storefront/edge/server"
	"storefront/svc"
	"storefront/writer/catalogimport"
	"storefront/writer/media"
	writerserver "storefront/writer/server"
)

type upFlags struct {
	deps          depFlags
	edgeAddr      string
	edgeOpsAddr   string
	writerAddr    string
	analyticsAddr string
	works         int
	seed          int64
	regen         bool
	staticDir     string
	readyFile     string
	devClock      bool
	waitMedia     string
}

func (f *upFlags) register(fs *flag.FlagSet) {
	f.deps.register(fs)
	fs.StringVar(&f.edgeAddr, "edge-addr", ":8080", "address of the edge, the store's one origin (env EDGE_ADDR)")
	fs.StringVar(&f.edgeOpsAddr, "edge-ops-addr", "127.0.0.1:8083", "the edge's operators' address: its /metrics, which the readers' origin does not serve (env EDGE_OPS_ADDR)")
	fs.StringVar(&f.writerAddr, "writer-addr", "127.0.0.1:8081", "address of the writer (env WRITER_ADDR)")
	fs.StringVar(&f.analyticsAddr, "analytics-addr", "127.0.0.1:8082", "address of analytics (env ANALYTICS_ADDR)")
	fs.IntVar(&f.works, "works", 3000, "number of works in the demo catalog (env DEMO_WORKS)")
	fs.Int64Var(&f.seed, "seed", 1, "seed of the demo catalog (env DEMO_SEED)")
	fs.BoolVar(&f.regen, "regen", false, "regenerate and reload the demo catalog even if this seed and size are loaded")
	fs.StringVar(&f.staticDir, "static", "frontend/build/client", "built frontend the edge serves (env STATIC_DIR)")
	fs.StringVar(&f.readyFile, "ready-file", "", "touch this file once the store is ready (for scripts)")
	fs.BoolVar(&f.devClock, "dev-clock", false, "TESTS ONLY: let a request move the writer's coupon clock (cookie sf_devclock, see writer/devclock); refused with COOKIE_MODE=live")
	fs.StringVar(&f.waitMedia, "wait-media", "all", "before the store is ready on a first run: all (every picture and page of the demo processed) or pictures (covers, banners and event pictures; volume pages follow, the viewer says a volume is being prepared meanwhile) (env DEMO_WAIT_MEDIA)")
}

func up(args []string) error {
	var f upFlags
	log, err := parseLauncher("storefront up", f.register, args, &f.waitMedia)
	if err != nil {
		return err
	}
	ctx, cancel := svc.SignalContext()
	defer cancel()

	started := time.Now()
	d, err := startDeps(ctx, f.deps, true, false, log)
	if err != nil {
		return err
	}
	defer d.stop()

	// The services read their configuration from flags with environment
	// fallbacks; the launcher hands them the started dependencies that way, so
	// it runs them exactly as their own binaries would.
	static, _ := filepath.Abs(f.staticDir)
	// Uploaded content and what processing makes of it: a folder under the
	// data folder unless an S3 store is named. Writer and edge share it.
	contentStore := os.Getenv("CONTENT_STORE_URL")
	if contentStore == "" {
		contentStore, _ = filepath.Abs(filepath.Join(f.deps.data, "content"))
	}
	setenv := map[string]string{
		"CONTENT_STORE_URL": contentStore,
		"DATABASE_URL":      d.DatabaseURL,
		"NATS_URL":          d.NATSURL,
		"CLICKHOUSE_URL":    d.ClickHouseURL,
		"WRITER_ADDR":       f.writerAddr,
		"ANALYTICS_ADDR":    f.analyticsAddr,
		"EDGE_ADDR":         f.edgeAddr,
		"EDGE_OPS_ADDR":     f.edgeOpsAddr,
		"STATIC_DIR":        static,
	}
	// Two jobs at once on two cores: the demo's first run encodes its pool
	// of originals before the store is ready.
	if os.Getenv("WRITER_MEDIA_WORKERS") == "" {
		setenv["WRITER_MEDIA_WORKERS"] = "2"
	}
	for k, v := range setenv {
		os.Setenv(k, v)
	}

	var wcfg writerserver.Config
	if err := parseEnvConfig(wcfg.RegisterFlags); err != nil {
		return fmt.Errorf("writer config: %w", err)
	}
	wcfg.DevClock = wcfg.DevClock || f.devClock
	writer, err := writerserver.New(ctx, wcfg, log.With("svc", "writer"))
	if err != nil {
		return fmt.Errorf("start writer: %w", err)
	}
	os.Setenv("WRITER_URL", "http://"+writer.Addr())

	g, gctx := errgroup.WithContext(ctx)
	// The writer runs while the demo is queued: its media workers encode
	// the pictures as soon as their jobs are in, while the volumes' jobs
	// are still being queued (on a first run the encoding is most of the
	// wait).
	g.Go(func() error { return writer.Run(gctx) })
	// A failure from here on stops the writer before the dependencies.
	fail := func(err error) error {
		cancel()
		_ = g.Wait()
		return err
	}
	if err := loadDemo(gctx, d.DatabaseURL, f, writer.Media(), log); err != nil {
		return fail(err)
	}

	var acfg analyticsserver.Config
	if err := parseEnvConfig(acfg.RegisterFlags); err != nil {
		return fail(fmt.Errorf("analytics config: %w", err))
	}
	analytics, err := analyticsserver.New(ctx, acfg, log.With("svc", "analytics"))
	if err != nil {
		return fail(fmt.Errorf("start analytics: %w", err))
	}
	// The edge forwards the reports API (/analytics/api/) to it.
	os.Setenv("ANALYTICS_URL", "http://"+analytics.Addr())
	var ecfg edgeserver.Config
	if err := parseEnvConfig(ecfg.RegisterFlags); err != nil {
		return fail(fmt.Errorf("edge config: %w", err))
	}
	edge, err := edgeserver.New(ctx, ecfg, log.With("svc", "edge"))
	if err != nil {
		return fail(fmt.Errorf("start edge: %w", err))
	}

	g.Go(func() error { return analytics.Run(gctx) })
	g.Go(func() error { return edge.Run(gctx) })
	g.Go(func() error {
		url := "http://" + strings.Replace(edge.Addr(), "[::]", "127.0.0.1", 1)
		if err := waitReady(gctx, url+"/readyz"); err != nil {
			return err
		}
		// The demo's pictures and pages first: a store whose covers and
		// pages are still being made is not up yet.
		if err := waitMedia(gctx, writer.Media(), f.waitMedia == "pictures", log); err != nil {
			return err
		}
		if f.waitMedia == "pictures" {
			// The pages go on after the store is up; the next run skips
			// them once they are all done.
			g.Go(func() error {
				if err := waitMedia(gctx, writer.Media(), false, log); err != nil {
					return err
				}
				return markDemoMedia(f)
			})
		} else if err := markDemoMedia(f); err != nil {
			return err
		}
		// The edge is ready once it has synced what the bucket holds; after a
		// fresh import the relay may still be publishing, and a store that shows
		// half its catalog is not up yet.
		if err := waitOutboxDrained(gctx, writer.Pool()); err != nil {
			return err
		}
		works, err := waitCatalogCaughtUp(gctx, edge)
		if err != nil {
			return err
		}
		log.Info("store ready", "url", url, "works", works, "took", time.Since(started).Round(time.Millisecond))
		fmt.Fprintf(os.Stderr, "\n  The store is up: %s   (Ctrl-C stops everything)\n\n", url)
		if f.readyFile != "" {
			return os.WriteFile(f.readyFile, []byte(url+"\n"), 0o644)
		}
		return nil
	})
	err = g.Wait()
	log.Info("stopping")
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// parseLauncher parses the flags of a launcher command (register's and the
// log flags) and checks its -wait-media.
func parseLauncher(name string, register func(*flag.FlagSet), args []string, waitMedia *string) (*slog.Logger, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	register(fs)
	logFormat, logLevel := svc.LogFlags(fs)
	if err := svc.Parse(fs, args); err != nil {
		return nil, err
	}
	if *waitMedia != "all" && *waitMedia != "pictures" {
		return nil, fmt.Errorf("-wait-media %q: want all or pictures", *waitMedia)
	}
	return svc.NewLogger(*logFormat, *logLevel), nil
}

// waitOutboxDrained waits until the writer's relay has published every outbox row.
func waitOutboxDrained(ctx context.Context, pool *pgxpool.Pool) error {
	for {
		var n int64
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM outbox WHERE sent_at IS NULL").Scan(&n); err != nil {
			return fmt.Errorf("count unsent outbox rows: %w", err)
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitCatalogCaughtUp waits until the edge has applied everything the relay
// published, and returns how many works it serves: the count "store ready"
// reports is the store's, not what the bucket held when the edge started.
func waitCatalogCaughtUp(ctx context.Context, edge interface {
	CaughtUp(context.Context) (bool, int, error)
}) (int, error) {
	for {
		done, works, err := edge.CaughtUp(ctx)
		if err != nil {
			return 0, fmt.Errorf("wait for the edge's catalog: %w", err)
		}
		if done {
			return works, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// parseEnvConfig fills a service's config from its flags' environment defaults.
func parseEnvConfig(register func(*flag.FlagSet)) error {
	fs := flag.NewFlagSet("svc", flag.ContinueOnError)
	register(fs)
	return svc.Parse(fs, nil)
}

func waitReady(ctx context.Context, url string) error {
	c := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// demoStamp records which catalog is loaded so a second run skips the work.
type demoStamp struct {
	Seed  int64 `json:"seed"`
	Works int   `json:"works"`
	// Media: every picture and page of the catalog has been processed.
	Media bool `json:"media"`
}

func readStamp(f upFlags) (demoStamp, bool) {
	var have demoStamp
	b, err := os.ReadFile(filepath.Join(f.deps.data, "demo-catalog.json"))
	if err != nil || json.Unmarshal(b, &have) != nil {
		return have, false
	}
	return have, have.Seed == f.seed && have.Works == f.works
}

func writeStamp(f upFlags, st demoStamp) error {
	b, _ := json.Marshal(st)
	return os.WriteFile(filepath.Join(f.deps.data, "demo-catalog.json"), b, 0o644)
}

// markDemoMedia records that the loaded catalog's media are processed, so
// the next run does not even draw the originals.
func markDemoMedia(f upFlags) error {
	st, ok := readStamp(f)
	if !ok || st.Media {
		return nil
	}
	st.Media = true
	return writeStamp(f, st)
}

// loadDemo generates and imports the demo catalog unless this seed and size
// are loaded, and queues its media unless they are processed: a second run
// does neither.
func loadDemo(ctx context.Context, dbURL string, f upFlags, svc *media.Service, log *slog.Logger) error {
	have, loaded := readStamp(f)
	loaded = loaded && !f.regen
	if loaded && have.Media {
		log.Info("demo catalog and media already loaded", "seed", f.seed, "works", f.works)
		return nil
	}
	t0 := time.Now()
	pool, err := originals.MakePool()
	if err != nil {
		return fmt.Errorf("draw demo originals: %w", err)
	}
	log.Info("demo originals drawn", "files", pool.Files(), "took", time.Since(t0).Round(time.Millisecond))
	db, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("connect for demo import: %w", err)
	}
	defer db.Close()
	if !loaded {
		t0 := time.Now()
		bar := newProgress(os.Stderr, "generating demo catalog", time.Second)
		cat := demo.Generate(demo.Options{Seed: f.seed, Works: f.works, Now: time.Now(), Progress: bar.Update})
		bar.Done()
		pointAtPool(cat, pool)
		log.Info("demo catalog generated", "works", len(cat.Products), "took", time.Since(t0).Round(time.Millisecond))
		t1 := time.Now()
		if err := catalogimport.Import(ctx, db, cat); err != nil {
			return fmt.Errorf("import demo catalog: %w", err)
		}
		log.Info("demo catalog imported", "took", time.Since(t1).Round(time.Millisecond))
		if err := writeStamp(f, demoStamp{Seed: f.seed, Works: f.works}); err != nil {
			return err
		}
	}
	t1 := time.Now()
	n, err := enqueueDemoMedia(ctx, svc, db, pool)
	if err != nil {
		return fmt.Errorf("queue demo media: %w", err)
	}
	log.Info("demo media queued", "jobs", n, "took", time.Since(t1).Round(time.Millisecond))
	return nil
}
