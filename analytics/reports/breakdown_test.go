package reports_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"storefront/analytics/ingest"
	"storefront/analytics/reports"
	"storefront/contract"
)

// Visits broken down by channel, referrer host and UTM campaign, source and
// medium of their first page view; their purchases follow the visit.
func TestBreakdowns(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	srv, ch := setup(t, now)
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	var evs []contract.TrackedEvent
	add := func(e contract.TrackedEvent) {
		e.V, e.ID, e.Time = 1, fmt.Sprintf("bd%d", len(evs)), t0.Add(time.Duration(len(evs))*time.Minute)
		evs = append(evs, e)
	}
	// s1 (AW) lands from KakaoTalk on a campaign link, opens a work and buys.
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s1", Channel: "AW", Route: "/",
		URL: "/?utm_source=kakao&utm_medium=social&utm_campaign=launch%20week", Referrer: "https://talk.kakao.com/x?id=1"})
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s1", Channel: "AW", Route: "/webtoon", URL: "/webtoon", Referrer: "/?utm_source=kakao"})
	add(contract.TrackedEvent{Type: contract.EvViewContent, SessionID: "s1", Channel: "AW", PID: "P1"})
	add(contract.TrackedEvent{Type: contract.EvPurchase, UID: "m1", SessionID: "s1", Channel: "AW", PID: "P1", Amount: 300})
	// s2 (AW) comes from a Naver search on the same campaign and rents.
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s2", Channel: "AW", Route: "/webtoon",
		URL: "/webtoon?utm_campaign=launch%20week&utm_source=naver", Referrer: "https://search.naver.com/search?query=my+secret"})
	add(contract.TrackedEvent{Type: contract.EvRental, UID: "m2", SessionID: "s2", Channel: "AW", PID: "P1", Amount: 100})
	// s3 (IA) types the address; s4 (AA) buys in an app screen without a page view.
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s3", Channel: "IA", Route: "/", URL: "/"})
	add(contract.TrackedEvent{Type: contract.EvPurchase, UID: "m4", SessionID: "s4", Channel: "AA", PID: "P2", Amount: 500})
	if err := ingest.InsertEvents(context.Background(), ch, evs, now); err != nil {
		t.Fatal(err)
	}
	for by, want := range map[string]string{
		"channel":  "AW:2/3/1/2/400 AA:1/0/0/1/500 IA:1/1/0/0/0 ",
		"campaign": "launch week:2/3/1/2/400 (none):1/1/0/0/0 (unknown):1/0/0/1/500 ",
		"referrer": "(none):1/1/0/0/0 (unknown):1/0/0/1/500 search.naver.com:1/1/0/1/100 talk.kakao.com:1/2/1/1/300 ",
		"source":   "(none):1/1/0/0/0 (unknown):1/0/0/1/500 kakao:1/2/1/1/300 naver:1/1/0/1/100 ",
		"medium":   "(none):2/2/0/1/100 (unknown):1/0/0/1/500 social:1/2/1/1/300 ",
	} {
		var b reports.Breakdown
		get(t, srv, "/analytics/api/v1/reports/breakdown?by="+by+"&from=2026-11-22&to=2026-11-22", token, &b)
		got := ""
		for _, r := range b.Rows {
			got += fmt.Sprintf("%s:%d/%d/%d/%d/%d ", r.Key, r.Visits, r.PageViews, r.ContentViews, r.Purchases, r.Revenue)
		}
		if got != want {
			t.Errorf("by %s = %q\nwant %q", by, got, want)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("by %s shows a referrer's query: %s", by, got)
		}
	}
	for _, bad := range []string{"breakdown?by=ip", "breakdown?limit=0"} {
		if code := get(t, srv, "/analytics/api/v1/reports/"+bad, token, nil); code != 400 {
			t.Errorf("%s: %d, want 400", bad, code)
		}
	}
}
