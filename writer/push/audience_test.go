package push_test

import (
	"strings"
	"testing"
	"time"

	"storefront/writer/internal/writertest"
	"storefront/writer/push"
	"storefront/writer/push/pushtest"
)

// Adult levels as the users row holds them (auth.AdultLevel).
const (
	asAdult      = `auth_real = true, auth_adult = true, toggle19 = true, birth_date = date '1990-01-01'`
	asToggledOff = `auth_real = true, auth_adult = true, toggle19 = false, birth_date = date '1990-01-01'`
	asMinor      = `auth_real = true, auth_adult = false, toggle19 = true, birth_date = (now() - interval '15 years')::date`
)

// setLevel sets the adult columns of the members owning endpoints.
func (w *world) setLevel(set string, eps ...string) {
	w.t.Helper()
	w.exec(`UPDATE users SET `+set+` WHERE uid IN (SELECT uid FROM push_subscriptions WHERE endpoint = ANY($1))`, eps)
}

// TestAdultReleaseRingsOnlyForAdultsNow (issue 30): a release of an adult
// work rings only for members who may see adult works when it is sent: not
// for a member never verified, a minor, an adult with the 19 toggle off, nor
// an adult whose level dropped before the release (at the fan-out) or
// between the fan-out and a retried send (at the send). A work for everyone
// rings for all of them.
func TestAdultReleaseRingsOnlyForAdultsNow(t *testing.T) {
	w := newWorld(t)
	w.exec(`INSERT INTO works (pid, section, title, age) VALUES ('X1', 'WT', '성인 작품', 19)`)
	adults := w.members(2, "X1", true, "")
	w.setLevel(asAdult, adults...)
	unverified := w.members(1, "X1", true, "")
	minor := w.members(1, "X1", true, "")
	w.setLevel(asMinor, minor...)
	toggledOff := w.members(1, "X1", true, "")
	w.setLevel(asToggledOff, toggledOff...)
	droppedBefore := w.members(1, "X1", true, "")
	w.setLevel(asAdult, droppedBefore...)
	droppedDuring := w.members(1, "X1", true, "")
	w.setLevel(asAdult, droppedDuring...)
	// The send to droppedDuring fails once, so it is sent again later.
	w.f.Script(droppedDuring[0], pushtest.Answer{Status: 503})
	everyone := w.members(1, "W1", true, "")
	w.setLevel(asMinor, everyone...)

	w.release("X1", 1, w.clk.now().Add(time.Second))
	w.release("W1", 1, w.clk.now().Add(time.Second))
	w.setLevel(asMinor, droppedBefore...) // the level drops before the release
	run(t, w.service(func(c *push.Config) { c.RetryBase = 500 * time.Millisecond }).Worker(nil))
	w.clk.move(time.Second)
	writertest.Eventually(t, 20*time.Second, "the adults and the work for everyone notified", func() bool {
		return len(w.f.Messages(adults[0])) == 1 && len(w.f.Messages(adults[1])) == 1 && len(w.f.Messages(everyone[0])) == 1
	})
	writertest.Eventually(t, 20*time.Second, "the first try to droppedDuring", func() bool {
		return w.count(`SELECT count(*) FROM push_deliveries d JOIN push_subscriptions s ON s.id = d.sub_id
			WHERE s.endpoint = $1 AND d.attempts = 1 AND d.error <> ''`, droppedDuring[0]) == 1
	})
	w.setLevel(asToggledOff, droppedDuring...) // the toggle goes off before the retry
	writertest.Eventually(t, 20*time.Second, "the retry withheld", func() bool {
		return w.count(`SELECT count(*) FROM push_deliveries d JOIN push_subscriptions s ON s.id = d.sub_id
			WHERE s.endpoint = $1 AND d.failed_at IS NOT NULL AND d.error LIKE 'audience%'`, droppedDuring[0]) == 1
	})
	for name, eps := range map[string][]string{"never verified": unverified, "minor": minor, "toggle off": toggledOff,
		"level dropped before the release": droppedBefore, "level dropped before the retry": droppedDuring} {
		if got := len(w.f.Messages(eps[0])); got != 0 {
			t.Errorf("%s: %d notifications of an adult work", name, got)
		}
	}
	if got := w.count(`SELECT recipients FROM push_releases WHERE pid = 'X1' AND no = 1`); got != 3 {
		t.Errorf("adult release fanned out to %d members, want 3 (two adults and the one who dropped later)", got)
	}
	for _, m := range w.f.Messages("") {
		if p := payload(t, m); strings.Contains(p.Title, "성인") && (m.Endpoint != adults[0] && m.Endpoint != adults[1]) {
			t.Errorf("adult work's title reached %s", m.Endpoint)
		}
	}
}
