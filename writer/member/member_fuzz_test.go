package member_test

// FuzzMemberAPI sends arbitrary seed payloads (form or JSON, any content type)
// to the member routes of a real writer (PostgreSQL, JetStream), as member A.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http/httptest"
	"strings"
	"testing"

	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
)

var memberFuzzRoutes = []struct{ method, path string }{
	{"POST", "/protocol/appapi/mb/user/info/zzim-add"},
	{"POST", "/protocol/appapi/mb/user/info/zzim-del"},
	{"POST", "/protocol/appapi/mb/user/info/zzim-list"},
	{"POST", "/protocol/appapi/mb/user/info/alarm-set"},
	{"POST", "/protocol/appapi/mb/user/info/user-get-info"},
	{"POST", "/protocol/appapi/mb/user/info/ticket-info"},
	{"POST", "/protocol/api/v-2/charge/charge_banner.asp"},
	{"POST", "/home/api/v1/products/fz1/reviews"},
	{"POST", "/home/api/v1/reviews/1/report"},
	{"POST", "/home/api/v1/users/recent"},
	{"POST", "/home/api/v1/users/recent/delete"},
	{"PUT", "/home/api/v1/users/reading-place/fz1"},
	{"PUT", "/home/api/v1/users/interests/genres"},
	{"POST", "/home/api/v1/cs/qna"},
	{"POST", "/protocol/appapi/mb/helpdesk/qna_list"},
	{"POST", "/pc/api/awards/1/vote"},
	// Routes that take no body (httpapi.NoBody).
	{"POST", "/home/api/v1/reviews/1/like"},
	{"POST", "/home/api/v1/reviews/1/block"},
	{"POST", "/home/api/v1/users/interests/genres/rejection"},
	{"DELETE", "/home/api/v1/users/recent"},
}

// noBodyRoute: a 2xx there needs an empty body or {}.
func noBodyRoute(path string) bool {
	return strings.HasSuffix(path, "/like") || strings.HasSuffix(path, "/block") || strings.HasSuffix(path, "/rejection")
}

// Properties: no 5xx; every refusal is the seed envelope with an agreeing
// status; a payload naming another member's uid never succeeds; member B's
// rows never change whatever A sends.
func FuzzMemberAPI(f *testing.F) {
	e := writertest.StartWriter(f, nil)
	st, body := e.Admin.Do("POST", "/admin/api/v1/works", map[string]any{"pid": "fz1", "section": "WT", "title": "퍼즈", "age": 0,
		"volumes": []map[string]any{{"no": 1, "pages": 3}, {"no": 2, "pages": 3, "buyPrice": 100}}})
	if st != 201 {
		f.Fatalf("add work: %d %s", st, body)
	}
	signup := func(email string) (cookie, uid string) {
		b := e.Browser()
		resp, body := b.Req("POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"})
		if resp.StatusCode != 201 {
			f.Fatalf("signup: %d %s", resp.StatusCode, body)
		}
		var m struct {
			AuthInfo struct{ UID string } `json:"authInfo"`
		}
		_ = json.Unmarshal(body, &m)
		var parts []string
		for _, c := range resp.Cookies() {
			parts = append(parts, c.Name+"="+c.Value)
		}
		return strings.Join(parts, "; "), m.AuthInfo.UID
	}
	cookieA, uidA := signup("fuzz-a@example.com")
	_, uidB := signup("fuzz-b@example.com")
	fingerprintB := func(t testing.TB) string {
		var s string
		err := e.Pool.QueryRow(t.Context(), `SELECT concat_ws(',',
			(SELECT count(*) FROM zzims WHERE uid = $1), (SELECT count(*) FROM alarms WHERE uid = $1),
			(SELECT count(*) FROM reviews WHERE uid = $1), (SELECT count(*) FROM recent_views WHERE uid = $1),
			(SELECT count(*) FROM interest_genres WHERE uid = $1), (SELECT count(*) FROM qna WHERE uid = $1),
			(SELECT count(*) FROM award_votes WHERE uid = $1), (SELECT count(*) FROM reading_places WHERE uid = $1),
			(SELECT md5(u::text) FROM users u WHERE uid = $1))`, uidB).Scan(&s)
		if err != nil {
			t.Fatalf("fingerprint: %v", err)
		}
		return s
	}
	before := fingerprintB(f)

	add := func(route int, body, ctype string) { f.Add(uint8(route), []byte(body), ctype) }
	add(0, "uid="+uidA+"&section=%EC%9B%B9%ED%88%B0&zzim_type=prod&pid=fz1", "application/x-www-form-urlencoded")
	add(0, `{"uid":"`+uidB+`","section":"웹툰","zzim_type":"prod","pid":"fz1"}`, "application/json")
	add(0, "uid="+uidB+"&pid=fz1", "")
	add(1, `{"uid":`+uidA+`,"idxs":[1,2,3],"zzim_type":"prod"}`, "application/json")
	add(1, "idxs=1,-2,x", "")
	add(2, "uid="+uidA+"&adultLevel=2&channel=AW&section=all&zzim_type=prod", "")
	add(3, "uid="+uidA+"&pid=fz1&isAlarm=Y", "")
	add(4, "uid="+uidA+"&channel=AW&nai=1", "")
	add(5, `{"body":"<img src=x onerror=alert(1)>","point":10,"vol":1,"isSpoiler":false}`, "application/json")
	add(5, `{"body":"'); DELETE FROM reviews;--","point":11}`, "application/json")
	add(6, `{"reason":"spam"}`, "application/json")
	add(7, `{"pid":"fz1","vol":2}`, "application/json")
	add(8, `{"pids":["fz1"],"all":false}`, "application/json")
	add(9, `{"vol":1,"page":2,"ratio":0.5}`, "application/json")
	add(10, `{"genres":["21","05"]}`, "application/json")
	add(11, `{"category":"payment","title":"\"><script>x</script>","body":"결제 문의"}`, "application/json")
	add(12, "uid="+uidB+"&page=1", "")
	add(13, `{"section":"best","pid":"fz1"}`, "application/json")
	add(0, `{"uid":["`+uidB+`"],"pid":"fz1"}`, "application/json")
	add(0, `{"uid":{"a":1}}`, "application/json; charset=utf-8")
	add(0, "uid=%zz", "application/x-www-form-urlencoded")
	// Issue 24 items 8 to 12: repeated fields, NUL, invalid UTF-8, bodies on
	// routes that take none, values outside an enum.
	add(0, "uid="+uidA+"&uid="+uidB+"&pid=fz1", "application/x-www-form-urlencoded")
	add(0, `{"uid":"`+uidA+`","uid":"`+uidB+`","pid":"fz1"}`, "application/json")
	add(0, `{"uid":"`+uidA+`","\u0075id":"`+uidB+`","pid":"fz1"}`, "application/json")
	add(2, `{"uid":"`+uidA+`","channel":"AW","adultLevel":2} trailing`, "application/json")
	add(11, `{"category":"etc","title":"\u0000","body":"b"}`, "application/json")
	add(13, "section=%00&pid=fz1", "")
	add(13, "section=%ff&pid=fz1", "")
	add(14, `{"a":`, "application/json")
	add(14, strings.Repeat("[", 20000)+strings.Repeat("]", 20000), "application/json")
	add(15, "ÿþ", "")
	add(16, `[1]`, "application/json")
	add(16, "uid="+uidB, "")
	add(17, `{"pids":"fz1","all":"x"}`, "application/json")
	add(8, "pids=fz1&pids=fz2", "")

	f.Fuzz(func(t *testing.T, route uint8, body []byte, ctype string) {
		rt := memberFuzzRoutes[int(route)%len(memberFuzzRoutes)]
		r := httptest.NewRequest(rt.method, rt.path, bytes.NewReader(body))
		r.Header.Set("Cookie", cookieA)
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		rec := httptest.NewRecorder()
		e.Srv.Handler.ServeHTTP(rec, r)
		status := rec.Code
		if status >= 500 {
			t.Fatalf("%s %s %q (%s): %d %s", rt.method, rt.path, body, ctype, status, rec.Body)
		}
		if status >= 300 {
			var env struct {
				Header struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"header"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Header.Code != status {
				t.Fatalf("%d answer is not the envelope of its status: %s", status, rec.Body)
			}
			// Readers see the message: it is Korean.
			if !testenv.Korean(env.Header.Message) {
				t.Fatalf("%s %s: message %q is not Korean", rt.method, rt.path, env.Header.Message)
			}
		}
		if status < 300 && noBodyRoute(rt.path) && len(bytes.TrimSpace(body)) > 0 && string(bytes.Join(bytes.Fields(body), nil)) != "{}" {
			t.Fatalf("%s %s takes no body but acted on %q -> %d", rt.method, rt.path, body, status)
		}
		if status < 300 && namesOther(body, ctype, uidA) {
			t.Fatalf("%s %s naming another uid succeeded: %q -> %d %s", rt.method, rt.path, body, status, rec.Body)
		}
		if got := fingerprintB(t); got != before {
			t.Fatalf("member B changed (%s -> %s) after %s %s %q", before, got, rt.method, rt.path, body)
		}
	})
}

// namesOther reports whether a payload carries a uid that is not self, the
// way the writer reads payloads (JSON object when the type says JSON, form
// otherwise).
func namesOther(body []byte, ctype, self string) bool {
	if mt, _, _ := mime.ParseMediaType(ctype); mt == "application/json" {
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if d.Decode(&m) != nil {
			return false
		}
		switch v := m["uid"].(type) {
		case nil:
			return false
		case string:
			return v != "" && strings.TrimSpace(v) != self
		case json.Number:
			return v.String() != self
		case []any:
			return len(v) != 1 || fmt.Sprint(v[0]) != self
		default:
			return true
		}
	}
	r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if r.ParseForm() != nil {
		return false
	}
	// Every uid the form gives: uid=<self>&uid=<other> names the other too.
	for _, v := range r.PostForm["uid"] {
		if v != "" && v != self {
			return true
		}
	}
	return false
}
