package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/nats-io/nats-server/v2/server"

	analyticsserver "storefront/analytics/server"
	edgeserver "storefront/edge/server"
	"storefront/media/process"
	"storefront/svc"
	writerserver "storefront/writer/server"
)

// The cluster runs each node as its own process, this binary again with the
// node's subcommand (storefront edge|writer|analytics|nats-server ...), so
// one build carries the whole cluster and any node can be killed alone.
// Each subcommand takes the flags of the service's own binary.

type runner interface{ Run(context.Context) error }

// node runs one service as its own binary does: flags with environment
// fallbacks, a logger, the service until SIGINT/SIGTERM.
func node[C any, S runner](name string, args []string, register func(*C, *flag.FlagSet),
	start func(context.Context, C, *slog.Logger) (S, error)) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var cfg C
	register(&cfg, fs)
	format, level := svc.LogFlags(fs)
	if err := svc.Parse(fs, args); err != nil {
		return err
	}
	log := svc.NewLogger(*format, *level)
	ctx, cancel := svc.SignalContext()
	defer cancel()
	s, err := start(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return s.Run(ctx)
}

func edgeNode(args []string) error {
	return node("edge", args, (*edgeserver.Config).RegisterFlags, edgeserver.New)
}

func writerNode(args []string) error {
	// Uploads are decoded in this process: only the formats the writer
	// takes, as in the writer's binary.
	process.RestrictLoaders()
	return node("writer", args, (*writerserver.Config).RegisterFlags, writerserver.New)
}

func analyticsNode(args []string) error {
	return node("analytics", args, (*analyticsserver.Config).RegisterFlags, analyticsserver.New)
}

// natsNode is the nats-server command (its flags and configuration file),
// from the server package this module already depends on.
func natsNode(args []string) error {
	fs := flag.NewFlagSet("nats-server", flag.ContinueOnError)
	opts, err := server.ConfigureOptions(fs, args, server.PrintServerAndExit, fs.Usage, server.PrintTLSHelpAndDie)
	if err != nil {
		return err
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return fmt.Errorf("nats-server: %w", err)
	}
	s.ConfigureLogger()
	if err := server.Run(s); err != nil {
		return fmt.Errorf("nats-server: %w", err)
	}
	s.WaitForShutdown()
	return nil
}

// selfBins runs the cluster's nodes as subcommands of this binary.
func selfBins() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this binary: %w", err)
	}
	return []string{exe}, nil
}
