package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/natsutil"
	"storefront/writer/internal/writertest"
)

// episodes is a web novel's volume list: n episodes of fixed shape.
func episodes(n int) []map[string]any {
	vs := make([]map[string]any, n)
	for i := range vs {
		vs[i] = map[string]any{"no": i + 1, "title": fmt.Sprintf("제%d화", i+1), "buyPrice": 100, "rentPrice": 0,
			"pages": 30, "previewPages": 3, "releaseAt": "2026-01-01T00:00:00Z", "isFree": i < 3}
	}
	return vs
}

func novel(pid string, n int) map[string]any {
	return map[string]any{"pid": pid, "section": "EB", "title": "회귀한 검술 천재", "genreId": "05",
		"authors": []map[string]any{{"authorName": "무명", "isWriter": true}}, "volumes": episodes(n)}
}

// A change whose document NATS would refuse (1 MiB per value) is refused to
// the admin who made it, with a clear error and nothing stored, instead of
// being answered 201 and then dropped by the relay: the 6,000-episode web
// novel of issue 35. Other works keep changing, and a document just under the
// limit still reaches the bucket.
func TestAdminRefusesDocumentNATSWouldRefuse(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	if st, body := e.admin.Do("POST", "/admin/api/v1/works", newWork("N1")); st != http.StatusCreated {
		t.Fatalf("create: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.N1", 5*time.Second, func([]byte) bool { return true })
	writertest.Eventually(t, 5*time.Second, "outbox drained", func() bool {
		return countRows(t, e.pool, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`) == 0
	})

	before := fingerprint(t, e.pool)
	st, body := e.admin.Do("POST", "/admin/api/v1/works", novel("N6000", 6000))
	var env struct {
		Header contract.Header `json:"header"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("answer is not an envelope: %s", body)
	}
	if st != http.StatusUnprocessableEntity || env.Header.Code != 422 || !strings.Contains(env.Header.Message, "최대 크기") ||
		!strings.Contains(env.Header.Message, "prod.N6000") {
		t.Fatalf("6,000 episodes: %d %s, want 422 with the size in Korean", st, body)
	}
	t.Logf("refused: %s", env.Header.Message)
	if after := fingerprint(t, e.pool); after != before {
		t.Fatalf("refused change stored something: %v", diffTables(before, after))
	}
	if n := countRows(t, e.pool, `SELECT count(*) FROM push_schedule WHERE pid = 'N6000'`); n != 0 {
		t.Fatalf("refused work scheduled %d releases", n)
	}
	if _, err := e.kv.Get(ctx, "prod.N6000"); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("refused work in the bucket: %v", err)
	}

	// A later change of another work goes through as before.
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/N1", map[string]any{"title": "달빛 조각사 2부"}); st != 200 {
		t.Fatalf("rename: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.N1", 5*time.Second, func(b []byte) bool { return product(t, b).Title == "달빛 조각사 2부" })

	// Just under the limit: as many episodes as fit with 5 kB to spare, then
	// a summary filling all but ~300 bytes of what is left.
	limit := natsutil.DefaultCatalogValueBytes
	if st, body := e.admin.Do("POST", "/admin/api/v1/works", novel("NBIGX", 1)); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	size := len(writertest.WaitKV(t, e.kv, "prod.NBIGX", 5*time.Second, func([]byte) bool { return true }))
	n := 1
	for _, v := range episodes(6000)[1:] {
		// What the writer adds per volume: the body's fields plus the
		// derived contentBase and buyPriceOrg.
		vol := contract.Volume{No: v["no"].(int), Title: v["title"].(string), BuyPrice: 100, BuyPriceOrg: 100, Pages: 30, PreviewPages: 3,
			ReleaseAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), IsFree: v["isFree"].(bool), ContentBase: contract.ContentBase("NBIGX", v["no"].(int))}
		b, _ := json.Marshal(vol)
		if size+len(b)+1 > limit-5000 {
			break
		}
		size += len(b) + 1
		n++
	}
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/NBIGX", map[string]any{"volumes": episodes(n)}); st != 200 {
		t.Fatalf("%d episodes (~%d bytes): %d %s", n, size, st, body)
	}
	doc := writertest.WaitKV(t, e.kv, "prod.NBIGX", 5*time.Second, func(b []byte) bool { return len(product(t, b).Volumes) == n })
	gap := limit - len(doc) - 300
	if gap <= 0 || gap > 20000 {
		t.Fatalf("%d episodes make %d bytes: no room to fill to the limit", n, len(doc))
	}
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/NBIGX", map[string]any{"summary": strings.Repeat("a", gap)}); st != 200 {
		t.Fatalf("summary to just under the limit: %d %s", st, body)
	}
	doc = writertest.WaitKV(t, e.kv, "prod.NBIGX", 5*time.Second, func(b []byte) bool { return len(product(t, b).Summary) == gap })
	if len(doc) > limit || len(doc) < limit-1000 {
		t.Fatalf("document of %d bytes, want just under %d", len(doc), limit)
	}
	t.Logf("%d episodes and a %d-byte summary: %d bytes reached the bucket (limit %d)", n, gap, len(doc), limit)
	// And 1,000 bytes more is refused; the bucket keeps the last good one.
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/NBIGX", map[string]any{"summary": strings.Repeat("a", gap+1000)}); st != 422 {
		t.Fatalf("over the limit: %d %s", st, body)
	}
	if n := countRows(t, e.pool, `SELECT count(*) FROM works WHERE pid = 'NBIGX' AND length(summary) = `+fmt.Sprint(gap)); n != 1 {
		t.Fatal("refused summary stored")
	}
}
