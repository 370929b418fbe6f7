package member_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/contract"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

// commentHead waits for the head of pid/vol in the comments bucket that ok accepts.
func commentHead(t *testing.T, e *writertest.Env, pid string, vol int, ok func(contract.CommentHead) bool) contract.CommentHead {
	t.Helper()
	kv, err := e.JS.KeyValue(context.Background(), contract.CommentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	b := writertest.WaitKV(t, kv, contract.CommentHeadKey(pid, vol), 5*time.Second, func(b []byte) bool {
		var h contract.CommentHead
		return json.Unmarshal(b, &h) == nil && ok(h)
	})
	var h contract.CommentHead
	_ = json.Unmarshal(b, &h)
	return h
}

func commentPage(t *testing.T, e *writertest.Env, pid string, vol, index int, ok func(contract.CommentPage) bool) contract.CommentPage {
	t.Helper()
	kv, err := e.JS.KeyValue(context.Background(), contract.CommentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	b := writertest.WaitKV(t, kv, contract.CommentPageKey(pid, vol, index), 5*time.Second, func(b []byte) bool {
		var p contract.CommentPage
		return json.Unmarshal(b, &p) == nil && ok(p)
	})
	var p contract.CommentPage
	_ = json.Unmarshal(b, &p)
	return p
}

// addEpisodes adds a work whose episode 1 is free and episode 2 costs 100.
func addEpisodes(t *testing.T, e *writertest.Env, pid string, age int) {
	t.Helper()
	st, body := e.Admin.Do("POST", "/admin/api/v1/works", map[string]any{"pid": pid, "section": "WT", "title": "작품 " + pid, "age": age,
		"authors": []map[string]any{{"authorId": 77, "authorName": "작가", "isWriter": true}},
		"volumes": []map[string]any{{"no": 1, "pages": 3, "isFree": true}, {"no": 2, "pages": 3, "buyPrice": 100}}})
	if st != 201 {
		t.Fatalf("add work: %d %s", st, body)
	}
}

// post writes a comment under key and returns status and answer.
func post(m member, pid string, vol int, key string, body any) (int, []byte) {
	m.Headers = map[string]string{"Idempotency-Key": key}
	defer func() { m.Headers = nil }()
	return m.Do("POST", fmt.Sprintf("/home/api/v1/products/%s/episodes/%d/comments", pid, vol), body)
}

func TestEpisodeComments(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) { c.CommentsPerMinute = 4 })
	addEpisodes(t, e, "W1", 0)
	author := newMember(t, e, "writer@example.com")
	// Stored as written: markup and spaces are the screens' to escape.
	text := "  <b>1화 최고</b> & \"좋아요\"\n"
	st, body := post(author, "W1", 1, "c-1", map[string]any{"body": text, "isSpoiler": true})
	if st != 201 {
		t.Fatalf("post: %d %s", st, body)
	}
	id := decode[struct{ ID int64 }](t, body).ID
	// The same key again: the same comment, stored once.
	st, body = post(author, "W1", 1, "c-1", map[string]any{"body": text, "isSpoiler": true})
	if st != 201 || decode[struct{ ID int64 }](t, body).ID != id || !strings.Contains(string(body), `"replayed":true`) {
		t.Fatalf("retry: %d %s", st, body)
	}
	if n := e.Count(`SELECT count(*) FROM episode_comments`); n != 1 {
		t.Fatalf("retry stored %d comments", n)
	}
	h := commentHead(t, e, "W1", 1, func(h contract.CommentHead) bool { return len(h.Newest) == 1 })
	if c := h.Newest[0]; c.ID != id || c.Body != text || !c.IsSpoiler || c.IsBuyer || c.UserName != "wr***" || h.Count != 1 {
		t.Fatalf("head: %+v", h)
	}
	if len(h.Pages) != 1 || h.Pages[0].Index != 0 || h.Pages[0].Count != 1 {
		t.Fatalf("pages: %+v", h.Pages)
	}

	reader := newMember(t, e, "reader@example.com")
	st, body = post(reader, "W1", 1, "r-1", map[string]any{"body": "답글입니다", "parentId": id})
	if st != 201 {
		t.Fatalf("reply: %d %s", st, body)
	}
	reply := decode[struct{ ID int64 }](t, body).ID
	// Likes count once per member however often they are sent.
	for range 2 {
		if st, body := reader.Do("POST", fmt.Sprintf("/home/api/v1/comments/%d/like", id), nil); st != 200 || !strings.Contains(string(body), `"likeCnt":1`) {
			t.Fatalf("like: %d %s", st, body)
		}
	}
	h = commentHead(t, e, "W1", 1, func(h contract.CommentHead) bool {
		return len(h.Best) == 1 && h.Best[0].LikeCnt == 1 && len(h.Newest) == 1 && len(h.Newest[0].Replies) == 1
	})
	if h.Count != 2 || h.Newest[0].ReplyCnt != 1 || h.Newest[0].Replies[0].ID != reply {
		t.Fatalf("head after reply and like: %+v", h)
	}
	// The page holds the comment with its replies, under the version the head names.
	pg := commentPage(t, e, "W1", 1, 0, func(p contract.CommentPage) bool { return p.Version == h.Pages[0].Version })
	if len(pg.Comments) != 1 || len(pg.Comments[0].Replies) != 1 || pg.Comments[0].LikeCnt != 1 {
		t.Fatalf("page: %+v", pg)
	}
	if n := e.Count(`SELECT count(*) FROM episode_comment_likes`); n != 1 {
		t.Fatalf("likes stored: %d", n)
	}
	st, body = reader.Do("GET", "/home/api/v1/products/W1/episodes/1/comments/state", nil)
	if st != 200 || !strings.Contains(string(body), fmt.Sprintf(`"myLikes":[%d]`, id)) || !strings.Contains(string(body), fmt.Sprintf(`"mine":[%d]`, reply)) {
		t.Fatalf("state: %d %s", st, body)
	}

	// Hearts: once per member, counted in the head.
	for range 2 {
		if st, body := reader.Do("POST", "/home/api/v1/products/W1/episodes/1/heart", nil); st != 200 || !strings.Contains(string(body), `"heartCnt":1`) {
			t.Fatalf("heart: %d %s", st, body)
		}
	}
	commentHead(t, e, "W1", 1, func(h contract.CommentHead) bool { return h.Hearts == 1 })

	// Bad input, other members' comments, episodes the member may not read.
	addEpisodes(t, e, "ADULT", 19)
	before := e.Count(`SELECT count(*) FROM episode_comments`)
	long := strings.Repeat("가", contract.CommentMaxRunes+1)
	for _, tc := range []struct {
		name string
		c    member
		key  string
		path string
		body any
		want int
		msg  string
	}{
		{"visitor", member{Client: e.Browser()}, "v-1", "W1/episodes/1", map[string]any{"body": "x"}, 401, ""},
		{"no key", reader, "", "W1/episodes/1", map[string]any{"body": "x"}, 400, "요청 키(Idempotency-Key 헤더)가 필요합니다."},
		{"empty", reader, "e-1", "W1/episodes/1", map[string]any{"body": " \n "}, 400, "댓글 내용을 입력해 주세요."},
		{"too long", reader, "e-2", "W1/episodes/1", map[string]any{"body": long}, 400, "댓글은 500자까지 쓸 수 있습니다. (501자)"},
		{"unknown field", reader, "e-3", "W1/episodes/1", `{"body":"x","uid":1}`, 400, `알 수 없는 항목입니다. ("uid")`},
		{"paid episode", reader, "e-4", "W1/episodes/2", map[string]any{"body": "x"}, 403, "이 회차를 볼 수 있는 회원만 댓글을 쓸 수 있습니다."},
		{"unknown episode", reader, "e-5", "W1/episodes/9", map[string]any{"body": "x"}, 404, "회차를 찾을 수 없습니다. (9화)"},
		{"adult work", reader, "e-6", "ADULT/episodes/1", map[string]any{"body": "x"}, 403, ""},
		{"reply to reply", reader, "e-7", "W1/episodes/1", map[string]any{"body": "x", "parentId": reply}, 400, "답글에는 답글을 달 수 없습니다."},
		{"reply elsewhere", reader, "e-8", "W1/episodes/1", map[string]any{"body": "x", "parentId": 999999}, 404, "답글을 달 댓글을 찾을 수 없습니다."},
		{"key reused", author, "c-1", "W1/episodes/1", map[string]any{"body": "다른 글"}, 409, "같은 요청 키(Idempotency-Key)가 다른 댓글에 이미 사용되었습니다."},
	} {
		tc.c.Headers = map[string]string{"Idempotency-Key": tc.key}
		st, body := tc.c.Do("POST", "/home/api/v1/products/"+tc.path+"/comments", tc.body)
		tc.c.Headers = nil
		if st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %.200s, want %d", tc.name, st, body, tc.want)
		}
		wantMessage(t, tc.name, body, tc.msg)
	}
	for _, tc := range []struct {
		name, method, path string
		want               int
	}{
		{"delete other's", "DELETE", fmt.Sprintf("/home/api/v1/comments/%d", id), 403},
		{"like unknown", "POST", "/home/api/v1/comments/999999/like", 404},
		{"like bad id", "POST", "/home/api/v1/comments/x/like", 400},
		{"heart paid", "POST", "/home/api/v1/products/W1/episodes/2/heart", 403},
	} {
		if st, body := reader.Do(tc.method, tc.path, nil); st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %.200s, want %d", tc.name, st, body, tc.want)
		}
	}
	if after := e.Count(`SELECT count(*) FROM episode_comments`); after != before {
		t.Fatalf("bad input stored comments: %d -> %d", before, after)
	}

	// A member's rate: 4 a minute here (the reply above was the first).
	for i := range 3 {
		if st, body := post(reader, "W1", 1, fmt.Sprintf("rate-%d", i), map[string]any{"body": "연속"}); st != 201 {
			t.Fatalf("post %d: %d %s", i, st, body)
		}
	}
	st, body = post(reader, "W1", 1, "rate-x", map[string]any{"body": "연속"})
	if st != 429 {
		t.Fatalf("over the rate: %d %s", st, body)
	}
	wantMessage(t, "rate", body, "댓글은 1분에 4개까지 쓸 수 있습니다. 잠시 후 다시 시도해 주세요.")
	// A retry of an accepted post is no new comment: the rate does not refuse it.
	if st, body := post(reader, "W1", 1, "rate-0", map[string]any{"body": "연속"}); st != 201 {
		t.Fatalf("retry over the rate: %d %s", st, body)
	}

	// Report, then a moderator hides: gone from the head and the page.
	if st, body := reader.Do("POST", fmt.Sprintf("/home/api/v1/comments/%d/report", id), map[string]any{"reason": "스포일러"}); st != 200 {
		t.Fatalf("report: %d %s", st, body)
	}
	st, body = e.Admin.Do("GET", "/admin/api/v1/comments/reports", nil)
	if st != 200 || !strings.Contains(string(body), fmt.Sprintf(`"id":%d`, id)) || !strings.Contains(string(body), "스포일러") {
		t.Fatalf("reports: %d %s", st, body)
	}
	if st, body := e.Browser().Do("GET", "/admin/api/v1/comments/reports", nil); st != 401 {
		t.Fatalf("reports without the admin token: %d %s", st, body)
	}
	if st, body := e.Admin.Do("PUT", fmt.Sprintf("/admin/api/v1/comments/%d/hidden", id), map[string]any{"hidden": true}); st != 200 {
		t.Fatalf("hide: %d %s", st, body)
	}
	h = commentHead(t, e, "W1", 1, func(h contract.CommentHead) bool { return len(h.Best) == 0 })
	for _, c := range h.Newest {
		if c.ID == id {
			t.Fatalf("hidden comment still in the head: %+v", h.Newest)
		}
	}
	if h.Count != 3 { // the three rate posts; the hidden one took its reply along
		t.Fatalf("count after hide: %d", h.Count)
	}
	commentPage(t, e, "W1", 1, 0, func(p contract.CommentPage) bool {
		for _, c := range p.Comments {
			if c.ID == id {
				return false
			}
		}
		return true
	})
	_, body = e.Admin.Do("GET", "/admin/api/v1/comments/reports", nil)
	if strings.Contains(string(body), fmt.Sprintf(`"id":%d`, id)) {
		t.Fatalf("decided report still queued: %s", body)
	}

	// The creator's note and one pinned comment.
	pin := h.Newest[0].ID
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/products/W1/episodes/1/comments/note", map[string]any{"note": "다음 화는 2주 뒤에!"}); st != 200 {
		t.Fatalf("note: %d %s", st, body)
	}
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/products/W1/episodes/1/comments/pin", map[string]any{"id": pin}); st != 200 {
		t.Fatalf("pin: %d %s", st, body)
	}
	if st, _ := e.Admin.Do("PUT", "/admin/api/v1/products/W1/episodes/1/comments/pin", map[string]any{"id": reply}); st != 404 {
		t.Fatalf("pin a reply: %d", st)
	}
	commentHead(t, e, "W1", 1, func(h contract.CommentHead) bool {
		return h.Note == "다음 화는 2주 뒤에!" && h.Pinned != nil && h.Pinned.ID == pin
	})
	// Each moderation change is in the staff audit trail (here the machine
	// token's), and the outbox rows it enqueued carry the row's id.
	for _, a := range []struct{ action, target, before, after string }{
		{"comment.hide", fmt.Sprintf("comment:%d", id), `{"hidden": false, "reports": 1}`, `{"hidden": true, "reports": 0}`},
		{"comment.note", "episode:W1/1", `{"note": ""}`, `{"note": "다음 화는 2주 뒤에!"}`},
		{"comment.pin", "episode:W1/1", `{"pinnedId": null}`, fmt.Sprintf(`{"pinnedId": %d}`, pin)},
	} {
		if n := e.Count(`SELECT count(*) FROM staff_audit a WHERE action = $1 AND target = $2 AND before::text = $3 AND after::text = $4
			AND actor_login = 'machine' AND EXISTS (SELECT 1 FROM outbox o WHERE o.audit_id = a.id)`, a.action, a.target, a.before, a.after); n != 1 {
			var rows string
			_ = e.Pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(action || ' ' || target || ' ' || coalesce(before::text, '-') || ' -> ' || coalesce(after::text, '-'), '; '), '') FROM staff_audit WHERE action LIKE 'comment.%'`).Scan(&rows)
			t.Errorf("audit row %s %s %s -> %s: %d; trail: %s", a.action, a.target, a.before, a.after, n, rows)
		}
	}

	// Delete own.
	if st, body := reader.Do("DELETE", fmt.Sprintf("/home/api/v1/comments/%d", pin), nil); st != 200 {
		t.Fatalf("delete own: %d %s", st, body)
	}
	commentHead(t, e, "W1", 1, func(h contract.CommentHead) bool { return h.Pinned == nil && h.Count == 2 })
}

// Concurrent retries of one post store one comment; concurrent likes of
// many members count exactly their rows.
func TestCommentsConcurrent(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addEpisodes(t, e, "W1", 0)
	m := newMember(t, e, "writer@example.com")
	var wg sync.WaitGroup
	ids := make([]int64, 4) // within the rate: racing retries each count
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := member{Client: &writertest.Client{T: t, Base: m.Base, HTTP: m.HTTP}}
			st, body := post(c, "W1", 1, "same", map[string]any{"body": "한 번만"})
			if st != 201 {
				t.Errorf("post: %d %s", st, body)
				return
			}
			ids[i] = decode[struct{ ID int64 }](t, body).ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("retries answered different comments: %v", ids)
		}
	}
	if n := e.Count(`SELECT count(*) FROM episode_comments`); n != 1 {
		t.Fatalf("%d comments stored", n)
	}
	likers := make([]member, 6)
	for i := range likers {
		likers[i] = newMember(t, e, fmt.Sprintf("l%d@example.com", i))
	}
	for _, l := range likers {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if st, body := l.Do("POST", fmt.Sprintf("/home/api/v1/comments/%d/like", ids[0]), nil); st != 200 {
					t.Errorf("like: %d %s", st, body)
				}
			}()
		}
	}
	wg.Wait()
	if n := e.Count(`SELECT like_cnt FROM episode_comments WHERE id = $1`, ids[0]); n != len(likers) ||
		e.Count(`SELECT count(*) FROM episode_comment_likes`) != n {
		t.Fatalf("like count %d, rows %d", n, e.Count(`SELECT count(*) FROM episode_comment_likes`))
	}
	commentHead(t, e, "W1", 1, func(h contract.CommentHead) bool { return len(h.Best) == 1 && h.Best[0].LikeCnt == len(likers) })
}

// The best list: likes damped by age, so a newer comment with fewer likes
// ranks above an old one with more.
func TestBestScore(t *testing.T) {
	old := contract.BestScore(50, 24*time.Hour)
	fresh := contract.BestScore(10, time.Hour)
	if fresh <= old {
		t.Fatalf("fresh %f <= old %f", fresh, old)
	}
	if contract.BestScore(2, time.Hour) <= contract.BestScore(1, time.Hour) {
		t.Fatal("more likes of the same age must rank higher")
	}
}
