package push_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
	f    *pushtest.Service
	clk  *clock
}

func newWorld(t *testing.T) *world {
	pool, _ := writertest.Pool(t)
	w := &world{t: t, pool: pool, f: startFake(t), clk: &clock{}}
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

// release adds volume no of pid released at the given instant.
func (w *world) release(pid string, no int, at time.Time) {
	w.exec(`INSERT INTO volumes (pid, no, release_at) VALUES ($1, $2, $3)`, pid, no, at)
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
