// Package doubles is the one list of the test doubles that stand in for a
// third party (an identity provider, a payment gateway, the app stores, the
// browsers' push services, social login) or for a secret only a development
// machine may keep. Each service says at start-up which doubles its
// configuration uses (Check); with COOKIE_MODE=live any double in use stops
// it. A test (doubles_test.go) scans the repository for double-shaped
// packages and fails when one is missing here.
//
// It imports nothing, so the edge may link it.
package doubles

import (
	"errors"
	"fmt"
	"strings"
)

// A Double is one stand-in: what live mode calls it, the packages that
// implement it (none when it is a setting, such as Apple's sandbox
// environment), and the real thing it replaces.
type Double struct {
	Name     string
	Packages []string
	Real     string
}

// Names of the doubles, for Use.
const (
	IdentitySandbox = "identity sandbox"
	PaymentSandbox  = "payment sandbox"
	StoreFakes      = "app store fakes"
	AppleSandbox    = "App Store sandbox environment"
	PushFake        = "fake push service"
	OAuthFake       = "social login fake"
	DevSecrets      = "development secrets"
	DevClock        = "dev clock"
)

// All is every double. SECURITY.md's list of third parties names the same.
var All = []Double{
	{Name: IdentitySandbox, Packages: []string{"storefront/writer/identity/portonesandbox"}, Real: "PortOne V2 identity verification (api.portone.io)"},
	{Name: PaymentSandbox, Packages: []string{"storefront/writer/money/tosssandbox"}, Real: "Toss Payments core API v1, payments and billing (api.tosspayments.com)"},
	{Name: StoreFakes, Packages: []string{"storefront/writer/appmoney/storetest"}, Real: "Google Play Developer API, Google OAuth2, App Store Server API"},
	{Name: AppleSandbox, Real: "App Store Server API, Production environment"},
	{Name: PushFake, Packages: []string{"storefront/writer/push/pushtest"}, Real: "the browsers' Web Push services (FCM, Mozilla, Apple, Windows)"},
	{Name: OAuthFake, Packages: []string{"storefront/writer/internal/writertest"}, Real: "Kakao and Naver login (OAuth2)"},
	{Name: DevSecrets, Packages: []string{"storefront/devsecrets"}, Real: "the operator's secrets (ADMIN_TOKEN, AUDIENCE_SECRET, ...)"},
	{Name: DevClock, Real: "the real clock (writer -dev-clock moves it per request)"},
}

// Use is one double and whether a service's configuration uses it.
type Use struct {
	Name string
	On   bool
	// Setting is what the operator changes to leave the double (the
	// message names it).
	Setting string
}

// Known reports whether name is in All.
func Known(name string) bool {
	for _, d := range All {
		if d.Name == name {
			return true
		}
	}
	return false
}

// Check is an error when a Use names a double that is not in All (in any
// mode: a double nobody listed), or, in live mode, naming every double in
// use and the setting that replaces it.
func Check(live bool, uses ...Use) error {
	var on []string
	for _, u := range uses {
		if !Known(u.Name) {
			return fmt.Errorf("doubles: %q is not in doubles.All", u.Name)
		}
		if u.On {
			on = append(on, u.Name+" ("+u.Setting+")")
		}
	}
	if !live || len(on) == 0 {
		return nil
	}
	return errors.New("COOKIE_MODE=live refuses test doubles: " + strings.Join(on, ", "))
}
