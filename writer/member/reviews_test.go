package member_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/writer/internal/writertest"
)

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
	stat(t, e, "W1", func(s contract.ProductStat) bool { return s.ReviewCount == 1 && s.PointSum == 9 })

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
	stat(t, e, "W1", func(s contract.ProductStat) bool { return s.ReviewCount == 0 && s.PointSum == 0 })
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
