package member_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"storefront/contract"
	"storefront/writer/internal/writertest"
	mb "storefront/writer/member"
	"storefront/writer/staff"
)

type reviewQueue struct {
	List       []mb.ReportedReview `json:"list"`
	CurPage    int                 `json:"curPage"`
	PageCount  int                 `json:"pageCount"`
	TotalCount int                 `json:"totalCount"`
}

func queueIDs(q reviewQueue) []int64 {
	out := []int64{}
	for _, v := range q.List {
		out = append(out, v.ID)
	}
	return out
}

// TestReviewModeration: the queue of reported reviews (order, paging,
// reports), each decision with its audit row and its republished public
// list, the author's view, and who is refused.
func TestReviewModeration(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	op := e.Operator()
	mod, modID := e.Staff(op, "mod.kim", staff.RoleModerator)
	analyst, _ := e.Staff(op, "ana.lee", staff.RoleAnalyst)

	author := newMember(t, e, "author@example.com")
	write := func(body string) int64 {
		t.Helper()
		st, b := author.Do("POST", "/home/api/v1/products/W1/reviews", map[string]any{"body": body, "point": 7})
		if st != 201 {
			t.Fatalf("review: %d %s", st, b)
		}
		return decode[struct{ ID int64 }](t, b).ID
	}
	reporters := make([]member, 5)
	for i := range reporters {
		reporters[i] = newMember(t, e, fmt.Sprintf("rep%d@example.com", i))
	}
	report := func(id int64, n int, reason string) {
		t.Helper()
		for _, r := range reporters[:n] {
			if st, b := r.Do("POST", fmt.Sprintf("/home/api/v1/reviews/%d/report", id), map[string]any{"reason": reason}); st != 200 {
				t.Fatalf("report %d: %d %s", id, st, b)
			}
		}
	}
	// a: one report, first; b: five (auto-hidden), later; c: two, last;
	// d: never reported.
	a, b, c, d := write("광고입니다"), write("욕설"), write("스포일러"), write("좋은 리뷰")
	report(a, 1, "광고")
	report(b, 5, "욕설")
	report(c, 2, "스포일러")
	visible := func(id int64, want bool) {
		t.Helper()
		reviews(t, e, "W1", func(l reviewList) bool {
			return slices.ContainsFunc(l.Reviews, func(r contract.Review) bool { return r.ID == id }) == want
		})
	}
	visible(b, false)
	visible(a, true)

	queue := func(c *writertest.Client, query string) reviewQueue {
		t.Helper()
		st, body := c.Do("GET", "/admin/api/v1/reviews/reports"+query, nil)
		if st != 200 {
			t.Fatalf("queue %s: %d %s", query, st, body)
		}
		return decode[reviewQueue](t, body)
	}
	q := queue(mod, "")
	if got := queueIDs(q); !slices.Equal(got, []int64{a, b, c}) || q.TotalCount != 3 {
		t.Fatalf("oldest first: %v (total %d), want %v", got, q.TotalCount, []int64{a, b, c})
	}
	if got := queueIDs(queue(mod, "?order=most")); !slices.Equal(got, []int64{b, c, a}) {
		t.Fatalf("most reported first: %v, want %v", got, []int64{b, c, a})
	}
	first := q.List[1]
	if first.Reports != 5 || len(first.ReportList) != 5 || first.ReportList[0].Reason != "욕설" || first.State != mb.ReviewAutoHidden ||
		first.FirstReport == nil || first.UserName != "au***" || first.Title != "작품 W1" || first.Body != "욕설" {
		t.Fatalf("queue entry of b: %+v", first)
	}
	if q.List[0].State != mb.ReviewVisible || q.List[0].Reports != 1 {
		t.Fatalf("queue entry of a: %+v", q.List[0])
	}
	// The author sees which of its reviews others do not.
	authorHidden := func() []int64 {
		t.Helper()
		st, body := author.Do("GET", "/home/api/v1/products/W1/reviews/state", nil)
		if st != 200 {
			t.Fatalf("state: %d %s", st, body)
		}
		return decode[struct{ Hidden []int64 }](t, body).Hidden
	}
	if h := authorHidden(); !slices.Equal(h, []int64{b}) {
		t.Fatalf("author's hidden reviews: %v, want [%d]", h, b)
	}

	// Refusals: readers, staff without the permission, bad input. Nothing
	// changes.
	fp := func() string {
		var s string
		err := e.Pool.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM staff_audit WHERE action LIKE 'review.%')::text || '/' ||
			(SELECT count(*) FROM outbox)::text || '/' ||
			(SELECT string_agg(id || ':' || hidden || ':' || report_cnt, ',' ORDER BY id) FROM reviews) || '/' ||
			(SELECT count(*) FROM review_reports WHERE decided_at IS NOT NULL)::text`).Scan(&s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := fp()
	dec := func(id int64) string { return fmt.Sprintf("/admin/api/v1/reviews/%d/decision", id) }
	hide := map[string]any{"decision": "hide"}
	for _, tc := range []struct {
		name         string
		c            *writertest.Client
		method, path string
		body         any
		want         int
		msg          string
	}{
		{"visitor queue", e.Browser(), "GET", "/admin/api/v1/reviews/reports", nil, 401, "직원 계정으로 로그인해 주세요."},
		{"reader queue", author.Client, "GET", "/admin/api/v1/reviews/reports", nil, 401, "직원 계정으로 로그인해 주세요."},
		{"reader decides", reporters[0].Client, "POST", dec(b), hide, 401, "직원 계정으로 로그인해 주세요."},
		{"operator queue", op, "GET", "/admin/api/v1/reviews/reports", nil, 403, "권한이 없습니다"},
		{"operator decides", op, "POST", dec(b), hide, 403, "권한이 없습니다"},
		{"analyst decides", analyst, "POST", dec(b), hide, 403, "권한이 없습니다"},
		{"no decision", mod, "POST", dec(b), map[string]any{}, 400, "결정(decision)을 보내 주세요."},
		{"null decision", mod, "POST", dec(b), map[string]any{"decision": nil}, 400, "결정(decision)을 보내 주세요."},
		{"unknown decision", mod, "POST", dec(b), map[string]any{"decision": "delete"}, 400, "hide, restore, dismiss 중 하나"},
		{"decision not a string", mod, "POST", dec(b), `{"decision":1}`, 400, "형식이 올바르지 않습니다"},
		{"unknown field", mod, "POST", dec(b), map[string]any{"decision": "hide", "hidden": true}, 400, "알 수 없는 항목"},
		{"long note", mod, "POST", dec(b), map[string]any{"decision": "hide", "note": strings.Repeat("가", 501)}, 400, "메모(note)는 500자까지"},
		{"bad id", mod, "POST", "/admin/api/v1/reviews/x/decision", hide, 400, "리뷰 번호는 양의 정수여야 합니다."},
		{"zero id", mod, "POST", dec(0), hide, 400, "리뷰 번호는 양의 정수여야 합니다."},
		{"unknown id", mod, "POST", dec(999999), hide, 404, "리뷰를 찾을 수 없습니다."},
		{"restore a visible one", mod, "POST", dec(d), map[string]any{"decision": "restore"}, 409, "숨겨진 리뷰가 아닙니다."},
		{"dismiss without reports", mod, "POST", dec(d), map[string]any{"decision": "dismiss"}, 409, "처리할 신고가 없습니다."},
		{"bad status", mod, "GET", "/admin/api/v1/reviews/reports?status=all", nil, 400, "상태(status)는 open 또는 hidden"},
		{"bad order", mod, "GET", "/admin/api/v1/reviews/reports?order=newest", nil, 400, "정렬(order)은 oldest 또는 most"},
		{"bad page", mod, "GET", "/admin/api/v1/reviews/reports?page=0", nil, 400, "페이지(page)는 1부터"},
	} {
		st, body := tc.c.Do(tc.method, tc.path, tc.body)
		if st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %.200s, want %d", tc.name, st, body, tc.want)
			continue
		}
		wantMessage(t, tc.name, body, tc.msg)
	}
	if after := fp(); after != before {
		t.Fatalf("refused calls changed something: %s -> %s", before, after)
	}

	decide := func(id int64, decision, note string) string {
		t.Helper()
		st, body := mod.Do("POST", dec(id), map[string]any{"decision": decision, "note": note})
		if st != 200 {
			t.Fatalf("%s %d: %d %s", decision, id, st, body)
		}
		return decode[struct{ State string }](t, body).State
	}
	type auditRow struct {
		actorID                                 int64
		login, role, target                     string
		beforeState, afterState, note           string
		beforeReports, afterReports, outboxRows int
	}
	audit := func(action string, id int64) auditRow {
		t.Helper()
		var r auditRow
		err := e.Pool.QueryRow(context.Background(), `SELECT actor_id, actor_login, actor_role, target,
				before->>'state', (before->>'reports')::int, after->>'state', (after->>'reports')::int, coalesce(after->>'note', ''),
				(SELECT count(*) FROM outbox o WHERE o.audit_id = a.id AND o.key = 'reviews.W1')
			FROM staff_audit a WHERE action = $1 AND target = $2 ORDER BY id DESC LIMIT 1`, action, fmt.Sprintf("review:%d", id)).Scan(
			&r.actorID, &r.login, &r.role, &r.target, &r.beforeState, &r.beforeReports, &r.afterState, &r.afterReports, &r.note, &r.outboxRows)
		if err != nil {
			t.Fatalf("audit row %s of %d: %v", action, id, err)
		}
		if r.actorID != modID || r.login != "mod.kim" || r.role != staff.RoleModerator {
			t.Errorf("audit %s: actor %d %s %s", action, r.actorID, r.login, r.role)
		}
		if r.outboxRows != 1 {
			t.Errorf("audit %s: %d reviews.W1 outbox rows carry its id, want 1 (republished in the same transaction)", action, r.outboxRows)
		}
		return r
	}

	// Dismiss: b, auto-hidden by five reports, is shown again and leaves
	// the queue.
	if st := decide(b, "dismiss", "신고 사유 없음"); st != mb.ReviewVisible {
		t.Fatalf("dismiss answered state %q", st)
	}
	visible(b, true)
	if r := audit("review.dismiss", b); r.beforeState != mb.ReviewAutoHidden || r.beforeReports != 5 ||
		r.afterState != mb.ReviewVisible || r.afterReports != 0 || r.note != "신고 사유 없음" {
		t.Errorf("dismiss audit: %+v", r)
	}
	if got := queueIDs(queue(mod, "")); !slices.Equal(got, []int64{a, c}) {
		t.Fatalf("queue after dismiss: %v", got)
	}
	if h := authorHidden(); len(h) != 0 {
		t.Fatalf("author's hidden after dismiss: %v", h)
	}

	// Hide: a leaves the public list, the open queue, and is in the hidden
	// list (with its report) for a restore.
	if st := decide(a, "hide", ""); st != mb.ReviewHidden {
		t.Fatalf("hide answered state %q", st)
	}
	visible(a, false)
	if r := audit("review.hide", a); r.beforeState != mb.ReviewVisible || r.beforeReports != 1 || r.afterState != mb.ReviewHidden {
		t.Errorf("hide audit: %+v", r)
	}
	if got := queueIDs(queue(mod, "")); !slices.Equal(got, []int64{c}) {
		t.Fatalf("queue after hide: %v", got)
	}
	hq := queue(mod, "?status=hidden")
	if got := queueIDs(hq); !slices.Equal(got, []int64{a}) || hq.List[0].State != mb.ReviewHidden || hq.List[0].Reports != 1 {
		t.Fatalf("hidden list: %+v", hq)
	}
	if h := authorHidden(); !slices.Equal(h, []int64{a}) {
		t.Fatalf("author's hidden after hide: %v", h)
	}
	if st, body := mod.Do("POST", dec(a), hide); st != 409 {
		t.Fatalf("hide twice: %d %s", st, body)
	}
	// A hide is no count's: reports do not bring it back, and a dismissal
	// of new ones leaves it hidden.
	if st, body := reporters[1].Do("POST", fmt.Sprintf("/home/api/v1/reviews/%d/report", a), map[string]any{"reason": "또 광고"}); st != 200 {
		t.Fatalf("report hidden: %d %s", st, body)
	}
	if st := decide(a, "dismiss", ""); st != mb.ReviewHidden {
		t.Fatalf("dismiss of a hidden review answered %q", st)
	}
	visible(a, false)

	// Restore: back in the public list and out of the hidden list.
	if st := decide(a, "restore", ""); st != mb.ReviewVisible {
		t.Fatalf("restore answered state %q", st)
	}
	visible(a, true)
	if r := audit("review.restore", a); r.beforeState != mb.ReviewHidden || r.afterState != mb.ReviewVisible {
		t.Errorf("restore audit: %+v", r)
	}
	if hq := queue(mod, "?status=hidden"); len(hq.List) != 0 {
		t.Fatalf("hidden list after restore: %v", queueIDs(hq))
	}

	// A content manager holds the permission too.
	cm, _ := e.Staff(op, "cm.park", staff.RoleContent)
	if got := queueIDs(queue(cm, "?order=most")); !slices.Equal(got, []int64{c}) {
		t.Fatalf("content manager's queue: %v", got)
	}
}

// The queue pages by 20: the 21st reported review is on page 2.
func TestReviewQueuePages(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	mod, _ := e.Staff(e.Operator(), "mod.page", staff.RoleModerator)
	author := newMember(t, e, "author@example.com")
	reporter := newMember(t, e, "reporter@example.com")
	var ids []int64
	for i := range 21 {
		st, b := author.Do("POST", "/home/api/v1/products/W1/reviews", map[string]any{"body": fmt.Sprintf("리뷰 %d", i), "point": 5})
		if st != 201 {
			t.Fatalf("review: %d %s", st, b)
		}
		id := decode[struct{ ID int64 }](t, b).ID
		ids = append(ids, id)
		if st, b := reporter.Do("POST", fmt.Sprintf("/home/api/v1/reviews/%d/report", id), nil); st != 200 {
			t.Fatalf("report: %d %s", st, b)
		}
	}
	var got []int64
	for page := 1; page <= 3; page++ {
		st, body := mod.Do("GET", fmt.Sprintf("/admin/api/v1/reviews/reports?page=%d", page), nil)
		if st != 200 {
			t.Fatalf("page %d: %d %s", page, st, body)
		}
		q := decode[reviewQueue](t, body)
		if q.TotalCount != 21 || q.PageCount != 2 || q.CurPage != page {
			t.Fatalf("page %d: total %d, pages %d, cur %d", page, q.TotalCount, q.PageCount, q.CurPage)
		}
		if want := []int{20, 1, 0}[page-1]; len(q.List) != want {
			t.Fatalf("page %d holds %d, want %d", page, len(q.List), want)
		}
		got = append(got, queueIDs(q)...)
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("pages in order: %v, want %v", got, ids)
	}
}
