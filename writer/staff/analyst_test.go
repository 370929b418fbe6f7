package staff_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	analytics "storefront/analytics/server"
	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
	"storefront/writer/staff"
)

// startAnalytics runs an analytics node on the writer's NATS: its reports
// ask this writer whether a session is an analyst's (issue 31).
func (s *stack) startAnalytics() string {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a, err := analytics.New(ctx, analytics.Config{Addr: "127.0.0.1:0", NATSURL: s.env.NATS.URL, ClickHouseURL: testenv.ClickHouseURL(s.t)}, writertest.Log())
	if err != nil {
		cancel()
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	s.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			s.t.Errorf("analytics run: %v", err)
		}
	})
	return "http://" + a.Addr()
}

// live asks analytics for the live report with these cookies (name, value
// pairs) and returns the status, checking a refusal's envelope.
func (s *stack) live(base string, cookies ...string) int {
	s.t.Helper()
	req, _ := http.NewRequest("GET", base+"/analytics/api/v1/reports/live", nil)
	for i := 0; i+1 < len(cookies); i += 2 {
		req.AddCookie(&http.Cookie{Name: cookies[i], Value: cookies[i+1]})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		var env contract.Envelope
		if err := json.Unmarshal(b, &env); err != nil || env.Header.Code != res.StatusCode {
			s.t.Fatalf("refusal %d not in the envelope: %s", res.StatusCode, b)
		}
		if res.StatusCode == 401 && env.Header.Message != "분석가 계정으로 로그인해 주세요." {
			s.t.Errorf("401 message: %q", env.Header.Message)
		}
	}
	return res.StatusCode
}

// Staff analysts: the reports open with a live analyst session and close
// the moment it ends — logout, a role change, a removal — with the very
// cookie that opened them a moment before. No clock is moved.
func TestStaffAnalystAccessEndsAtOnce(t *testing.T) {
	s := start(t)
	base := s.startAnalytics()
	op := s.operator()
	_, aSecret := s.member(op, "lee.analyst", staff.RoleAnalyst)
	bID, bSecret := s.member(op, "park.analyst", staff.RoleAnalyst)
	cID, cSecret := s.member(op, "choi.analyst", staff.RoleAnalyst)
	s.member(op, "kim.content", staff.RoleContent)

	if st := s.live(base); st != 401 {
		t.Fatalf("no cookie: %d", st)
	}
	if st := s.live(base, staff.Cookie, "made-up"); st != 401 {
		t.Fatalf("made-up staff token: %d", st)
	}
	// Another role's live session opens no report.
	if st := s.live(base, staff.Cookie, op); st != 401 {
		t.Fatalf("operator's session: %d", st)
	}

	a := s.signIn("lee.analyst", pw, aSecret)
	if st := s.live(base, staff.Cookie, a); st != 200 {
		t.Fatalf("analyst's live report: %d", st)
	}
	s.want(s.call("DELETE", "session", a, nil), 200, "analyst logout")
	if st := s.live(base, staff.Cookie, a); st != 401 {
		t.Fatalf("after logout: %d", st)
	}

	b := s.signIn("park.analyst", pw, bSecret)
	if st := s.live(base, staff.Cookie, b); st != 200 {
		t.Fatalf("second analyst: %d", st)
	}
	s.want(s.call("PUT", "staff/"+itoa(bID)+"/role", op, map[string]string{"role": staff.RoleModerator}), 200, "role change")
	if st := s.live(base, staff.Cookie, b); st != 401 {
		t.Fatalf("after the role change: %d", st)
	}
	// Signed in again, now a moderator: still no reports.
	if st := s.live(base, staff.Cookie, s.signIn("park.analyst", pw, bSecret)); st != 401 {
		t.Fatalf("as a moderator: %d", st)
	}

	c := s.signIn("choi.analyst", pw, cSecret)
	if st := s.live(base, staff.Cookie, c); st != 200 {
		t.Fatalf("third analyst: %d", st)
	}
	s.want(s.call("DELETE", "staff/"+itoa(cID), op, nil), 200, "removal")
	if st := s.live(base, staff.Cookie, c); st != 401 {
		t.Fatalf("after removal: %d", st)
	}
}

// Members given the analyst role (the older way, PUT users/{uid}/role): the
// signed sf_analyst cookie lasts 8 hours, but it opens the reports only
// beside the member's live session while the role is held. Replayed after
// logout or after the role is taken back, it is refused at once.
func TestMemberAnalystCookieEndsWithSessionAndRole(t *testing.T) {
	s := start(t)
	base := s.startAnalytics()
	analyst := func(email string) (*writertest.Client, []string) {
		t.Helper()
		b := s.env.Browser()
		st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"})
		if st != 201 {
			t.Fatalf("signup: %d %s", st, body)
		}
		var m struct {
			AuthInfo struct {
				UID string `json:"uid"`
			} `json:"authInfo"`
		}
		_ = json.Unmarshal(body, &m)
		if st, body := s.env.Admin.Do("PUT", "/admin/api/v1/users/"+m.AuthInfo.UID+"/role", map[string]string{"role": "analyst"}); st != 200 {
			t.Fatalf("grant analyst: %d %s", st, body)
		}
		b.Do("GET", "/home/api/v1/auth/me", nil) // hands the analyst cookie out
		k, sess := b.Cookie(contract.AnalystCookie), b.Cookie(contract.MemberSessionCookie)
		if k == nil || sess == nil {
			t.Fatal("analyst without analyst or session cookie")
		}
		return b, []string{contract.AnalystCookie, k.Value, contract.MemberSessionCookie, sess.Value, "uid", m.AuthInfo.UID}
	}

	b1, c1 := analyst("one@example.com")
	if st := s.live(base, c1[:4]...); st != 200 {
		t.Fatalf("member analyst's live report: %d", st)
	}
	// The analyst cookie alone (no session beside it) opens nothing.
	if st := s.live(base, c1[:2]...); st != 401 {
		t.Fatalf("analyst cookie without its session: %d", st)
	}
	if st, _ := b1.Do("POST", "/home/api/v1/auth/logout", nil); st != 200 {
		t.Fatalf("logout: %d", st)
	}
	if st := s.live(base, c1[:4]...); st != 401 {
		t.Fatalf("old cookies after logout: %d", st)
	}

	_, c2 := analyst("two@example.com")
	if st := s.live(base, c2[:4]...); st != 200 {
		t.Fatalf("second member analyst: %d", st)
	}
	// Another member's live session beside this analyst cookie: refused.
	b3, c3 := analyst("three@example.com")
	_ = b3
	if st := s.live(base, c2[0], c2[1], c3[2], c3[3]); st != 401 {
		t.Fatalf("analyst cookie with another member's session: %d", st)
	}
	if st, body := s.env.Admin.Do("PUT", "/admin/api/v1/users/"+c2[5]+"/role", map[string]string{"role": "member"}); st != 200 {
		t.Fatalf("withdraw: %d %s", st, body)
	}
	if st := s.live(base, c2[:4]...); st != 401 {
		t.Fatalf("old cookies after the role was taken back: %d", st)
	}
}
