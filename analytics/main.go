// Command analytics consumes the EVENTS stream into ClickHouse, computes rankings
// for the edges and serves reports. See analytics/README.md.
//
//	analytics [flags]           the service
//	analytics migrate [flags]   apply the ClickHouse migrations and exit
package main

import (
	"flag"
	"fmt"
	"os"

	"storefront/analytics/server"
	"storefront/svc"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "migrate" {
		ctx, cancel := svc.SignalContext()
		err := migrate(ctx, os.Args[2:])
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "analytics migrate:", err)
			os.Exit(1)
		}
		return
	}
	fs := flag.NewFlagSet("analytics", flag.ExitOnError)
	var cfg server.Config
	cfg.RegisterFlags(fs)
	format, level := svc.LogFlags(fs)
	memFraction := svc.MemoryFlag(fs)
	if err := svc.Parse(fs, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "analytics:", err)
		os.Exit(2)
	}
	log := svc.NewLogger(*format, *level)
	svc.SetMemoryLimit(log, *memFraction)
	ctx, cancel := svc.SignalContext()
	defer cancel()
	s, err := server.New(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "analytics:", err)
		os.Exit(1)
	}
	log.Info("analytics listening", "addr", s.Addr())
	if err := s.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "analytics:", err)
		os.Exit(1)
	}
}
