package reports_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"storefront/analytics/ingest"
	"storefront/analytics/reports"
	"storefront/contract"
)

// A funnel the analyst defines, with windowFunnel on the installed
// ClickHouse: steps in order, within the window, broken down by channel.
func TestCustomFunnel(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	srv, ch := setup(t, now)
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	var evs []contract.TrackedEvent
	add := func(sid, channel string, after time.Duration, e contract.TrackedEvent) {
		e.V, e.ID, e.Time, e.SessionID, e.Channel = 1, fmt.Sprintf("fu%d", len(evs)), t0.Add(after), sid, channel
		evs = append(evs, e)
	}
	detail := contract.TrackedEvent{Type: contract.EvViewContent, PID: "P1"}
	viewer := contract.TrackedEvent{Type: contract.EvPageView, Route: "/viewer/"}
	buy := contract.TrackedEvent{Type: contract.EvPurchase, UID: "m", PID: "P1", Amount: 100}
	// a1 (AW): detail, viewer, purchase within 20 minutes: all three steps.
	add("a1", "AW", 0, detail)
	add("a1", "AW", 10*time.Minute, viewer)
	add("a1", "AW", 20*time.Minute, buy)
	// a2 (AW): detail and purchase, no viewer: the first step only.
	add("a2", "AW", 0, detail)
	add("a2", "AW", 5*time.Minute, buy)
	// a3 (IA): detail, viewer, and the purchase two hours later.
	add("a3", "IA", 0, detail)
	add("a3", "IA", time.Minute, viewer)
	add("a3", "IA", 2*time.Hour, buy)
	// a4 (IA): a viewer page before the detail does not count; the one after does.
	add("a4", "IA", 0, viewer)
	add("a4", "IA", time.Minute, detail)
	add("a4", "IA", 2*time.Minute, viewer)
	// a5 (AA): a purchase alone makes no funnel.
	add("a5", "AA", 0, buy)
	if err := ingest.InsertEvents(context.Background(), ch, evs, now); err != nil {
		t.Fatal(err)
	}
	show := func(f reports.CustomFunnel) string {
		s := ""
		for _, c := range f.Channels {
			s += fmt.Sprintf("%s%v ", c.Channel, c.Reached)
		}
		return s
	}
	var f reports.CustomFunnel
	get(t, srv, "/analytics/api/v1/reports/funnels?steps=detail,viewer,purchase&window=1h&from=2026-11-22&to=2026-11-22", token, &f)
	if got, want := show(f), "[4 3 1] AW[2 1 1] IA[2 2 0] "; got != want {
		t.Errorf("1h funnel = %q, want %q", got, want)
	}
	if f.Window != 3600 || fmt.Sprint(f.Steps) != "[detail viewer purchase]" || f.Channels[0].Conversion[1] != 0.75 {
		t.Errorf("funnel answer = %+v", f)
	}
	get(t, srv, "/analytics/api/v1/reports/funnels?steps=detail,viewer,purchase&window=3h&from=2026-11-22&to=2026-11-22", token, &f)
	if got, want := show(f), "[4 3 2] AW[2 1 1] IA[2 2 1] "; got != want {
		t.Errorf("3h funnel = %q, want %q", got, want)
	}
	// Another order of the same events.
	get(t, srv, "/analytics/api/v1/reports/funnels?steps=viewer,detail&window=1h&from=2026-11-22&to=2026-11-22", token, &f)
	if got, want := show(f), "[3 1] AW[1 0] IA[2 1] "; got != want {
		t.Errorf("viewer-detail funnel = %q, want %q", got, want)
	}
	for _, bad := range []string{"funnels?steps=detail", "funnels?steps=detail,drop_table", "funnels?steps=a,b,c,d,e,f,g,h,i",
		"funnels?steps=detail,viewer&window=0s", "funnels?steps=detail,viewer&window=200h", "funnels?steps=detail,viewer&window=x"} {
		if code := get(t, srv, "/analytics/api/v1/reports/"+bad, token, nil); code != 400 {
			t.Errorf("%s: %d, want 400", bad, code)
		}
	}
}
