// Command benchpg starts a private PostgreSQL for writer/money/bench.sh, so the
// purchase benchmark and pgbench run against the same server with the same
// settings. It writes the server URL to -url-file and stops the server on
// SIGINT/SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"storefront/devstack"
)

func main() {
	dir := flag.String("dir", "", "data directory (created)")
	port := flag.Int("port", 0, "port (0 = free port)")
	urlFile := flag.String("url-file", "", "file to write the server URL to")
	settings := flag.String("settings", "", "comma-separated server settings, e.g. fsync=off")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*dir, *port, *urlFile, *settings, log); err != nil {
		log.Error("benchpg", "err", err)
		os.Exit(1)
	}
}

func run(dir string, port int, urlFile, settings string, log *slog.Logger) error {
	if dir == "" || urlFile == "" {
		return fmt.Errorf("-dir and -url-file are required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if port == 0 {
		p, err := devstack.FreePort()
		if err != nil {
			return err
		}
		port = p
	}
	var extra []string
	if settings != "" {
		extra = strings.Split(settings, ",")
	}
	extra = append(extra, "max_connections=200")
	pg, err := devstack.StartPostgres(ctx, dir, port, log, extra...)
	if err != nil {
		return err
	}
	defer pg.Stop()
	if err := os.WriteFile(urlFile, []byte(pg.URL+"\n"), 0o644); err != nil {
		return fmt.Errorf("write url file: %w", err)
	}
	<-ctx.Done()
	return nil
}
