package server_test

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

// waitEvent waits until the EVENTS stream holds a message of type typ.
func waitEvent(t *testing.T, js jetstream.JetStream, typ string, within time.Duration) {
	t.Helper()
	s, err := js.Stream(context.Background(), contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	writertest.Eventually(t, within, "event "+typ+" in EVENTS", func() bool {
		_, err := s.GetLastMsgForSubject(context.Background(), contract.BizSubject(typ))
		return err == nil
	})
}

// memberWithWork signs a member up on e, creates work pid (volume 2 costs
// 100) and gives the member the join bonus (3000 mileage) to buy with.
func memberWithWork(t *testing.T, e *writertest.Env, pid string) (*writertest.Client, string) {
	t.Helper()
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", newWork(pid)); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	b := e.Browser()
	st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "wake@example.com", "password": "correct horse"})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	var m struct {
		AuthInfo struct{ UID string } `json:"authInfo"`
	}
	_ = json.Unmarshal(body, &m)
	if st, body := b.Do("POST", "/home/api/v1/wallet/join-bonus", nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, body)
	}
	return b, m.AuthInfo.UID
}

// With polling practically off, every kind of outbox writer (auth, money,
// member, admin) still gets its rows published at once: each wakes its own
// node's relay after commit.
func TestEveryOutboxWriterWakesItsRelay(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) { c.RelayPoll = time.Hour })
	const within = 3 * time.Second
	b, uid := memberWithWork(t, e, "WK1")
	waitEvent(t, e.JS, contract.EvSignup, within)
	waitEvent(t, e.JS, contract.EvLogin, within)
	waitEvent(t, e.JS, contract.EvCharge, within) // the join bonus
	b.Headers = map[string]string{"Idempotency-Key": "wake-buy"}
	if st, body := b.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "WK1", "vols": []int{2}, "buyType": "B"}); st != 200 {
		t.Fatalf("purchase: %d %s", st, body)
	}
	b.Headers = nil
	waitEvent(t, e.JS, contract.EvPurchase, within)
	if st, body := b.Do("POST", "/protocol/appapi/mb/user/info/zzim-add",
		writertest.Form(url.Values{"uid": {uid}, "zzim_type": {"prod"}, "pid": {"WK1"}}.Encode())); st != 200 {
		t.Fatalf("zzim-add: %d %s", st, body)
	}
	waitEvent(t, e.JS, contract.EvZzim, within)
	if st, body := b.Do("POST", "/home/api/v1/products/WK1/reviews", map[string]any{"body": "재밌어요", "point": 9}); st != 201 {
		t.Fatalf("review: %d %s", st, body)
	}
	writertest.WaitKV(t, e.KV, contract.KeyReviews+"WK1", within, func([]byte) bool { return true })
	if st, body := e.Admin.Do("PATCH", "/admin/api/v1/works/WK1", map[string]any{"title": "깨우기"}); st != 200 {
		t.Fatalf("rename: %d %s", st, body)
	}
	writertest.WaitKV(t, e.KV, "prod.WK1", within, func(v []byte) bool { return product(t, v).Title == "깨우기" })
	if n := countRows(t, e.Pool, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`); n != 0 {
		t.Fatalf("%d rows left unpublished", n)
	}
}

// The hot paths (sign-up, login, join bonus, purchases, zzim, reviews) commit
// without NOTIFY, so their commits can share an fsync; the admin API
// notifies so that other nodes' relays wake. Notifications arrive in commit
// order: the first one after the member's calls must be the test's marker.
func TestOnlyCatalogWritesNotify(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "LISTEN outbox"); err != nil {
		t.Fatal(err)
	}
	next := func() string {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		n, err := conn.WaitForNotification(wctx)
		if err != nil {
			t.Fatalf("no notification: %v", err)
		}
		return n.Payload
	}
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", newWork("NT1")); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	if p := next(); p != "" {
		t.Fatalf("admin notification payload %q", p)
	}
	b := e.Browser()
	if st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "quiet@example.com", "password": "correct horse"}); st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	b.Do("POST", "/home/api/v1/wallet/join-bonus", nil)
	b.Headers = map[string]string{"Idempotency-Key": "quiet-buy"}
	if st, body := b.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "NT1", "vols": []int{2}, "buyType": "B"}); st != 200 {
		t.Fatalf("purchase: %d %s", st, body)
	}
	b.Headers = nil
	if st, body := b.Do("POST", "/home/api/v1/products/NT1/reviews", map[string]any{"body": "조용히", "point": 7}); st != 201 {
		t.Fatalf("review: %d %s", st, body)
	}
	if n := countRows(t, e.Pool, `SELECT count(*) FROM outbox WHERE kind = 'ev'`); n < 4 {
		t.Fatalf("only %d events written; the calls above did not run", n)
	}
	if _, err := e.Pool.Exec(ctx, `SELECT pg_notify('outbox', 'marker')`); err != nil {
		t.Fatal(err)
	}
	if p := next(); p != "marker" {
		t.Fatalf("a member call notified (payload %q) before the marker", p)
	}
}
