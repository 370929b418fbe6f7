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

// head decodes a work's head.
func head(t testing.TB, b []byte) contract.Product {
	t.Helper()
	var p contract.Product
	if err := json.Unmarshal(b, &p); err != nil || p.VolumeIndex == nil || p.Volumes != nil {
		t.Fatalf("not a head of paged volumes (%v): %.300s", err, b)
	}
	return p
}

// pageRevisions is the bucket revision of each of pid's pages 0..n-1 (0:
// absent).
func pageRevisions(t testing.TB, vols jetstream.KeyValue, pid string, n int) []uint64 {
	t.Helper()
	out := make([]uint64, n)
	for i := range out {
		e, err := vols.Get(context.Background(), contract.VolumePageKey(pid, i))
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			t.Fatal(err)
		default:
			out[i] = e.Revision()
		}
	}
	return out
}

// A web novel of 10,000 episodes (issue 35: one value over NATS's 1 MiB,
// answered 201 and never published) is accepted and published as a head of
// a few kilobytes and 100 pages; a rename writes the head alone, a volume's
// change its page alone, a shrink deletes the pages past the new end; a
// reader buys its 9,999th episode.
func TestAdminPublishesLongWorkInPages(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	ctx := context.Background()
	vols := writertest.VolumesKV(t, e.KV)
	limit := natsutil.DefaultCatalogValueBytes

	for _, n := range []int{6000, 10000} {
		pid := fmt.Sprintf("N%d", n)
		if st, body := e.Admin.Do("POST", "/admin/api/v1/works", novel(pid, n)); st != http.StatusCreated {
			t.Fatalf("%d episodes: %d %s", n, st, body)
		}
		b := writertest.WaitKV(t, e.KV, contract.ProductKey(pid), 10*time.Second, func([]byte) bool { return true })
		h := head(t, b)
		idx := h.VolumeIndex
		if idx.Count != n || idx.Free != 3 || len(idx.Pages) != n/contract.VolumePageSize {
			t.Fatalf("%s: count %d free %d pages %d", pid, idx.Count, idx.Free, len(idx.Pages))
		}
		// Every episode released 2026-01-01: the RecentMin newest.
		if len(idx.Recent) != contract.RecentMin || idx.Recent[len(idx.Recent)-1].No != n || idx.Recent[0].No != n-contract.RecentMin+1 {
			t.Fatalf("%s: recent %+v", pid, idx.Recent)
		}
		if p := idx.Pages[0]; p.First != 1 || p.Last != 100 || p.Free != 3 || p.Buy.Count != 97 || p.Buy.Total != 9700 || p.Rent.Count != 0 {
			t.Fatalf("%s: page 0 %+v", pid, p)
		}
		largest := 0
		for i, ref := range idx.Pages {
			en, err := vols.Get(ctx, contract.VolumePageKey(pid, i))
			if err != nil {
				t.Fatalf("%s page %d: %v", pid, i, err)
			}
			var pg contract.VolumePage
			if err := json.Unmarshal(en.Value(), &pg); err != nil || pg.Hash != ref.Hash || len(pg.Volumes) != 100 || pg.Volumes[0].No != ref.First {
				t.Fatalf("%s page %d: %v hash %s (ref %s), %d volumes", pid, i, err, pg.Hash, ref.Hash, len(pg.Volumes))
			}
			largest = max(largest, len(en.Value()))
		}
		if len(b) > limit || largest > limit {
			t.Fatalf("%s: head %d bytes, largest page %d, limit %d", pid, len(b), largest, limit)
		}
		t.Logf("%s: head %d bytes, %d pages of at most %d bytes", pid, len(b), len(idx.Pages), largest)
	}

	// A rename: the head alone.
	pid := "N10000"
	before := pageRevisions(t, vols, pid, 100)
	if st, body := e.Admin.Do("PATCH", "/admin/api/v1/works/"+pid, map[string]any{"title": "회귀한 검술 천재 2부"}); st != 200 {
		t.Fatalf("rename: %d %s", st, body)
	}
	writertest.WaitKV(t, e.KV, contract.ProductKey(pid), 5*time.Second, func(b []byte) bool { return head(t, b).Title == "회귀한 검술 천재 2부" })
	if after := pageRevisions(t, vols, pid, 100); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a rename rewrote pages: %v -> %v", before, after)
	}

	// One volume's price: its page alone.
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/works/"+pid+"/volumes/5000", map[string]any{"title": "제5000화", "buyPrice": 300,
		"pages": 30, "previewPages": 3, "releaseAt": "2026-01-01T00:00:00Z"}); st != 200 {
		t.Fatalf("volume 5000: %d %s", st, body)
	}
	b := writertest.WaitKV(t, e.KV, contract.ProductKey(pid), 5*time.Second, func(b []byte) bool { return head(t, b).VolumeIndex.Pages[49].Buy.Max == 300 })
	after := pageRevisions(t, vols, pid, 100)
	for i := range after {
		if changed := after[i] != before[i]; changed != (i == 49) {
			t.Fatalf("page %d rewritten: %v (only page 49 holds volume 5000)", i, changed)
		}
	}
	whole := writertest.MustWork(t, e.KV, b)
	if len(whole.Volumes) != 10000 || whole.Volumes[4999].BuyPrice != 300 || whole.Volumes[9998].No != 9999 {
		t.Fatalf("joined work: %d volumes", len(whole.Volumes))
	}

	// A new episode: a page of its own (100), no other page rewritten, and
	// the head's recent releases end with it.
	before = after
	st, body := e.Admin.Do("POST", "/admin/api/v1/works/"+pid+"/volumes", map[string]any{"title": "제10001화", "buyPrice": 100, "pages": 30})
	if st != 201 || !strings.Contains(string(body), `"no":10001`) {
		t.Fatalf("episode 10001: %d %s", st, body)
	}
	b = writertest.WaitKV(t, e.KV, contract.ProductKey(pid), 5*time.Second, func(b []byte) bool { return head(t, b).VolumeIndex.Count == 10001 })
	idx := head(t, b).VolumeIndex
	if len(idx.Pages) != 101 || idx.Pages[100].First != 10001 || idx.Pages[100].Count != 1 {
		t.Fatalf("pages after episode 10001: %d, last %+v", len(idx.Pages), idx.Pages[len(idx.Pages)-1])
	}
	if r := idx.Recent; len(r) != contract.RecentMin || r[len(r)-1].No != 10001 || r[0].No != 9998 {
		t.Fatalf("recent after episode 10001: %+v", r)
	}
	after = pageRevisions(t, vols, pid, 101)
	for i := range 100 {
		if after[i] != before[i] {
			t.Fatalf("page %d rewritten by a new episode", i)
		}
	}
	if after[100] == 0 {
		t.Fatal("page 100 not stored")
	}

	// A reader buys episode 9,999 (writer/money reads PostgreSQL).
	m, _ := signupUID(t, e, "reader10000@example.com")
	if st, body := m.Do("POST", "/home/api/v1/wallet/join-bonus", nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, body)
	}
	m.Headers = map[string]string{"Idempotency-Key": "buy-9999"}
	if st, body := m.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": pid, "vols": []int{9999}, "buyType": "B"}); st != 200 {
		t.Fatalf("purchase of episode 9999: %d %s", st, body)
	}
	m.Headers = nil

	// Down to 250 episodes: pages 3..100 leave the bucket, 0 and 1 are not
	// rewritten, 2 (201..300 -> 201..250) is.
	before = after
	if st, body := e.Admin.Do("PATCH", "/admin/api/v1/works/"+pid, map[string]any{"volumes": episodes(250)}); st != 200 {
		t.Fatalf("shrink: %d %s", st, body)
	}
	writertest.WaitKV(t, e.KV, contract.ProductKey(pid), 5*time.Second, func(b []byte) bool { return head(t, b).VolumeIndex.Count == 250 })
	writertest.Eventually(t, 5*time.Second, "stale pages deleted", func() bool {
		return pageRevisions(t, vols, pid, 101)[100] == 0
	})
	after = pageRevisions(t, vols, pid, 101)
	if after[0] != before[0] || after[1] != before[1] || after[2] == before[2] || after[2] == 0 {
		t.Fatalf("pages 0-2: %v -> %v", before[:3], after[:3])
	}
	for i := 3; i < 101; i++ {
		if after[i] != 0 {
			t.Fatalf("page %d of a 250-episode work still in the bucket", i)
		}
	}
}

// A change whose document NATS would refuse (1 MiB per value) is refused to
// the admin who made it, with a clear error and nothing stored, instead of
// being answered 201 and then dropped by the relay. With volumes paged
// (issue 35) only a head can grow that far: here by its notices. Other works
// keep changing, and a head just under the limit still reaches the bucket.
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

	notices := func(n, size int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"id": i + 1, "title": "공지", "body": strings.Repeat("a", size), "postedAt": "2026-01-01T00:00:00Z"}
		}
		return out
	}
	big := novel("NBIG", 20)
	big["notices"] = notices(60, 20000)
	before := fingerprint(t, e.pool)
	st, body := e.admin.Do("POST", "/admin/api/v1/works", big)
	var env struct {
		Header contract.Header `json:"header"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("answer is not an envelope: %s", body)
	}
	if st != http.StatusUnprocessableEntity || env.Header.Code != 422 || !strings.Contains(env.Header.Message, "최대 크기") ||
		!strings.Contains(env.Header.Message, "prod.NBIG") {
		t.Fatalf("1.2 MB of notices: %d %s, want 422 with the size in Korean", st, body)
	}
	t.Logf("refused: %s", env.Header.Message)
	if after := fingerprint(t, e.pool); after != before {
		t.Fatalf("refused change stored something: %v", diffTables(before, after))
	}
	if n := countRows(t, e.pool, `SELECT count(*) FROM push_schedule WHERE pid = 'NBIG'`); n != 0 {
		t.Fatalf("refused work scheduled %d releases", n)
	}
	if _, err := e.kv.Get(ctx, "prod.NBIG"); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("refused work in the bucket: %v", err)
	}

	// A later change of another work goes through as before.
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/N1", map[string]any{"title": "달빛 조각사 2부"}); st != 200 {
		t.Fatalf("rename: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.N1", 5*time.Second, func(b []byte) bool { return product(t, b).Title == "달빛 조각사 2부" })

	// Just under the limit: notices filling all but ~300 bytes.
	limit := natsutil.DefaultCatalogValueBytes
	if st, body := e.admin.Do("POST", "/admin/api/v1/works", novel("NBIGX", 3000)); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	size := len(writertest.WaitKV(t, e.kv, "prod.NBIGX", 5*time.Second, func([]byte) bool { return true }))
	// One notice adds its body plus ~80 bytes of JSON.
	fill := func(gap int) []map[string]any {
		ns := notices(gap/20000+1, 20000)
		last := ns[len(ns)-1]
		last["body"] = strings.Repeat("a", gap-20000*(len(ns)-1)-80*len(ns))
		return ns
	}
	gap := limit - size - 300
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/NBIGX", map[string]any{"notices": fill(gap)}); st != 200 {
		t.Fatalf("notices to just under the limit: %d %s", st, body)
	}
	doc := writertest.WaitKV(t, e.kv, "prod.NBIGX", 5*time.Second, func(b []byte) bool { return len(product(t, b).Notices) > 0 })
	if len(doc) > limit || len(doc) < limit-5000 {
		t.Fatalf("head of %d bytes, want just under %d", len(doc), limit)
	}
	t.Logf("3,000 episodes and %d bytes of notices: a head of %d bytes reached the bucket (limit %d)", gap, len(doc), limit)
	// And 6,000 bytes more is refused; the bucket keeps the last good one.
	before = fingerprint(t, e.pool)
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/NBIGX", map[string]any{"notices": fill(gap + 6000)}); st != 422 {
		t.Fatalf("over the limit: %d %s", st, body)
	}
	if after := fingerprint(t, e.pool); after != before {
		t.Fatalf("refused notices stored: %v", diffTables(before, after))
	}
	if got := product(t, writertest.WaitKV(t, e.kv, "prod.NBIGX", time.Second, func([]byte) bool { return true })); len(got.Notices) != len(fill(gap)) {
		t.Fatal("refused notices published")
	}
}
