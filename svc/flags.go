package svc

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
)

// envInUsage finds the environment variable a flag falls back to: every flag
// of the services names it in its usage text, "(env NAME)" or "(env NAME, ...".
var envInUsage = regexp.MustCompile(`\(env ([A-Z][A-Z0-9_]*)[,)]`)

// EnvOf is the environment variable flag f falls back to ("" = none).
func EnvOf(f *flag.Flag) string {
	if m := envInUsage.FindStringSubmatch(f.Usage); m != nil {
		return m[1]
	}
	return ""
}

// Parse parses args into fs, then gives every flag not set on the command
// line the value of its environment variable (named in its usage text, see
// EnvOf), when that variable is set and not empty. A flag beats its variable,
// which beats the default.
//
// Variables go through the flag's own parser, so a malformed value ("30",
// "yes please", "4 lots") is an error naming the variable, like a malformed
// flag, and never falls back to the default: a service started with a typo
// in its environment must not run with a setting its operator did not ask for.
// Every bad variable is reported at once.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		name := EnvOf(f)
		if name == "" || given[f.Name] {
			return
		}
		v := os.Getenv(name)
		if v == "" {
			return
		}
		if err := f.Value.Set(v); err != nil {
			errs = append(errs, fmt.Errorf("environment variable %s=%q (flag -%s): %w", name, v, f.Name, err))
		}
	})
	return errors.Join(errs...)
}
