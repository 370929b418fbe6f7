package push_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/writer/catalog"
	"storefront/writer/internal/writertest"
	"storefront/writer/push"
	"storefront/writer/push/pushtest"
)

// clock is a test clock the worker reads.
type clock struct{ off atomic.Int64 }

func (c *clock) now() time.Time       { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) move(d time.Duration) { c.off.Add(int64(d)) }

func startFake(t testing.TB) *pushtest.Service {
	t.Helper()
	f, err := pushtest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// world is a database with one work and what the worker needs around it.
type world struct {
	t    *testing.T
	pool *pgxpool.Pool
	url  string
	f    *pushtest.Service
	clk  *clock
}

func newWorld(t *testing.T) *world {
	pool, url := writertest.Pool(t)
	w := &world{t: t, pool: pool, url: url, f: startFake(t), clk: &clock{}}
	w.exec(`INSERT INTO works (pid, section, title) VALUES ('W1', 'WT', '푸시 작품'), ('W2', 'WT', '다른 작품')`)
	return w
}

func (w *world) exec(sql string, args ...any) {
	w.t.Helper()
	if _, err := w.pool.Exec(context.Background(), sql, args...); err != nil {
		w.t.Fatalf("%s: %v", sql, err)
	}
}

func (w *world) count(sql string, args ...any) int {
	w.t.Helper()
	var n int
	if err := w.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		w.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// members makes n members, each with a subscription of the fake on channel
// and the alarm of pid set to on; it answers their endpoints.
func (w *world) members(n int, pid string, on bool, channel string) []string {
	w.t.Helper()
	ctx := context.Background()
	tag := fmt.Sprintf("%s-%v-%s-%d", pid, on, channel, time.Now().UnixNano())
	rows, err := w.pool.Query(ctx, `INSERT INTO users (login_type, login_id, bid)
		SELECT 'N', $1 || g, $1 || 'b' || g FROM generate_series(1, $2) g RETURNING uid`, tag, n)
	if err != nil {
		w.t.Fatal(err)
	}
	var uids []int64
	for rows.Next() {
		var u int64
		_ = rows.Scan(&u)
		uids = append(uids, u)
	}
	if rows.Err() != nil {
		w.t.Fatal(rows.Err())
	}
	var eps, keys, auths []string
	for range uids {
		s, err := w.f.NewSubscription(push.DevPublicKey)
		if err != nil {
			w.t.Fatal(err)
		}
		eps, keys, auths = append(eps, s.Endpoint), append(keys, s.Keys.P256dh), append(auths, s.Keys.Auth)
	}
	w.exec(`INSERT INTO push_subscriptions (uid, endpoint, p256dh, auth, channel, created_at, updated_at)
		SELECT u, e, k, a, $5, now(), now() FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS x(u, e, k, a)`,
		uids, eps, keys, auths, channel)
	w.exec(`INSERT INTO alarms (uid, pid, is_on, updated_at) SELECT u, $2, $3, now() FROM unnest($1::bigint[]) u`, uids, pid, on)
	return eps
}

// edit changes the work's product document the way the admin API does
// (catalog.SaveProducts in one transaction), which keeps the push schedule.
func (w *world) edit(pid string, change func(p *contract.Product)) {
	w.t.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		p, err := catalog.LoadProduct(ctx, tx, pid, true)
		if err != nil {
			return err
		}
		change(p)
		if err := catalog.Normalize(p, time.Now()); err != nil {
			return err
		}
		return catalog.SaveProducts(ctx, tx, []contract.Product{*p}, true)
	})
	if err != nil {
		w.t.Fatalf("edit %s: %v", pid, err)
	}
}

// release adds volume no of pid released at the given instant, or moves its
// release there.
func (w *world) release(pid string, no int, at time.Time) {
	w.t.Helper()
	w.edit(pid, func(p *contract.Product) {
		for i := range p.Volumes {
			if p.Volumes[i].No == no {
				p.Volumes[i].ReleaseAt = at
				return
			}
		}
		p.Volumes = append(p.Volumes, contract.Volume{No: no, ReleaseAt: at})
	})
}

func (w *world) service(edit func(*push.Config)) *push.Service {
	w.t.Helper()
	cfg := push.Config{EndpointHosts: "127.0.0.1", AllowHTTP: true, Now: w.clk.now, Poll: 50 * time.Millisecond,
		RetryBase: 100 * time.Millisecond, Lease: 30 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	s, err := push.New(w.pool, cfg, writertest.Log())
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

// run starts a worker; the returned stop waits for it.
func run(t *testing.T, wk *push.Worker) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- wk.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("worker: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func payload(t *testing.T, m pushtest.Message) push.Payload {
	t.Helper()
	var p push.Payload
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		t.Fatalf("payload %q: %v", m.Raw, err)
	}
	return p
}

// TestReleaseNotifiesThousandsOnce: 3,000 members follow a work from a
// browser; at the release instant every one gets one notification, while
// two workers (two writer nodes) run side by side and one of them is stopped
// and started again mid-release. Members with the alarm off, of another
// work, or in the app (bridge, not Web Push) get nothing.
func TestReleaseNotifiesThousandsOnce(t *testing.T) {
	const n = 3000
	const bound = 60 * time.Second // stated in writer/README.md
	w := newWorld(t)
	eps := w.members(n, "W1", true, "")
	w.members(20, "W1", false, "")
	w.members(20, "W2", true, "")
	w.members(20, "W1", true, "AA")
	w.release("W1", 1, w.clk.now().Add(-48*time.Hour)) // long out: silent
	w.release("W1", 2, w.clk.now().Add(2*time.Second))

	cfg := func(c *push.Config) { c.Concurrency, c.Batch = 16, 100 }
	a, b := w.service(cfg), w.service(cfg)
	stopA := run(t, a.Worker(nil))
	run(t, b.Worker(nil))
	time.Sleep(300 * time.Millisecond)
	if got := w.f.Requests(); got != 0 {
		t.Fatalf("%d notifications before the release", got)
	}
	w.clk.move(2 * time.Second) // the release instant passes
	start := time.Now()
	writertest.Eventually(t, bound, "a quarter notified", func() bool { return len(w.f.Messages("")) >= n/4 })
	stopA()                            // a writer node stops mid-release ...
	run(t, w.service(cfg).Worker(nil)) // ... and starts again
	writertest.Eventually(t, bound, "every subscriber notified", func() bool { return len(w.f.Messages("")) >= n })
	took := time.Since(start)
	time.Sleep(500 * time.Millisecond) // room for a duplicate to show up
	msgs := w.f.Messages("")
	seen := map[string]int{}
	for _, m := range msgs {
		seen[m.Endpoint]++
	}
	for _, ep := range eps {
		if seen[ep] != 1 {
			t.Fatalf("%s notified %d times", ep, seen[ep])
		}
	}
	if len(msgs) != n {
		t.Fatalf("%d notifications for %d subscribers (others notified?)", len(msgs), n)
	}
	p := payload(t, msgs[0])
	if p.URL != "/viewer?pid=W1&no=2" || p.Title != "푸시 작품" || p.Body != "새 회차 2화가 공개되었습니다." || p.Tag != "vol:W1:2" {
		t.Fatalf("payload %+v", p)
	}
	if m := msgs[0]; m.TTL != 86400 || m.Urgency != "normal" || m.Topic == "" || m.Subject != "mailto:push@storefront.invalid" {
		t.Fatalf("headers %+v", m)
	}
	if r := w.f.Refused(); len(r) > 0 {
		t.Fatalf("refused: %v", r[:min(len(r), 3)])
	}
	if got := w.count(`SELECT count(*) FROM push_deliveries WHERE sent_at IS NOT NULL`); got != n {
		t.Fatalf("%d deliveries marked sent", got)
	}
	t.Logf("%d subscribers notified in %s (two workers, one restarted)", n, took.Round(10*time.Millisecond))
}

// TestRetriesWithBackoffAndRetryAfter: a push service answering 429 with
// Retry-After and then 500 gets the notification on the third try, not
// before the Retry-After; one that keeps failing is given up after
// MaxAttempts and the rest are not held up.
func TestRetriesWithBackoffAndRetryAfter(t *testing.T) {
	w := newWorld(t)
	eps := w.members(2, "W1", true, "IW")
	w.f.Script(eps[0], pushtest.Answer{Status: 429, RetryAfter: "1"}, pushtest.Answer{Status: 500})
	w.f.Script(eps[1], pushtest.Answer{Status: 503}, pushtest.Answer{Status: 503}, pushtest.Answer{Status: 503}, pushtest.Answer{Status: 503})
	w.release("W1", 1, w.clk.now())
	start := time.Now()
	run(t, w.service(func(c *push.Config) { c.MaxAttempts = 3 }).Worker(nil))
	writertest.Eventually(t, 20*time.Second, "the retried notification", func() bool { return len(w.f.Messages(eps[0])) == 1 })
	if d := time.Since(start); d < time.Second {
		t.Fatalf("delivered after %s, before the Retry-After of 1 s", d)
	}
	writertest.Eventually(t, 20*time.Second, "the failing one given up", func() bool {
		return w.count(`SELECT count(*) FROM push_deliveries WHERE failed_at IS NOT NULL`) == 1
	})
	if got := w.f.Requests(); got != 6 {
		t.Fatalf("%d requests, want 3 + 3", got)
	}
	if got := w.count(`SELECT attempts FROM push_deliveries d JOIN push_subscriptions s ON s.id = d.sub_id WHERE s.endpoint = $1`, eps[0]); got != 3 {
		t.Fatalf("attempts %d", got)
	}
	if len(w.f.Messages(eps[1])) != 0 {
		t.Fatal("the failing subscription got a message")
	}
}

// TestGoneSubscriptionsAreRemoved: 404 and 410 mean the browser dropped the
// subscription; the writer forgets it instead of retrying.
func TestGoneSubscriptionsAreRemoved(t *testing.T) {
	w := newWorld(t)
	eps := w.members(3, "W1", true, "")
	w.f.Gone(eps[0], 410)
	w.f.Gone(eps[1], 404)
	w.release("W1", 1, w.clk.now())
	run(t, w.service(nil).Worker(nil))
	writertest.Eventually(t, 10*time.Second, "the live one notified", func() bool { return len(w.f.Messages(eps[2])) == 1 })
	writertest.Eventually(t, 10*time.Second, "the gone ones removed", func() bool {
		return w.count(`SELECT count(*) FROM push_subscriptions`) == 1
	})
	time.Sleep(300 * time.Millisecond)
	if got := w.f.Requests(); got != 3 {
		t.Fatalf("%d requests: a gone subscription was retried", got)
	}
}

// TestWrongVAPIDKeyIsNotRetried: a push service refuses a key the
// subscription was not made with (403); the writer records the failure
// instead of hammering it.
func TestWrongVAPIDKeyIsNotRetried(t *testing.T) {
	w := newWorld(t)
	w.members(1, "W1", true, "")
	w.release("W1", 1, w.clk.now())
	other := func(c *push.Config) {
		c.PublicKey = "BCfaY_GEcv7YjUX-JpTl0YJEobILWKnjmdepB7RgpMiaeN_E9MG_KOAkrlBqP3zQqTHk09MDqEFgRr4c87SEDQ4"
		c.PrivateKey = "CioIBIPe9-3Ye0-_aw_Ic188IS3-gleFCD1xEpX_JGQ"
	}
	run(t, w.service(other).Worker(nil))
	writertest.Eventually(t, 10*time.Second, "the failure recorded", func() bool {
		return w.count(`SELECT count(*) FROM push_deliveries WHERE failed_at IS NOT NULL AND error LIKE '403%'`) == 1
	})
	time.Sleep(300 * time.Millisecond)
	if got := w.f.Requests(); got != 1 || len(w.f.Refused()) != 1 {
		t.Fatalf("%d requests, refused %v", got, w.f.Refused())
	}
}

// TestConfigRefusesBadKeys: keys that do not pair, or are not P-256, fail
// at start.
func TestConfigRefusesBadKeys(t *testing.T) {
	for name, c := range map[string]push.Config{
		"mismatched pair": {PublicKey: push.DevPublicKey, PrivateKey: "CioIBIPe9-3Ye0-_aw_Ic188IS3-gleFCD1xEpX_JGQ"},
		"not base64":      {PublicKey: "!!", PrivateKey: push.DevPrivateKey},
		"short public":    {PublicKey: "BCfaY_GE", PrivateKey: push.DevPrivateKey},
		"bad subject":     {PublicKey: push.DevPublicKey, PrivateKey: push.DevPrivateKey, Subject: "ops@example.com"},
	} {
		if err := c.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ok := push.Config{PublicKey: push.DevPublicKey, PrivateKey: push.DevPrivateKey}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
}

// tagged counts the notifications of volume no of pid.
func tagged(f *pushtest.Service, t *testing.T, pid string, no int) int {
	n := 0
	for _, m := range f.Messages("") {
		if payload(t, m).Tag == fmt.Sprintf("vol:%s:%d", pid, no) {
			n++
		}
	}
	return n
}

// TestReleasesWrittenAfterStartRingWhenDue: with the worker already running,
// the catalog's writes (the admin API's path) add a release, move one later,
// remove one and hide a work; each subscriber hears of a volume once, at its
// release instant and not before, and nothing of the moved-away instant, the
// removed volume or the hidden work.
func TestReleasesWrittenAfterStartRingWhenDue(t *testing.T) {
	const n = 5
	w := newWorld(t)
	w.members(n, "W1", true, "")
	w.members(n, "W2", true, "")
	run(t, w.service(nil).Worker(nil))
	time.Sleep(200 * time.Millisecond) // the worker has looked at an empty schedule

	t0 := w.clk.now()
	w.release("W1", 1, t0.Add(3*time.Second))
	w.release("W1", 2, t0.Add(3*time.Second))
	w.release("W1", 2, t0.Add(6*time.Second)) // postponed
	w.release("W1", 3, t0.Add(3*time.Second))
	w.edit("W1", func(p *contract.Product) { p.Volumes = p.Volumes[:2] }) // volume 3 withdrawn
	w.release("W2", 1, t0.Add(3*time.Second))
	w.edit("W2", func(p *contract.Product) { p.Hidden = true })

	time.Sleep(500 * time.Millisecond)
	if got := w.f.Requests(); got != 0 {
		t.Fatalf("%d notifications before any release instant", got)
	}
	w.clk.move(3 * time.Second) // volume 1's instant passes, volume 2's not yet
	writertest.Eventually(t, 30*time.Second, "volume 1 notified", func() bool { return tagged(w.f, t, "W1", 1) == n })
	time.Sleep(500 * time.Millisecond)
	if got := tagged(w.f, t, "W1", 2); got != 0 {
		t.Fatalf("postponed volume 2 rang %d times at its first instant", got)
	}
	w.clk.move(3 * time.Second) // volume 2's new instant passes
	writertest.Eventually(t, 30*time.Second, "volume 2 notified", func() bool { return tagged(w.f, t, "W1", 2) == n })
	time.Sleep(500 * time.Millisecond) // room for a duplicate or a hidden one
	if got, w1, w2 := w.f.Requests(), tagged(w.f, t, "W1", 1), tagged(w.f, t, "W1", 2); got != 2*n || w1 != n || w2 != n {
		t.Fatalf("%d notifications (volume 1 %d, volume 2 %d), want %d each and no others", got, w1, w2, n)
	}
	if got := tagged(w.f, t, "W1", 3) + tagged(w.f, t, "W2", 1); got != 0 {
		t.Fatalf("%d notifications of the withdrawn volume or the hidden work", got)
	}
	if p := payload(t, w.f.Messages("")[0]); p.Title != "푸시 작품" {
		t.Fatalf("title %q", p.Title)
	}
}

// catalogTables are the tables a reader's page is built from: the release
// spike's load test counts any read of them as a reader reaching the origin.
var catalogTables = []string{"authors", "works", "work_authors", "volumes", "events", "awards", "award_sections",
	"award_candidates", "faq", "notices", "banners", "keywords", "site_docs"}

// TestWorkerTimerReadsNoCatalogTable: a worker looking every 20 ms for a few
// seconds, with releases scheduled ahead, one fanned out and its
// notifications sent, reads push tables only: PostgreSQL's scan counters of
// the catalog tables do not move, while those of push_schedule do (so the
// worker's statistics were counted).
func TestWorkerTimerReadsNoCatalogTable(t *testing.T) {
	w := newWorld(t)
	w.members(3, "W1", true, "")
	w.release("W1", 1, w.clk.now().Add(time.Second))
	w.release("W1", 2, w.clk.now().Add(time.Hour))
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(w.url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "push-worker-under-test"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := push.New(pool, push.Config{EndpointHosts: "127.0.0.1", AllowHTTP: true, Now: w.clk.now, Poll: 20 * time.Millisecond}, writertest.Log())
	if err != nil {
		t.Fatal(err)
	}
	// scans answers the scans of the catalog tables and of push_schedule so
	// far; a backend reports its counters when it ends at the latest.
	scans := func() (catalog, schedule int64) {
		t.Helper()
		if err := w.pool.QueryRow(ctx, `SELECT pg_stat_force_next_flush()`).Scan(new(any)); err != nil {
			t.Fatal(err)
		}
		err := w.pool.QueryRow(ctx, `SELECT pg_stat_clear_snapshot() IS NULL,
			coalesce(sum(seq_scan + coalesce(idx_scan, 0)) FILTER (WHERE relname = ANY($1)), 0),
			coalesce(sum(seq_scan + coalesce(idx_scan, 0)) FILTER (WHERE relname = 'push_schedule'), 0)
			FROM pg_stat_user_tables`, catalogTables).Scan(new(bool), &catalog, &schedule)
		if err != nil {
			t.Fatal(err)
		}
		return catalog, schedule
	}
	// The setup's connections end first, so that their own catalog reads are
	// counted before the baseline.
	w.pool.Reset()
	writertest.Eventually(t, 10*time.Second, "the setup's connections closed", func() bool {
		return w.count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`) == 0
	})
	catalog0, schedule0 := scans()
	stop := run(t, s.Worker(nil))
	w.clk.move(time.Second)
	writertest.Eventually(t, 10*time.Second, "volume 1 notified", func() bool { return len(w.f.Messages("")) == 3 })
	time.Sleep(2 * time.Second) // ~100 looks at the schedule
	stop()
	pool.Close() // its backends end and report their counters
	writertest.Eventually(t, 10*time.Second, "the worker's connections closed", func() bool {
		return w.count(`SELECT count(*) FROM pg_stat_activity WHERE application_name = 'push-worker-under-test'`) == 0
	})
	catalog1, schedule1 := scans()
	if catalog1 != catalog0 {
		t.Fatalf("the worker scanned catalog tables %d times", catalog1-catalog0)
	}
	if schedule1-schedule0 < 20 {
		t.Fatalf("push_schedule scanned %d times: the worker's counters were not seen", schedule1-schedule0)
	}
	t.Logf("catalog table scans %d, push_schedule scans %d", catalog1-catalog0, schedule1-schedule0)
}
