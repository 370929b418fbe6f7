package main

import (
	"flag"
	"fmt"
	"os"

	"storefront/doubles"
	"storefront/svc"
	"storefront/writer/push/pushtest"
)

// fakePushCmd runs the fake Web Push service (writer/push/pushtest) for a
// browser test against a running store: headless Chromium cannot reach a
// real push service, so the e2e test hands the page subscriptions made by
// this fake and reads back what the writer sent it. It prints
// FAKEPUSH_URL=<url> once listening and serves until stopped. TESTS ONLY: a
// store accepts its http endpoints only outside live mode and only when
// PUSH_ENDPOINT_HOSTS names its host.
func fakePushCmd(args []string) error {
	fs := flag.NewFlagSet("storefront fakepush", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address; port 0 picks a free one (env FAKEPUSH_ADDR, default 127.0.0.1:0)")
	if err := svc.Parse(fs, args); err != nil {
		return err
	}
	if err := refuseLive(doubles.Use{Name: doubles.PushFake, On: true, Setting: "the browsers' push services"}); err != nil {
		return err
	}
	ctx, cancel := svc.SignalContext()
	defer cancel()
	f, err := pushtest.Start(*addr)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(os.Stdout, "FAKEPUSH_URL=%s\n", f.URL)
	<-ctx.Done()
	return nil
}

// refuseLive refuses the launcher's commands that run test doubles when
// COOKIE_MODE is live (the services refuse them too; the launcher says so
// before starting anything).
func refuseLive(uses ...doubles.Use) error {
	return doubles.Check(os.Getenv("COOKIE_MODE") == svc.ModeLive, uses...)
}
