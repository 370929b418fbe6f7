package deploy

import (
	"flag"
	"testing"

	analytics "storefront/analytics/server"
	edge "storefront/edge/server"
	"storefront/svc"
	writer "storefront/writer/server"
)

// envNames are the environment variables each service reads: the fallbacks
// its flags name in their usage (svc.EnvOf, which svc.Parse applies).
func envNames(t *testing.T) map[string]map[string]bool {
	t.Helper()
	reg := map[string]func(*flag.FlagSet){
		"edge":      func(fs *flag.FlagSet) { var c edge.Config; c.RegisterFlags(fs) },
		"writer":    func(fs *flag.FlagSet) { var c writer.Config; c.RegisterFlags(fs) },
		"analytics": func(fs *flag.FlagSet) { var c analytics.Config; c.RegisterFlags(fs) },
	}
	out := map[string]map[string]bool{}
	for name, register := range reg {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		register(fs)
		svc.LogFlags(fs)
		svc.MemoryFlag(fs)
		names := map[string]bool{}
		fs.VisitAll(func(f *flag.Flag) {
			if n := svc.EnvOf(f); n != "" {
				names[n] = true
			}
		})
		if len(names) < 5 {
			t.Fatalf("%s: only %d environment variables found in its flags", name, len(names))
		}
		out[name] = names
	}
	return out
}
