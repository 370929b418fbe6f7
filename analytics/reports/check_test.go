package reports_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"storefront/analytics/reports"
	"storefront/contract"
)

// liveSession is the member session the package's tests send beside the
// analyst cookie; allowAll, their stand-in for the writer, knows it alone.
const liveSession = "live-member-session"

// allowAll answers as the writer does for a live member session whose uid
// holds the analyst role, and for nothing else.
func allowAll(_ context.Context, q contract.AnalystCheck) (contract.AnalystAnswer, error) {
	if q.Session != liveSession || q.UID == "" {
		return contract.AnalystAnswer{}, nil
	}
	return contract.AnalystAnswer{OK: true, Who: q.UID}, nil
}

// The signed analyst cookie alone opens nothing: the writer is asked about
// the session behind it on every request, and its no is a 401 in the
// envelope; no answer from it is a 503, never a report. The staff cookie is
// passed on as it is. No ClickHouse: nothing here reaches a report.
func TestReportsAskTheWriterEveryTime(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	tok := contract.SignAnalyst([]byte(secret), "1000001", now.Add(time.Hour))
	var asked []contract.AnalystCheck
	answer := contract.AnalystAnswer{}
	var fail error
	check := func(_ context.Context, q contract.AnalystCheck) (contract.AnalystAnswer, error) {
		asked = append(asked, q)
		return answer, fail
	}
	mux := http.NewServeMux()
	reports.New(nil, nil, secret, check, func() time.Time { return now }, slog.New(slog.DiscardHandler)).Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	call := func(cookies ...string) (int, contract.Envelope) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+reports.Prefix+"live", nil)
		for i := 0; i+1 < len(cookies); i += 2 {
			req.AddCookie(&http.Cookie{Name: cookies[i], Value: cookies[i+1]})
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var env contract.Envelope
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%d %s: %v", res.StatusCode, b, err)
		}
		return res.StatusCode, env
	}

	// A valid analyst cookie without a member session: not even asked.
	if code, env := call(contract.AnalystCookie, tok); code != 401 || env.Header.Code != 401 || env.Header.Message != "분석가 계정으로 로그인해 주세요." {
		t.Errorf("analyst cookie alone: %d %+v", code, env)
	}
	if len(asked) != 0 {
		t.Errorf("asked the writer without a session: %+v", asked)
	}
	// With the session: asked with it and the cookie's uid; the writer says no.
	if code, _ := call(contract.AnalystCookie, tok, contract.MemberSessionCookie, "gone"); code != 401 {
		t.Errorf("session the writer refuses: %d", code)
	}
	if len(asked) != 1 || asked[0] != (contract.AnalystCheck{Session: "gone", UID: "1000001"}) {
		t.Errorf("question: %+v", asked)
	}
	// The staff cookie is the question when present.
	call(contract.StaffCookie, "staff-token", contract.AnalystCookie, tok, contract.MemberSessionCookie, "s")
	if len(asked) != 2 || asked[1] != (contract.AnalystCheck{Staff: "staff-token"}) {
		t.Errorf("staff question: %+v", asked)
	}
	// The writer cannot tell, or cannot be reached: 503, in the envelope.
	answer = contract.AnalystAnswer{Error: "unavailable"}
	if code, env := call(contract.StaffCookie, "staff-token"); code != 503 || env.Header.Code != 503 {
		t.Errorf("writer could not tell: %d %+v", code, env)
	}
	answer, fail = contract.AnalystAnswer{}, errors.New("no responders")
	if code, _ := call(contract.StaffCookie, "staff-token"); code != 503 {
		t.Errorf("writer unreachable: %d", code)
	}
}
