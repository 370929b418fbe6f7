package money_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/writer/money"
)

// addMember inserts a member whose adult state the writer reads from the
// account: real-name checked or not, adult or not, the 19 toggle.
func (e *env) addMember(uid int64, real, adult, toggle bool, birth time.Time) {
	e.t.Helper()
	e.exec(`INSERT INTO users (uid, login_type, login_id, bid, auth_real, auth_adult, toggle19, birth_date)
		VALUES ($1, 'N', $2, $2, $3, $4, $5, $6)`,
		uid, "m"+itoa(uid), real, adult, toggle, birth)
}

// TestAdultWorkRefusedToTeenVersion: every way of unlocking a volume (buy,
// rent, coupons, download-auth) refuses an adult work when the teen version
// applies, by the member's account and the X-Channel header, and writes
// nothing; the same calls succeed for a verified adult on the web.
func TestAdultWorkRefusedToTeenVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "a19", vols: 5, price: 100, rent: 50, free: 1, age: 19, wff: true, recycle: 60})
	e.addWork(work{pid: "t15", vols: 8, price: 100, free: 1, age: 15})
	adultBirth := e.clock.Now().AddDate(-30, 0, 0)
	const (
		visitor  = 501 // no account row: never verified
		minor    = 502
		adultOn  = 503
		adultOff = 504
	)
	e.addMember(minor, true, false, true, e.clock.Now().AddDate(-16, 0, 0))
	e.addMember(adultOn, true, true, true, adultBirth)
	e.addMember(adultOff, true, true, false, adultBirth)
	for _, uid := range []int64{visitor, minor, adultOn, adultOff} {
		// The store apps spend their own money (seed §6).
		for _, m := range []string{money.Blue, money.Android, money.IOS} {
			e.fund(uid, m, 1000)
		}
	}

	buy := func(uid int64, ch, pid, buyType string, vol int) resp {
		return e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(), channel: ch,
			body: map[string]any{"pid": pid, "vols": []int{vol}, "buyType": buyType}})
	}
	auth := func(uid int64, ch, pid string, vol int) resp {
		return e.do(req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, channel: ch,
			body: "pid=" + pid + "&vol=" + itoa(int64(vol)), ctype: "application/x-www-form-urlencoded"})
	}
	coupon := func(uid int64, ch string) resp {
		return e.do(req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, key: newKey(), channel: ch,
			body: map[string]any{"pid": "a19", "vol": 2, "kind": "wff"}})
	}
	refused := func(r resp, want string) {
		t.Helper()
		r.mustFail(t, http.StatusForbidden)
		if !strings.Contains(string(r.body), want) {
			t.Fatalf("refusal %s does not say %q", r.body, want)
		}
	}

	cases := []struct {
		name string
		uid  int64
		ch   string
		why  string
	}{
		{"unverified on the web", visitor, "", "성인 인증 후"},
		{"minor on the web", minor, "AW", "만 19세 미만"},
		{"adult with 19 off", adultOff, "IW", "성인 작품 보기(19)"},
		{"adult in the Play Store app", adultOn, "AA", "이 앱에서는"},
		{"adult in the App Store app", adultOn, "IA", "이 앱에서는"},
		// The edge reads X-Channel in any case; so does the writer.
		{"adult in the App Store app, lower case", adultOn, "ia", "이 앱에서는"},
	}
	for i, c := range cases {
		refused(buy(c.uid, c.ch, "a19", "B", 2), c.why)
		refused(buy(c.uid, c.ch, "a19", "R", 3), c.why)
		refused(coupon(c.uid, c.ch), c.why)
		// Free volumes too: the teen version does not read adult works at all.
		refused(auth(c.uid, c.ch, "a19", 1), c.why)
		// A work for 15 and up is not affected.
		buy(c.uid, c.ch, "t15", "B", i+2).mustOK(t)
		if a := auth(c.uid, c.ch, "t15", i+2).mustOK(t); a["isAuth"] != true {
			t.Fatalf("%s: bought volume not readable: %v", c.name, a)
		}
	}
	if n := e.int(`SELECT count(*) FROM purchases WHERE pid = 'a19'`); n != 0 {
		t.Fatalf("%d purchases of the adult work recorded for the teen version", n)
	}
	if n := e.int(`SELECT count(*) FROM money_idempotency WHERE uid IN ($1, $2, $3, $4) AND status = 403`,
		visitor, minor, adultOn, adultOff); n != 0 {
		t.Fatalf("%d refusals stored as idempotent answers; verifying and retrying must work", n)
	}
	// adultOn bought 15+ volumes three times over the app channels.
	spent := map[int64]int64{visitor: 100, minor: 100, adultOff: 100, adultOn: 300}
	for uid, want := range spent {
		got := e.balance(uid, money.Blue) + e.balance(uid, money.Android) + e.balance(uid, money.IOS)
		if got != 3000-want {
			t.Fatalf("member %d holds %d, want %d (only the 15+ volume paid)", uid, got, 3000-want)
		}
	}

	// A verified adult with 19 on, on the web, buys and reads.
	buy(adultOn, "AW", "a19", "B", 2).mustOK(t)
	if a := auth(adultOn, "", "a19", 2).mustOK(t); a["isAuth"] != true {
		t.Fatalf("adult's bought volume not readable: %v", a)
	}
	coupon(adultOn, "").mustFail(t, http.StatusConflict) // already owned, not refused for age
	e.checkLedger()
}
