package staff_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/writer/internal/writertest"
	"storefront/writer/server"
	"storefront/writer/staff"
)

// clock is the writer's clock in these tests: sign-ins need a fresh TOTP
// step each (a code is good once), and the idle timeout is crossed by moving
// it, not by waiting.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type stack struct {
	t     *testing.T
	env   *writertest.Env
	clock *clock
}

func start(t *testing.T) *stack {
	// From the real time: analytics verifies the writer's signed analyst
	// cookie (8 hours) against its own clock (analyst_test.go), so a fixed
	// date made those tests expire at 18:00 UTC of the day it was written.
	c := &clock{t: time.Now().UTC().Truncate(time.Minute)}
	env := writertest.StartWriter(t, func(cfg *server.Config) { cfg.Now = c.Now })
	return &stack{t: t, env: env, clock: c}
}

type answer struct {
	status int
	body   []byte
	cookie string
	header http.Header
}

func (a answer) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("answer %d %s: %v", a.status, a.body, err)
	}
}

// call makes a request with the staff cookie tok (if any) and extra headers.
func (s *stack) call(method, path, tok string, body any, hdr ...string) answer {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.env.Base+"/admin/api/v1/"+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok != "" {
		req.AddCookie(&http.Cookie{Name: staff.Cookie, Value: tok})
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, body: b, header: res.Header}
	for _, c := range res.Cookies() {
		if c.Name == staff.Cookie {
			a.cookie = c.Value
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				s.t.Errorf("staff cookie not HttpOnly + SameSite=Strict: %+v", c)
			}
		}
	}
	return a
}

func (s *stack) want(a answer, status int, what string) {
	s.t.Helper()
	if a.status != status {
		s.t.Fatalf("%s: status %d, want %d: %s", what, a.status, status, a.body)
	}
}

// signIn signs in with a fresh TOTP step and returns the cookie's token.
func (s *stack) signIn(login, password, secret string) string {
	s.t.Helper()
	s.clock.Add(30 * time.Second)
	code, err := staff.TOTPCode(secret, s.clock.Now())
	if err != nil {
		s.t.Fatal(err)
	}
	a := s.call("POST", "session", "", map[string]string{"login": login, "password": password, "code": code})
	s.want(a, 200, "sign-in of "+login)
	if a.cookie == "" {
		s.t.Fatal("no staff cookie after sign-in")
	}
	return a.cookie
}

const pw = "correct horse battery staple"

// operator makes the first operator as the command does.
func (s *stack) operator() (tok string) {
	s.t.Helper()
	c, err := staff.CreateOperator(context.Background(), s.env.Pool, "root.op", "운영자", pw, "tester")
	if err != nil {
		s.t.Fatal(err)
	}
	return s.signIn("root.op", pw, c.TOTPSecret)
}

// member creates a staff account through the operator's API.
func (s *stack) member(opTok, login, role string) (id int64, secret string) {
	s.t.Helper()
	a := s.call("POST", "staff", opTok, map[string]string{"login": login, "name": login, "role": role, "password": pw})
	s.want(a, 201, "create "+login)
	var c staff.Created
	a.json(s.t, &c)
	return c.Account.ID, c.TOTPSecret
}

func TestStaffSignInRolesAuditAndRevocation(t *testing.T) {
	s := start(t)
	if a := s.call("POST", "works", "", map[string]string{"section": "WT", "title": "x"}); a.status != 401 {
		t.Fatalf("admin call without a session: %d", a.status)
	}
	op := s.operator()
	// The operator manages staff; the catalog is the content team's.
	s.want(s.call("POST", "works", op, map[string]string{"section": "WT", "title": "x"}), 403, "operator changes the catalog")
	cmID, cmSecret := s.member(op, "kim.content", staff.RoleContent)
	cm := s.signIn("kim.content", pw, cmSecret)
	s.want(s.call("POST", "staff", cm, map[string]string{"login": "x.y", "name": "x", "role": "operator", "password": pw}), 403, "content manager creates staff")
	s.want(s.call("GET", "audit", cm, nil), 403, "content manager reads the audit trail")

	a := s.call("POST", "works", cm, map[string]string{"section": "WT", "title": "첫 작품"}, "User-Agent", "staff-test/1")
	s.want(a, 201, "content manager creates a work")
	var made struct{ PID string }
	a.json(t, &made)
	s.want(s.call("PATCH", "works/"+made.PID, cm, map[string]string{"title": "고친 제목"}), 200, "rename")

	// The trail: who, role, what, target, before -> after, from where.
	var trail struct {
		Entries []staff.AuditRow `json:"entries"`
	}
	s.call("GET", "audit?actor=kim.content", op, nil).json(t, &trail)
	if len(trail.Entries) != 2 {
		t.Fatalf("audit rows of kim.content: %+v", trail.Entries)
	}
	patch := trail.Entries[0]
	if patch.Action != "PATCH works/{pid}" || patch.Target != "work:"+made.PID || patch.ActorRole != staff.RoleContent ||
		patch.ActorID == nil || *patch.ActorID != cmID || patch.IP == "" {
		t.Errorf("audit row of the rename: %+v", patch)
	}
	if !strings.Contains(string(patch.Before), `"title":"첫 작품"`) || !strings.Contains(string(patch.After), `"title":"고친 제목"`) {
		t.Errorf("before/after of the rename: %s -> %s", patch.Before, patch.After)
	}
	if trail.Entries[1].UserAgent != "staff-test/1" || trail.Entries[1].Action != "POST works" {
		t.Errorf("audit row of the creation: %+v", trail.Entries[1])
	}
	// The change's outbox rows carry the audit row's id (written in the
	// same transaction).
	if n := s.env.Count(`SELECT count(*) FROM outbox WHERE audit_id = $1`, patch.ID); n == 0 {
		t.Error("no outbox row of the rename carries its audit id")
	}

	// CSV export of the same trail.
	csvA := s.call("GET", "audit.csv?actor=kim.content", op, nil)
	s.want(csvA, 200, "audit.csv")
	if lines := strings.Split(strings.TrimSpace(string(csvA.body)), "\n"); len(lines) != 3 || !strings.Contains(lines[1], "PATCH works/{pid}") {
		t.Errorf("audit.csv:\n%s", csvA.body)
	}

	// A role change ends the person's sessions at once.
	s.want(s.call("PUT", "staff/"+itoa(cmID)+"/role", op, map[string]string{"role": staff.RoleModerator}), 200, "role change")
	s.want(s.call("GET", "session", cm, nil), 401, "old session after a role change")
	s.want(s.call("POST", "works", cm, map[string]string{"section": "WT", "title": "y"}), 401, "old session changes the catalog after a role change")
	// Signed in again as a moderator: no prices.
	mod := s.signIn("kim.content", pw, cmSecret)
	s.want(s.call("PATCH", "works/"+made.PID, mod, map[string]any{"title": "z"}), 403, "moderator changes a work")
	// ...but decides reported episode comments (issue 36), which an operator may not.
	s.want(s.call("GET", "comments/reports", mod, nil), 200, "moderator reads the comments' reports")
	s.want(s.call("GET", "comments/reports", op, nil), 403, "operator reads the comments' reports")
	// Removal ends them too.
	s.want(s.call("DELETE", "staff/"+itoa(cmID), op, nil), 200, "removal")
	s.want(s.call("GET", "session", mod, nil), 401, "session after removal")
	s.clock.Add(30 * time.Second)
	code, _ := staff.TOTPCode(cmSecret, s.clock.Now())
	s.want(s.call("POST", "session", "", map[string]string{"login": "kim.content", "password": pw, "code": code}), 401, "removed staff signs in")

	// The role change and the removal are in the trail with before/after.
	s.call("GET", "audit?target=staff:"+itoa(cmID), op, nil).json(t, &trail)
	if len(trail.Entries) != 3 || trail.Entries[1].Action != "staff.role" ||
		!strings.Contains(string(trail.Entries[1].Before), `"role":"content"`) || !strings.Contains(string(trail.Entries[1].After), `"role":"moderator"`) {
		t.Errorf("audit of staff changes: %+v", trail.Entries)
	}

	// The last operator cannot demote or remove itself.
	s.want(s.call("DELETE", "staff/1", op, nil), 409, "removing the last operator")

	// Logout ends the session on the server.
	s.want(s.call("DELETE", "session", op, nil), 200, "logout")
	s.want(s.call("GET", "audit", op, nil), 401, "session after logout")
}

func TestStaffSessionIdleTimeoutAndCSRF(t *testing.T) {
	s := start(t)
	op := s.operator()
	s.want(s.call("POST", "staff", op, map[string]string{"login": "a.b", "name": "a", "role": "analyst", "password": pw},
		"Origin", "http://evil.example"), 403, "cross-site staff creation")
	if n := s.env.Count(`SELECT count(*) FROM staff_accounts WHERE login = 'a.b'`); n != 0 {
		t.Fatal("a refused cross-site call created an account")
	}
	s.clock.Add(14 * time.Minute)
	s.want(s.call("GET", "session", op, nil), 200, "session used within the idle timeout")
	s.clock.Add(16 * time.Minute)
	s.want(s.call("GET", "session", op, nil), 401, "session idle for 16 minutes")
}

func TestStaffLoginLimits(t *testing.T) {
	s := start(t)
	c, err := staff.CreateOperator(context.Background(), s.env.Pool, "root.op", "운영자", pw, "tester")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		s.want(s.call("POST", "session", "", map[string]string{"login": "root.op", "password": "wrong password!", "code": "000000"}), 401, "wrong password")
	}
	// Past the limit even the right password and code get 429, in the envelope.
	s.clock.Add(30 * time.Second)
	code, _ := staff.TOTPCode(c.TOTPSecret, s.clock.Now())
	a := s.call("POST", "session", "", map[string]string{"login": "root.op", "password": pw, "code": code})
	s.want(a, 429, "sign-in after 5 failures")
	var env struct {
		Header struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"header"`
	}
	a.json(t, &env)
	if env.Header.Code != 429 || !strings.Contains(env.Header.Message, "로그인 시도가 너무 많습니다") {
		t.Errorf("429 envelope: %s", a.body)
	}
	// The failures were all at one moment, 30 s ago: the lock lifts 14:30 on.
	if ra := a.header.Get("Retry-After"); ra != "870" {
		t.Errorf("Retry-After %q, want 870", ra)
	}
	// The window passes: the right password and code open again.
	s.clock.Add(16 * time.Minute)
	s.signIn("root.op", pw, c.TOTPSecret)

	// Per client address (the real-IP one, here from the trusted
	// X-Forwarded-For): 20 failures over many logins lock the address.
	const guesser = "203.0.113.8"
	for i := 0; i < 20; i++ {
		s.want(s.call("POST", "session", "", map[string]string{"login": "nobody" + itoa(int64(i)), "password": "wrong password!", "code": "000000"},
			"X-Forwarded-For", guesser), 401, "wrong login")
	}
	s.clock.Add(30 * time.Second)
	code, _ = staff.TOTPCode(c.TOTPSecret, s.clock.Now())
	s.want(s.call("POST", "session", "", map[string]string{"login": "root.op", "password": pw, "code": code}, "X-Forwarded-For", guesser),
		429, "sign-in from a locked address")
	// ...and only that address: the operator signs in from its own.
	s.signIn("root.op", pw, c.TOTPSecret)
}

// TestMachineTokenGuessLimit (issue 31): wrong ADMIN_TOKEN bearers from one
// client address get 429 after IPFailures, the right token from that
// address too until the window passes, and nothing changes; the right token
// from another address keeps working.
func TestMachineTokenGuessLimit(t *testing.T) {
	s := start(t)
	const guesser, other = "203.0.113.7", "198.51.100.9"
	work := map[string]string{"section": "WT", "title": "추측"}
	unchanged := `SELECT (SELECT count(*) FROM works) + (SELECT count(*) FROM staff_audit) + (SELECT count(*) FROM outbox)`
	before := s.env.Count(unchanged)

	var got401, got429 int
	var last answer
	for i := 0; i < 300; i++ {
		a := s.call("POST", "works", "", work, "Authorization", "Bearer guess-"+itoa(int64(i)), "X-Forwarded-For", guesser)
		switch a.status {
		case 401:
			if got429 > 0 {
				t.Fatalf("guess %d: 401 after a 429", i)
			}
			got401++
		case 429:
			got429++
			last = a
		default:
			t.Fatalf("guess %d: status %d: %s", i, a.status, a.body)
		}
	}
	if got401 != 20 || got429 != 280 {
		t.Fatalf("300 wrong bearers: %d × 401, %d × 429; want 20 and 280", got401, got429)
	}
	var env struct {
		Header struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"header"`
	}
	last.json(t, &env)
	if env.Header.Code != 429 || !strings.Contains(env.Header.Message, "관리 토큰 시도가 너무 많습니다") {
		t.Errorf("429 envelope: %s", last.body)
	}
	if ra := last.header.Get("Retry-After"); ra != "900" {
		t.Errorf("Retry-After %q, want 900 (the window)", ra)
	}
	// Refused guesses write nothing, not even failure rows.
	if n := s.env.Count(`SELECT count(*) FROM staff_login_failures WHERE ip = $1`, guesser); n != 20 {
		t.Errorf("failure rows of the guesser: %d, want 20", n)
	}

	// The right token from the locked address is refused too: otherwise a
	// guess would be told apart by its status.
	right := []string{"Authorization", "Bearer tok"}
	s.want(s.call("POST", "works", "", work, append(right, "X-Forwarded-For", guesser)...), 429, "right token from the locked address")
	// So is a staff sign-in from it: one address, one lock.
	s.want(s.call("POST", "session", "", map[string]string{"login": "root.op", "password": pw, "code": "000000"}, "X-Forwarded-For", guesser),
		429, "staff sign-in from the locked address")
	if after := s.env.Count(unchanged); after != before {
		t.Fatalf("works + audit + outbox rows %d -> %d after refused bearers", before, after)
	}

	// Another address with the right token works.
	s.want(s.call("POST", "works", "", work, append(right, "X-Forwarded-For", other)...), 201, "right token from another address")

	// The lock lasts the window, to the second.
	s.clock.Add(15*time.Minute - time.Second)
	a := s.call("POST", "works", "", work, append(right, "X-Forwarded-For", guesser)...)
	s.want(a, 429, "right token 1 s before the window passes")
	if ra := a.header.Get("Retry-After"); ra != "1" {
		t.Errorf("Retry-After %q, want 1", ra)
	}
	s.clock.Add(time.Second)
	s.want(s.call("POST", "works", "", work, append(right, "X-Forwarded-For", guesser)...), 201, "right token after the window")
}

func TestMachineTokenScope(t *testing.T) {
	s := start(t)
	bearer := []string{"Authorization", "Bearer tok"}
	a := s.call("POST", "works", "", map[string]string{"section": "WT", "title": "기계"}, bearer...)
	s.want(a, 201, "machine token creates a work")
	s.want(s.call("POST", "staff", "", map[string]string{"login": "m.x", "name": "x", "role": "operator", "password": pw}, bearer...), 403, "machine token creates staff")
	s.want(s.call("GET", "audit", "", nil, bearer...), 403, "machine token reads the audit trail")
	s.want(s.call("POST", "works", "", map[string]string{"section": "WT", "title": "x"}, "Authorization", "Bearer nope"), 401, "wrong machine token")
	if n := s.env.Count(`SELECT count(*) FROM staff_audit WHERE actor_login = 'machine' AND actor_role = 'machine' AND action = 'POST works'`); n != 1 {
		t.Errorf("machine change audited %d times", n)
	}
}

// TestAuditIsAppendOnly: nothing in the product, whatever its SQL, changes
// or removes a row of the trail.
func TestAuditIsAppendOnly(t *testing.T) {
	s := start(t)
	s.operator() // its creation is audited
	ctx := context.Background()
	if n := s.env.Count(`SELECT count(*) FROM staff_audit`); n != 1 {
		t.Fatalf("audit rows: %d", n)
	}
	for _, sql := range []string{
		`UPDATE staff_audit SET actor_login = 'someone else'`,
		`DELETE FROM staff_audit`,
		`TRUNCATE staff_audit`,
	} {
		if _, err := s.env.Pool.Exec(ctx, sql); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want the append-only refusal", sql, err)
		}
	}
	if n := s.env.Count(`SELECT count(*) FROM staff_audit WHERE actor_login = 'command:tester'`); n != 1 {
		t.Errorf("audit row changed: %d", n)
	}
}

func itoa(n int64) string { return formatInt(n) }

func formatInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
