package server_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

// Issue 24 items 8 to 12, for every route of their kind, derived from what
// the writer serves (Server.Patterns) and what docs/openapi.yaml requires, so
// a new route is covered without anybody remembering to add it here:
//
//   - item 8: a path parameter holding NUL, a control character or invalid
//     UTF-8 is a 400 on every route with one (GET /home/api/v1/charge/%00 was
//     a 500);
//   - item 9: every field openapi.yaml lists as required, left out, is a 400
//     (PUT auto-payment with {} turned auto-payment off);
//   - item 10: a malformed body (cut JSON, 20,000-deep nesting, invalid
//     UTF-8, a bare string) is refused by every state-changing route, and a
//     route that takes no body refuses any body but {} (join-bonus with
//     {"a": claimed the bonus);
//   - item 11: a value outside a documented enum is a 400;
//   - item 12: a field given twice (form, query, query and body, a JSON key)
//     is a 400 on every route (uid=<own>&uid=<other> was read as <own>).
//
// Each refusal is the seed's envelope with the agreeing status and a Korean
// message (admin routes aside), and leaves every table as it was.
func TestEveryRouteRefusesWhatItDoesNotTake(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	e := writertest.StartWriter(t, func(c *server.Config) { c.PaymentSandbox = true; c.ContentStoreURL = t.TempDir() })
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", newWork("B1")); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	m, uid := signupUID(t, e, "refuse@example.com")
	o, ouid := signupUID(t, e, "refuse-other@example.com")
	// fresh has claimed nothing, so its join bonus, interest-genre dismissal
	// and the like would change something if a call got through.
	fresh, fuid := signupUID(t, e, "refuse-fresh@example.com")
	if st, body := m.Do("POST", "/home/api/v1/wallet/join-bonus", nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, body)
	}
	if st, body := m.Do("PUT", "/home/api/v1/wallet/auto-payment", map[string]any{"is_use": true, "type": "bluemoney-auto-payment",
		"money": 10000, "trigger_value": 1000}); st != 200 {
		t.Fatalf("auto-payment: %d %s", st, body)
	}
	st, body := m.Do("POST", "/home/api/v1/products/B1/reviews", map[string]any{"body": "좋아요", "point": 8})
	if st != 201 {
		t.Fatalf("review: %d %s", st, body)
	}
	var rv struct{ ID int64 }
	_ = json.Unmarshal(body, &rv)
	if st, body := m.Do("POST", "/home/api/v1/users/recent", map[string]any{"pid": "B1", "vol": 1}); st != 200 {
		t.Fatalf("recent: %d %s", st, body)
	}
	writertest.Eventually(t, 10*time.Second, "setup published", func() bool {
		return countRows(t, e.Pool, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`) == 0
	})
	// A path parameter's plausible value: with it (and an empty body) the
	// route would act, so a refusal is the input's doing.
	st, body = e.Admin.Do("POST", "/admin/api/v1/media/uploads", map[string]any{"size": 10, "name": "a.png"})
	if st != 201 {
		t.Fatalf("upload: %d %s", st, body)
	}
	var up struct{ Upload struct{ ID string } }
	_ = json.Unmarshal(body, &up)
	values := map[string]string{"pid": "B1", "id": fmt.Sprint(rv.ID), "orderId": "ch_x", "eid": "1", "no": "2", "uid": uid, "provider": "kakao", "n": "1", "vol": "1"}
	// A media upload's id is its own kind.
	value := func(path string) func(string) string {
		return func(n string) string {
			if n == "id" && strings.Contains(path, "/media/uploads/") {
				return up.Upload.ID
			}
			return values[n]
		}
	}
	fill := func(path string, param func(name string) string) string {
		for {
			i := strings.Index(path, "{")
			if i < 0 {
				return path
			}
			j := strings.Index(path[i:], "}") + i
			path = path[:i] + param(path[i+1:j]) + path[j+1:]
		}
	}
	op := e.Operator()
	clientFor := func(path string) *writertest.Client {
		// Staff accounts, the trail and provider contracts and statements are
		// people's, never the machine token's.
		if strings.HasPrefix(path, "/admin/api/v1/staff") || strings.HasPrefix(path, "/admin/api/v1/audit") ||
			strings.HasPrefix(path, "/admin/api/v1/providers") {
			return op
		}
		if strings.HasPrefix(path, "/admin/") {
			return e.Admin
		}
		return m
	}
	type call struct {
		name         string
		c            *writertest.Client
		method, path string
		body         any
		headers      map[string]string
		want         int
	}
	before := fingerprint(t, e.Pool)
	try := func(c call) {
		t.Helper()
		old := c.c.Headers
		c.c.Headers = c.headers
		resp, body := c.c.Req(c.method, c.path, c.body)
		c.c.Headers = old
		want := c.want
		if want == 0 && resp.StatusCode == 413 {
			want = 413 // a deep body is also over money's 16 KiB
		} else if want == 0 {
			want = 400
		}
		if resp.StatusCode != want || writertest.Code(t, body) != want {
			t.Errorf("%s: %s %s: %d %.200s, want %d", c.name, c.method, c.path, resp.StatusCode, body, c.want)
			return
		}
		if !strings.HasPrefix(c.path, "/admin/") && !strings.Contains(c.path, "/charge/webhook") {
			if msg := writertest.Message(t, body); !testenv.Korean(msg) {
				t.Errorf("%s: message %q is not Korean", c.name, msg)
			}
		}
		if after := fingerprint(t, e.Pool); after != before {
			t.Fatalf("%s: %s %s changed %v", c.name, c.method, c.path, diffTables(before, after))
		}
	}
	patterns := e.Srv.Patterns()
	sort.Strings(patterns)

	// Item 8: every path parameter of every route, with what PostgreSQL
	// cannot store or no path should hold.
	withParam := 0
	for _, p := range patterns {
		method, path, _ := strings.Cut(p, " ")
		if !strings.Contains(path, "{") {
			continue
		}
		withParam++
		for _, bad := range []string{"%00", "a%00b", "%ff", "%C0%80", "%0A", "%7F"} {
			try(call{"path " + bad, clientFor(path), method, fill(path, func(string) string { return bad }), nil, nil, 400})
		}
	}
	if withParam < 20 {
		t.Fatalf("only %d routes with a path parameter: %v", withParam, patterns)
	}

	// Item 12 (query) and item 8 (query text), on every route: a field twice,
	// NUL or invalid UTF-8 in a key or value.
	for _, p := range patterns {
		method, path, _ := strings.Cut(p, " ")
		target := fill(path, value(path))
		for _, q := range []string{"uid=" + uid + "&uid=" + ouid, "page=1&page=2", "pid=%00", "x%ff=1", "channel=%ff"} {
			try(call{"query " + q, clientFor(path), method, target + "?" + q, nil, nil, 400})
		}
	}

	// Item 10: every state-changing route refuses a malformed body, whatever
	// it takes.
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	deepObj := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	malformed := []string{`{"a":`, deep, deepObj, "{\"pid\":\"B1\xff\"}", "\xff\xfe", `"x"`, `[1]`, `{"pid":"B1"} {"pid":"B1"}`, `{"pid":"B1","pid":"B1"}`}
	for _, p := range patterns {
		method, path, _ := strings.Cut(p, " ")
		// The webhook's body is the gateway's (signed), an upload part's any bytes.
		if method == "GET" || strings.HasSuffix(path, "/charge/webhook") || strings.Contains(path, "/parts/") {
			continue
		}
		target := fill(path, value(path))
		for i, b := range malformed {
			try(call{fmt.Sprintf("malformed body %d", i), clientFor(path), method, target, b, nil, 0})
		}
	}

	// Item 10: a route that takes no body takes none. The controls after
	// the loop show each would have acted on an empty one.
	noBody := []call{
		{"join bonus", fresh, "POST", "/home/api/v1/wallet/join-bonus", nil, nil, 200},
		{"like", o, "POST", fmt.Sprintf("/home/api/v1/reviews/%d/like", rv.ID), nil, nil, 200},
		{"block", o, "POST", fmt.Sprintf("/home/api/v1/reviews/%d/block", rv.ID), nil, nil, 200},
		{"unblock", o, "DELETE", fmt.Sprintf("/home/api/v1/reviews/%d/block", rv.ID), nil, nil, 200},
		{"genre rejection", fresh, "POST", "/home/api/v1/users/interests/genres/rejection", nil, nil, 204},
		{"web version", m, "POST", "/protocol/appapi/mb/etc/version/web-version-code", nil, nil, 200},
		{"guest", e.Browser(), "POST", "/home/api/v1/auth/guest", nil, nil, 201},
		{"gift receive", m, "POST", "/home/api/v1/coupons/gifts/999/receive", nil, nil, 404},
		{"event claim", m, "POST", "/home/api/v1/coupons/events/999/claim", nil, nil, 404},
		{"review delete", m, "DELETE", fmt.Sprintf("/home/api/v1/reviews/%d", rv.ID), nil, nil, 200},
		{"admin hide work", e.Admin, "DELETE", "/admin/api/v1/works/B1", nil, nil, 200},
		{"media upload complete", e.Admin, "POST", "/admin/api/v1/media/uploads/" + up.Upload.ID + "/complete", nil, nil, 400},
		{"media upload abort", e.Admin, "DELETE", "/admin/api/v1/media/uploads/" + up.Upload.ID, nil, nil, 200},
		{"adult start", m, "POST", "/home/api/v1/auth/adult/start", nil, nil, 200},
		{"logout", fresh, "POST", "/home/api/v1/auth/logout", nil, nil, 200},
	}
	for _, c := range noBody {
		for _, b := range []any{`{"a":1}`, `{"a":`, `[]`, `null`, `0`, deep, "\xff", writertest.Form("a=1"), writertest.Form("uid=" + fuid)} {
			bad := c
			bad.name, bad.body, bad.want = "no-body route "+c.name, b, 0
			try(bad)
		}
		// {} and white space are no body.
		for _, b := range []any{`{}`, " { } \n"} {
			bad := c
			bad.name, bad.body = "no-body route "+c.name+" with {}", b
			if c.want == 200 || c.want == 201 || c.want == 204 {
				continue // tried below, where a change is expected
			}
			try(bad)
		}
	}

	// Item 11: a value outside a documented enum.
	key := map[string]string{"Idempotency-Key": "enum"}
	zz := "/protocol/appapi/mb/user/info/"
	form := func(kv ...string) writertest.Form {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return writertest.Form(v.Encode())
	}
	for _, c := range []call{
		{"recent delete all", m, "DELETE", "/home/api/v1/users/recent", `{"pids":"B1","all":"x"}`, nil, 400},
		{"recent delete all form", m, "POST", "/home/api/v1/users/recent/delete", form("pids", "B1", "all", "maybe"), nil, 400},
		{"recent delete all number", m, "POST", "/home/api/v1/users/recent/delete", `{"pids":"B1","all":2}`, nil, 400},
		{"zzim type", m, "POST", zz + "zzim-list", form("uid", uid, "zzim_type", "work"), nil, 400},
		{"zzim section", m, "POST", zz + "zzim-list", form("uid", uid, "section", "잡지"), nil, 400},
		{"zzim channel", m, "POST", zz + "zzim-list", form("uid", uid, "channel", "WEB"), nil, 400},
		{"zzim adult level", m, "POST", zz + "zzim-list", form("uid", uid, "adultLevel", "4"), nil, 400},
		{"alarm flag", m, "POST", zz + "alarm-set", form("uid", uid, "pid", "B1", "isAlarm", "sometimes"), nil, 400},
		{"user-get-info nai", m, "POST", zz + "user-get-info", form("uid", uid, "nai", "18"), nil, 400},
		{"user-get-info channel", m, "POST", zz + "user-get-info", form("uid", uid, "channel", "XX"), nil, 400},
		{"X-Channel member", m, "POST", zz + "zzim-list", form("uid", uid), map[string]string{"X-Channel": "ZZ"}, 400},
		{"X-Channel money", m, "POST", "/home/api/v1/purchases", map[string]any{"pid": "B1", "vols": []int{2}, "buyType": "B"},
			map[string]string{"Idempotency-Key": "enum", "X-Channel": "ZZ"}, 400},
		{"buy type", m, "POST", "/home/api/v1/purchases", map[string]any{"pid": "B1", "vols": []int{2}, "buyType": "X"}, key, 400},
		{"coupon kind", m, "POST", "/home/api/v1/coupons/use", map[string]any{"pid": "B1", "vol": 2, "kind": "gold"}, key, 400},
		{"auto-payment type", m, "PUT", "/home/api/v1/wallet/auto-payment", map[string]any{"is_use": true, "type": "weekly", "money": 10000, "trigger_value": 1}, nil, 400},
		{"purchases type", m, "GET", "/home/api/v1/purchases?type=gift", nil, nil, 400},
		{"coupon events kind", m, "GET", "/home/api/v1/coupons/events?kind=gold", nil, nil, 400},
		{"verify typed gender", m, "POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": "iv-x", "gender": "M"}, nil, 400},
		{"qna category", m, "POST", "/home/api/v1/cs/qna", map[string]any{"category": "gossip", "title": "t", "body": "b"}, nil, 400},
		{"recent channel", m, "GET", "/home/api/v1/users/recent?channel=XX", nil, nil, 400},
		{"toggle not a bool", m, "PUT", "/home/api/v1/auth/adult/toggle", `{"on":"Y"}`, nil, 400},
		{"spoiler not a bool", m, "POST", "/home/api/v1/products/B1/reviews", `{"body":"b","point":5,"isSpoiler":"Y"}`, nil, 400},
		{"review decision", e.Admin, "POST", fmt.Sprintf("/admin/api/v1/reviews/%d/decision", rv.ID), `{"decision":"delete"}`, nil, 400},
		{"review queue status", e.Admin, "GET", "/admin/api/v1/reviews/reports?status=all", nil, nil, 400},
		{"review queue order", e.Admin, "GET", "/admin/api/v1/reviews/reports?order=newest", nil, nil, 400},
	} {
		try(c)
	}

	// Item 12: a field twice in a form, a JSON object, or query and body.
	for _, c := range []call{
		{"form uid twice", m, "POST", zz + "zzim-add", writertest.Form("uid=" + uid + "&uid=" + ouid + "&pid=B1"), nil, 400},
		{"form uid twice, own second", m, "POST", zz + "zzim-add", writertest.Form("uid=" + ouid + "&uid=" + uid + "&pid=B1"), nil, 400},
		{"form pid twice", m, "POST", zz + "alarm-set", writertest.Form("uid=" + uid + "&pid=B1&pid=B1&isAlarm=Y"), nil, 400},
		{"form uid twice list", m, "POST", zz + "zzim-list", writertest.Form("uid=" + uid + "&uid=" + ouid), nil, 400},
		{"form uid twice info", m, "POST", zz + "user-get-info", writertest.Form("uid=" + uid + "&uid=" + ouid), nil, 400},
		{"form uid twice qna", m, "POST", "/protocol/appapi/mb/helpdesk/qna_list", writertest.Form("uid=" + uid + "&uid=" + ouid), nil, 400},
		{"form uid twice download-auth", m, "POST", "/protocol/api/v-1/product/download-auth.asp", writertest.Form("uid=" + uid + "&uid=" + ouid + "&pid=B1&vol=1"), nil, 400},
		{"form vol twice download-auth", m, "POST", "/protocol/api/v-1/product/download-auth.asp", writertest.Form("pid=B1&vol=1&vol=2"), nil, 400},
		{"form section twice vote", m, "POST", "/pc/api/awards/1/vote", writertest.Form("section=a&section=b&pid=B1"), nil, 400},
		{"form id twice hash", m, "POST", "/home/api/v1/auth/hash", writertest.Form("id=" + uid + "&id=" + ouid), nil, 400},
		{"form pids twice recent", m, "POST", "/home/api/v1/users/recent/delete", writertest.Form("pids=B1&pids=B2"), nil, 400},
		{"query and form uid", m, "POST", zz + "zzim-add?uid=" + uid, writertest.Form("uid=" + uid + "&pid=B1"), nil, 400},
		{"query and json pid", m, "POST", zz + "zzim-add?pid=B1", map[string]any{"uid": uid, "pid": "B1"}, nil, 400},
		{"json uid twice", m, "POST", zz + "zzim-add", `{"uid":"` + uid + `","uid":"` + ouid + `","pid":"B1"}`, nil, 400},
		{"json uid twice escaped", m, "POST", zz + "zzim-add", `{"uid":"` + uid + `","\u0075id":"` + ouid + `","pid":"B1"}`, nil, 400},
		{"json uid twice money", m, "POST", "/home/api/v1/purchases", `{"uid":"` + uid + `","pid":"B1","vols":[2],"buyType":"B","uid":"` + ouid + `"}`, key, 400},
		{"json uid twice download-auth", m, "POST", "/protocol/api/v-1/product/download-auth.asp", `{"uid":"` + uid + `","uid":"` + ouid + `","pid":"B1","vol":1}`, nil, 400},
		{"json is_use twice", m, "PUT", "/home/api/v1/wallet/auto-payment", `{"is_use":true,"is_use":false}`, nil, 400},
		{"json nested key twice", e.Admin, "PATCH", "/admin/api/v1/works/B1", `{"volumes":[{"no":1,"no":2}]}`, nil, 400},
		{"json NUL", m, "POST", "/home/api/v1/cs/qna", `{"category":"etc","title":"a\u0000b","body":"b"}`, nil, 400},
		{"form NUL", m, "POST", "/pc/api/awards/1/vote", writertest.Form("section=a%00&pid=B1"), nil, 400},
		{"form bad UTF-8", m, "POST", "/pc/api/awards/1/vote", writertest.Form("section=%ff&pid=B1"), nil, 400},
		{"json NUL review", m, "POST", "/home/api/v1/products/B1/reviews", `{"body":"\u0000","point":5}`, nil, 400},
		{"json NUL verify", m, "POST", "/home/api/v1/auth/adult/verify", `{"identityVerificationId":"iv-\u0000"}`, nil, 400},
		{"json NUL report", o, "POST", fmt.Sprintf("/home/api/v1/reviews/%d/report", rv.ID), `{"reason":"\u0000"}`, nil, 400},
		{"json NUL admin", e.Admin, "POST", "/admin/api/v1/keywords", `{"name":"k\u0000"}`, nil, 400},
	} {
		try(c)
	}

	// Item 9: every required field of every request body openapi.yaml
	// documents, left out or null. valid holds a body each route takes.
	valid := map[string]map[string]any{
		"POST /home/api/v1/products/{pid}/reviews":                      {"body": "좋아요", "point": 8},
		"POST /home/api/v1/contents/comic/honey-benefit":                {"eid": 1},
		"POST /home/api/v1/contents/comic/heroism/coupons":              {"eid": 1},
		"POST /home/api/v1/auth/signup":                                 {"email": "new@example.com", "password": "correct horse"},
		"POST /home/api/v1/auth/login":                                  {"email": "refuse@example.com", "password": "correct horse"},
		"POST /home/api/v1/auth/adult/verify":                           {"identityVerificationId": "iv-x"},
		"PUT /home/api/v1/auth/adult/toggle":                            {"on": true},
		"POST /protocol/appapi/mb/user/info/zzim-add":                   {"uid": uid, "pid": "B1", "zzim_type": "prod"},
		"POST /protocol/appapi/mb/user/info/alarm-set":                  {"uid": uid, "pid": "B1", "isAlarm": "Y"},
		"POST /home/api/v1/users/recent":                                {"pid": "B1", "vol": 2},
		"PUT /home/api/v1/users/reading-place/{pid}":                    {"vol": 1, "page": 1},
		"POST /home/api/v1/users/reading-place/{pid}":                   {"vol": 1, "page": 1},
		"PUT /home/api/v1/users/interests/genres":                       {"genres": []map[string]any{{"integratedGenreId": "05", "isSelected": true}}},
		"POST /home/api/v1/cs/qna":                                      {"category": "etc", "title": "제목", "body": "내용"},
		"POST /pc/api/awards/{eid}/vote":                                {"section": "a", "pid": "B1"},
		"PUT /home/api/v1/wallet/auto-payment":                          {"is_use": false, "type": "bluemoney-auto-payment", "money": 10000, "trigger_value": 1000},
		"POST /home/api/v1/charge/requests":                             {"amount": 10000},
		"POST /home/api/v1/charge/confirm":                              {"orderId": "ch_x", "paymentKey": "pk", "amount": 10000},
		"POST /home/api/v1/wallet/cards":                                {"customerKey": "cus_x", "authKey": "bln_x"},
		"POST /home/api/v1/purchases":                                   {"pid": "B1", "vols": []int{2}, "buyType": "R"},
		"POST /protocol/api/v-1/product/download-auth.asp":              {"pid": "B1", "vol": 1},
		"POST /home/api/v1/coupons/use":                                 {"pid": "B1", "vol": 2, "kind": "pass"},
		"POST /admin/api/v1/works":                                      {"pid": "B7", "section": "WT", "title": "새 작품", "genreId": "05"},
		"POST /admin/api/v1/authors":                                    {"name": "작가"},
		"PATCH /admin/api/v1/authors/{id}":                              {"name": "작가"},
		"POST /admin/api/v1/users/{uid}/coupons":                        {"kind": "pass", "count": 1, "expiresAt": "2099-01-01T00:00:00Z"},
		"POST /admin/api/v1/events":                                     {"kind": "bluerun", "title": "t", "startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z"},
		"PUT /admin/api/v1/events/{id}":                                 {"kind": "bluerun", "title": "t", "startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z"},
		"POST /admin/api/v1/awards":                                     {"title": "t", "sections": []any{}, "startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z"},
		"PUT /admin/api/v1/awards/{id}":                                 {"title": "t", "sections": []any{}, "startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z"},
		"POST /admin/api/v1/faq":                                        {"cid": "01000", "question": "q", "answer": "a"},
		"PUT /admin/api/v1/faq/{id}":                                    {"cid": "01000", "question": "q", "answer": "a"},
		"POST /admin/api/v1/notices":                                    {"kind": "notice", "title": "t"},
		"PUT /admin/api/v1/notices/{id}":                                {"kind": "notice", "title": "t"},
		"POST /admin/api/v1/banners":                                    {"place": "main", "title": "t", "startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z"},
		"PUT /admin/api/v1/banners/{id}":                                {"place": "main", "title": "t", "startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z"},
		"POST /admin/api/v1/keywords":                                   {"name": "k"},
		"POST /admin/api/v1/media/uploads":                              {"size": 10, "name": "a.png"},
		"POST /admin/api/v1/media/jobs":                                 {"target": "volume", "pid": "B1", "no": 2, "uploads": []string{up.Upload.ID}},
		"PUT /admin/api/v1/keywords/{id}":                               {"name": "k"},
		"PUT /admin/api/v1/users/{uid}/role":                            {"role": "analyst"},
		"POST /home/api/v1/products/{pid}/episodes/{vol}/comments":      {"body": "재밌어요"},
		"PUT /admin/api/v1/comments/{id}/hidden":                        {"hidden": true},
		"PUT /admin/api/v1/products/{pid}/episodes/{vol}/comments/note": {"note": "작가의 말"},
		"PUT /admin/api/v1/products/{pid}/episodes/{vol}/comments/pin":  {"id": 0},
		"POST /admin/api/v1/reviews/{id}/decision":                      {"decision": "hide"},
		"POST /home/api/v1/appmoney/google/receipts":                    {"packageName": "com.storefront.app", "productId": "bluemoney_1000", "purchaseToken": "t"},
		"POST /home/api/v1/appmoney/apple/receipts":                     {"transactionId": "2000000812345001"},
		"POST /home/api/v1/appmoney/google/notifications":               {"message": map[string]any{"data": "e30=", "messageId": "1"}},
		"POST /home/api/v1/appmoney/apple/notifications":                {"signedPayload": "e30.e30.e30"},
	}
	required := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil || len(op.Tags) == 0 || (op.Tags[0] != "writer" && op.Tags[0] != "admin") {
				continue
			}
			for ct, mt := range op.RequestBody.Value.Content {
				if mt.Schema == nil || mt.Schema.Value == nil || len(mt.Schema.Value.Required) == 0 || strings.HasSuffix(path, "/charge/webhook") {
					continue
				}
				name := method + " " + path
				body, ok := valid[name]
				if !ok {
					t.Errorf("%s has required fields %v: add a valid body to this test", name, mt.Schema.Value.Required)
					continue
				}
				target := fill(path, value(path))
				for _, f := range mt.Schema.Value.Required {
					required++
					for _, null := range []bool{false, true} {
						b := map[string]any{}
						for k, v := range body {
							b[k] = v
						}
						delete(b, f)
						what := "without"
						if null {
							b[f], what = nil, "null"
						}
						var sent any = b
						if ct == "application/x-www-form-urlencoded" {
							if null {
								continue
							}
							v := url.Values{}
							for k, x := range b {
								v.Set(k, fmt.Sprint(x))
							}
							sent = writertest.Form(v.Encode())
						}
						try(call{fmt.Sprintf("%s %s (%s)", what, f, ct), clientFor(path), method, target, sent, key, 400})
					}
				}
			}
		}
	}
	if required < 60 {
		t.Fatalf("only %d required fields tried", required)
	}

	// Controls: the routes acted on an empty body, so the refusals above were
	// the body's doing (and the fingerprint sees a change).
	for _, c := range noBody {
		c.c.Headers = c.headers
		st, body := c.c.Req(c.method, c.path, nil)
		c.c.Headers = nil
		if st.StatusCode != c.want {
			t.Errorf("control %s with no body: %d %s, want %d", c.name, st.StatusCode, body, c.want)
		}
	}
	if fingerprint(t, e.Pool) == before {
		t.Fatal("fingerprint blind to the controls")
	}
}
