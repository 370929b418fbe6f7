package main

import (
	"flag"
	"io"
	"strings"
	"testing"

	analyticsserver "storefront/analytics/server"
	edgeserver "storefront/edge/server"
	"storefront/svc"
	writerserver "storefront/writer/server"
)

// flagSets are every flag set an operator configures: the three services'
// own binaries (the launcher parses the same sets) and the launcher's.
func flagSets() map[string]func() *flag.FlagSet {
	mk := func(name string, register func(*flag.FlagSet)) func() *flag.FlagSet {
		return func() *flag.FlagSet {
			fs := flag.NewFlagSet(name, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			register(fs)
			svc.LogFlags(fs)
			return fs
		}
	}
	return map[string]func() *flag.FlagSet{
		"edge":      mk("edge", func(fs *flag.FlagSet) { new(edgeserver.Config).RegisterFlags(fs) }),
		"writer":    mk("writer", func(fs *flag.FlagSet) { new(writerserver.Config).RegisterFlags(fs) }),
		"analytics": mk("analytics", func(fs *flag.FlagSet) { new(analyticsserver.Config).RegisterFlags(fs) }),
		"up":        mk("up", func(fs *flag.FlagSet) { new(upFlags).register(fs) }),
		"deps":      mk("deps", func(fs *flag.FlagSet) { new(depFlags).register(fs) }),
		"cluster":   mk("cluster", func(fs *flag.FlagSet) { new(clusterFlags).register(fs) }),
	}
}

// Flags that are deliberately command-line only: one-off actions of the
// launcher, not settings of a deployment.
var commandLineOnly = map[string]bool{"up -regen": true, "up -ready-file": true, "up -dev-clock": true,
	"cluster -regen": true, "cluster -ready-file": true}

// TestEverySettingRefusesAMalformedEnvironmentValue is the audit: every flag
// of every service names its environment variable, and a value its parser
// refuses (a typo'd number, duration, boolean, size or log level) stops the
// service with a message naming the variable instead of running on the
// default.
func TestEverySettingRefusesAMalformedEnvironmentValue(t *testing.T) {
	checked := 0
	for name, mk := range flagSets() {
		mk().VisitAll(func(f *flag.Flag) {
			env := svc.EnvOf(f)
			if env == "" {
				if !commandLineOnly[name+" -"+f.Name] {
					t.Errorf("%s -%s names no environment variable in its usage (%q)", name, f.Name, f.Usage)
				}
				return
			}
			const bad = "12 monkeys"
			if mk().Set(f.Name, bad) == nil {
				return // a free-form string: nothing is malformed
			}
			checked++
			t.Setenv(env, bad)
			err := svc.Parse(mk(), nil)
			if err == nil || !strings.Contains(err.Error(), env) {
				t.Errorf("%s: %s=%q: %v, want an error naming %s", name, env, bad, err, env)
			}
			t.Setenv(env, "")
		})
	}
	// Numbers, durations, booleans, sizes, log settings of three services.
	if checked < 30 {
		t.Fatalf("only %d typed settings checked", checked)
	}
}

func TestEnvironmentSettingsReachTheServices(t *testing.T) {
	t.Setenv("NATS_REPLICAS", "3")
	t.Setenv("EDGE_CACHE_MB", "64")
	t.Setenv("ANALYTICS_RANK_INTERVAL", "2m")
	var e edgeserver.Config
	fs := flag.NewFlagSet("edge", flag.ContinueOnError)
	e.RegisterFlags(fs)
	if err := svc.Parse(fs, []string{"-nats-replicas", "5"}); err != nil {
		t.Fatal(err)
	}
	if e.NATSReplicas != 5 || e.CacheBytes != 64<<20 {
		t.Fatalf("flag beats env, env beats default: replicas %d, cache %d", e.NATSReplicas, e.CacheBytes)
	}
	var a analyticsserver.Config
	fs = flag.NewFlagSet("analytics", flag.ContinueOnError)
	a.RegisterFlags(fs)
	if err := svc.Parse(fs, nil); err != nil {
		t.Fatal(err)
	}
	if a.NATSReplicas != 3 || a.Rankings.Interval.Minutes() != 2 {
		t.Fatalf("analytics from env: %d %s", a.NATSReplicas, a.Rankings.Interval)
	}
}
