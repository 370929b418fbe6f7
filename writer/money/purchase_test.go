package money_test

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/money"
)

func TestConcurrentBuyersOneWallet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "p1", vols: 50, price: 100, rent: 30})
	const uid, start = 7, 2500
	e.fund(uid, money.Blue, start)
	var mu sync.Mutex
	var spent int64
	ok, poor, owned := 0, 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Some goroutines race on the same volume; some buy, some rent.
			body := map[string]any{"pid": "p1", "vols": []int{i%40 + 1}, "buyType": "B"}
			if i%5 == 0 {
				body["buyType"] = "R"
			}
			r := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(), body: body})
			mu.Lock()
			defer mu.Unlock()
			switch r.status {
			case 200:
				ok++
				spent += int64(r.json(t)["amount"].(float64))
			case http.StatusPaymentRequired:
				poor++
			case http.StatusConflict:
				owned++
			default:
				t.Errorf("unexpected %d %s", r.status, r.body)
			}
		}()
	}
	wg.Wait()
	bal := e.balance(uid, money.Blue)
	if bal != start-spent {
		t.Fatalf("balance %d, want %d - %d", bal, start, spent)
	}
	if bal < 0 {
		t.Fatalf("negative balance %d", bal)
	}
	if ok == 0 || poor == 0 {
		t.Fatalf("want some successes and some refusals: ok %d, insufficient %d, owned %d", ok, poor, owned)
	}
	if n := e.int(`SELECT count(*) FROM purchases WHERE uid = $1`, uid); n != int64(ok) {
		t.Fatalf("%d purchases recorded, %d succeeded", n, ok)
	}
	if n := e.int(`SELECT -coalesce(sum(delta), 0) FROM ledger WHERE uid = $1 AND reason IN ('purchase', 'rental')`, uid); n != spent {
		t.Fatalf("ledger debits %d, spent %d", n, spent)
	}
	if n := e.int(`SELECT count(*) FROM outbox WHERE kind = 'ev' AND key IN ('events.biz.purchase', 'events.biz.rental')`); n != int64(ok) {
		t.Fatalf("%d outbox events for %d purchases", n, ok)
	}
	e.checkLedger()
}

func TestIdempotencyKeyAppliesOnce(t *testing.T) {
	t.Parallel()
	var changed atomic.Int64
	e := newEnv(t, money.Config{Changed: func() { changed.Add(1) }})
	e.addWork(work{pid: "p1", vols: 5, price: 100})
	const uid = 9
	e.fund(uid, money.Blue, 1000)
	body := map[string]any{"pid": "p1", "vols": []int{1, 2}, "buyType": "B"}
	var wg sync.WaitGroup
	answers := make([]resp, 100)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "same-key", body: body})
		}()
	}
	wg.Wait()
	replayed := 0
	for _, a := range answers {
		a.mustOK(t)
		if !bytes.Equal(a.body, answers[0].body) {
			t.Fatalf("answers differ:\n%s\n%s", a.body, answers[0].body)
		}
		if a.header.Get("Idempotent-Replayed") == "true" {
			replayed++
		}
	}
	if replayed != 99 {
		t.Fatalf("%d replayed answers, want 99", replayed)
	}
	if got := e.balance(uid, money.Blue); got != 800 {
		t.Fatalf("balance %d, want 800", got)
	}
	if n := e.int(`SELECT count(*) FROM purchases WHERE uid = $1`, uid); n != 1 {
		t.Fatalf("%d purchases, want 1", n)
	}
	if n := changed.Load(); n != 1 {
		t.Fatalf("relay woken %d times for one purchase", n)
	}
	// The same key with other parameters is a conflict and changes nothing.
	r := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "same-key",
		body: map[string]any{"pid": "p1", "vols": []int{3}, "buyType": "B"}})
	r.mustFail(t, http.StatusConflict)
	if got := e.balance(uid, money.Blue); got != 800 {
		t.Fatalf("balance %d after key reuse, want 800", got)
	}
	// A refusal is replayed too: the key stays bound to its first answer.
	const poor = 99
	e.fund(poor, money.Blue, 50)
	buyAll := map[string]any{"pid": "p1", "all": true, "buyType": "B"}
	r1 := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: poor, key: "poor", body: buyAll})
	r1.mustFail(t, http.StatusPaymentRequired)
	e.fund(poor, money.Blue, 1000)
	r2 := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: poor, key: "poor", body: buyAll})
	if r2.status != r1.status || !bytes.Equal(r1.body, r2.body) || r2.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("refusal not replayed: %s then %d %s", r1.body, r2.status, r2.body)
	}
	if got := e.balance(poor, money.Blue); got != 1050 {
		t.Fatalf("balance %d after replayed refusal, want 1050", got)
	}
	// A new key buys.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: poor, key: "rich", body: buyAll}).mustOK(t)
	// Another user's same key is another request.
	e.fund(uid+1, money.Blue, 100)
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid + 1, key: "same-key", body: body}).mustFail(t, http.StatusPaymentRequired)
	e.checkLedger()
}

func TestBuyRentAndTransitions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{ContentSecret: "s3"})
	e.addWork(work{pid: "p1", vols: 6, price: 100, rent: 40, free: 1, rentDays: 2})
	e.addWork(work{pid: "set", vols: 4, price: 100, specialSet: true, discount: 25})
	const uid = 11
	e.fund(uid, money.Blue, 2000)
	status := func(pid string) map[string]any {
		return e.do(req{method: "GET", path: "/home/api/v1/purchases/status?pid=" + pid, uid: uid}).mustOK(t)
	}
	st := status("p1")
	if st["buyLeftPrice"].(float64) != 500 || st["buyLeftCount"].(float64) != 5 || st["rentLeftPrice"].(float64) != 200 {
		t.Fatalf("initial left-over wrong: %v", st)
	}
	// Rent vol 2: authorized with an end date, rental left-over reduced.
	r := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "R"}}).mustOK(t)
	end, _ := time.Parse(time.RFC3339, r["authEndDate"].(string))
	if want := e.clock.Now().Add(48 * time.Hour); !end.Equal(want) {
		t.Fatalf("rental ends %v, want %v", end, want)
	}
	st = status("p1")
	if st["rentLeftPrice"].(float64) != 160 || st["isRental"] != true || st["lastAuthType"] != "R" {
		t.Fatalf("after rent: %v", st)
	}
	// download-auth: rented volume readable with a token the edge verifies.
	a := e.do(req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid,
		body: "pid=p1&vol=2", ctype: "application/x-www-form-urlencoded"}).mustOK(t)
	if a["isAuth"] != true || a["authType"] != "R" {
		t.Fatalf("download-auth after rent: %v", a)
	}
	if !contract.VerifyContent([]byte("s3"), a["token"].(string), "p1", 2, e.clock.Now()) {
		t.Fatal("content token does not verify")
	}
	if contract.VerifyContent([]byte("s3"), a["token"].(string), "p1", 3, e.clock.Now()) {
		t.Fatal("content token verifies for another volume")
	}
	a = e.do(req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, body: map[string]any{"pid": "p1", "vol": 3}}).mustOK(t)
	if a["isAuth"] != false || a["token"] != nil {
		t.Fatalf("unpaid volume authorized: %v", a)
	}
	a = e.do(req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, body: map[string]any{"pid": "p1", "vol": 1}}).mustOK(t)
	if a["isAuth"] != true || a["authType"] != "F" {
		t.Fatalf("free volume not authorized: %v", a)
	}
	// Buy-all: every paid volume not owned (the rented one too), left-over to zero.
	r = e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "all": true, "buyType": "B"}}).mustOK(t)
	if r["amount"].(float64) != 500 || len(r["vols"].([]any)) != 5 {
		t.Fatalf("buy-all: %v", r)
	}
	st = status("p1")
	if st["buyLeftPrice"].(float64) != 0 || st["buyLeftCount"].(float64) != 0 || st["rentLeftPrice"].(float64) != 0 || st["lastAuthType"] != "B" {
		t.Fatalf("after buy-all: %v", st)
	}
	// Nothing left: a second buy-all is a conflict and costs nothing.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "all": true, "buyType": "B"}}).mustFail(t, http.StatusConflict)
	if got := e.balance(uid, money.Blue); got != 2000-40-500 {
		t.Fatalf("balance %d", got)
	}
	// Special-price set: buying all costs the set price.
	r = e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "set", "all": true, "buyType": "B"}}).mustOK(t)
	if r["amount"].(float64) != 300 {
		t.Fatalf("set price %v, want 300", r["amount"])
	}
	// History: buys and rentals apart.
	h := e.do(req{method: "GET", path: "/home/api/v1/purchases?type=buy", uid: uid}).mustOK(t)
	if n := len(h["list"].([]any)); n != 2 {
		t.Fatalf("%d buys in history", n)
	}
	h = e.do(req{method: "GET", path: "/home/api/v1/purchases?type=rental", uid: uid}).mustOK(t)
	if n := len(h["list"].([]any)); n != 1 {
		t.Fatalf("%d rentals in history", n)
	}
	e.checkLedger()
}

func TestRentalExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "p1", vols: 3, price: 100, rent: 30})
	const uid = 12
	e.fund(uid, money.Blue, 100)
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{1}, "buyType": "R"}}).mustOK(t)
	auth := func() bool {
		return e.do(req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid,
			body: map[string]any{"pid": "p1", "vol": 1}}).mustOK(t)["isAuth"] == true
	}
	// Renting an active rental again is refused.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{1}, "buyType": "R"}}).mustFail(t, http.StatusConflict)
	e.clock.Add(3*24*time.Hour - time.Second) // default term is 3 days
	if !auth() {
		t.Fatal("rental expired early")
	}
	e.clock.Add(time.Second)
	if auth() {
		t.Fatal("rental still valid after its end")
	}
	// An expired rental can be rented again.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{1}, "buyType": "R"}}).mustOK(t)
	if !auth() || e.balance(uid, money.Blue) != 40 {
		t.Fatalf("re-rent failed, balance %d", e.balance(uid, money.Blue))
	}
}

func TestChannelMoneyAndMileageFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "p1", vols: 5, price: 100})
	const uid = 13
	e.fund(uid, money.IOS, 300)
	e.fund(uid, money.Blue, 1000)
	e.fund(uid, money.Mileage, 50)
	r := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(), channel: "IA",
		body: map[string]any{"pid": "p1", "vols": []int{1, 2}, "buyType": "B"}}).mustOK(t)
	paid := r["paid"].(map[string]any)
	if paid["mileage"].(float64) != 50 || paid["ios"].(float64) != 150 {
		t.Fatalf("paid %v", paid)
	}
	if e.balance(uid, money.IOS) != 150 || e.balance(uid, money.Blue) != 1000 || e.balance(uid, money.Mileage) != 0 {
		t.Fatal("wrong money spent in the iOS app")
	}
	// iOS money is not enough for 2 more volumes: refused although blue money is.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(), channel: "IA",
		body: map[string]any{"pid": "p1", "vols": []int{3, 4}, "buyType": "B"}}).mustFail(t, http.StatusPaymentRequired)
	// Android app spends Android money (none).
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(), channel: "AA",
		body: map[string]any{"pid": "p1", "vols": []int{3}, "buyType": "B"}}).mustFail(t, http.StatusPaymentRequired)
	// The web spends blue money.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(), channel: "AW",
		body: map[string]any{"pid": "p1", "vols": []int{3}, "buyType": "B"}}).mustOK(t)
	if e.balance(uid, money.Blue) != 900 {
		t.Fatal("web purchase did not spend blue money")
	}
	w := e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid, channel: "IA"}).mustOK(t)
	if w["shownMoney"] != "ios" || w["shownAmount"].(float64) != 150 || w["appmoney_i"].(float64) != 150 {
		t.Fatalf("wallet in iOS app: %v", w)
	}
	if w["join_bonus"].(map[string]any)["valid"] != false {
		t.Fatal("join-bonus banner shown in the iOS app")
	}
	e.checkLedger()
}

func TestLedgerIsTheOnlyWay(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.fund(1, money.Blue, 100)
	for _, q := range []string{
		`UPDATE wallets SET blue = 1000 WHERE uid = 1`,
		// The ledger's own update is told apart by the trigger depth
		// (migration 0201), not by a setting any session could set.
		`SELECT set_config('money.via_ledger', 'on', false); UPDATE wallets SET blue = 1000 WHERE uid = 1`,
		`DO $$ BEGIN UPDATE wallets SET blue = 1000 WHERE uid = 1; END $$`,
		`INSERT INTO wallets (uid, blue) VALUES (2, 10)`,
		`UPDATE ledger SET delta = 1000`,
		`DELETE FROM ledger`,
		`INSERT INTO ledger (uid, money, delta, reason, created_at) VALUES (1, 'blue', -101, 'x', now())`,
		`INSERT INTO ledger (uid, money, delta, reason, created_at) VALUES (3, 'blue', 5, 'x', now())`,
	} {
		if _, err := e.pool.Exec(e.ctx, q); err == nil {
			t.Errorf("%s succeeded", q)
		}
	}
	if e.balance(1, money.Blue) != 100 {
		t.Fatal("balance changed")
	}
	e.checkLedger()
}

func TestTicketPurchase(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "c1", section: "CM", vols: 5, price: 100, rent: 50})
	const uid = 14
	if err := e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponTicket, Section: "CM", Count: 2,
		ExpiresAt: e.clock.Now().Add(time.Hour), Received: true}); err != nil {
		t.Fatal(err)
	}
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "c1", "vols": []int{1, 2, 3}, "buyType": "T"}}).mustFail(t, http.StatusPaymentRequired)
	r := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "c1", "vols": []int{1, 2}, "buyType": "T"}}).mustOK(t)
	if r["amount"].(float64) != 0 || r["tickets"].(float64) != 2 {
		t.Fatalf("ticket purchase: %v", r)
	}
	w := e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t)
	if w["comicTickets"].(float64) != 0 {
		t.Fatalf("tickets left: %v", w["comicTickets"])
	}
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "c1", "vols": []int{3}, "buyType": "T"}}).mustFail(t, http.StatusPaymentRequired)
	if n := e.int(`SELECT count(*) FROM coupon_grants WHERE used_cnt > count OR used_cnt < 0`); n != 0 {
		t.Fatal("ticket count out of range")
	}
}

func TestRentAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "p1", vols: 4, price: 100, rent: 30, free: 1})
	const uid = 15
	e.fund(uid, money.Blue, 1000)
	// Own vol 2 already: rent-all takes only 3 and 4.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "B"}}).mustOK(t)
	r := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "p1", "all": true, "buyType": "R"}}).mustOK(t)
	if r["amount"].(float64) != 60 || len(r["vols"].([]any)) != 2 {
		t.Fatalf("rent-all: %v", r)
	}
	st := e.do(req{method: "GET", path: "/home/api/v1/purchases/status?pid=p1", uid: uid}).mustOK(t)
	if st["rentLeftPrice"].(float64) != 0 || st["rentLeftCount"].(float64) != 0 || st["buyLeftCount"].(float64) != 2 {
		t.Fatalf("after rent-all: %v", st)
	}
	if e.balance(uid, money.Blue) != 1000-100-60 {
		t.Fatalf("balance %d", e.balance(uid, money.Blue))
	}
}

// TestLedgerIndexes: the ledger takes a row on every purchase, and no B-tree
// of it is led by an always-increasing column (id, created_at), whose
// right-most leaf every buyer would write (migration 0200, issue 32).
func TestLedgerIndexes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	rows, err := e.pool.Query(e.ctx, `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'ledger'`)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var n, d string
		err := r.Scan(&n, &d)
		return n + ": " + d, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		if strings.Contains(d, "USING btree (id") || strings.Contains(d, "USING btree (created_at") {
			t.Errorf("always-increasing B-tree on the ledger: %s", d)
		}
	}
	if len(defs) != 2 {
		t.Errorf("ledger indexes: %v, want the primary key (uid, id) and the BRIN on created_at", defs)
	}
}
