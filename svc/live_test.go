package svc_test

import (
	"flag"
	"io"
	"strings"
	"testing"

	"storefront/svc"
)

func TestModeFlagTakesOnlyKnownModes(t *testing.T) {
	for _, v := range []string{"Live", "prod", "production", "live "} {
		var mode string
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		svc.ModeFlag(fs, &mode)
		if err := fs.Parse([]string{"-cookie-mode", v}); err == nil {
			t.Errorf("mode %q accepted as %q", v, mode)
		}
	}
	var mode string
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	svc.ModeFlag(fs, &mode)
	if mode != svc.ModeDev {
		t.Fatalf("default %q", mode)
	}
	if err := fs.Parse([]string{"-cookie-mode", "live"}); err != nil || mode != svc.ModeLive {
		t.Fatalf("live: %q %v", mode, err)
	}
}

func TestRefuseDevDefaultsOnlyInLiveMode(t *testing.T) {
	s := []svc.DevDefault{{Name: "A", Value: "dev-a", Dev: "dev-a"}, {Name: "B", Value: "mine", Dev: "dev-b"}, {Name: "C", Value: "dev-c", Dev: "dev-c"}}
	for _, m := range []string{svc.ModeDev, svc.ModeStage, ""} {
		if err := svc.RefuseDevDefaults(m, s...); err != nil {
			t.Errorf("%q: %v", m, err)
		}
	}
	err := svc.RefuseDevDefaults(svc.ModeLive, s...)
	if err == nil || !strings.Contains(err.Error(), "A, C") || strings.Contains(err.Error(), "B") {
		t.Fatalf("live: %v", err)
	}
}
