package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"storefront/contract"
	"storefront/edge/catalog"
)

// bucket stands for the comments bucket: documents by key, gets counted.
type bucket struct {
	mu   sync.Mutex
	docs map[string][]byte
	gets int
}

func (b *bucket) put(t *testing.T, key string, doc any) []byte {
	t.Helper()
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.docs[key] = raw
	b.mu.Unlock()
	return raw
}

func (b *bucket) fetch(_ context.Context, key string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gets++
	raw, ok := b.docs[key]
	if !ok {
		return nil, catalog.ErrCommentsMissing
	}
	return raw, nil
}

func bigHead(pid string, vol int, version int64) contract.CommentHead {
	h := contract.CommentHead{PID: pid, Vol: vol, Version: version}
	for i := range contract.CommentNewest {
		h.Newest = append(h.Newest, contract.Comment{ID: int64(i + 1), UserName: "ab***", Body: strings.Repeat("가", 100)})
	}
	return h
}

// The cache stays within its budget by evicting the least recently used
// heads, never the pinned ones; a head the edge does not hold is not taken
// from the watch; a missing head is an empty one, held like any other.
func TestCommentsBudgetPinsAndUpdates(t *testing.T) {
	b := &bucket{docs: map[string][]byte{}}
	ctx := context.Background()
	var one int
	for v := 1; v <= 40; v++ {
		one = len(b.put(t, contract.CommentHeadKey("w", v), bigHead("w", v, 1)))
	}
	budget := int64(10 * (2*one + 400))
	c := catalog.NewComments(budget, b.fetch)
	if miss := c.SetPins([]catalog.Episode{{PID: "w", Vol: 1}}); len(miss) != 1 {
		t.Fatalf("missing pins: %v", miss)
	}
	for v := 1; v <= 40; v++ {
		if _, err := c.Head(ctx, "w", v); err != nil {
			t.Fatal(err)
		}
	}
	if c.Bytes() > budget {
		t.Fatalf("held %d bytes over the budget %d", c.Bytes(), budget)
	}
	gets := b.gets
	if _, err := c.Head(ctx, "w", 1); err != nil || b.gets != gets {
		t.Fatalf("pinned head was evicted (gets %d -> %d, %v)", gets, b.gets, err)
	}
	if _, err := c.Head(ctx, "w", 40); err != nil || b.gets != gets {
		t.Fatalf("recent head was evicted")
	}
	// The watch replaces a held head with a newer one only.
	raw := b.put(t, contract.CommentHeadKey("w", 40), bigHead("w", 40, 5))
	if err := c.Update(contract.CommentHeadKey("w", 40), raw); err != nil {
		t.Fatal(err)
	}
	older, _ := json.Marshal(bigHead("w", 40, 4))
	_ = c.Update(contract.CommentHeadKey("w", 40), older)
	if d, _ := c.Head(ctx, "w", 40); d.Version != 5 || b.gets != gets {
		t.Fatalf("head after updates: version %d, gets %d", d.Version, b.gets-gets)
	}
	// Not held: the watch's value is dropped, not cached.
	n := c.Len()
	other, _ := json.Marshal(bigHead("other", 1, 9))
	_ = c.Update(contract.CommentHeadKey("other", 1), other)
	if c.Len() != n {
		t.Fatal("a head nobody asked for was cached")
	}
	// Missing: an empty head.
	d, err := c.Head(ctx, "none", 3)
	if err != nil || d.Version != 0 || !strings.Contains(string(d.Entry.Body), `"newest":[]`) {
		t.Fatalf("missing head: %v %s", err, d.Entry.Body)
	}
	// Pages are cached by version: a new version is a new entry.
	b.put(t, contract.CommentPageKey("w", 1, 0), contract.CommentPage{PID: "w", Vol: 1, Index: 0, Version: 3})
	if p, err := c.Page(ctx, "w", 1, 0, 3); err != nil || p.Version != 3 {
		t.Fatalf("page: %v", err)
	}
	gets = b.gets
	if _, err := c.Page(ctx, "w", 1, 0, 3); err != nil || b.gets != gets {
		t.Fatal("page not cached")
	}
	if _, err := c.Page(ctx, "w", 1, 7, 1); err == nil {
		t.Fatal("a missing page must be an error")
	}
}

// TestCommentBytesEstimate states the bytes one head of a busy episode
// holds (edge/README.md): 20 newest and 10 best comments of 100 characters,
// three replies under each best one.
func TestCommentBytesEstimate(t *testing.T) {
	b := &bucket{docs: map[string][]byte{}}
	h := bigHead("w", 1, 1)
	for i := range contract.CommentBest {
		c := contract.Comment{ID: int64(100 + i), UserName: "ab***", Body: strings.Repeat("가", 100), LikeCnt: 10}
		for j := range contract.CommentHeadReplies {
			c.Replies = append(c.Replies, contract.Comment{ID: int64(1000 + 10*i + j), ParentID: c.ID, UserName: "cd***", Body: strings.Repeat("나", 50)})
		}
		h.Best = append(h.Best, c)
	}
	raw := b.put(t, contract.CommentHeadKey("w", 1), h)
	c := catalog.NewComments(1<<30, b.fetch)
	if _, err := c.Head(context.Background(), "w", 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("head JSON %d B, held %d B", len(raw), c.Bytes())
	fmt.Println("comment head bytes held:", c.Bytes())
}
