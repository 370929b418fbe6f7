package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"storefront/writer/internal/writertest"
	"storefront/writer/server"
	"storefront/writer/staff"
)

// TestEveryStaffRouteRefusesReadersAndStaffWithoutPermission walks the
// writer's route table (Server.Patterns), so a new admin route is covered the
// day it is registered (issue 31 item 5): every /admin/api/v1/ route but the
// sign-in routes refuses a visitor and a reader's member session (401), a
// staff member whose role lacks the route's permission (an analyst, who
// reads only settlement statements; on the provider routes a moderator: 403),
// the old session of a removed staff member (401), and a provider account
// given another provider's work, provider id, upload and job in every path
// parameter, query and body that names one (403: the partner portal's
// routes reach it, so this is where its scope is proven per route); none of
// the calls changes a row.
func TestEveryStaffRouteRefusesReadersAndStaffWithoutPermission(t *testing.T) {
	t.Parallel()
	// A content store, so that the media routes reach their scope checks
	// (without one they answer 503 to everyone the guard lets in).
	e := writertest.StartWriter(t, func(c *server.Config) { c.ContentStoreURL = t.TempDir() })
	for _, pid := range []string{"B1", "B2"} {
		if st, body := e.Admin.Do("POST", "/admin/api/v1/works", newWork(pid)); st != 201 {
			t.Fatalf("create %s: %d %s", pid, st, body)
		}
	}
	reader, _ := signupUID(t, e, "reader-at-admin@example.com")
	op := e.Operator()
	// Two providers: pa owns B1 (whose ids fill the paths), pb owns B2 and
	// is the one that tries them.
	for _, pv := range [][2]string{{"pa", "B1"}, {"pb", "B2"}} {
		if st, body := op.Do("PUT", "/admin/api/v1/providers/"+pv[0], map[string]any{"name": pv[0], "rateBp": 6000}); st != 200 {
			t.Fatalf("contract %s: %d %s", pv[0], st, body)
		}
		if st, body := op.Do("PUT", "/admin/api/v1/providers/"+pv[0]+"/works/"+pv[1], nil); st != 200 {
			t.Fatalf("assign %s: %d %s", pv[1], st, body)
		}
	}
	pa, _ := e.StaffOf(op, "prov.a", staff.RoleProvider, "pa")
	pb, _ := e.StaffOf(op, "prov.b", staff.RoleProvider, "pb")
	st, body := pa.Do("POST", "/admin/api/v1/media/uploads", map[string]any{"size": 10, "name": "1화.zip"})
	if st != 201 {
		t.Fatalf("pa's upload: %d %s", st, body)
	}
	var up struct {
		Upload struct{ ID string } `json:"upload"`
	}
	if err := json.Unmarshal(body, &up); err != nil {
		t.Fatal(err)
	}
	// A finished job of pa's work (written as the worker leaves one: the
	// walk must not race a worker).
	var jobID int64
	if err := e.Pool.QueryRow(context.Background(), `INSERT INTO media_jobs (target, pid, no, originals, kinds, state, not_before, created_at, updated_at)
		VALUES ('volume', 'B1', 1, '{}', '{}', 'failed', now(), now(), now()) RETURNING id`).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	// pb's own calls work: the refusals below are about whose, not what.
	if st, body := pb.Do("GET", "/admin/api/v1/works/B2", nil); st != 200 {
		t.Fatalf("pb reads its own work: %d %s", st, body)
	}
	if st, body := pb.Do("GET", "/admin/api/v1/media/jobs?pid=B2", nil); st != 200 {
		t.Fatalf("pb lists its own jobs: %d %s", st, body)
	}
	analyst, _ := e.Staff(op, "ana.routes", staff.RoleAnalyst)
	moderator, _ := e.Staff(op, "mod.routes", staff.RoleModerator)
	removed, removedID := e.Staff(op, "mod.removed", staff.RoleModerator)
	if st, body := removed.Do("GET", "/admin/api/v1/reviews/reports", nil); st != 200 {
		t.Fatalf("moderator before removal: %d %s", st, body)
	}
	if st, body := op.Do("DELETE", fmt.Sprintf("/admin/api/v1/staff/%d", removedID), nil); st != 200 {
		t.Fatalf("remove: %d %s", st, body)
	}
	fill := func(path string) string {
		for {
			i := strings.Index(path, "{")
			if i < 0 {
				return path
			}
			j := strings.Index(path[i:], "}") + i
			v := "1"
			if path[i+1:j] == "pid" {
				v = "B1"
			}
			path = path[:i] + v + path[j+1:]
		}
	}
	// otherOf fills a path with pa's ids, for pb.
	otherOf := func(path string) string {
		for k, v := range map[string]string{"{pid}": "B1", "media/uploads/{id}": "media/uploads/" + up.Upload.ID,
			"media/jobs/{id}": fmt.Sprintf("media/jobs/%d", jobID), "providers/{id}": "providers/pa"} {
			path = strings.ReplaceAll(path, k, v)
		}
		return fill(path)
	}
	// Only this route names no work, provider, upload or job: it starts a
	// provider's own upload (tried above).
	ownOnly := map[string]bool{"POST /admin/api/v1/media/uploads": true}
	before := fingerprint(t, e.Pool)
	patterns := e.Srv.Patterns()
	sort.Strings(patterns)
	n, nOther := 0, 0
	for _, p := range patterns {
		method, path, _ := strings.Cut(p, " ")
		if !strings.HasPrefix(path, "/admin/api/v1/") || path == "/admin/api/v1/session" {
			continue
		}
		n++
		target := fill(path)
		var body any
		if method != "GET" && method != "DELETE" {
			body = map[string]any{}
		}
		// Analysts read settlement statements (writer/settlement): there a
		// moderator is the staff member without the permission.
		lacking, lackingWho := analyst, "analyst"
		if strings.HasPrefix(path, "/admin/api/v1/providers") {
			lacking, lackingWho = moderator, "moderator"
		}
		for _, c := range []struct {
			who  string
			c    *writertest.Client
			want int
		}{
			{"visitor", e.Browser(), 401},
			{"reader", reader, 401},
			{lackingWho, lacking, 403},
			{"removed moderator", removed, 401},
		} {
			st, answer := c.c.Do(method, target, body)
			if st != c.want || writertest.Code(t, answer) != c.want {
				t.Errorf("%s: %s %s: %d %.200s, want %d", c.who, method, target, st, answer, c.want)
			}
		}
		if ownOnly[p] {
			continue
		}
		nOther++
		other := otherOf(path)
		otherBody := body
		switch p {
		case "GET /admin/api/v1/media/jobs":
			other += "?pid=B1"
		case "POST /admin/api/v1/media/jobs":
			otherBody = map[string]any{"target": "volume", "pid": "B1", "no": 1, "uploads": []string{up.Upload.ID}}
		}
		if st, answer := pb.Do(method, other, otherBody); st != 403 || writertest.Code(t, answer) != 403 {
			t.Errorf("other provider: %s %s: %d %.200s, want 403", method, other, st, answer)
		}
	}
	// pb's own upload cannot be made into a job of pa's work either, and
	// pa's upload not into one of pb's.
	if st, answer := pb.Do("POST", "/admin/api/v1/media/jobs", map[string]any{"target": "volume", "pid": "B2", "no": 1, "uploads": []string{up.Upload.ID}}); st != 403 {
		t.Errorf("pb with pa's upload: %d %.200s, want 403", st, answer)
	}
	// The moderation routes are among them (a route left out of the walk
	// would pass silently).
	for _, must := range []string{"PUT /admin/api/v1/works/{pid}/volumes/{no}", "GET /admin/api/v1/media/jobs/{id}", "PUT /admin/api/v1/media/uploads/{id}/parts/{n}", "GET /admin/api/v1/reviews/reports", "POST /admin/api/v1/reviews/{id}/decision", "GET /admin/api/v1/comments/reports", "GET /admin/api/v1/providers/{id}/settlement"} {
		found := false
		for _, p := range patterns {
			found = found || p == must
		}
		if !found {
			t.Errorf("%s is not in the route table", must)
		}
	}
	if n < 30 || nOther != n-len(ownOnly) {
		t.Fatalf("only %d admin routes walked, %d by another provider", n, nOther)
	}
	if after := fingerprint(t, e.Pool); after != before {
		t.Fatalf("refused staff calls changed %v", diffTables(before, after))
	}
}
