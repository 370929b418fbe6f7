// Command edge runs the storefront's read tier and front door (see package
// storefront/edge/server and edge/README.md).
package main

import (
	"flag"
	"fmt"
	"os"

	"storefront/edge/server"
	"storefront/svc"
)

func main() {
	fs := flag.NewFlagSet("edge", flag.ExitOnError)
	var cfg server.Config
	cfg.RegisterFlags(fs)
	format, level := svc.LogFlags(fs)
	memFraction := svc.MemoryFlag(fs)
	if err := svc.Parse(fs, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "edge:", err)
		os.Exit(2)
	}
	log := svc.NewLogger(*format, *level)
	svc.SetMemoryLimit(log, *memFraction)
	ctx, cancel := svc.SignalContext()
	defer cancel()
	s, err := server.New(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "edge:", err)
		os.Exit(1)
	}
	if err := s.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "edge:", err)
		os.Exit(1)
	}
}
