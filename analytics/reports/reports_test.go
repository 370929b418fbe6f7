package reports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"storefront/analytics/chschema"
	"storefront/analytics/ingest"
	"storefront/analytics/reports"
	"storefront/contract"
	"storefront/devstack/testenv"
)

const secret = "test-analyst"

// token is an analyst's cookie as the writer signs it (valid for the tests'
// whole range of clocks).
var token = contract.SignAnalyst([]byte(secret), "1000001", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))

func setup(t *testing.T, now time.Time) (*httptest.Server, driver.Conn) {
	t.Helper()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts, err := clickhouse.ParseDSN(testenv.ClickHouseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	if _, err := chschema.Migrate(ctx, ch, log); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	reports.New(ch, ch, secret, allowAll, func() time.Time { return now }, log).Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, ch
}

func get(t *testing.T, srv *httptest.Server, path, tok string, out any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	if tok != "" {
		req.AddCookie(&http.Cookie{Name: contract.AnalystCookie, Value: tok})
		req.AddCookie(&http.Cookie{Name: contract.MemberSessionCookie, Value: liveSession})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var env contract.Envelope
	if err := json.Unmarshal(b, &env); err != nil || env.Header.Code != resp.StatusCode {
		t.Fatalf("%s: status %d, body %s", path, resp.StatusCode, b)
	}
	if out != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

func TestReports(t *testing.T) {
	// 2026-11-22 14:00 UTC = 23:00 KST: a release time.
	release := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	srv, ch := setup(t, release.Add(3*time.Hour))
	var evs []contract.TrackedEvent
	n := 0
	add := func(e contract.TrackedEvent, at time.Time) {
		n++
		e.V, e.ID, e.Time = 1, fmt.Sprintf("r%d", n), at
		evs = append(evs, e)
	}
	// Visitor s1: list -> detail -> viewer -> purchase. s2: list -> detail. s3: list only.
	// m1 (member, on iOS): detail and purchase without a list view.
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s1", Channel: "AW", MemberType: "visitor", Route: "/webtoon"}, release.Add(-30*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvViewContent, SessionID: "s1", Channel: "AW", MemberType: "visitor", PID: "P1", Section: "WT", GenreID: "21"}, release.Add(time.Minute))
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s1", Channel: "AW", MemberType: "visitor", Route: "/viewer/P1/1"}, release.Add(2*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvPurchase, SessionID: "s1", Channel: "AW", PID: "P1", Section: "WT", GenreID: "21", Amount: 300, Money: "blue"}, release.Add(3*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s2", Channel: "AA", MemberType: "visitor", Route: "/comic"}, release.Add(4*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s2", Channel: "AA", MemberType: "visitor", Route: "/comic/detail/P2"}, release.Add(6*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s3", Channel: "AA", MemberType: "visitor", Route: "/"}, release.Add(7*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvViewContent, UID: "m1", Channel: "IA", MemberType: "member", PID: "P2", Section: "CM", GenreID: "24"}, release.Add(8*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvRental, UID: "m1", Channel: "IA", PID: "P2", Section: "CM", GenreID: "24", Amount: 100, Money: "ios"}, release.Add(9*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvPurchase, UID: "m1", Channel: "IA", PID: "P2", Section: "CM", GenreID: "24", Amount: 500, Money: "ios"}, release.Add(10*time.Minute))
	add(contract.TrackedEvent{Type: contract.EvCharge, UID: "m1", Channel: "IA", Amount: 10000, Money: "ios"}, release.Add(-2*time.Hour))
	if err := ingest.InsertEvents(context.Background(), ch, evs, release); err != nil {
		t.Fatal(err)
	}

	if code := get(t, srv, "/analytics/api/v1/reports/funnel", "", nil); code != 401 {
		t.Errorf("no token: %d", code)
	}
	if code := get(t, srv, "/analytics/api/v1/reports/funnel", "wrong", nil); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	other := contract.SignAnalyst([]byte("another secret"), "1000001", release.Add(time.Hour))
	expired := contract.SignAnalyst([]byte(secret), "1000001", release.Add(3*time.Hour))
	for name, tok := range map[string]string{"other secret": other, "expired": expired} {
		if code := get(t, srv, "/analytics/api/v1/reports/funnel", tok, nil); code != 401 {
			t.Errorf("%s: %d", name, code)
		}
	}
	// The catalog admin token opens nothing here.
	req, _ := http.NewRequest("GET", srv.URL+"/analytics/api/v1/reports/funnel", nil)
	req.Header.Set("Authorization", "Bearer dev-admin-token")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 401 {
		t.Errorf("admin token: %v %v", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
	for _, bad := range []string{"traffic", "traffic?at=yesterday", "traffic?at=2026-11-22T23:00:00%2B09:00&step=30s",
		"top-works?by=likes", "top-works?limit=0", "top-works?section=XX", "funnel?from=2026-13-01", "revenue?from=2026-11-22&to=2026-11-01"} {
		if code := get(t, srv, "/analytics/api/v1/reports/"+bad, token, nil); code != 400 {
			t.Errorf("%s: %d, want 400", bad, code)
		}
	}

	var traffic struct {
		Points []reports.TrafficPoint `json:"points"`
	}
	get(t, srv, "/analytics/api/v1/reports/traffic?at=2026-11-22T23:00:00%2B09:00&before=30m&after=10m&step=5m", token, &traffic)
	// Buckets from 22:30 to 23:10 KST: 8 points; 22:30 holds s1's list view,
	// 23:00 minutes 1-4, 23:05 minutes 6-9 (23:10 is past the end).
	if len(traffic.Points) != 8 {
		t.Fatalf("traffic points = %d, want 8: %+v", len(traffic.Points), traffic.Points)
	}
	got := ""
	for _, p := range traffic.Points {
		got += fmt.Sprintf("%d/%d/%d/%d ", p.PageViews, p.ContentViews, p.Purchases, p.Revenue)
	}
	if want := "1/0/0/0 0/0/0/0 0/0/0/0 0/0/0/0 0/0/0/0 0/0/0/0 2/1/1/300 2/1/1/100 "; got != want {
		t.Errorf("traffic = %q, want %q", got, want)
	}

	var top struct {
		Works []reports.WorkStat `json:"works"`
	}
	get(t, srv, "/analytics/api/v1/reports/top-works?from=2026-11-22&to=2026-11-23&by=revenue", token, &top)
	if len(top.Works) != 2 || top.Works[0].PID != "P2" || top.Works[0].Revenue != 600 || top.Works[0].Purchases != 1 || top.Works[0].Rentals != 1 ||
		top.Works[1].PID != "P1" || top.Works[1].Views != 1 {
		t.Errorf("top works = %+v", top.Works)
	}

	var funnel struct {
		Steps []reports.FunnelStep `json:"steps"`
	}
	get(t, srv, "/analytics/api/v1/reports/funnel?from=2026-11-22&to=2026-11-23", token, &funnel)
	got = ""
	for _, s := range funnel.Steps {
		got += fmt.Sprintf("%s:%d/%d ", s.Step, s.Reached, s.Through)
	}
	if want := "list:3/3 detail:3/2 viewer:1/1 purchase:2/1 "; got != want {
		t.Errorf("funnel = %q, want %q", got, want)
	}
	if c := funnel.Steps[1].Conversion; c < 0.66 || c > 0.67 {
		t.Errorf("detail conversion = %v, want 2/3", c)
	}

	var rev struct {
		Channels []reports.ChannelRevenue `json:"channels"`
	}
	get(t, srv, "/analytics/api/v1/reports/revenue?from=2026-11-22&to=2026-11-23", token, &rev)
	got = fmt.Sprint(rev.Channels)
	if want := "[{AW 0 0 1 300 0 0} {IA 1 10000 1 500 1 100}]"; got != want {
		t.Errorf("revenue = %s, want %s", got, want)
	}

	var au struct {
		Daily []reports.ActiveUsers `json:"daily"`
		Total uint64                `json:"rangeTotal"`
	}
	get(t, srv, "/analytics/api/v1/reports/active-users?from=2026-11-22&to=2026-11-23", token, &au)
	if au.Total != 4 {
		t.Errorf("active users in range = %d, want 4 (s1 s2 s3 m1)", au.Total)
	}
}

// Daily and weekly active users: an actor active on several days counts once
// in the range, and by channel and member type per day.
func TestActiveUsersDailyAndWeekly(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) // 21:00 KST, Sunday
	srv, ch := setup(t, now)
	day := func(d int) time.Time { return time.Date(2026, 11, 16+d, 3, 0, 0, 0, time.UTC) } // noon KST of Mon+d
	var evs []contract.TrackedEvent
	add := func(d int, e contract.TrackedEvent) {
		e.V, e.ID, e.Time, e.Type = 1, fmt.Sprintf("au%d", len(evs)), day(d), contract.EvPageView
		evs = append(evs, e)
	}
	// m1 (member, AW) every day; m2 (member, IA) Monday and Sunday; visitor
	// session v1 (AW) Monday twice; v2 (AW) Sunday; x (AW) the Sunday before:
	// outside the week.
	for d := range 7 {
		add(d, contract.TrackedEvent{UID: "m1", SessionID: fmt.Sprintf("m1-s%d", d), Channel: "AW", MemberType: "member"})
	}
	add(0, contract.TrackedEvent{UID: "m2", Channel: "IA", MemberType: "member"})
	add(6, contract.TrackedEvent{UID: "m2", Channel: "IA", MemberType: "member"})
	add(0, contract.TrackedEvent{SessionID: "v1", Channel: "AW", MemberType: "visitor"})
	add(0, contract.TrackedEvent{SessionID: "v1", Channel: "AW", MemberType: "visitor"})
	add(6, contract.TrackedEvent{SessionID: "v2", Channel: "AW", MemberType: "visitor"})
	add(-1, contract.TrackedEvent{SessionID: "x", Channel: "AW", MemberType: "visitor"})
	if err := ingest.InsertEvents(context.Background(), ch, evs, now); err != nil {
		t.Fatal(err)
	}
	var au struct {
		From  string                `json:"from"`
		To    string                `json:"to"`
		Daily []reports.ActiveUsers `json:"daily"`
		Range []reports.ActiveUsers `json:"rangeByChannel"`
		Total uint64                `json:"rangeTotal"`
	}
	// The default range is the last 7 KST days: Monday 16th to Sunday 22nd.
	if code := get(t, srv, "/analytics/api/v1/reports/active-users", token, &au); code != 200 {
		t.Fatalf("active users: %d", code)
	}
	if au.From != "2026-11-16" || au.To != "2026-11-22" || au.Total != 4 {
		t.Errorf("WAU %s..%s = %d, want 2026-11-16..2026-11-22 and 4 (m1 m2 v1 v2)", au.From, au.To, au.Total)
	}
	dau := map[string]uint64{}
	for _, a := range au.Daily {
		dau[a.Day+" "+a.Channel+" "+a.MemberType] = a.Users
	}
	want := map[string]uint64{
		"2026-11-16 AW member": 1, "2026-11-16 IA member": 1, "2026-11-16 AW visitor": 1,
		"2026-11-17 AW member": 1, "2026-11-18 AW member": 1, "2026-11-19 AW member": 1,
		"2026-11-20 AW member": 1, "2026-11-21 AW member": 1,
		"2026-11-22 AW member": 1, "2026-11-22 IA member": 1, "2026-11-22 AW visitor": 1,
	}
	if fmt.Sprint(dau) != fmt.Sprint(want) {
		t.Errorf("DAU = %v\nwant %v", dau, want)
	}
	got := ""
	for _, a := range au.Range {
		got += fmt.Sprintf("%s/%s:%d ", a.Channel, a.MemberType, a.Users)
	}
	if want := "AW/member:1 AW/visitor:2 IA/member:1 "; got != want {
		t.Errorf("weekly by channel = %q, want %q", got, want)
	}
	// One day: Monday only.
	get(t, srv, "/analytics/api/v1/reports/active-users?from=2026-11-16&to=2026-11-16", token, &au)
	if au.Total != 3 {
		t.Errorf("Monday's DAU = %d, want 3 (m1 m2 v1)", au.Total)
	}
}

// A work's genre comes from whichever event carried it: purchases from the
// writer may lack the genre a detail view has.
func TestTopWorksTakeSectionAndGenreFromAnyEvent(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	srv, ch := setup(t, now)
	evs := []contract.TrackedEvent{
		{V: 1, ID: "g1", Type: contract.EvPurchase, Time: now, PID: "P9", Amount: 300},
		{V: 1, ID: "g2", Type: contract.EvViewContent, Time: now, PID: "P9", Section: "CM", GenreID: "24"},
		{V: 1, ID: "g3", Type: contract.EvPurchase, Time: now, PID: "P9", Section: "CM", Amount: 200},
	}
	if err := ingest.InsertEvents(context.Background(), ch, evs, now); err != nil {
		t.Fatal(err)
	}
	var top struct {
		Works []reports.WorkStat `json:"works"`
	}
	get(t, srv, "/analytics/api/v1/reports/top-works?by=revenue", token, &top)
	if len(top.Works) != 1 || top.Works[0].Section != "CM" || top.Works[0].GenreID != "24" || top.Works[0].Revenue != 500 || top.Works[0].Purchases != 2 || top.Works[0].Views != 1 {
		t.Errorf("top works = %+v", top.Works)
	}
}

// The funnel follows a visit: a member's page views come from the edge with the
// session only; a purchase carrying both the member and the session joins it.
// A purchase without the session (made elsewhere) is the member's own actor.
func TestFunnelJoinsAVisitBySession(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	srv, ch := setup(t, now)
	var evs []contract.TrackedEvent
	add := func(e contract.TrackedEvent) {
		e.V, e.ID, e.Time = 1, fmt.Sprintf("f%d", len(evs)), now.Add(time.Duration(len(evs))*time.Minute)
		evs = append(evs, e)
	}
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s9", MemberType: "member", Route: "/webtoon"})
	add(contract.TrackedEvent{Type: contract.EvViewContent, SessionID: "s9", MemberType: "member", PID: "P1"})
	add(contract.TrackedEvent{Type: contract.EvPageView, SessionID: "s9", MemberType: "member", Route: "/viewer/"})
	add(contract.TrackedEvent{Type: contract.EvPurchase, UID: "m9", SessionID: "s9", PID: "P1", Amount: 300})
	add(contract.TrackedEvent{Type: contract.EvRental, UID: "m8", PID: "P1", Amount: 100})
	if err := ingest.InsertEvents(context.Background(), ch, evs, now); err != nil {
		t.Fatal(err)
	}
	var funnel struct {
		Steps []reports.FunnelStep `json:"steps"`
	}
	get(t, srv, "/analytics/api/v1/reports/funnel", token, &funnel)
	got := ""
	for _, s := range funnel.Steps {
		got += fmt.Sprintf("%s:%d/%d ", s.Step, s.Reached, s.Through)
	}
	if want := "list:1/1 detail:1/1 viewer:1/1 purchase:2/1 "; got != want {
		t.Errorf("funnel = %q, want %q", got, want)
	}
}

// Every report an analyst asks for is written to report_audit with who asked,
// what and how it went, before the answer leaves; a request without the
// analyst cookie writes nothing; and when the audit cannot be written the
// report is not answered.
func TestReportAudit(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	srv, ch := setup(t, now)
	ctx := context.Background()
	get(t, srv, "/analytics/api/v1/reports/funnel?from=2026-11-20&to=2026-11-22", token, nil)
	get(t, srv, "/analytics/api/v1/reports/top-works?by=likes", token, nil)
	get(t, srv, "/analytics/api/v1/reports/revenue", "", nil)
	other := contract.SignAnalyst([]byte(secret), "1000002", now.Add(time.Hour))
	get(t, srv, "/analytics/api/v1/reports/active-users", other, nil)
	rows, err := ch.Query(ctx, `SELECT toString(asked_at), uid, report, params, format, status FROM report_audit ORDER BY asked_at, uid, report`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var at, uid, report, params, format string
		var status uint16
		if err := rows.Scan(&at, &uid, &report, &params, &format, &status); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %s %q %s %d", at, uid, report, params, format, status))
	}
	rows.Close()
	want := []string{
		`2026-11-22 12:00:00 1000001 funnel "from=2026-11-20&to=2026-11-22" json 200`,
		`2026-11-22 12:00:00 1000001 top-works "by=likes" json 400`,
		`2026-11-22 12:00:00 1000002 active-users "" json 200`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("audit rows:\n%s\nwant\n%s", got, want)
	}

	// No audit, no answer.
	if err := ch.Exec(ctx, "RENAME TABLE report_audit TO report_audit_away"); err != nil {
		t.Fatal(err)
	}
	if code := get(t, srv, "/analytics/api/v1/reports/funnel", token, nil); code != 503 {
		t.Errorf("report answered without its audit row: %d", code)
	}
}
