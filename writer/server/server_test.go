package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack"
	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/server"
)

type env struct {
	srv   *server.Server
	nats  *devstack.NATS
	kv    jetstream.KeyValue
	pool  *pgxpool.Pool
	admin *writertest.Client
	base  string
}

func start(t *testing.T) *env {
	t.Helper()
	n, _, kv := writertest.JS(t)
	url := testenv.PostgresURL(t)
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, server.Config{Addr: "127.0.0.1:0", DatabaseURL: url, NATSURL: n.URL,
		AdminToken: "tok", RelayPoll: 100 * time.Millisecond}, writertest.Log())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	base := "http://" + srv.Addr()
	writertest.Eventually(t, 5*time.Second, "ready", func() bool {
		r, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	})
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &env{srv: srv, nats: n, kv: kv, pool: pool, base: base,
		admin: &writertest.Client{T: t, Base: base, Token: "tok"}}
}

// work is the work of head b with its volume pages joined (writertest.Work);
// its Volumes are empty while the pages are not those b names.
func work(t testing.TB, e *env, b []byte) contract.Product {
	t.Helper()
	p, _ := writertest.Work(t, e.kv, b)
	return p
}

func product(t testing.TB, b []byte) contract.Product {
	var p contract.Product
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("kv value is not a product: %v", err)
	}
	return p
}

func newWork(pid string) map[string]any {
	return map[string]any{
		"pid": pid, "section": "WT", "title": "달빛 조각사", "genreId": "05", "age": 0,
		"authors": []map[string]any{{"authorName": "남희성", "isWriter": true}},
		"volumes": []map[string]any{{"no": 1, "title": "1화", "isFree": true, "pages": 10, "previewPages": 10},
			{"no": 2, "title": "2화", "buyPrice": 100, "rentPrice": 50, "pages": 10, "previewPages": 2}},
	}
}

func TestAdminRenameReachesKV(t *testing.T) {
	t.Parallel()
	e := start(t)
	st, body := e.admin.Do("POST", "/admin/api/v1/works", newWork("P100"))
	if st != http.StatusCreated {
		t.Fatalf("create: %d %s", st, body)
	}
	first := writertest.WaitKV(t, e.kv, "prod.P100", 5*time.Second, func(b []byte) bool { return product(t, b).Title == "달빛 조각사" })
	p := writertest.MustWork(t, e.kv, first)
	if len(p.Volumes) != 2 || p.Volumes[1].BuyPrice != 100 || p.Authors[0].AuthorName != "남희성" || p.Authors[0].AuthorID == 0 {
		t.Fatalf("document incomplete: %+v", p)
	}
	if p.Volumes[0].ContentBase != "/content/P100/1" || p.Unit != "화" {
		t.Fatalf("defaults not filled: %+v", p)
	}
	t0 := time.Now()
	st, body = e.admin.Do("PATCH", "/admin/api/v1/works/P100", map[string]any{"title": "달빛 조각사 외전"})
	if st != 200 {
		t.Fatalf("rename: %d %s", st, body)
	}
	got := writertest.MustWork(t, e.kv, writertest.WaitKV(t, e.kv, "prod.P100", 5*time.Second, func(b []byte) bool { return product(t, b).Title == "달빛 조각사 외전" }))
	t.Logf("rename reached the KV in %s", time.Since(t0))
	if got.Version <= p.Version || len(got.Volumes) != 2 {
		t.Fatalf("renamed doc: version %d -> %d, %d volumes", p.Version, got.Version, len(got.Volumes))
	}
	var title string
	if err := e.pool.QueryRow(context.Background(), `SELECT title FROM works WHERE pid='P100'`).Scan(&title); err != nil || title != "달빛 조각사 외전" {
		t.Fatalf("postgres title %q %v", title, err)
	}
}

// Alternative titles set by the admin API are trimmed, kept in PostgreSQL
// and published in the work's head (the edge's search matches them), and
// an empty list removes them.
func TestAdminAltTitlesReachKV(t *testing.T) {
	t.Parallel()
	e := start(t)
	if st, body := e.admin.Do("POST", "/admin/api/v1/works", newWork("P101")); st != http.StatusCreated {
		t.Fatalf("create: %d %s", st, body)
	}
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/P101", map[string]any{"altTitles": []string{" 월광조각사 ", "Legendary Moonlight Sculptor"}}); st != 200 {
		t.Fatalf("alt titles: %d %s", st, body)
	}
	got := writertest.MustWork(t, e.kv, writertest.WaitKV(t, e.kv, "prod.P101", 5*time.Second, func(b []byte) bool { return len(product(t, b).AltTitles) > 0 }))
	if fmt.Sprint(got.AltTitles) != "[월광조각사 Legendary Moonlight Sculptor]" {
		t.Fatalf("head alt titles %q", got.AltTitles)
	}
	var alt []string
	if err := e.pool.QueryRow(context.Background(), `SELECT alt_titles FROM works WHERE pid='P101'`).Scan(&alt); err != nil || len(alt) != 2 {
		t.Fatalf("postgres alt titles %q %v", alt, err)
	}
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/P101", map[string]any{"altTitles": []string{}}); st != 200 {
		t.Fatalf("clear alt titles: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.P101", 5*time.Second, func(b []byte) bool { return !bytes.Contains(b, []byte(`"altTitles"`)) })
}

// A comic's right-to-left page order set by the admin API is kept in
// PostgreSQL and published in the work's head; turned off, the head no
// longer names it (omitempty: the head stays as small as before).
func TestAdminRightToLeftReachesKV(t *testing.T) {
	t.Parallel()
	e := start(t)
	w := newWork("P102")
	w["section"] = "CM"
	if st, body := e.admin.Do("POST", "/admin/api/v1/works", w); st != http.StatusCreated {
		t.Fatalf("create: %d %s", st, body)
	}
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/P102", map[string]any{"rightToLeft": true}); st != 200 {
		t.Fatalf("right to left: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.P102", 5*time.Second, func(b []byte) bool { return product(t, b).RightToLeft })
	var rtl bool
	if err := e.pool.QueryRow(context.Background(), `SELECT right_to_left FROM works WHERE pid='P102'`).Scan(&rtl); err != nil || !rtl {
		t.Fatalf("postgres right_to_left %v %v", rtl, err)
	}
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/P102", map[string]any{"rightToLeft": false}); st != 200 {
		t.Fatalf("left to right: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.P102", 5*time.Second, func(b []byte) bool { return !bytes.Contains(b, []byte(`"rightToLeft"`)) })
}

func TestAdminVolumeScheduledRelease(t *testing.T) {
	t.Parallel()
	e := start(t)
	if st, body := e.admin.Do("POST", "/admin/api/v1/works", newWork("P200")); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	at := time.Date(2030, 1, 1, 14, 0, 0, 0, time.UTC)
	st, body := e.admin.Do("POST", "/admin/api/v1/works/P200/volumes", map[string]any{"title": "3화", "buyPrice": 200, "releaseAt": at, "pages": 5})
	if st != 201 || !strings.Contains(string(body), `"no":3`) {
		t.Fatalf("add volume: %d %s", st, body)
	}
	got := writertest.MustWork(t, e.kv, writertest.WaitKV(t, e.kv, "prod.P200", 5*time.Second, func(b []byte) bool { return len(work(t, e, b).Volumes) == 3 }))
	if !got.Volumes[2].ReleaseAt.Equal(at) || got.Volumes[2].BuyPrice != 200 {
		t.Fatalf("volume 3: %+v", got.Volumes[2])
	}
	st, body = e.admin.Do("PUT", "/admin/api/v1/works/P200/volumes/3", map[string]any{"title": "3화 (수정)", "buyPrice": 300, "releaseAt": at, "pages": 5})
	if st != 200 {
		t.Fatalf("update volume: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.P200", 5*time.Second, func(b []byte) bool {
		p := work(t, e, b)
		return len(p.Volumes) == 3 && p.Volumes[2].BuyPrice == 300
	})
	if st, body := e.admin.Do("DELETE", "/admin/api/v1/works/P200/volumes/3", nil); st != 200 {
		t.Fatalf("delete volume: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.P200", 5*time.Second, func(b []byte) bool { return len(work(t, e, b).Volumes) == 2 })
}

func TestAdminOtherEntities(t *testing.T) {
	t.Parallel()
	e := start(t)
	now := time.Now().UTC().Truncate(time.Second)
	st, body := e.admin.Do("POST", "/admin/api/v1/events", contract.Event{Kind: contract.EventBluerun, Title: "블루런", PIDs: []string{"P1"}, StartAt: now, EndAt: now.Add(time.Hour)})
	if st != 201 {
		t.Fatalf("event: %d %s", st, body)
	}
	var c struct{ ID int64 }
	_ = json.Unmarshal(body, &c)
	key := "event." + jsonNum(c.ID)
	writertest.WaitKV(t, e.kv, key, 5*time.Second, func(b []byte) bool { return strings.Contains(string(b), "블루런") })
	if st, body := e.admin.Do("DELETE", "/admin/api/v1/events/"+jsonNum(c.ID), nil); st != 200 {
		t.Fatalf("delete event: %d %s", st, body)
	}
	writertest.Eventually(t, 5*time.Second, "event deleted from kv", func() bool {
		_, err := e.kv.Get(context.Background(), key)
		return err != nil
	})
	for path, doc := range map[string]any{
		"/admin/api/v1/faq":      contract.FAQ{CID: "01000", Question: "Q?", Answer: "A."},
		"/admin/api/v1/notices":  contract.Notice{Title: "공지"},
		"/admin/api/v1/banners":  contract.Banner{Place: "home", Title: "배너", StartAt: now, EndAt: now.Add(time.Hour)},
		"/admin/api/v1/keywords": contract.Keyword{Name: "회귀"},
		"/admin/api/v1/awards": contract.Award{Title: "어워즈", StartAt: now, EndAt: now.Add(time.Hour),
			Sections: []contract.AwardSection{{Key: "wt", Title: "웹툰", List: []contract.AwardCandidate{{PID: "P1"}, {PID: "P2", Votes: 3}}}}},
	} {
		if st, body := e.admin.Do("POST", path, doc); st != 201 {
			t.Fatalf("%s: %d %s", path, st, body)
		}
	}
	if st, body := e.admin.Do("PUT", "/admin/api/v1/siteconfig", contract.SiteConfig{WebVersionCode: 25}); st != 200 {
		t.Fatalf("siteconfig: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "siteconfig", 5*time.Second, func(b []byte) bool { return strings.Contains(string(b), `"webVersionCode":25`) })
	writertest.Eventually(t, 5*time.Second, "every document published", func() bool {
		keys, _ := e.kv.Keys(context.Background())
		return len(keys) == 6
	})
	b := writertest.WaitKV(t, e.kv, "award.10000000", time.Second, func([]byte) bool { return true })
	var a contract.Award
	_ = json.Unmarshal(b, &a)
	if len(a.Sections) != 1 || len(a.Sections[0].List) != 2 || a.Sections[0].List[1].Votes != 3 {
		t.Fatalf("award doc: %s", b)
	}
}

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }

func countRows(t *testing.T, pool *pgxpool.Pool, sql string) int {
	var n int
	if err := pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAdminBadInput(t *testing.T) {
	t.Parallel()
	e := start(t)
	if st, body := e.admin.Do("POST", "/admin/api/v1/works", newWork("P300")); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.P300", 5*time.Second, func([]byte) bool { return true })
	before := countRows(t, e.pool, `SELECT count(*) FROM outbox`)
	noTok := &writertest.Client{T: t, Base: e.base}
	badTok := &writertest.Client{T: t, Base: e.base, Token: "nope"}
	big := `{"title":"` + strings.Repeat("가", 12<<20) + `"}`
	w := newWork("")
	w["section"] = "XX"
	cases := []struct {
		name   string
		c      *writertest.Client
		method string
		path   string
		body   any
		want   int
	}{
		{"no token", noTok, "PATCH", "/admin/api/v1/works/P300", map[string]any{"title": "x"}, 401},
		{"wrong token", badTok, "PATCH", "/admin/api/v1/works/P300", map[string]any{"title": "x"}, 401},
		{"malformed json", e.admin, "PATCH", "/admin/api/v1/works/P300", `{"title":`, 400},
		{"not an object", e.admin, "PATCH", "/admin/api/v1/works/P300", `[1]`, 400},
		{"unknown field", e.admin, "PATCH", "/admin/api/v1/works/P300", `{"titel":"x"}`, 400},
		{"wrong type", e.admin, "PATCH", "/admin/api/v1/works/P300", `{"title":5}`, 400},
		{"empty title", e.admin, "PATCH", "/admin/api/v1/works/P300", `{"title":"  "}`, 400},
		{"bad age", e.admin, "PATCH", "/admin/api/v1/works/P300", `{"age":18}`, 400},
		{"pid change", e.admin, "PATCH", "/admin/api/v1/works/P300", `{"pid":"P301"}`, 400},
		{"unknown work", e.admin, "PATCH", "/admin/api/v1/works/NOPE", `{"title":"x"}`, 404},
		{"oversized", e.admin, "PATCH", "/admin/api/v1/works/P300", big, 413},
		{"empty body", e.admin, "POST", "/admin/api/v1/works", ``, 400},
		{"bad section", e.admin, "POST", "/admin/api/v1/works", w, 400},
		{"duplicate pid", e.admin, "POST", "/admin/api/v1/works", newWork("P300"), 409},
		{"bad pid", e.admin, "POST", "/admin/api/v1/works", newWork("a/b"), 400},
		{"negative price", e.admin, "PUT", "/admin/api/v1/works/P300/volumes/2", `{"buyPrice":-1}`, 400},
		{"huge price", e.admin, "PUT", "/admin/api/v1/works/P300/volumes/2", `{"buyPrice":999999999}`, 400},
		{"bad volume no", e.admin, "PUT", "/admin/api/v1/works/P300/volumes/x", `{}`, 400},
		{"event without window", e.admin, "POST", "/admin/api/v1/events", `{"kind":"bluerun","title":"t"}`, 400},
		{"faq bad cid", e.admin, "POST", "/admin/api/v1/faq", `{"cid":"9","question":"q","answer":"a"}`, 400},
		{"author empty name", e.admin, "PATCH", "/admin/api/v1/authors/1", `{"name":""}`, 400},
	}
	for _, tc := range cases {
		st, body := tc.c.Do(tc.method, tc.path, tc.body)
		if st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: got %d %s, want %d", tc.name, st, body[:min(len(body), 200)], tc.want)
		}
	}
	if after := countRows(t, e.pool, `SELECT count(*) FROM outbox`); after != before {
		t.Fatalf("bad input changed the outbox: %d -> %d rows", before, after)
	}
	if n := countRows(t, e.pool, `SELECT count(*) FROM works WHERE title = '달빛 조각사'`); n != 1 {
		t.Fatalf("bad input changed works")
	}
}

// TestRelaySurvivesNATSOutage: a change made while NATS is down stays in the
// outbox and reaches the KV once NATS is back.
func TestRelaySurvivesNATSOutage(t *testing.T) {
	t.Parallel()
	e := start(t)
	if st, body := e.admin.Do("POST", "/admin/api/v1/works", newWork("P400")); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	writertest.WaitKV(t, e.kv, "prod.P400", 5*time.Second, func([]byte) bool { return true })
	e.nats.Stop()
	if st, body := e.admin.Do("PATCH", "/admin/api/v1/works/P400", map[string]any{"title": "정전 중 변경"}); st != 200 {
		t.Fatalf("rename during outage: %d %s", st, body)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := countRows(t, e.pool, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`); n != 1 {
		t.Fatalf("pending rows during outage: %d, want 1", n)
	}
	if err := e.nats.Start(); err != nil {
		t.Fatal(err)
	}
	writertest.WaitKV(t, e.kv, "prod.P400", 15*time.Second, func(b []byte) bool { return product(t, b).Title == "정전 중 변경" })
	writertest.Eventually(t, 5*time.Second, "row marked sent", func() bool {
		return countRows(t, e.pool, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`) == 0
	})
}

func TestOpsEndpoints(t *testing.T) {
	t.Parallel()
	e := start(t)
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		r, err := http.Get(e.base + p)
		if err != nil || r.StatusCode != 200 {
			t.Fatalf("%s: %v %v", p, r, err)
		}
		r.Body.Close()
	}
	c := &writertest.Client{T: t, Base: e.base}
	st, body := c.Do("GET", "/no/such/path", nil)
	if st != 404 || writertest.Code(t, body) != 404 {
		t.Fatalf("unknown path: %d %s", st, body)
	}
}

// TestMoneyMountedBehindSession: the money routes see the session's user.
func TestMoneyMountedBehindSession(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	b := e.Browser()
	if st, body := b.Do("GET", "/home/api/v1/wallet", nil); st != 401 || writertest.Code(t, body) != 401 {
		t.Fatalf("wallet as visitor: %d %s", st, body)
	}
	if st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "m@example.com", "password": "correct horse"}); st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	if st, body := b.Do("GET", "/home/api/v1/wallet", nil); st != 200 || writertest.Code(t, body) != 200 {
		t.Fatalf("wallet as member: %d %s", st, body)
	}
}

func TestMetricsByRoute(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	e.Browser().Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "x@example.com", "password": "nope nope"})
	e.Admin.Do("GET", "/admin/api/v1/works/NOPE", nil)
	_, body := e.Browser().Do("GET", "/metrics", nil)
	for _, want := range []string{
		`writer_http_requests_total{code="401",route="POST /home/api/v1/auth/login"} 1`,
		`writer_http_requests_total{code="404",route="GET /admin/api/v1/works/{pid}"} 1`,
		`writer_outbox_sent_total`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// Two writer nodes on one database and one NATS: renames through both end
// with every document at its latest title and no row left or refused.
func TestTwoWriterNodes(t *testing.T) {
	t.Parallel()
	a := writertest.StartWriter(t, nil)
	b := writertest.StartWriter(t, func(c *server.Config) {
		c.DatabaseURL = a.DatabaseURL
		c.NATSURL = a.NATS.URL
	})
	const works, renames = 6, 8
	for i := range works {
		if st, body := a.Admin.Do("POST", "/admin/api/v1/works", newWork(fmt.Sprintf("M%d", i))); st != 201 {
			t.Fatalf("create: %d %s", st, body)
		}
	}
	var wg sync.WaitGroup
	for i := range works {
		for n, node := range []*writertest.Env{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range renames {
					node.Admin.Do("PATCH", fmt.Sprintf("/admin/api/v1/works/M%d", i), map[string]any{"title": fmt.Sprintf("제목 %d-%d", n, j)})
				}
			}()
		}
	}
	wg.Wait()
	for i := range works {
		pid := fmt.Sprintf("M%d", i)
		var want string
		if err := a.Pool.QueryRow(context.Background(), `SELECT title FROM works WHERE pid = $1`, pid).Scan(&want); err != nil {
			t.Fatal(err)
		}
		writertest.WaitKV(t, a.KV, "prod."+pid, 5*time.Second, func(v []byte) bool { return product(t, v).Title == want })
	}
	writertest.Eventually(t, 5*time.Second, "outbox drained", func() bool {
		return countRows(t, a.Pool, `SELECT count(*) FROM outbox WHERE sent_at IS NULL OR error IS NOT NULL`) == 0
	})
}

// With no payment URL the writer starts the Toss sandbox: a member charges
// blue money end to end (request, approve on the checkout page, confirm).
func TestChargeThroughSandbox(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) { c.PaymentSandbox = true })
	b := e.Browser()
	if st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "pay@example.com", "password": "correct horse"}); st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	b.Headers = map[string]string{"Idempotency-Key": "charge-1"}
	st, body := b.Do("POST", "/home/api/v1/charge/requests", map[string]any{"amount": 5000, "successUrl": "/ok", "failUrl": "/fail"})
	if st != 200 {
		t.Fatalf("charge request: %d %s", st, body)
	}
	var ch struct {
		OrderID     string `json:"orderId"`
		PaymentKey  string `json:"paymentKey"`
		CheckoutURL string `json:"checkoutUrl"`
	}
	_ = json.Unmarshal(body, &ch)
	if ch.CheckoutURL == "" {
		t.Fatalf("no checkout url: %s", body)
	}
	red, err := tosssandbox.Pay(context.Background(), ch.CheckoutURL, true)
	if err != nil {
		t.Fatal(err)
	}
	b.Headers = map[string]string{"Idempotency-Key": "confirm-1"}
	if st, body := b.Do("POST", "/home/api/v1/charge/confirm", map[string]any{"orderId": ch.OrderID, "paymentKey": red.PaymentKey, "amount": 5000}); st != 200 {
		t.Fatalf("confirm: %d %s", st, body)
	}
	b.Headers = nil
	_, body = b.Do("GET", "/home/api/v1/wallet", nil)
	if !strings.Contains(string(body), `"bluemoney":5000`) {
		t.Fatalf("wallet after charge: %s", body)
	}
}
