// Command writer runs the writer service (see writer/README.md).
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
	var cfg server.Config
	fs := flag.NewFlagSet("writer", flag.ExitOnError)
	cfg.RegisterFlags(fs)
	format, level := svc.LogFlags(fs)
	if err := svc.Parse(fs, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(2)
	}
	log := svc.NewLogger(*format, *level)
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
