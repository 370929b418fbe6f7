// Command writer runs the writer service (see writer/README.md).
//
//	writer [flags]           the service
//	writer migrate [flags]   apply the PostgreSQL migrations and exit
//	writer republish [flags] enqueue every work for the relays to publish again, and exit
package main

import (
	"flag"
	"fmt"
	"os"

	"storefront/media/process"
	"storefront/svc"
	"storefront/writer/server"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "migrate" {
		ctx, cancel := svc.SignalContext()
		err := migrate(ctx, os.Args[2:])
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "writer migrate:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "republish" {
		ctx, cancel := svc.SignalContext()
		err := republish(ctx, os.Args[2:])
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "writer republish:", err)
			os.Exit(1)
		}
		return
	}
	var cfg server.Config
	fs := flag.NewFlagSet("writer", flag.ExitOnError)
	cfg.RegisterFlags(fs)
	format, level := svc.LogFlags(fs)
	memFraction := svc.MemoryFlag(fs)
	if err := svc.Parse(fs, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(2)
	}
	log := svc.NewLogger(*format, *level)
	svc.SetMemoryLimit(log, *memFraction)
	// The writer binary decodes uploads: no libvips loader but the three
	// formats it takes may run in it. (The launcher, which also rasterizes
	// the demo's SVG drawings in its process, does not restrict.)
	process.RestrictLoaders()
	ctx, cancel := svc.SignalContext()
	defer cancel()
	s, err := server.New(ctx, cfg, log)
	if err == nil {
		err = s.Run(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(1)
	}
}
