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

// Retention by first-read and by sign-up week, by channel, on a known set of
// members: every figure checked.
func TestRetentionCohorts(t *testing.T) {
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC) // Wednesday of the week of 11-23 (KST)
	srv, ch := setup(t, now)
	// noon KST of a day of 2026-11
	at := func(d int) time.Time { return time.Date(2026, 11, d, 3, 0, 0, 0, time.UTC) }
	var evs []contract.TrackedEvent
	add := func(d int, e contract.TrackedEvent) {
		e.V, e.ID, e.Time = 1, fmt.Sprintf("c%d", len(evs)), at(d).Add(time.Duration(len(evs))*time.Second)
		evs = append(evs, e)
	}
	read := func(d int, sid, channel string) {
		add(d, contract.TrackedEvent{Type: contract.EvPageView, SessionID: sid, Channel: channel, MemberType: "member", Route: "/viewer/"})
	}
	// Weeks (KST Mondays): W-1 10-26, W0 11-02, W1 11-09, W2 11-16, W3 11-23.
	// m1 (AW, session s1) reads in W0, W1 and W3.
	add(3, contract.TrackedEvent{Type: contract.EvLogin, UID: "m1", SessionID: "s1", Channel: "AW"})
	read(3, "s1", "AW")
	read(4, "s1", "AW")
	read(10, "s1", "AW")
	read(24, "s1", "AW")
	// m2 (IA, s2) reads in W0 and W2; a list page in W1 is not a read.
	add(5, contract.TrackedEvent{Type: contract.EvLogin, UID: "m2", SessionID: "s2", Channel: "IA"})
	read(5, "s2", "IA")
	add(11, contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s2", Channel: "IA", Route: "/webtoon"})
	read(17, "s2", "IA")
	// m3 (AW, s3) signs up and reads in W1, reads in W2.
	add(9, contract.TrackedEvent{Type: contract.EvSignup, UID: "m3", SessionID: "s3", Channel: "AW"})
	read(9, "s3", "AW")
	read(16, "s3", "AW")
	// m4 (AW, s4) first read in W-1: not new in W0.
	add(27, contract.TrackedEvent{Type: contract.EvLogin, UID: "m4", SessionID: "s4", Channel: "AW"})
	read(28, "s4", "AW")
	read(3, "s4", "AW")
	// m5 signs up in W0 on AA and never reads.
	add(2, contract.TrackedEvent{Type: contract.EvSignup, UID: "m5", SessionID: "s5", Channel: "AA"})
	// A visitor's reads belong to no member.
	read(3, "v9", "AW")
	read(10, "v9", "AW")
	for i := range evs {
		if evs[i].Time.Day() > 25 { // the October days
			evs[i].Time = evs[i].Time.AddDate(0, -1, 0)
		}
	}
	if err := ingest.InsertEvents(context.Background(), ch, evs, now); err != nil {
		t.Fatal(err)
	}
	show := func(rows []reports.CohortRow) string {
		s := ""
		for _, r := range rows {
			s += fmt.Sprintf("%s %s %d %v %d; ", r.Week, r.Channel, r.Members, r.Retained, r.Elapsed)
		}
		return s
	}
	var ret reports.Retention
	get(t, srv, "/analytics/api/v1/reports/retention?from=2026-11-04&to=2026-11-15", token, &ret)
	if ret.From != "2026-11-02" || ret.Cohort != "first-read" {
		t.Errorf("from %s cohort %s, want the Monday 2026-11-02 and first-read", ret.From, ret.Cohort)
	}
	if got, want := show(ret.Rows), "2026-11-02 AW 1 [1 0 1 0 0 0 0 0] 3; 2026-11-02 IA 1 [0 1 0 0 0 0 0 0] 3; 2026-11-09 AW 1 [1 0 0 0 0 0 0 0] 2; "; got != want {
		t.Errorf("first-read cohorts:\n%s\nwant\n%s", got, want)
	}
	if got, want := show(ret.Totals), "2026-11-02  2 [1 1 1 0 0 0 0 0] 3; 2026-11-09  1 [1 0 0 0 0 0 0 0] 2; "; got != want {
		t.Errorf("first-read totals:\n%s\nwant\n%s", got, want)
	}
	get(t, srv, "/analytics/api/v1/reports/retention?from=2026-11-04&to=2026-11-15&channel=IA", token, &ret)
	if got, want := show(ret.Rows), "2026-11-02 IA 1 [0 1 0 0 0 0 0 0] 3; "; got != want {
		t.Errorf("IA cohorts: %s, want %s", got, want)
	}
	get(t, srv, "/analytics/api/v1/reports/retention?from=2026-11-01&to=2026-11-15&cohort=signup", token, &ret)
	if got, want := show(ret.Rows), "2026-11-02 AA 1 [0 0 0 0 0 0 0 0] 3; 2026-11-09 AW 1 [1 0 0 0 0 0 0 0] 2; "; got != want {
		t.Errorf("sign-up cohorts:\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{"retention?cohort=visits", "retention?channel=XX", "retention?from=2026-11-31"} {
		if code := get(t, srv, "/analytics/api/v1/reports/"+bad, token, nil); code != 400 {
			t.Errorf("%s: %d, want 400", bad, code)
		}
	}
}
