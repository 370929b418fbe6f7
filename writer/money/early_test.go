package money_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/contract"
	"storefront/writer/money"
)

// addEarlyWork is a work of 3 released volumes (100 to buy, 40 to rent) and
// 4 scheduled a day apart from tomorrow, the first 2 of them sold early at 300.
func (e *env) addEarlyWork(pid string) {
	e.t.Helper()
	e.addWork(work{pid: pid, vols: 3, price: 100, rent: 40, wff: true, recycle: 1, jumping: true})
	for i := 4; i <= 7; i++ {
		e.exec(`INSERT INTO volumes (pid, no, title, release_at, is_free, buy_price, buy_price_org, rent_price, rent_price_org, pages, preview_pages)
			VALUES ($1, $2, '', $3, false, 100, 100, 40, 40, 10, 2)`, pid, i, e.clock.Now().Add(time.Duration(i-3)*24*time.Hour))
	}
	e.exec(`UPDATE works SET early_count = 2, early_price = 300 WHERE pid = $1`, pid)
}

func (e *env) buy(uid int64, key, pid, buyType string, vols ...int) resp {
	return e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: key,
		body: map[string]any{"pid": pid, "vols": vols, "buyType": buyType}})
}

func (e *env) auth(uid int64, pid string, vol int) resp {
	return e.do(req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid,
		body: map[string]any{"pid": pid, "vol": vol}})
}

// earlyRefused asserts the 403 of an early volume opened any way but buying.
func earlyRefused(t *testing.T, r resp, what string) {
	t.Helper()
	r.mustFail(t, http.StatusForbidden)
	if msg := r.json(t)["header"].(map[string]any)["message"].(string); !strings.Contains(msg, "미리보기 회차는 소장(구매)으로만") {
		t.Fatalf("%s: message %q", what, msg)
	}
}

func earlyNos(t *testing.T, st map[string]any) (nos []int, owned []bool, prices []float64) {
	t.Helper()
	for _, x := range st["earlyList"].([]any) {
		m := x.(map[string]any)
		nos = append(nos, int(m["no"].(float64)))
		owned = append(owned, m["isAuth"].(bool))
		prices = append(prices, m["price"].(float64))
	}
	return nos, owned, prices
}

func TestEarlyAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{ContentSecret: "s3"})
	e.addEarlyWork("ea")
	const uid, other = 21, 22
	e.fund(uid, money.Blue, 1000)
	e.fund(other, money.Blue, 1000)
	status := func(u int64) map[string]any {
		return e.do(req{method: "GET", path: "/home/api/v1/purchases/status?pid=ea", uid: u}).mustOK(t)
	}

	// The first two scheduled volumes are on sale early at the early price.
	nos, owned, prices := earlyNos(t, status(uid))
	if len(nos) != 2 || nos[0] != 4 || nos[1] != 5 || owned[0] || prices[0] != 300 {
		t.Fatalf("earlyList %v %v %v, want 4 and 5 at 300, not owned", nos, owned, prices)
	}

	// Only the marked count: volume 6 is not on sale yet.
	e.buy(uid, newKey(), "ea", "B", 6).mustFail(t, http.StatusNotFound)
	// Never rented, never with tickets, coupons or passes.
	earlyRefused(t, e.buy(uid, newKey(), "ea", "R", 4), "rent")
	earlyRefused(t, e.buy(uid, newKey(), "ea", "T", 4), "ticket")
	for _, kind := range []string{"wff", "read", "pass", "jumping"} {
		earlyRefused(t, e.do(req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, key: newKey(),
			body: map[string]any{"pid": "ea", "vol": 4, "kind": kind}}), kind)
	}
	// Not a reader before buying.
	earlyRefused(t, e.auth(uid, "ea", 4), "download-auth before buying")
	if got := e.balance(uid, money.Blue); got != 1000 {
		t.Fatalf("refusals moved money: %d", got)
	}

	// Buying it: once per key.
	key := newKey()
	r := e.buy(uid, key, "ea", "B", 4).mustOK(t)
	if r["amount"].(float64) != 300 {
		t.Fatalf("early buy cost %v, want 300", r["amount"])
	}
	again := e.buy(uid, key, "ea", "B", 4)
	again.mustOK(t)
	if again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry not replayed: %v", again.header)
	}
	if got := e.balance(uid, money.Blue); got != 700 {
		t.Fatalf("balance %d after one early buy and its retry, want 700", got)
	}
	e.buy(uid, newKey(), "ea", "B", 4).mustFail(t, http.StatusConflict)

	// The same member buying volume 5 from many tabs at once pays once.
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = e.buy(uid, newKey(), "ea", "B", 5).status
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case 200:
			ok++
		case http.StatusConflict:
		default:
			t.Fatalf("concurrent early buys answered %v", codes)
		}
	}
	if ok != 1 || e.balance(uid, money.Blue) != 400 {
		t.Fatalf("concurrent early buys: %d succeeded, balance %d; want 1 and 400", ok, e.balance(uid, money.Blue))
	}

	// A content token for the buyer only, for that volume, every page.
	a := e.auth(uid, "ea", 4).mustOK(t)
	if a["isAuth"] != true || a["authType"] != "B" || a["previewPages"].(float64) != 0 {
		t.Fatalf("buyer's download-auth: %v", a)
	}
	if !contract.VerifyContent([]byte("s3"), a["token"].(string), "ea", 4, e.clock.Now()) ||
		contract.VerifyContent([]byte("s3"), a["token"].(string), "ea", 6, e.clock.Now()) {
		t.Fatal("early token does not verify for its volume only")
	}
	earlyRefused(t, e.auth(other, "ea", 4), "download-auth of another member")
	e.auth(uid, "ea", 6).mustFail(t, http.StatusNotFound)
	nos, owned, _ = earlyNos(t, status(uid))
	if len(nos) != 2 || !owned[0] || !owned[1] {
		t.Fatalf("earlyList after buying: %v %v", nos, owned)
	}
	if nos, owned, _ := earlyNos(t, status(other)); len(nos) != 2 || owned[0] {
		t.Fatalf("another member's earlyList: %v %v", nos, owned)
	}

	// Release of volume 4: an ordinary owned volume; the next scheduled one
	// (6) goes on sale early in its place.
	e.clock.Add(24*time.Hour + time.Minute)
	st := status(uid)
	var v4 map[string]any
	for _, x := range st["volList"].([]any) {
		if m := x.(map[string]any); m["no"].(float64) == 4 {
			v4 = m
		}
	}
	if v4 == nil || v4["buyInfo"].(map[string]any)["isAuth"] != true {
		t.Fatalf("released early volume not owned in volList: %v", st["volList"])
	}
	nos, owned, _ = earlyNos(t, st)
	if len(nos) != 2 || nos[0] != 5 || nos[1] != 6 || !owned[0] || owned[1] {
		t.Fatalf("earlyList after the release: %v %v", nos, owned)
	}
	a = e.auth(uid, "ea", 4).mustOK(t)
	if a["isAuth"] != true || a["authType"] != "B" || a["previewPages"].(float64) != 2 {
		t.Fatalf("released early volume's download-auth: %v", a)
	}
	// Buy-all takes the released volumes not owned (1-3), not 4 again, nothing early.
	r = e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "ea", "all": true, "buyType": "B"}}).mustOK(t)
	if r["amount"].(float64) != 300 || len(r["vols"].([]any)) != 3 {
		t.Fatalf("buy-all after the release: %v", r)
	}
	// Now released, volume 4 opens as any other for another member.
	e.buy(other, newKey(), "ea", "R", 4).mustOK(t)
	e.checkLedger()
}
