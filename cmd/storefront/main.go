// Command storefront is the one-machine launcher: it starts the project's own
// PostgreSQL and ClickHouse under a data folder, an embedded NATS JetStream, loads
// the demo catalog and runs writer, analytics and edge in one process, the way
// VictoriaMetrics builds one all-in-one binary from the packages of its services.
//
//	storefront up     everything; prints the store's URL; Ctrl-C stops it all
//	storefront cluster  the store as a cluster on this machine: 3 NATS, 2 writers,
//	                  2 analytics, 2 edges behind a balancer, PostgreSQL, 2 ClickHouse
//	                  replicas; every node its own process (package cluster)
//	storefront edge|writer|analytics|nats-server  one node, as the cluster runs it
//	storefront deps   only PostgreSQL, ClickHouse (and NATS); writes their URLs to
//	                  an env file and waits (the test script runs the suites against them)
//
// A dependency given by URL (DATABASE_URL, NATS_URL, CLICKHOUSE_URL) is used
// instead of starting one.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"storefront/devstack"
	"storefront/svc"
)

func main() {
	if err := Main(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "storefront:", err)
		os.Exit(1)
	}
}

// deps are the started (or given) dependencies and how to stop them.
type deps struct {
	DatabaseURL    string
	ClickHouseURL  string
	ClickHouseHTTP string
	NATSURL        string
	stops          []func()
}

func (d *deps) stop() {
	for i := len(d.stops) - 1; i >= 0; i-- {
		d.stops[i]()
	}
}

type depFlags struct {
	data                  string
	pgPort, chTCP, chHTTP int
	natsPort              int
	database              string
}

func (f *depFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.data, "data", ".data/dev", "data folder for PostgreSQL, ClickHouse and NATS (env STOREFRONT_DATA)")
	fs.IntVar(&f.pgPort, "pg-port", 25432, "port of our PostgreSQL (env STOREFRONT_PG_PORT)")
	fs.IntVar(&f.chTCP, "ch-port", 29000, "native port of our ClickHouse (env STOREFRONT_CH_PORT)")
	fs.IntVar(&f.chHTTP, "ch-http-port", 28123, "HTTP port of our ClickHouse (env STOREFRONT_CH_HTTP_PORT)")
	fs.IntVar(&f.natsPort, "nats-port", 24222, "port of the embedded NATS (env STOREFRONT_NATS_PORT)")
	fs.StringVar(&f.database, "database", "storefront", "PostgreSQL database name (env STOREFRONT_DATABASE)")
}

// startDeps starts whatever is not given by URL. withNATS false leaves NATS out
// (tests start their own per test).
func startDeps(ctx context.Context, f depFlags, withNATS, fastPG bool, log *slog.Logger) (*deps, error) {
	d := &deps{}
	ok := false
	defer func() {
		if !ok {
			d.stop()
		}
	}()
	if err := os.MkdirAll(f.data, 0o755); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	// PostgreSQL runs as the postgres user when we are root: it must reach its folder.
	_ = os.Chmod(f.data, 0o755)
	if u := os.Getenv("DATABASE_URL"); u != "" {
		d.DatabaseURL = u
	} else {
		var extra []string
		if fastPG {
			extra = []string{"fsync=off", "synchronous_commit=off", "full_page_writes=off"}
		}
		pg, err := devstack.StartPostgres(ctx, filepath.Join(f.data, "postgres"), f.pgPort, log, extra...)
		if err != nil {
			return nil, err
		}
		d.stops = append(d.stops, func() {
			if err := pg.Stop(); err != nil {
				log.Warn("stop postgres", "err", err)
			}
		})
		if f.database == "" || f.database == "postgres" {
			d.DatabaseURL = pg.URL
		} else if d.DatabaseURL, err = pg.CreateDatabase(ctx, f.database); err != nil {
			return nil, err
		}
	}
	if u := os.Getenv("CLICKHOUSE_URL"); u != "" {
		d.ClickHouseURL = u
		d.ClickHouseHTTP = os.Getenv("CLICKHOUSE_HTTP_URL")
	} else {
		ch, err := devstack.StartClickHouse(ctx, filepath.Join(f.data, "clickhouse"), f.chTCP, f.chHTTP, log)
		if err != nil {
			return nil, err
		}
		d.stops = append(d.stops, func() {
			if err := ch.Stop(); err != nil {
				log.Warn("stop clickhouse", "err", err)
			}
		})
		d.ClickHouseURL, d.ClickHouseHTTP = ch.URL, ch.HTTPURL
	}
	if withNATS {
		if u := os.Getenv("NATS_URL"); u != "" {
			d.NATSURL = u
		} else {
			n, err := devstack.StartNATS(filepath.Join(f.data, "nats"), f.natsPort)
			if err != nil {
				return nil, err
			}
			d.stops = append(d.stops, n.Stop)
			d.NATSURL = n.URL
		}
	}
	ok = true
	return d, nil
}

// Main runs the launcher with args (without the program name).
func Main(args []string) error {
	cmd := "up"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "up":
		return up(args)
	case "deps":
		return depsCmd(args)
	case "cluster":
		return clusterCmd(args)
	case "edge":
		return edgeNode(args)
	case "writer":
		return writerNode(args)
	case "analytics":
		return analyticsNode(args)
	case "nats-server":
		return natsNode(args)
	case "fakepush":
		return fakePushCmd(args)
	case "staff":
		return staffCmd(args, os.Stdin, os.Stdout)
	default:
		return fmt.Errorf("unknown command %q (want up, cluster, deps, staff or fakepush)", cmd)
	}
}

func depsCmd(args []string) error {
	fs := flag.NewFlagSet("storefront deps", flag.ContinueOnError)
	var f depFlags
	f.register(fs)
	envFile := fs.String("env-file", "", "write DATABASE_URL, CLICKHOUSE_URL (and NATS_URL) here once ready")
	withNATS := fs.Bool("nats", false, "also start an embedded NATS")
	logFormat, logLevel := svc.LogFlags(fs)
	if err := svc.Parse(fs, args); err != nil {
		return err
	}
	log := svc.NewLogger(*logFormat, *logLevel)
	ctx, cancel := svc.SignalContext()
	defer cancel()
	d, err := startDeps(ctx, f, *withNATS, true, log)
	if err != nil {
		return err
	}
	defer d.stop()
	env := fmt.Sprintf("DATABASE_URL=%s\nCLICKHOUSE_URL=%s\nCLICKHOUSE_HTTP_URL=%s\n", d.DatabaseURL, d.ClickHouseURL, d.ClickHouseHTTP)
	if d.NATSURL != "" {
		env += "NATS_URL=" + d.NATSURL + "\n"
	}
	if *envFile != "" {
		tmp := *envFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(env), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, *envFile); err != nil {
			return err
		}
	}
	fmt.Print(env)
	<-ctx.Done()
	log.Info("stopping dependencies")
	return nil
}
