package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"storefront/writer/internal/writertest"
)

// The admin role grants members coupons (compensation, promotions): a pass
// lands in the member's coupons and opens a volume; bad grants change nothing.
func TestAdminGrantsCoupons(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", newWork("G1")); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	m := e.Browser()
	st, body := m.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "grant@example.com", "password": "correct horse"})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	var me struct {
		AuthInfo struct{ UID string } `json:"authInfo"`
	}
	_ = json.Unmarshal(body, &me)
	path := "/admin/api/v1/users/" + me.AuthInfo.UID + "/coupons"
	exp := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	before := fingerprint(t, e.Pool)
	for _, c := range []struct {
		name string
		c    *writertest.Client
		path string
		body any
		want int
	}{
		{"member session", m, path, map[string]any{"kind": "pass", "count": 1, "expiresAt": exp}, 401},
		{"unknown member", e.Admin, "/admin/api/v1/users/999999/coupons", map[string]any{"kind": "pass", "count": 1, "expiresAt": exp}, 404},
		{"bad uid", e.Admin, "/admin/api/v1/users/x/coupons", map[string]any{"kind": "pass", "count": 1, "expiresAt": exp}, 400},
		{"bad kind", e.Admin, path, map[string]any{"kind": "gold", "count": 1, "expiresAt": exp}, 400},
		{"zero count", e.Admin, path, map[string]any{"kind": "pass", "count": 0, "expiresAt": exp}, 400},
		{"huge count", e.Admin, path, map[string]any{"kind": "pass", "count": 1e9, "expiresAt": exp}, 400},
		{"no expiry", e.Admin, path, map[string]any{"kind": "pass", "count": 1}, 400},
		{"read without work", e.Admin, path, map[string]any{"kind": "read", "pid": "NOPE", "count": 1, "expiresAt": exp}, 404},
		{"ticket without section", e.Admin, path, map[string]any{"kind": "ticket", "count": 1, "expiresAt": exp}, 400},
		{"malformed", e.Admin, path, `{"kind":`, 400},
		{"wrong type", e.Admin, path, `{"kind":"pass","count":"1","expiresAt":"` + exp + `"}`, 400},
	} {
		st, body := c.c.Do("POST", c.path, c.body)
		if st != c.want || writertest.Code(t, body) != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, st, body, c.want)
		}
	}
	if after := fingerprint(t, e.Pool); after != before {
		t.Fatalf("bad grants changed %v", diffTables(before, after))
	}
	if st, body := e.Admin.Do("POST", path, map[string]any{"kind": "pass", "count": 2, "expiresAt": exp, "received": true}); st != 201 {
		t.Fatalf("grant: %d %s", st, body)
	}
	// The grant's audit row (issue 31): who gave what to whom, written with it.
	var action, actor, after string
	if err := e.Pool.QueryRow(context.Background(), `SELECT action, actor_role, after::text FROM staff_audit WHERE target = $1`,
		"member:"+me.AuthInfo.UID).Scan(&action, &actor, &after); err != nil {
		t.Fatalf("the grant's audit row: %v", err)
	}
	if action != "POST users/{uid}/coupons" || actor != "machine" || !strings.Contains(after, `"kind": "pass"`) || !strings.Contains(after, `"count": 2`) {
		t.Fatalf("audit row: %s by %s after %s", action, actor, after)
	}
	_, body = m.Do("GET", "/home/api/v1/coupons?pid=G1", nil)
	var ci struct {
		PCPInfo struct{ PassCount int } `json:"PCPInfo"`
	}
	if err := json.Unmarshal(body, &ci); err != nil || ci.PCPInfo.PassCount != 2 {
		t.Fatalf("coupons after the grant: %s", body)
	}
	m.Headers = map[string]string{"Idempotency-Key": "use-pass"}
	if st, body := m.Do("POST", "/home/api/v1/coupons/use", map[string]any{"pid": "G1", "vol": 2, "kind": "pass"}); st != 200 {
		t.Fatalf("use the pass: %d %s", st, body)
	}
	m.Headers = nil
	_, body = m.Do("POST", "/protocol/api/v-1/product/download-auth.asp", writertest.Form("pid=G1&vol=2"))
	var da struct {
		IsAuth bool `json:"isAuth"`
	}
	if err := json.Unmarshal(body, &da); err != nil || !da.IsAuth {
		t.Fatalf("volume opened by the pass not readable: %s", body)
	}
	_, body = m.Do("GET", "/home/api/v1/coupons?pid=G1", nil)
	if err := json.Unmarshal(body, &ci); err != nil || ci.PCPInfo.PassCount != 1 {
		t.Fatalf("coupons after one use: %s", body)
	}
}
