package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/edge/server"
)

func (e *env) commentsKV() jetstream.KeyValue {
	e.t.Helper()
	kv, err := e.js.KeyValue(context.Background(), contract.CommentsBucket)
	if err != nil {
		e.t.Fatal(err)
	}
	return kv
}

func (e *env) putComments(key string, doc any) {
	e.t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.commentsKV().Put(context.Background(), key, b); err != nil {
		e.t.Fatal(err)
	}
}

type commentsAnswer struct {
	Header contract.Header
	Data   struct {
		contract.CommentHead
		Comments []contract.Comment `json:"comments"`
	}
}

func comment(id int64, body string, likes int) contract.Comment {
	return contract.Comment{ID: id, UserName: "re***", Body: body, LikeCnt: likes, CreatedAt: t0}
}

// Comment reads come from the edge's cache of the comments bucket: the head
// on first ask, replaced by the watch when the writer publishes a newer one
// (a like reorders best, a hidden comment disappears), pages by version on
// demand; adult works' comments never reach teens or visitors.
func TestEpisodeCommentsFromTheEdge(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("wt1", contract.SectionWebtoon, "댓글 작품"))
	e.putProduct(product("xadult", contract.SectionWebtoon, "성인 작품", func(p *contract.Product) { p.Age = 19 }))
	g := startEdge(t, e, func(c *server.Config) { c.Now = func() time.Time { return t0 } })
	g.waitReady()
	// A second edge on the same bucket (issue 36: a hidden comment leaves
	// every edge, each from its own watch).
	g2 := startEdge(t, e, func(c *server.Config) { c.Now = func() time.Time { return t0 } })
	g2.waitReady()
	path := "/home/api/v1/products/wt1/episodes/1/comments"

	// Nobody commented yet: an empty head, from memory after the first ask.
	var a commentsAnswer
	g.getJSON(path, 200, &a)
	if a.Header.Code != 200 || a.Data.PID != "wt1" || a.Data.Vol != 1 || len(a.Data.Newest) != 0 {
		t.Fatalf("empty head: %+v", a)
	}

	head := contract.CommentHead{PID: "wt1", Vol: 1, Version: 10, Count: 2, Hearts: 7, Note: "작가의 말",
		Best:   []contract.Comment{comment(1, "<script>첫 댓글</script>", 3)},
		Newest: []contract.Comment{comment(2, "두 번째", 0), comment(1, "<script>첫 댓글</script>", 3)},
		Pages:  []contract.CommentPageRef{{Index: 0, Version: 5, Count: 2}}}
	e.putComments(contract.CommentHeadKey("wt1", 1), head)
	eventually(t, "the watched head", func() bool {
		var a commentsAnswer
		g.getJSON(path, 200, &a)
		return a.Data.Version == 10
	})
	// What the edge holds of comments is counted on /metrics like every cache.
	if b, max := metric(t, g, `edge_cache_bytes{cache="comments"}`), metric(t, g, `edge_cache_max_bytes{cache="comments"}`); b <= 0 || max <= 0 || b > max {
		t.Errorf("comments cache bytes %v of %v", b, max)
	}
	_, body := g.get(path)
	// The body is the writer's JSON as published (escaped as JSON, shown as text).
	if !strings.Contains(string(body), `\u003cscript\u003e첫 댓글`) || !strings.Contains(string(body), `"hearts":7`) {
		t.Fatalf("head answer: %s", body)
	}

	// A like makes comment 2 best; a moderator then hides comment 1.
	head.Version, head.Best = 11, []contract.Comment{comment(2, "두 번째", 5), comment(1, "<script>첫 댓글</script>", 3)}
	e.putComments(contract.CommentHeadKey("wt1", 1), head)
	eventually(t, "best reordered", func() bool {
		var a commentsAnswer
		g.getJSON(path, 200, &a)
		return len(a.Data.Best) == 2 && a.Data.Best[0].ID == 2
	})
	// Both edges held the head with the comment (each asked it before).
	for _, ed := range []*edge{g, g2} {
		if _, b := ed.get(path); !strings.Contains(string(b), "첫 댓글") {
			t.Fatalf("before the hide, an edge lacks the comment: %s", b)
		}
	}
	head.Version, head.Count = 12, 1
	head.Best, head.Newest = []contract.Comment{comment(2, "두 번째", 5)}, []contract.Comment{comment(2, "두 번째", 5)}
	head.Pages = []contract.CommentPageRef{{Index: 0, Version: 6, Count: 1}}
	e.putComments(contract.CommentHeadKey("wt1", 1), head)
	for i, ed := range []*edge{g, g2} {
		eventually(t, fmt.Sprintf("hidden comment gone from edge %d", i+1), func() bool {
			_, b := ed.get(path)
			return strings.Contains(string(b), `"version":12`) && !strings.Contains(string(b), "첫 댓글")
		})
	}
	// An older head arriving late changes nothing.
	old := head
	old.Version = 9
	e.putComments(contract.CommentHeadKey("wt1", 1), old)

	// Pages by the version the head names.
	e.putComments(contract.CommentPageKey("wt1", 1, 0), contract.CommentPage{PID: "wt1", Vol: 1, Index: 0, Version: 6,
		Comments: []contract.Comment{comment(2, "두 번째", 5)}})
	var pg struct {
		Data contract.CommentPage
	}
	g.getJSON(path+"?page=0", 200, &pg)
	if pg.Data.Version != 6 || len(pg.Data.Comments) != 1 || pg.Data.Comments[0].ID != 2 {
		t.Fatalf("page: %+v", pg)
	}
	g.getJSON(path+"?page=3", 404, nil)
	g.getJSON(path+"?page=x", 400, nil)
	g.getJSON("/home/api/v1/products/wt1/episodes/0/comments", 400, nil)
	g.getJSON("/home/api/v1/products/nope/episodes/1/comments", 404, nil)
	var head2 commentsAnswer
	g.getJSON(path, 200, &head2)
	if head2.Data.Version != 12 {
		t.Fatalf("an older head replaced a newer one: %d", head2.Data.Version)
	}

	// Adult work: refused to visitors and teens, shown to adults.
	e.putComments(contract.CommentHeadKey("xadult", 1), contract.CommentHead{PID: "xadult", Vol: 1, Version: 3,
		Newest: []contract.Comment{comment(9, "성인 댓글", 0)}})
	adultPath := "/home/api/v1/products/xadult/episodes/1/comments"
	exp := t0.Add(time.Hour)
	for _, h := range [][]string{nil, {audCookie(1, exp)}, {audCookie(2, exp), "X-Channel: AA"}} {
		resp, b := g.get(adultPath, h...)
		if resp.StatusCode != 403 || strings.Contains(string(b), "성인 댓글") {
			t.Fatalf("adult comments to %v: %d %s", h, resp.StatusCode, b)
		}
	}
	var ad commentsAnswer
	g.getJSON(adultPath, 200, &ad, audCookie(2, exp), "X-Channel: AW")
	if len(ad.Data.Newest) != 1 {
		t.Fatalf("adult reader: %+v", ad)
	}
}
