package reports_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/analytics/ingest"
	"storefront/contract"
)

// Every report as CSV: the parameters in the file name, the columns of the
// JSON answer, the same figures; the export is audited as csv.
func TestCSVExport(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	srv, ch := setup(t, now)
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	evs := []contract.TrackedEvent{
		{Type: contract.EvLogin, UID: "m1", SessionID: "s1", Channel: "AW"},
		{Type: contract.EvPageView, SessionID: "s1", Channel: "AW", Route: "/webtoon", URL: "/webtoon?utm_campaign=%ED%95%9C%EA%B8%80"},
		{Type: contract.EvViewContent, SessionID: "s1", Channel: "AW", PID: "P1", Section: "WT", GenreID: "21"},
		{Type: contract.EvPageView, SessionID: "s1", Channel: "AW", Route: "/viewer/"},
		{Type: contract.EvPurchase, UID: "m1", SessionID: "s1", Channel: "AW", PID: "P1", Section: "WT", Amount: 300},
	}
	for n := range evs {
		evs[n].V, evs[n].ID, evs[n].Time = 1, fmt.Sprintf("x%d", n), t0.Add(time.Duration(n)*time.Minute)
	}
	if err := ingest.InsertEvents(context.Background(), ch, evs, now); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, file, csv string }{
		{"top-works?from=2026-11-22&to=2026-11-22&by=revenue&limit=5", "top-works_from-2026-11-22_to-2026-11-22_by-revenue_limit-5.csv",
			"rank,pid,section,genreId,views,purchases,rentals,revenue\n1,P1,WT,21,1,1,0,300\n"},
		{"traffic?at=2026-11-22T10:00:00%2B09:00&before=0m&after=10m&step=5m", "traffic_at-2026-11-22T10_00_00_09_00_step-5m_after-10m_before-0m.csv",
			"t,pageViews,contentViews,purchases,revenue\n2026-11-22T01:00:00Z,2,1,1,300\n2026-11-22T01:05:00Z,0,0,0,0\n"},
		{"funnel?from=2026-11-22&to=2026-11-22", "funnel_from-2026-11-22_to-2026-11-22.csv",
			"step,reached,through,conversion\nlist,1,1,1.0000\ndetail,1,1,1.0000\nviewer,1,1,1.0000\npurchase,1,1,1.0000\n"},
		{"revenue?from=2026-11-22&to=2026-11-22", "revenue_from-2026-11-22_to-2026-11-22.csv",
			"channel,charges,chargeAmount,purchases,purchaseAmount,rentals,rentalAmount\nAW,0,0,1,300,0,0\n"},
		{"active-users?from=2026-11-22&to=2026-11-22", "active-users_from-2026-11-22_to-2026-11-22.csv",
			"day,channel,memberType,users\n2026-11-22,AW,,2\nrange,AW,,2\nrange,,,2\n"},
		{"retention?from=2026-11-16&to=2026-11-22", "retention_from-2026-11-16_to-2026-11-22_cohort-first-read.csv",
			"week,channel,members,week1,week2,week3,week4,week5,week6,week7,week8,elapsedWeeks\n2026-11-16,AW,1,0,0,0,0,0,0,0,0,0\n2026-11-16,all,1,0,0,0,0,0,0,0,0,0\n"},
		{"funnels?steps=detail,purchase&window=30m&from=2026-11-22&to=2026-11-22", "funnels_from-2026-11-22_to-2026-11-22_steps-detail-purchase_window-1800s.csv",
			"channel,step,kind,reached,conversion\nall,1,detail,1,1.0000\nall,2,purchase,1,1.0000\nAW,1,detail,1,1.0000\nAW,2,purchase,1,1.0000\n"},
		{"breakdown?by=campaign&from=2026-11-22&to=2026-11-22", "breakdown_from-2026-11-22_to-2026-11-22_by-campaign.csv",
			"campaign,visits,pageViews,contentViews,purchases,revenue\n한글,1,2,1,1,300\n"},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/analytics/api/v1/reports/"+c.path+"&format=csv", nil)
		req.AddCookie(&http.Cookie{Name: contract.AnalystCookie, Value: token})
		req.AddCookie(&http.Cookie{Name: contract.MemberSessionCookie, Value: liveSession})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Errorf("%s: %d %s %s", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), b)
			continue
		}
		if got, want := resp.Header.Get("Content-Disposition"), `attachment; filename="`+c.file+`"`; got != want {
			t.Errorf("%s: %s, want %s", c.path, got, want)
		}
		body, bom := strings.CutPrefix(string(b), "\ufeff")
		if !bom || body != c.csv {
			t.Errorf("%s: csv\n%s\nwant\n%s", c.path, b, c.csv)
		}
		if _, err := csv.NewReader(strings.NewReader(body)).ReadAll(); err != nil {
			t.Errorf("%s: not CSV: %v", c.path, err)
		}
	}
	var n uint64
	if err := ch.QueryRow(context.Background(), "SELECT count() FROM report_audit WHERE format = 'csv' AND status = 200 AND uid = '1000001'").Scan(&n); err != nil || n != 8 {
		t.Errorf("csv exports audited: %d %v, want 8", n, err)
	}
	if code := get(t, srv, "/analytics/api/v1/reports/nothing?format=csv", token, nil); code != 404 {
		t.Errorf("unknown report as csv: %d", code)
	}
}
