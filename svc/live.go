package svc

import (
	"flag"
	"fmt"
	"strings"

	"storefront/doubles"
)

// Modes of a deployment (COOKIE_MODE). The writer writes it into the member
// cookie; in live mode every service refuses the settings only a development
// machine may keep (see RefuseDevDefaults).
const (
	ModeLive  = "live"
	ModeStage = "stage"
	ModeDev   = "dev"
)

// ModeFlag registers -cookie-mode (env COOKIE_MODE) into p, default dev,
// refusing anything but live, stage or dev: a typo of "live" must not run a
// production store with development secrets.
func ModeFlag(fs *flag.FlagSet, p *string) {
	*p = ModeDev
	fs.Func("cookie-mode", "deployment mode written into the member cookie: live, stage or dev; live refuses development secrets and test hooks (env COOKIE_MODE)", func(v string) error {
		switch v {
		case ModeLive, ModeStage, ModeDev:
			*p = v
			return nil
		}
		return fmt.Errorf("mode %q: want live, stage or dev", v)
	})
}

// DevDefault is a setting whose development value a live store must not
// keep: a secret everyone can read in this repository, a sandbox, a test hook.
type DevDefault struct {
	Name  string // the environment variable (and what the message names)
	Value string // the value in use
	Dev   string // the development value
}

// RefuseDevDefaults is an error naming every setting still at its
// development value when mode is live, nil otherwise: the development
// secrets are one of the test doubles live mode refuses (package doubles).
func RefuseDevDefaults(mode string, settings ...DevDefault) error {
	return doubles.Check(mode == ModeLive, DevSecrets(settings...))
}

// DevSecrets is the use of the development secrets among settings: on when
// any setting keeps its development value, naming each.
func DevSecrets(settings ...DevDefault) doubles.Use {
	var names []string
	for _, s := range settings {
		if s.Value == s.Dev {
			names = append(names, s.Name)
		}
	}
	return doubles.Use{Name: doubles.DevSecrets, On: len(names) > 0, Setting: "set " + strings.Join(names, ", ")}
}
