package member_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
)

type member struct {
	*writertest.Client
	uid string
}

func newMember(t *testing.T, e *writertest.Env, email string) member {
	t.Helper()
	b := e.Browser()
	st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	var m struct {
		AuthInfo struct{ UID string } `json:"authInfo"`
	}
	_ = json.Unmarshal(body, &m)
	return member{b, m.AuthInfo.UID}
}

func addWork(t *testing.T, e *writertest.Env, pid, section string, age int) {
	t.Helper()
	st, body := e.Admin.Do("POST", "/admin/api/v1/works", map[string]any{"pid": pid, "section": section, "title": "작품 " + pid, "age": age,
		"authors": []map[string]any{{"authorId": 77, "authorName": "작가", "isWriter": true}},
		"volumes": []map[string]any{{"no": 1, "pages": 3}, {"no": 2, "pages": 3, "buyPrice": 100}}})
	if st != 201 {
		t.Fatalf("add work: %d %s", st, body)
	}
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

func form(kv ...string) writertest.Form {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return writertest.Form(v.Encode())
}

type zzimList struct {
	ZzimList []struct {
		ID  int64  `json:"id"`
		PID string `json:"pid"`
	} `json:"zzimList"`
}

func product(t *testing.T, e *writertest.Env, pid string, ok func(contract.Product) bool) contract.Product {
	t.Helper()
	b := writertest.WaitKV(t, e.KV, contract.ProductKey(pid), 5*time.Second, func(b []byte) bool {
		var p contract.Product
		return json.Unmarshal(b, &p) == nil && ok(p)
	})
	var p contract.Product
	_ = json.Unmarshal(b, &p)
	return p
}

const zz = "/protocol/appapi/mb/user/info/"

func TestZzim(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	addWork(t, e, "N1", "EB", 0)
	addWork(t, e, "A1", "WT", 19)
	m := newMember(t, e, "zzim@example.com")
	st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "section", "웹툰", "zzim_type", "prod", "pid", "W1"))
	if st != 200 || writertest.Code(t, body) != 200 {
		t.Fatalf("zzim-add: %d %s", st, body)
	}
	idx := decode[struct{ Idx int64 }](t, body).Idx
	if idx == 0 {
		t.Fatalf("no idx: %s", body)
	}
	// Adding again answers the same entry and counts once.
	_, body = m.Do("POST", zz+"zzim-add", map[string]any{"uid": m.uid, "section": "웹툰", "zzim_type": "prod", "pid": "W1"})
	if decode[struct{ Idx int64 }](t, body).Idx != idx {
		t.Fatalf("second add made a new entry: %s", body)
	}
	product(t, e, "W1", func(p contract.Product) bool { return p.ZzimCount == 1 })
	for _, pid := range []string{"N1", "A1"} {
		if st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "zzim_type", "prod", "pid", pid)); st != 200 {
			t.Fatalf("add %s: %d %s", pid, st, body)
		}
	}
	list := func(f writertest.Form) []string {
		st, body := m.Do("POST", zz+"zzim-list", f)
		if st != 200 {
			t.Fatalf("zzim-list: %d %s", st, body)
		}
		var out []string
		for _, z := range decode[zzimList](t, body).ZzimList {
			out = append(out, z.PID)
		}
		return out
	}
	// Unverified member: the adult work stays out even if the payload claims level 2.
	if got := list(form("uid", m.uid, "adultLevel", "2", "channel", "AW")); strings.Join(got, ",") != "N1,W1" {
		t.Fatalf("zzim-list all: %v", got)
	}
	if got := list(form("uid", m.uid, "section", "소설")); strings.Join(got, ",") != "N1" {
		t.Fatalf("zzim-list novels: %v", got)
	}
	// Authors.
	if st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "zzim_type", "author", "pid", "77")); st != 200 {
		t.Fatalf("author add: %d %s", st, body)
	}
	if got := list(form("uid", m.uid, "zzim_type", "author")); strings.Join(got, ",") != "77" {
		t.Fatalf("author list: %v", got)
	}

	// Bad input: 4xx envelope, nothing changed.
	other := newMember(t, e, "other@example.com")
	before := e.Count(`SELECT count(*) FROM zzims`)
	visitor := e.Browser()
	for _, tc := range []struct {
		name string
		c    *writertest.Client
		path string
		body any
		want int
	}{
		{"other uid", other.Client, "zzim-add", form("uid", m.uid, "zzim_type", "prod", "pid", "W1"), 403},
		{"other uid del", other.Client, "zzim-del", form("uid", m.uid, "idxs", fmt.Sprint(idx), "zzim_type", "prod"), 403},
		{"other uid list", other.Client, "zzim-list", form("uid", m.uid), 403},
		{"visitor", visitor, "zzim-add", form("pid", "W1"), 401},
		{"missing pid", m.Client, "zzim-add", form("uid", m.uid, "zzim_type", "prod"), 400},
		{"unknown pid", m.Client, "zzim-add", form("uid", m.uid, "pid", "NOPE"), 404},
		{"bad type", m.Client, "zzim-add", form("uid", m.uid, "zzim_type", "x", "pid", "W1"), 400},
		{"section mismatch", m.Client, "zzim-add", form("uid", m.uid, "section", "소설", "pid", "W1"), 400},
		{"unknown author", m.Client, "zzim-add", form("uid", m.uid, "zzim_type", "author", "pid", "999"), 404},
		{"malformed json", m.Client, "zzim-add", `{"uid":`, 400},
		{"wrong type", m.Client, "zzim-add", `{"uid":"` + m.uid + `","pid":{"a":1}}`, 400},
		{"oversized", m.Client, "zzim-add", `{"pid":"` + strings.Repeat("x", 2<<20) + `"}`, 413},
		{"bad idxs", m.Client, "zzim-del", form("uid", m.uid, "idxs", "a,b"), 400},
		{"no idxs", m.Client, "zzim-del", form("uid", m.uid), 400},
		{"bad level", m.Client, "zzim-list", form("uid", m.uid, "adultLevel", "x"), 400},
	} {
		st, body := tc.c.Do("POST", zz+tc.path, tc.body)
		if st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %.200s, want %d", tc.name, st, body, tc.want)
		}
		// Readers see the message: Korean, and for some cases these words.
		wantMessage(t, tc.name, body, map[string]string{
			"other uid":        "로그인한 회원의 요청이 아닙니다.",
			"visitor":          "로그인이 필요한 서비스입니다.",
			"missing pid":      "필수 항목(pid)이 없습니다.",
			"unknown pid":      "작품을 찾을 수 없습니다.",
			"bad type":         "찜 종류(zzim_type)",
			"section mismatch": "작품의 분류(section)와 맞지 않습니다.",
			"unknown author":   "작가를 찾을 수 없습니다.",
			"oversized":        "요청 내용이 너무 큽니다.",
			"bad idxs":         "찜 번호(idxs)가 올바르지 않습니다.",
		}[tc.name])
	}
	if after := e.Count(`SELECT count(*) FROM zzims`); after != before {
		t.Fatalf("bad input changed zzim entries: %d -> %d", before, after)
	}
	// Another member's idx is not theirs to delete.
	other.Do("POST", zz+"zzim-del", form("uid", other.uid, "idxs", fmt.Sprint(idx)))
	if e.Count(`SELECT count(*) FROM zzims WHERE idx = $1`, idx) != 1 {
		t.Fatal("a member deleted another member's zzim entry")
	}
	if st, body := m.Do("POST", zz+"zzim-delete", map[string]any{"uid": m.uid, "idxs": []int64{idx}, "zzim_type": "prod"}); st != 200 {
		t.Fatalf("zzim-del: %d %s", st, body)
	}
	if got := list(form("uid", m.uid)); strings.Join(got, ",") != "N1" {
		t.Fatalf("after delete: %v", got)
	}
	product(t, e, "W1", func(p contract.Product) bool { return p.ZzimCount == 0 })
	// Business events reached EVENTS.
	cons, err := e.JS.OrderedConsumer(context.Background(), contract.EventsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{contract.BizSubject(contract.EvZzim)}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	writertest.Eventually(t, 5*time.Second, "zzim events", func() bool {
		b, err := cons.FetchNoWait(100)
		if err == nil {
			for range b.Messages() {
				n++
			}
		}
		return n >= 5
	})
}

func TestAlarmSet(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	m := newMember(t, e, "alarm@example.com")
	isAlarm := func(f writertest.Form) bool {
		st, body := m.Do("POST", zz+"alarm-set", f)
		if st != 200 {
			t.Fatalf("alarm-set: %d %s", st, body)
		}
		return decode[struct{ IsAlarm bool }](t, body).IsAlarm
	}
	// purchases/status carries the member's alarm state, which the detail
	// page shows after a reload (the edge's cached detail is false for everyone).
	statusAlarm := func(who member) bool {
		t.Helper()
		st, body := who.Do("GET", "/home/api/v1/purchases/status?pid=W1", nil)
		on := decode[struct{ IsAlarm *bool }](t, body).IsAlarm
		if st != 200 || on == nil {
			t.Fatalf("status without isAlarm: %d %s", st, body)
		}
		return *on
	}
	if statusAlarm(m) {
		t.Fatal("status: alarm on before any alarm-set")
	}
	if !isAlarm(form("uid", m.uid, "pid", "W1", "isAlarm", "Y")) || !statusAlarm(m) {
		t.Fatal("explicit alarm on not applied or not in status")
	}
	if isAlarm(form("uid", m.uid, "pid", "W1", "isAlarm", "N")) || statusAlarm(m) {
		t.Fatal("explicit alarm off not applied or not in status")
	}
	if !isAlarm(form("uid", m.uid, "pid", "W1")) || !statusAlarm(m) {
		t.Fatal("toggle did not turn the alarm on")
	}
	// Another member's alarm is theirs alone.
	if other := newMember(t, e, "alarm-other@example.com"); statusAlarm(other) {
		t.Fatal("status: another member sees this member's alarm")
	}
	if st, _ := m.Do("POST", zz+"alarm-set", form("uid", m.uid, "pid", "W1", "isAlarm", "maybe")); st != 400 {
		t.Fatalf("bad value: %d", st)
	}
	if st, _ := m.Do("POST", zz+"alarm-set", form("uid", "1", "pid", "W1")); st != 403 {
		t.Fatalf("other uid: %d", st)
	}
}

type reviewList struct {
	Reviews []contract.Review `json:"reviews"`
}

func reviews(t *testing.T, e *writertest.Env, pid string, ok func(reviewList) bool) reviewList {
	t.Helper()
	b := writertest.WaitKV(t, e.KV, contract.KeyReviews+pid, 5*time.Second, func(b []byte) bool {
		var l reviewList
		return json.Unmarshal(b, &l) == nil && ok(l)
	})
	var l reviewList
	_ = json.Unmarshal(b, &l)
	return l
}

func TestReviews(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	author := newMember(t, e, "writer@example.com")
	st, body := author.Do("POST", "/home/api/v1/products/W1/reviews", map[string]any{"body": "재밌어요", "point": 9, "vol": 2})
	if st != 201 {
		t.Fatalf("review add: %d %s", st, body)
	}
	id := decode[struct{ ID int64 }](t, body).ID
	l := reviews(t, e, "W1", func(l reviewList) bool { return len(l.Reviews) == 1 })
	if l.Reviews[0].ID != id || l.Reviews[0].Point != 9 || l.Reviews[0].UserName != "wr***" || l.Reviews[0].IsBuyerReview {
		t.Fatalf("review doc: %+v", l.Reviews[0])
	}
	product(t, e, "W1", func(p contract.Product) bool { return p.ReviewCount == 1 && p.PointSum == 9 })

	reader := newMember(t, e, "reader@example.com")
	like := func(c *writertest.Client) (bool, int) {
		st, body := c.Do("POST", fmt.Sprintf("/home/api/v1/reviews/%d/like", id), nil)
		if st != 200 {
			t.Fatalf("like: %d %s", st, body)
		}
		v := decode[struct {
			IsMyLike bool
			LikeCnt  int
		}](t, body)
		return v.IsMyLike, v.LikeCnt
	}
	if mine, cnt := like(reader.Client); !mine || cnt != 1 {
		t.Fatalf("like: %v %d", mine, cnt)
	}
	reviews(t, e, "W1", func(l reviewList) bool { return l.Reviews[0].LikeCnt == 1 })
	// Floor 0: a count that is already 0 stays 0 when the like is taken back.
	if _, err := e.Pool.Exec(context.Background(), `UPDATE reviews SET like_cnt = 0`); err != nil {
		t.Fatal(err)
	}
	if mine, cnt := like(reader.Client); mine || cnt != 0 {
		t.Fatalf("unlike at 0: %v %d", mine, cnt)
	}
	st, body = reader.Do("GET", "/home/api/v1/products/W1/reviews/state", nil)
	if st != 200 || !strings.Contains(string(body), `"myLikes":[]`) {
		t.Fatalf("state: %d %s", st, body)
	}
	if st, _ := reader.Do("POST", fmt.Sprintf("/home/api/v1/reviews/%d/block", id), nil); st != 200 {
		t.Fatalf("block: %d", st)
	}
	_, body = reader.Do("GET", "/home/api/v1/products/W1/reviews/state", nil)
	if !strings.Contains(string(body), fmt.Sprintf(`"blocked":[%d]`, id)) {
		t.Fatalf("block not in state: %s", body)
	}
	// Five reports hide the review from everybody.
	for i := range 5 {
		r := newMember(t, e, fmt.Sprintf("rep%d@example.com", i))
		if st, body := r.Do("POST", fmt.Sprintf("/home/api/v1/reviews/%d/report", id), map[string]any{"reason": "spam"}); st != 200 {
			t.Fatalf("report: %d %s", st, body)
		}
	}
	reviews(t, e, "W1", func(l reviewList) bool { return len(l.Reviews) == 0 })

	// Bad input and other members' reviews.
	before := e.Count(`SELECT count(*) FROM reviews`)
	for _, tc := range []struct {
		name         string
		c            *writertest.Client
		method, path string
		body         any
		want         int
	}{
		{"visitor", e.Browser(), "POST", "/home/api/v1/products/W1/reviews", map[string]any{"body": "x", "point": 5}, 401},
		{"no body", reader.Client, "POST", "/home/api/v1/products/W1/reviews", map[string]any{"point": 5}, 400},
		{"point 0", reader.Client, "POST", "/home/api/v1/products/W1/reviews", map[string]any{"body": "x", "point": 0}, 400},
		{"point huge", reader.Client, "POST", "/home/api/v1/products/W1/reviews", map[string]any{"body": "x", "point": 1e9}, 400},
		{"wrong type", reader.Client, "POST", "/home/api/v1/products/W1/reviews", `{"body":"x","point":"5"}`, 400},
		{"unknown field", reader.Client, "POST", "/home/api/v1/products/W1/reviews", `{"body":"x","point":5,"uid":1}`, 400},
		{"malformed", reader.Client, "POST", "/home/api/v1/products/W1/reviews", `{"body":`, 400},
		{"unknown pid", reader.Client, "POST", "/home/api/v1/products/NOPE/reviews", map[string]any{"body": "x", "point": 5}, 404},
		{"unknown vol", reader.Client, "POST", "/home/api/v1/products/W1/reviews", map[string]any{"body": "x", "point": 5, "vol": 99}, 404},
		{"delete other's", reader.Client, "DELETE", fmt.Sprintf("/home/api/v1/reviews/%d", id), nil, 403},
		{"like unknown", reader.Client, "POST", "/home/api/v1/reviews/999999/like", nil, 404},
		{"like bad id", reader.Client, "POST", "/home/api/v1/reviews/x/like", nil, 400},
	} {
		st, body := tc.c.Do(tc.method, tc.path, tc.body)
		if st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %.200s, want %d", tc.name, st, body, tc.want)
		}
		// Readers see the message: Korean, and for some cases these words.
		wantMessage(t, tc.name, body, map[string]string{
			"no body":        "리뷰 내용을 입력해 주세요.",
			"point 0":        "별점(point)은 1부터 10까지입니다.",
			"wrong type":     "항목(point)의 형식이 올바르지 않습니다.",
			"unknown field":  `알 수 없는 항목입니다. ("uid")`,
			"malformed":      "요청 형식(JSON)이 올바르지 않습니다.",
			"unknown vol":    "회차를 찾을 수 없습니다. (99화)",
			"delete other's": "내가 쓴 리뷰가 아닙니다.",
			"like unknown":   "리뷰를 찾을 수 없습니다.",
		}[tc.name])
	}
	if after := e.Count(`SELECT count(*) FROM reviews WHERE NOT deleted`); after != before {
		t.Fatalf("bad input changed reviews")
	}
	if st, body := author.Do("DELETE", fmt.Sprintf("/home/api/v1/reviews/%d", id), nil); st != 200 {
		t.Fatalf("delete own: %d %s", st, body)
	}
	product(t, e, "W1", func(p contract.Product) bool { return p.ReviewCount == 0 && p.PointSum == 0 })
}

func TestRecentlyViewed(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	addWork(t, e, "W2", "CM", 0)
	m := newMember(t, e, "recent@example.com")
	for _, pid := range []string{"W1", "W2"} {
		if st, body := m.Do("POST", "/home/api/v1/users/recent", map[string]any{"pid": pid, "vol": 2}); st != 200 {
			t.Fatalf("view: %d %s", st, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	type page struct {
		List       []struct{ PID, Title, Unit string } `json:"list"`
		TotalCount int                                 `json:"totalCount"`
	}
	_, body := m.Do("GET", "/home/api/v1/users/recent?page=1", nil)
	p := decode[page](t, body)
	if p.TotalCount != 2 || p.List[0].PID != "W2" || p.List[0].Title != "작품 W2" {
		t.Fatalf("recent list: %s", body)
	}
	// A comic is counted in 권, a webtoon in 화: the list says which.
	if p.List[0].Unit != "권" || p.List[1].Unit != "화" {
		t.Fatalf("recent units: %s", body)
	}
	if st, _ := m.Do("POST", "/home/api/v1/users/recent/delete", map[string]any{"pids": []string{"W2"}}); st != 200 {
		t.Fatal("delete")
	}
	_, body = m.Do("GET", "/home/api/v1/users/recent", nil)
	if p := decode[page](t, body); p.TotalCount != 1 || p.List[0].PID != "W1" {
		t.Fatalf("after delete: %s", body)
	}
	for name, tc := range map[string]struct {
		method, path string
		body         any
		want         int
	}{
		"unknown pid": {"POST", "/home/api/v1/users/recent", map[string]any{"pid": "NOPE"}, 404},
		"negative":    {"POST", "/home/api/v1/users/recent", map[string]any{"pid": "W1", "vol": -1}, 400},
		"bad page":    {"GET", "/home/api/v1/users/recent?page=x", nil, 400},
		"no pids":     {"POST", "/home/api/v1/users/recent/delete", map[string]any{}, 400},
	} {
		if st, body := m.Do(tc.method, tc.path, tc.body); st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %s", name, st, body)
		}
	}
	if st, _ := e.Browser().Do("GET", "/home/api/v1/users/recent", nil); st != 401 {
		t.Fatalf("visitor: %d", st)
	}
}

func TestInterestGenres(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	m := newMember(t, e, "genres@example.com")
	type state struct {
		IsConfigured bool
		ShowsPopup   bool
		Genres       []struct {
			ID         string `json:"integratedGenreId"`
			IsSelected bool
		}
	}
	get := func(path string) state {
		st, body := m.Do("GET", path, nil)
		if st != 200 {
			t.Fatalf("%s: %d %s", path, st, body)
		}
		return decode[state](t, body)
	}
	if s := get("/home/api/v1/users/interests/genres/exists"); s.IsConfigured || !s.ShowsPopup {
		t.Fatalf("fresh member: %+v", s)
	}
	if st, body := m.Do("POST", "/home/api/v1/users/interests/genres/rejection", nil); st != 204 || len(body) != 0 {
		t.Fatalf("rejection: %d %s", st, body)
	}
	if s := get("/home/api/v1/users/interests/genres/exists"); s.ShowsPopup {
		t.Fatal("popup shown after rejection")
	}
	st, body := m.Do("PUT", "/home/api/v1/users/interests/genres", map[string]any{"genres": []map[string]any{
		{"integratedGenreId": "21", "isSelected": true}, {"integratedGenreId": "05", "isSelected": false}}})
	if st != 201 {
		t.Fatalf("put: %d %s", st, body)
	}
	s := get("/home/api/v1/users/interests/genres")
	sel := map[string]bool{}
	for _, g := range s.Genres {
		sel[g.ID] = g.IsSelected
	}
	if !s.IsConfigured || !sel["21"] || sel["05"] || len(s.Genres) != len(contract.Genres) {
		t.Fatalf("after put: %+v", s)
	}
	for name, body := range map[string]string{
		"unknown id": `{"genres":[{"integratedGenreId":"99","isSelected":true}]}`,
		"twice":      `{"genres":[{"integratedGenreId":"21","isSelected":true},{"integratedGenreId":"21","isSelected":false}]}`,
		"missing":    `{}`,
		"wrong type": `{"genres":"21"}`,
	} {
		if st, resp := m.Do("PUT", "/home/api/v1/users/interests/genres", body); st != 400 || writertest.Code(t, resp) != 400 {
			t.Errorf("%s: %d %s", name, st, resp)
		}
	}
	if s := get("/home/api/v1/users/interests/genres"); !sel["21"] || !s.IsConfigured {
		t.Fatal("bad input changed the selection")
	}
	if st, _ := e.Browser().Do("GET", "/home/api/v1/users/interests/genres", nil); st != 401 {
		t.Fatalf("visitor: %d", st)
	}
}

func TestUserGetInfoAndProfile(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	type info struct {
		Info struct {
			BlueMoney int64 `json:"bluemoney"`
			NewGift   bool  `json:"new_gift"`
			JoinBonus struct {
				Valid  bool   `json:"valid"`
				ImgURL string `json:"img_url"`
			} `json:"join_bonus"`
			FirstBill struct {
				ImgURL string `json:"img_url"`
			} `json:"firstbill"`
		} `json:"info"`
		AutoPaymentInfo map[string]any `json:"auto_payment_info"`
	}
	visitor := e.Browser()
	st, body := visitor.Do("POST", zz+"user-get-info", form("channel", "AW", "nai", "0"))
	if v := decode[info](t, body); st != 200 || !v.Info.NewGift || v.Info.BlueMoney != 0 || v.AutoPaymentInfo == nil {
		t.Fatalf("visitor side info: %d %s", st, body)
	}
	m := newMember(t, e, "info@example.com")
	st, body = m.Do("POST", zz+"user-get-info", form("uid", m.uid, "channel", "AW", "nai", "19"))
	if v := decode[info](t, body); st != 200 || !v.Info.JoinBonus.Valid || v.Info.NewGift || v.Info.JoinBonus.ImgURL != "" {
		t.Fatalf("member side info: %d %s", st, body)
	}
	// The banners' pictures are those of the running join and first-charge
	// events (processed uploads), not addresses of their own.
	now := time.Now()
	exec(t, e, `INSERT INTO events (eid, kind, title, body, banner_url, start_at, end_at) VALUES
		(2050, 'join', '가입', '', '/media/aa', $1, $2), (2051, 'firstcharge', '첫 충전', '', '/media/bb', $1, $2),
		(2052, 'join', '지난 가입', '', '/media/cc', $3, $1)`, now.Add(-time.Hour), now.Add(time.Hour), now.Add(-48*time.Hour))
	st, body = m.Do("POST", zz+"user-get-info", form("uid", m.uid, "channel", "AW", "nai", "19"))
	if v := decode[info](t, body); st != 200 || v.Info.JoinBonus.ImgURL != "/media/aa" || v.Info.FirstBill.ImgURL != "/media/bb" {
		t.Fatalf("side info's banner pictures: %d %s", st, body)
	}
	if st, _ := m.Do("POST", zz+"user-get-info", form("uid", "12345", "channel", "AW")); st != 403 {
		t.Fatalf("other uid: %d", st)
	}
	if st, _ := m.Do("POST", zz+"user-get-info", form("uid", m.uid, "nai", "7")); st != 400 {
		t.Fatalf("bad nai: %d", st)
	}
	if st, _ := visitor.Do("POST", zz+"user-get-info", form("uid", m.uid)); st != 401 {
		t.Fatalf("visitor claiming a uid: %d", st)
	}
	// An app guest (loginType D) has an account but gets the guest defaults
	// (seed §7), never a member's wallet or bonus offers.
	guest := e.Browser()
	st, body = guest.Do("POST", "/home/api/v1/auth/guest", nil)
	g := decode[struct {
		AuthInfo struct{ UID, LoginType string } `json:"authInfo"`
	}](t, body)
	if st != 201 || g.AuthInfo.LoginType != "D" || g.AuthInfo.UID == "" {
		t.Fatalf("guest: %d %s", st, body)
	}
	st, body = guest.Do("POST", zz+"user-get-info", form("uid", g.AuthInfo.UID, "channel", "AC", "nai", "0"))
	if v := decode[info](t, body); st != 200 || !v.Info.NewGift || v.Info.BlueMoney != 0 || v.Info.JoinBonus.Valid || v.AutoPaymentInfo == nil {
		t.Fatalf("guest side info: %d %s", st, body)
	}
	if st, _ := guest.Do("POST", zz+"user-get-info", form("uid", m.uid, "channel", "AC")); st != 403 {
		t.Fatalf("guest claiming a member's uid: %d", st)
	}
	st, body = m.Do("GET", "/iam/v2/user-info", nil)
	var prof struct {
		UserInfo map[string]any `json:"userInfo"`
	}
	_ = json.Unmarshal(body, &prof)
	if st != 200 || len(prof.UserInfo) != 27 || prof.UserInfo["loginCount"].(float64) != 1 || prof.UserInfo["memberType"] != "member" {
		t.Fatalf("tracking profile: %d %s", st, body)
	}
	if st, _ := visitor.Do("GET", "/iam/v2/user-info", nil); st != 401 {
		t.Fatalf("visitor profile: %d", st)
	}
}

func TestQnA(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	m := newMember(t, e, "qna@example.com")
	if st, body := m.Do("POST", "/home/api/v1/cs/qna", map[string]any{"category": "payment", "title": "결제 문의", "body": "충전이 안 돼요"}); st != 201 {
		t.Fatalf("qna add: %d %s", st, body)
	}
	st, body := m.Do("POST", "/protocol/appapi/mb/helpdesk/qna_list", form("uid", m.uid, "page", "1"))
	if st != 200 || !strings.Contains(string(body), "결제 문의") || !strings.Contains(string(body), `"totalCount":1`) {
		t.Fatalf("qna list: %d %s", st, body)
	}
	other := newMember(t, e, "qna2@example.com")
	if st, _ := other.Do("POST", "/protocol/appapi/mb/helpdesk/qna_list", form("uid", m.uid)); st != 403 {
		t.Fatalf("other uid: %d", st)
	}
	if st, _ := m.Do("POST", "/home/api/v1/cs/qna", map[string]any{"category": "x", "title": "t", "body": "b"}); st != 400 {
		t.Fatalf("bad category: %d", st)
	}
	if n := e.Count(`SELECT count(*) FROM qna`); n != 1 {
		t.Fatalf("qna rows %d", n)
	}
}

func TestAwardVoteAndWebVersion(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	now := time.Now().UTC()
	award := contract.Award{Title: "웹툰 어워즈", StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour), Sections: []contract.AwardSection{
		{Key: "best", Title: "최고", List: []contract.AwardCandidate{{PID: "W1"}, {PID: "W2"}}}}}
	st, body := e.Admin.Do("POST", "/admin/api/v1/awards", award)
	if st != 201 {
		t.Fatalf("award: %d %s", st, body)
	}
	eid := decode[struct{ ID int64 }](t, body).ID
	closed := award
	closed.EndAt = now.Add(-time.Minute)
	_, body = e.Admin.Do("POST", "/admin/api/v1/awards", closed)
	closedID := decode[struct{ ID int64 }](t, body).ID

	m := newMember(t, e, "vote@example.com")
	path := fmt.Sprintf("/pc/api/awards/%d/vote", eid)
	if st, body := m.Do("POST", path, map[string]any{"section": "best", "pid": "W2"}); st != 200 || !strings.Contains(string(body), `"votes":1`) {
		t.Fatalf("vote: %d %s", st, body)
	}
	writertest.WaitKV(t, e.KV, fmt.Sprintf("award.%d", eid), 5*time.Second, func(b []byte) bool {
		var a contract.Award
		return json.Unmarshal(b, &a) == nil && len(a.Sections) == 1 && a.Sections[0].List[1].Votes == 1
	})
	for name, tc := range map[string]struct {
		path string
		body any
		want int
	}{
		"twice":          {path, map[string]any{"section": "best", "pid": "W1"}, 409},
		"unknown cand":   {path, map[string]any{"section": "best", "pid": "W9"}, 404},
		"missing pid":    {path, map[string]any{"section": "best"}, 400},
		"closed":         {fmt.Sprintf("/pc/api/awards/%d/vote", closedID), map[string]any{"section": "best", "pid": "W1"}, 409},
		"unknown award":  {"/pc/api/awards/424242/vote", map[string]any{"section": "best", "pid": "W1"}, 404},
		"malformed json": {path, `{"section":`, 400},
	} {
		st, body := m.Do("POST", tc.path, tc.body)
		if st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %s", name, st, body)
		}
		// Readers see the message: Korean, and for some cases these words.
		wantMessage(t, name, body, map[string]string{
			"twice":         "이미 투표한 부문입니다.",
			"unknown cand":  "후보 작품을 찾을 수 없습니다.",
			"closed":        "투표 기간이 아닙니다.",
			"unknown award": "어워드를 찾을 수 없습니다.",
		}[name])
	}
	if n := e.Count(`SELECT count(*) FROM award_votes`); n != 1 {
		t.Fatalf("votes stored: %d", n)
	}
	version := func() int {
		st, body := e.Browser().Do("POST", "/protocol/appapi/mb/etc/version/web-version-code", nil)
		var v struct {
			Header struct{ Code, Version int } `json:"header"`
		}
		_ = json.Unmarshal(body, &v)
		if st != 200 || v.Header.Code != 200 {
			t.Fatalf("web-version-code: %d %s", st, body)
		}
		return v.Header.Version
	}
	if v := version(); v != 24 {
		t.Fatalf("default version %d", v)
	}
	e.Admin.Do("PUT", "/admin/api/v1/siteconfig", contract.SiteConfig{WebVersionCode: 31})
	if v := version(); v != 31 {
		t.Fatalf("version after admin change %d", v)
	}
}

// A review of a member who bought a volume (through writer/money, paid with
// the join bonus) carries the buyer flag.
func TestBuyerReview(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	m := newMember(t, e, "buyer@example.com")
	if st, body := m.Do("POST", "/home/api/v1/wallet/join-bonus", nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, body)
	}
	m.Headers = map[string]string{"Idempotency-Key": "buy-1"}
	if st, body := m.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "W1", "vols": []int{2}, "buyType": "B"}); st != 200 {
		t.Fatalf("purchase: %d %s", st, body)
	}
	m.Headers = nil
	st, body := m.Do("POST", "/home/api/v1/products/W1/reviews", map[string]any{"body": "샀어요", "point": 10})
	if st != 201 || !strings.Contains(string(body), `"isBuyerReview":true`) {
		t.Fatalf("buyer review: %d %s", st, body)
	}
	l := reviews(t, e, "W1", func(l reviewList) bool { return len(l.Reviews) == 1 })
	if !l.Reviews[0].IsBuyerReview {
		t.Fatal("buyer flag missing in the published list")
	}
}

// wantMessage checks the envelope's message is Korean and holds want.
func wantMessage(t *testing.T, name string, body []byte, want string) {
	t.Helper()
	if msg := writertest.Message(t, body); !testenv.Korean(msg) || !strings.Contains(msg, want) {
		t.Errorf("%s: message %q, want Korean holding %q", name, msg, want)
	}
}

// The X-Channel header decides what a reader sees, never a channel in the
// payload or the query (issue 24 item 7): a verified adult with the 19 toggle
// on, reading in the Play Store app (AA, a teen-version channel), who writes
// channel=AW into zzim-list's payload or recently viewed's query still gets
// no adult work; on the web (AW header) the same member gets them.
func TestHeaderChannelRulesOverPayloadChannel(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	addWork(t, e, "A1", "WT", 19)
	m := newMember(t, e, "channel@example.com")
	if st, body := m.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"name": "홍길동", "birthDate": "1990-01-02"}); st != 200 {
		t.Fatalf("verify: %d %s", st, body)
	}
	if st, body := m.Do("PUT", "/home/api/v1/auth/adult/toggle", map[string]any{"on": true}); st != 200 {
		t.Fatalf("toggle: %d %s", st, body)
	}
	for _, pid := range []string{"W1", "A1"} {
		if st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "zzim_type", "prod", "pid", pid)); st != 200 {
			t.Fatalf("zzim-add %s: %d %s", pid, st, body)
		}
		if st, body := m.Do("POST", "/home/api/v1/users/recent", map[string]any{"pid": pid, "vol": 1}); st != 200 {
			t.Fatalf("recent %s: %d %s", pid, st, body)
		}
	}
	as := func(channel string) {
		if channel == "" {
			m.Headers = nil
			return
		}
		m.Headers = map[string]string{"X-Channel": channel}
	}
	zzim := func(f writertest.Form) string {
		t.Helper()
		st, body := m.Do("POST", zz+"zzim-list", f)
		if st != 200 {
			t.Fatalf("zzim-list: %d %s", st, body)
		}
		var out []string
		for _, z := range decode[zzimList](t, body).ZzimList {
			out = append(out, z.PID)
		}
		return strings.Join(out, ",")
	}
	recent := func(query string) string {
		t.Helper()
		st, body := m.Do("GET", "/home/api/v1/users/recent?page=1"+query, nil)
		if st != 200 {
			t.Fatalf("recent: %d %s", st, body)
		}
		var out []string
		for _, it := range decode[struct{ List []struct{ PID string } }](t, body).List {
			out = append(out, it.PID)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct{ header, payload, want string }{
		{"AA", "AW", "W1"}, {"aa", "AW", "W1"}, {"IA", "IW", "W1"}, {"AA", "", "W1"},
		{"AW", "AA", "A1,W1"}, {"", "IA", "A1,W1"}, {"AC", "", "A1,W1"},
	} {
		as(c.header)
		if got := zzim(form("uid", m.uid, "adultLevel", "2", "channel", c.payload, "section", "all")); got != c.want {
			t.Errorf("zzim-list X-Channel %q, payload channel %q: %s, want %s", c.header, c.payload, got, c.want)
		}
		// JSON, as the page sends it.
		if got := zzim(writertest.Form("")); got != c.want {
			t.Errorf("zzim-list X-Channel %q without payload: %s, want %s", c.header, got, c.want)
		}
		q := ""
		if c.payload != "" {
			q = "&channel=" + c.payload
		}
		// recent lists newest first: A1 was viewed last.
		want := map[string]string{"W1": "W1", "A1,W1": "A1,W1"}[c.want]
		if got := recent(q); got != want {
			t.Errorf("recent X-Channel %q, query channel %q: %s, want %s", c.header, c.payload, got, want)
		}
	}
	// Unknown channels are refused, in the header or the payload, and list nothing.
	for _, c := range []struct {
		header string
		f      writertest.Form
	}{{"XX", form("uid", m.uid)}, {"AA", form("uid", m.uid, "channel", "ZZ")}} {
		as(c.header)
		if st, body := m.Do("POST", zz+"zzim-list", c.f); st != 400 || writertest.Code(t, body) != 400 {
			t.Errorf("zzim-list X-Channel %q %s: %d %s", c.header, c.f, st, body)
		}
	}
	as("AA")
	if st, body := m.Do("GET", "/home/api/v1/users/recent?channel=QQ", nil); st != 400 {
		t.Errorf("recent with an unknown query channel: %d %s", st, body)
	}
	as("")
}
