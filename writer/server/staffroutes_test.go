package server_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"storefront/writer/internal/writertest"
	"storefront/writer/staff"
)

// TestEveryStaffRouteRefusesReadersAndStaffWithoutPermission walks the
// writer's route table (Server.Patterns), so a new admin route is covered the
// day it is registered (issue 31 item 5): every /admin/api/v1/ route but the
// sign-in routes refuses a visitor and a reader's member session (401), a
// staff member whose role lacks the route's permission (an analyst, who
// reads only settlement statements; on the provider routes a moderator: 403),
// and the old session of a removed staff member (401); none of the calls
// changes a row.
func TestEveryStaffRouteRefusesReadersAndStaffWithoutPermission(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", newWork("B1")); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	reader, _ := signupUID(t, e, "reader-at-admin@example.com")
	op := e.Operator()
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
	before := fingerprint(t, e.Pool)
	patterns := e.Srv.Patterns()
	sort.Strings(patterns)
	n := 0
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
	}
	// The moderation routes are among them (a route left out of the walk
	// would pass silently).
	for _, must := range []string{"GET /admin/api/v1/reviews/reports", "POST /admin/api/v1/reviews/{id}/decision", "GET /admin/api/v1/comments/reports", "GET /admin/api/v1/providers/{id}/settlement"} {
		found := false
		for _, p := range patterns {
			found = found || p == must
		}
		if !found {
			t.Errorf("%s is not in the route table", must)
		}
	}
	if n < 30 {
		t.Fatalf("only %d admin routes walked", n)
	}
	if after := fingerprint(t, e.Pool); after != before {
		t.Fatalf("refused staff calls changed %v", diffTables(before, after))
	}
}
