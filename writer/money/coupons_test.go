package money_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/contract"
	"storefront/writer/money"
)

func (e *env) useCoupon(uid int64, pid string, vol int, kind string) resp {
	e.t.Helper()
	return e.do(req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, key: newKey(),
		body: map[string]any{"pid": pid, "vol": vol, "kind": kind}})
}

func (e *env) coupons(uid int64, pid string) map[string]any {
	e.t.Helper()
	return e.do(req{method: "GET", path: "/home/api/v1/coupons?pid=" + pid, uid: uid}).mustOK(e.t)
}

func TestWaitForFree(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "w1", vols: 10, price: 100, wff: true, recycle: 24 * 60, excludeNewest: 3, free: 1})
	e.addWork(work{pid: "nowff", vols: 3, price: 100})
	const uid = 31
	wcp := func() map[string]any { return e.coupons(uid, "w1")["WCPInfo"].(map[string]any) }
	if w := wcp(); w["isAvailable"] != true || w["waitTime"].(float64) != 0 || w["recycle"].(float64) != 1440 {
		t.Fatalf("fresh WCPInfo: %v", w)
	}
	// Not usable on the newest 3 volumes (8, 9, 10) nor on free ones.
	e.useCoupon(uid, "w1", 8, "wff").mustFail(t, http.StatusConflict)
	e.useCoupon(uid, "w1", 1, "wff").mustFail(t, http.StatusBadRequest)
	e.useCoupon(uid, "nowff", 2, "wff").mustFail(t, http.StatusConflict)
	r := e.useCoupon(uid, "w1", 2, "wff").mustOK(t)
	// Use sets the wait to recycle × 60 seconds.
	if r["waitTime"].(float64) != 24*60*60 {
		t.Fatalf("wait after use: %v", r["waitTime"])
	}
	if w := wcp(); w["isAvailable"] != false || w["waitTime"].(float64) != 86400 {
		t.Fatalf("WCPInfo after use: %v", w)
	}
	e.clock.Add(24*time.Hour - time.Second)
	if w := wcp(); w["isAvailable"] != false || w["waitTime"].(float64) != 1 {
		t.Fatalf("WCPInfo a second early: %v", w)
	}
	e.useCoupon(uid, "w1", 3, "wff").mustFail(t, http.StatusConflict)
	e.clock.Add(time.Second)
	if w := wcp(); w["isAvailable"] != true || w["waitTime"].(float64) != 0 {
		t.Fatalf("WCPInfo when due: %v", w)
	}
	e.clock.Add(time.Hour) // waiting longer does not bank a second coupon
	if w := wcp(); w["isAvailable"] != true || w["waitTime"].(float64) > 0 {
		t.Fatalf("WCPInfo overdue: %v", w)
	}
	e.useCoupon(uid, "w1", 3, "wff").mustOK(t)
	e.useCoupon(uid, "w1", 4, "wff").mustFail(t, http.StatusConflict)
	// The unlocked volume is a rental readable through download-auth.
	a := e.do(req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid,
		body: map[string]any{"pid": "w1", "vol": 3}}).mustOK(t)
	if a["isAuth"] != true || a["authType"] != "R" {
		t.Fatalf("wff volume not readable: %v", a)
	}
	if n := e.int(`SELECT count(*) FROM outbox WHERE key = 'events.biz.coupon_use'`); n != 2 {
		t.Fatalf("%d coupon_use events, want 2", n)
	}
	if e.int(`SELECT count(*) FROM ledger`) != 0 {
		t.Fatal("wait-for-free moved money")
	}
}

func TestReadCouponsAndGiftBox(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "r1", vols: 5, price: 100})
	const uid = 32
	now := e.clock.Now()
	// Two coupons in the gift box, usable from an hour on, expiring in two days.
	if err := e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponRead, PID: "r1", Count: 2,
		AvailableAt: now.Add(time.Hour), ExpiresAt: now.Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	rcp := func() map[string]any { return e.coupons(uid, "r1")["RCPInfo"].(map[string]any) }
	if r := rcp(); r["count"].(float64) != 2 || r["usedCnt"].(float64) != 0 || r["isRecv"] != false {
		t.Fatalf("RCPInfo before receiving: %v", r)
	}
	e.useCoupon(uid, "r1", 1, "read").mustFail(t, http.StatusConflict) // still in the gift box
	gifts := e.do(req{method: "GET", path: "/home/api/v1/coupons/gifts", uid: uid}).mustOK(t)["list"].([]any)
	if len(gifts) != 1 {
		t.Fatalf("gift box: %v", gifts)
	}
	id := int64(gifts[0].(map[string]any)["id"].(float64))
	e.do(req{method: "POST", path: "/home/api/v1/coupons/gifts/999999/receive", uid: uid}).mustFail(t, http.StatusNotFound)
	e.do(req{method: "POST", path: "/home/api/v1/coupons/gifts/" + itoa(id) + "/receive", uid: uid + 1}).mustFail(t, http.StatusNotFound)
	e.do(req{method: "POST", path: "/home/api/v1/coupons/gifts/" + itoa(id) + "/receive", uid: uid}).mustOK(t)
	r := rcp()
	if r["isRecv"] != true {
		t.Fatalf("RCPInfo after receiving: %v", r)
	}
	at, _ := time.Parse(time.RFC3339, r["availableTime"].(string))
	if !at.Equal(now.Add(time.Hour)) {
		t.Fatalf("availableTime %v", at)
	}
	e.useCoupon(uid, "r1", 1, "read").mustFail(t, http.StatusConflict) // not yet available
	e.clock.Add(time.Hour)
	e.useCoupon(uid, "r1", 1, "read").mustOK(t)
	e.useCoupon(uid, "r1", 1, "read").mustFail(t, http.StatusConflict) // already readable
	if r := rcp(); r["usedCnt"].(float64) != 1 || r["count"].(float64) != 2 {
		t.Fatalf("read coupons count as used: %v", r)
	}
	e.clock.Add(47 * time.Hour) // expired
	e.useCoupon(uid, "r1", 2, "read").mustFail(t, http.StatusConflict)
	if r := rcp(); r["count"].(float64) != 0 {
		t.Fatalf("expired coupons still counted: %v", r)
	}
}

func TestPassesNeverBelowZero(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "j1", vols: 6, price: 100, jumping: true, excludeNewest: 2})
	e.addWork(work{pid: "plain", vols: 6, price: 100, excludeNewest: 2})
	const uid = 33
	now := e.clock.Now()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponPass, Count: 1, ExpiresAt: now.Add(time.Hour), Received: true}))
	must(e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponJumping, Count: 1, ExpiresAt: now.Add(2 * time.Hour), Received: true}))
	must(e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponJumping, Count: 1, ExpiresAt: now.Add(3 * time.Hour), Received: true}))
	pcp := func() map[string]any { return e.coupons(uid, "j1")["PCPInfo"].(map[string]any) }
	if p := pcp(); p["passCount"].(float64) != 1 || p["jumpingCount"].(float64) != 2 || len(p["jumpingExpireDates"].([]any)) != 2 {
		t.Fatalf("PCPInfo: %v", p)
	}
	// A pass cannot open the newest volumes; the jumping pass can, only on jumping works.
	e.useCoupon(uid, "plain", 6, "pass").mustFail(t, http.StatusConflict)
	e.useCoupon(uid, "plain", 6, "jumping").mustFail(t, http.StatusConflict)
	e.useCoupon(uid, "plain", 1, "pass").mustOK(t)
	e.useCoupon(uid, "plain", 2, "pass").mustFail(t, http.StatusConflict) // none left
	e.useCoupon(uid, "j1", 6, "jumping").mustOK(t)
	e.clock.Add(2 * time.Hour) // the second jumping grant expired with it; one left
	if p := pcp(); p["jumpingCount"].(float64) != 1 || p["passCount"].(float64) != 0 {
		t.Fatalf("PCPInfo later: %v", p)
	}
	e.useCoupon(uid, "j1", 5, "jumping").mustOK(t)
	e.useCoupon(uid, "j1", 4, "jumping").mustFail(t, http.StatusConflict)
	if p := pcp(); p["jumpingCount"].(float64) != 0 || p["passCount"].(float64) != 0 {
		t.Fatalf("PCPInfo at zero: %v", p)
	}
	if n := e.int(`SELECT count(*) FROM coupon_grants WHERE used_cnt > count OR used_cnt < 0`); n != 0 {
		t.Fatal("a count went out of range")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestEventCoupons(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "c1", section: "CM", vols: 5, price: 100})
	e.addWork(work{pid: "c2", section: "CM", vols: 5, price: 100})
	now := e.clock.Now()
	event := func(eid int64, kind string, coupons int, start, end time.Time) {
		e.exec(`INSERT INTO events (eid, kind, title, pids, coupons, start_at, end_at) VALUES ($1, $2, 't', $3, $4, $5, $6)`,
			eid, kind, []string{"c1", "c2"}, coupons, start, end)
	}
	event(101, contract.EventDoubleCoupon, 1, now.Add(-time.Hour), now.Add(time.Hour))
	event(102, contract.EventBluerun, 1, now.Add(time.Hour), now.Add(2*time.Hour))
	event(103, contract.EventHoneyBenefit, 3, now.Add(-time.Hour), now.Add(time.Hour))
	event(104, contract.EventHeroism, 1, now.Add(-2*time.Hour), now.Add(-time.Hour))
	event(contract.ComicTicketEventID, contract.EventTicket, 2, now.Add(-time.Hour), now.Add(24*time.Hour))
	const uid = 34
	claim := func(eid int64) resp {
		return e.do(req{method: "POST", path: "/home/api/v1/coupons/events/" + itoa(eid) + "/claim", uid: uid})
	}
	list := e.do(req{method: "GET", path: "/home/api/v1/coupons/events", uid: uid}).mustOK(t)["list"].([]any)
	if len(list) != 3 { // 101, 103, 18322 are running
		t.Fatalf("running events: %v", list)
	}
	// Double coupon: twice the event's coupons for each work, once.
	if r := claim(101).mustOK(t); r["gifts"].(float64) != 2 {
		t.Fatalf("doublecoupon claim: %v", r)
	}
	claim(101).mustFail(t, http.StatusConflict)
	claim(102).mustFail(t, http.StatusConflict) // not started
	claim(104).mustFail(t, http.StatusConflict) // over
	claim(999).mustFail(t, http.StatusNotFound)
	// The comic pages claim only their own kind of event.
	e.do(req{method: "POST", path: "/home/api/v1/contents/comic/heroism/coupons", uid: uid, body: map[string]any{"eid": 103}}).mustFail(t, http.StatusNotFound)
	e.do(req{method: "POST", path: "/home/api/v1/contents/comic/honey-benefit", uid: uid, body: map[string]any{"eid": "x"}}).mustFail(t, http.StatusBadRequest)
	e.do(req{method: "POST", path: "/home/api/v1/contents/comic/honey-benefit", uid: uid, body: map[string]any{"eid": 103}}).mustOK(t)
	claim(contract.ComicTicketEventID).mustOK(t)
	if n := e.int(`SELECT sum(count) FROM coupon_grants WHERE uid = $1 AND kind = 'read' AND pid = 'c1'`, uid); n != 2+3 {
		t.Fatalf("read coupons for c1: %d", n)
	}
	e.clock.Add(time.Hour) // bluerun starts, double coupon and honey benefit end
	claim(102).mustOK(t)
	list = e.do(req{method: "GET", path: "/home/api/v1/coupons/events?kind=bluerun", uid: uid}).mustOK(t)["list"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["claimed"] != true {
		t.Fatalf("bluerun list: %v", list)
	}
	// Ticket event 18322: comic tickets, in the gift box until received, then spent by buy type T.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "c1", "vols": []int{1}, "buyType": "T"}}).mustFail(t, http.StatusPaymentRequired)
	var gid int64
	if err := e.pool.QueryRow(e.ctx, `SELECT id FROM coupon_grants WHERE uid = $1 AND kind = 'ticket'`, uid).Scan(&gid); err != nil {
		t.Fatal(err)
	}
	e.do(req{method: "POST", path: "/home/api/v1/coupons/gifts/" + itoa(gid) + "/receive", uid: uid}).mustOK(t)
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "c1", "vols": []int{1, 2}, "buyType": "T"}}).mustOK(t)
	if w := e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t); w["comicTickets"].(float64) != 0 {
		t.Fatalf("tickets left %v", w["comicTickets"])
	}
}

func TestJoinBonusAndAutoPayment(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{JoinBonus: 500})
	const uid = 35
	w := e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t)
	if w["join_bonus"].(map[string]any)["valid"] != true || w["firstbill"].(map[string]any)["valid"] != true {
		t.Fatalf("new member's banners: %v", w)
	}
	e.do(req{method: "POST", path: "/home/api/v1/wallet/join-bonus", uid: uid}).mustOK(t)
	e.do(req{method: "POST", path: "/home/api/v1/wallet/join-bonus", uid: uid}).mustFail(t, http.StatusConflict)
	if e.balance(uid, money.Mileage) != 500 {
		t.Fatal("join bonus not granted once")
	}
	w = e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t)
	if w["join_bonus"].(map[string]any)["valid"] != false {
		t.Fatal("join bonus still valid")
	}
	ap := map[string]any{"is_use": true, "type": "bluemoney-auto-payment", "money": 10000, "trigger_value": 1000}
	e.do(req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: ap}).mustOK(t)
	ap2 := map[string]any{"is_use": true, "type": "bluemoney-scheduled-payment", "money": 5000, "trigger_value": 29}
	e.do(req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: ap2}).mustFail(t, http.StatusBadRequest)
	ap2["trigger_value"] = 15
	e.do(req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: ap2}).mustOK(t)
	got := e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t)["auto_payment_info"].(map[string]any)
	if got["type"] != "bluemoney-scheduled-payment" || got["trigger_value"].(float64) != 15 || got["money"].(float64) != 5000 || got["is_use"] != true {
		t.Fatalf("auto payment: %v", got)
	}
	// Turning it off keeps the kind, amount and trigger for next time.
	off := e.do(req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: map[string]any{"is_use": false}}).mustOK(t)["auto_payment_info"].(map[string]any)
	if off["is_use"] != false || off["type"] != "bluemoney-scheduled-payment" || off["trigger_value"].(float64) != 15 {
		t.Fatalf("auto payment off: %v", off)
	}
	// The trigger values at their bounds: a balance from 0, a day up to 28.
	for _, ok := range []map[string]any{
		{"is_use": true, "type": "bluemoney-auto-payment", "money": 1000, "trigger_value": 0},
		{"is_use": true, "type": "bluemoney-auto-payment", "money": 1000000, "trigger_value": 1000000},
		{"is_use": true, "type": "bluemoney-scheduled-payment", "money": 1000, "trigger_value": 1},
		{"is_use": true, "type": "bluemoney-scheduled-payment", "money": 1000, "trigger_value": 28},
	} {
		e.do(req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: ok}).mustOK(t)
	}
	for _, bad := range []map[string]any{
		{"is_use": true, "type": "bluemoney-auto-payment", "money": 1000, "trigger_value": 1000001},
		{"is_use": true, "type": "bluemoney-auto-payment", "money": 1050, "trigger_value": 0},
		{"is_use": true, "type": "bluemoney-auto-payment", "money": 900, "trigger_value": 0},
		{"is_use": true, "type": "bluemoney-scheduled-payment", "money": 1000, "trigger_value": 0},
		{"is_use": false, "type": "bluemoney-scheduled-payment"},
	} {
		e.do(req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: bad}).mustFail(t, http.StatusBadRequest)
	}
	l := e.do(req{method: "GET", path: "/home/api/v1/wallet/ledger", uid: uid}).mustOK(t)["list"].([]any)
	if len(l) != 1 || l[0].(map[string]any)["reason"] != "join_bonus" {
		t.Fatalf("ledger: %v", l)
	}
}

func TestCouponsUnderConcurrency(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "w1", vols: 40, price: 100, wff: true, recycle: 60})
	const uid = 36
	if err := e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponPass, Count: 3,
		ExpiresAt: e.clock.Now().Add(time.Hour), Received: true}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]int{}
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kind := "wff"
			if i%2 == 1 {
				kind = "pass"
			}
			r := e.useCoupon(uid, "w1", i+1, kind)
			mu.Lock()
			got[kind+":"+strconv.Itoa(r.status)]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	// One wait-for-free unlock per recycle and exactly the three passes, whatever the interleaving.
	if got["wff:200"] != 1 || got["pass:200"] != 3 || got["wff:409"] != 15 || got["pass:409"] != 13 {
		t.Fatalf("outcomes %v", got)
	}
	if n := e.int(`SELECT count(*) FROM entitlements WHERE uid = $1`, uid); n != 4 {
		t.Fatalf("%d volumes unlocked, want 4", n)
	}
	if n := e.int(`SELECT used_cnt FROM coupon_grants WHERE uid = $1`, uid); n != 3 {
		t.Fatalf("used %d passes", n)
	}
}

// A jumping pass is bought at the offer's price (channel money, mileage
// first), lasts the offer's days, and the earliest-expiring pass is spent
// first; jumpingExpireDates lists one date per pass left, earliest first, and
// expired passes leave both the count and the list.
func TestJumpingPassPurchaseAndExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "j1", vols: 6, price: 100, jumping: true, excludeNewest: 2})
	const uid, poor = 37, 38
	buy := func(who int64, key, channel string) resp {
		return e.do(req{method: "POST", path: "/home/api/v1/coupons/jumping-pass", uid: who, key: key, channel: channel})
	}
	buy(uid, newKey(), "").mustFail(t, http.StatusNotFound) // not on sale yet
	e.exec(`INSERT INTO site_docs (key, doc) VALUES ('jumpingpass', '{"title":"점핑패스","price":1000,"days":7}')`)
	e.fund(uid, money.Blue, 1500)
	e.fund(uid, money.Mileage, 200)
	e.fund(uid, money.Android, 1000)
	t0 := e.clock.Now()
	first := buy(uid, "jp-1", "").mustOK(t)
	if first["amount"].(float64) != 1000 || first["paid"].(map[string]any)["mileage"].(float64) != 200 || first["paid"].(map[string]any)["blue"].(float64) != 800 {
		t.Fatalf("first pass: %v", first)
	}
	if exp, _ := time.Parse(time.RFC3339, first["expiresAt"].(string)); !exp.Equal(t0.Add(7 * 24 * time.Hour)) {
		t.Fatalf("expiresAt %v, want purchase + 7 days", first["expiresAt"])
	}
	// The same key replays; the same key from another channel is another request.
	if r := buy(uid, "jp-1", ""); r.header.Get("Idempotent-Replayed") != "true" || e.balance(uid, money.Blue) != 700 {
		t.Fatalf("replay: %d %s, blue %d", r.status, r.body, e.balance(uid, money.Blue))
	}
	buy(uid, "jp-1", "AA").mustFail(t, http.StatusConflict)
	e.clock.Add(48 * time.Hour)
	second := buy(uid, newKey(), "AA").mustOK(t) // Android app: Android money
	if second["paid"].(map[string]any)["android"].(float64) != 1000 || e.balance(uid, money.Android) != 0 {
		t.Fatalf("second pass: %v", second)
	}
	buy(poor, newKey(), "").mustFail(t, http.StatusPaymentRequired)
	if n := e.int(`SELECT count(*) FROM coupon_grants WHERE uid = $1`, poor); n != 0 {
		t.Fatal("a refused purchase left a pass")
	}
	pcp := func() map[string]any { return e.coupons(uid, "j1")["PCPInfo"].(map[string]any) }
	dates := func(p map[string]any) []string {
		var out []string
		for _, d := range p["jumpingExpireDates"].([]any) {
			out = append(out, d.(string))
		}
		return out
	}
	day := func(d int) string { return t0.Add(time.Duration(d) * 24 * time.Hour).Format(time.RFC3339) }
	p := pcp()
	if p["jumpingCount"].(float64) != 2 || strings.Join(dates(p), ",") != day(7)+","+day(9) || p["jcpId"] != first["jcpId"] {
		t.Fatalf("two passes: %v", p)
	}
	// The newest volume opens with it, and the earlier-expiring pass is spent.
	e.useCoupon(uid, "j1", 6, "jumping").mustOK(t)
	if p = pcp(); p["jumpingCount"].(float64) != 1 || strings.Join(dates(p), ",") != day(9) || p["jcpId"] != second["jcpId"] {
		t.Fatalf("after one use: %v", p)
	}
	e.clock.Add(7*24*time.Hour - time.Second) // one second before the second pass ends
	if p = pcp(); p["jumpingCount"].(float64) != 1 {
		t.Fatalf("a second before expiry: %v", p)
	}
	e.clock.Add(time.Second)
	if p = pcp(); p["jumpingCount"].(float64) != 0 || len(dates(p)) != 0 {
		t.Fatalf("at expiry: %v", p)
	}
	e.useCoupon(uid, "j1", 5, "jumping").mustFail(t, http.StatusConflict)
	if n := e.int(`SELECT count(*) FROM outbox WHERE key = 'events.biz.purchase'`); n != 2 {
		t.Fatalf("%d purchase events for two passes", n)
	}
	e.checkLedger()
}

// Event coupons follow the clock: the comic pages claim their events only
// while they run, the comic ticket event 18322 gives comic tickets whatever
// kind it is filed under, and its tickets, like every gift, expire with it
// (no longer received, counted or spent).
func TestEventCouponsFollowTheClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "c1", section: "CM", vols: 5, price: 100})
	e.addWork(work{pid: "n1", section: "EB", vols: 5, price: 100})
	now := e.clock.Now()
	event := func(eid int64, kind string, coupons int, start, end time.Time) {
		e.exec(`INSERT INTO events (eid, kind, title, pids, coupons, start_at, end_at) VALUES ($1, $2, 't', $3, $4, $5, $6)`,
			eid, kind, []string{"c1"}, coupons, start, end)
	}
	event(201, contract.EventHeroism, 2, now.Add(time.Hour), now.Add(3*time.Hour))
	event(202, contract.EventHoneyBenefit, 1, now.Add(-time.Hour), now.Add(time.Hour))
	event(contract.ComicTicketEventID, contract.EventBluerun, 3, now.Add(-time.Hour), now.Add(2*time.Hour))
	const uid = 39
	heroism := func() resp {
		return e.do(req{method: "POST", path: "/home/api/v1/contents/comic/heroism/coupons", uid: uid, body: map[string]any{"eid": 201}})
	}
	honey := func() resp {
		return e.do(req{method: "POST", path: "/home/api/v1/contents/comic/honey-benefit", uid: uid, body: map[string]any{"eid": 202}})
	}
	heroism().mustFail(t, http.StatusConflict) // starts in an hour
	if r := e.do(req{method: "POST", path: "/home/api/v1/coupons/events/18322/claim", uid: uid}).mustOK(t); r["kind"] != contract.EventTicket || r["gifts"].(float64) != 1 {
		t.Fatalf("18322 claim: %v", r)
	}
	e.clock.Add(time.Hour) // heroism starts, honey benefit ends
	honey().mustFail(t, http.StatusConflict)
	if r := heroism().mustOK(t); r["kind"] != contract.EventHeroism || r["gifts"].(float64) != 1 {
		t.Fatalf("heroism claim: %v", r)
	}
	heroism().mustFail(t, http.StatusConflict) // once
	if n := e.int(`SELECT count FROM coupon_grants WHERE uid = $1 AND kind = 'read' AND pid = 'c1' AND eid = 201`, uid); n != 2 {
		t.Fatalf("heroism read coupons: %d", n)
	}
	var ticket int64
	if err := e.pool.QueryRow(e.ctx, `SELECT id FROM coupon_grants WHERE uid = $1 AND kind = 'ticket' AND section = 'CM' AND count = 3`, uid).Scan(&ticket); err != nil {
		t.Fatalf("18322 gave no comic tickets: %v", err)
	}
	e.do(req{method: "POST", path: "/home/api/v1/coupons/gifts/" + itoa(ticket) + "/receive", uid: uid}).mustOK(t)
	if w := e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t); w["comicTickets"].(float64) != 3 || w["novelTickets"].(float64) != 0 {
		t.Fatalf("tickets: comic %v novel %v", w["comicTickets"], w["novelTickets"])
	}
	// Comic tickets do not open novels.
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "n1", "vols": []int{1}, "buyType": "T"}}).mustFail(t, http.StatusPaymentRequired)
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "c1", "vols": []int{1}, "buyType": "T"}}).mustOK(t)
	// The heroism coupons are still in the gift box; at the event's end they
	// can no longer be received, and the tickets left are gone too.
	gifts := e.do(req{method: "GET", path: "/home/api/v1/coupons/gifts", uid: uid}).mustOK(t)["list"].([]any)
	if len(gifts) != 1 {
		t.Fatalf("gift box: %v", gifts)
	}
	gid := int64(gifts[0].(map[string]any)["id"].(float64))
	e.clock.Add(time.Hour) // 18322 ends
	if w := e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t); w["comicTickets"].(float64) != 0 {
		t.Fatalf("expired tickets still counted: %v", w["comicTickets"])
	}
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "c1", "vols": []int{2}, "buyType": "T"}}).mustFail(t, http.StatusPaymentRequired)
	e.clock.Add(time.Hour) // heroism ends
	e.do(req{method: "POST", path: "/home/api/v1/coupons/gifts/" + itoa(gid) + "/receive", uid: uid}).mustFail(t, http.StatusNotFound)
	if g := e.do(req{method: "GET", path: "/home/api/v1/coupons/gifts", uid: uid}).mustOK(t)["list"].([]any); len(g) != 0 {
		t.Fatalf("expired gifts listed: %v", g)
	}
}

// "Not usable on the newest volumes" follows releases: when a scheduled
// volume comes out, the one before it leaves the excluded window.
func TestWaitForFreeNewestFollowsReleases(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "w1", vols: 4, price: 100, wff: true, recycle: 1, excludeNewest: 1})
	now := e.clock.Now()
	e.exec(`INSERT INTO volumes (pid, no, title, release_at, is_free, buy_price, buy_price_org, rent_price, rent_price_org, pages, preview_pages)
		VALUES ('w1', 5, '', $1, false, 100, 100, 0, 0, 10, 2)`, now.Add(time.Hour))
	const uid = 40
	e.useCoupon(uid, "w1", 4, "wff").mustFail(t, http.StatusConflict) // the newest released
	e.useCoupon(uid, "w1", 5, "wff").mustFail(t, http.StatusNotFound) // not out yet
	e.clock.Add(time.Hour)
	e.useCoupon(uid, "w1", 5, "wff").mustFail(t, http.StatusConflict) // now the newest
	e.useCoupon(uid, "w1", 4, "wff").mustOK(t)
	// recycle 1: the next use is a minute away.
	if w := e.coupons(uid, "w1")["WCPInfo"].(map[string]any); w["waitTime"].(float64) != 60 || w["isAvailable"] != false {
		t.Fatalf("WCPInfo: %v", w)
	}
}

// TestCouponInfoCountsWhatOpensNow: the coupon state of a work tells the
// reader what can open a volume now: read coupons received and available
// (usableCnt), and tickets of this work or its section (ticketCount); the
// wallet counts no ticket before it is available. Refusals are in Korean.
func TestCouponInfoCountsWhatOpensNow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, money.Config{})
	e.addWork(work{pid: "k1", section: "CM", vols: 5, price: 100, rent: 50})
	e.addWork(work{pid: "k2", section: "CM", vols: 5, price: 100, rent: 50})
	e.addWork(work{pid: "kw", vols: 6, price: 100, wff: true, recycle: 60, excludeNewest: 2})
	const uid = 61
	now := e.clock.Now()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponTicket, Section: "CM", Count: 1, Received: true,
		AvailableAt: now.Add(time.Hour), ExpiresAt: now.Add(48 * time.Hour)}))
	must(e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponTicket, Section: "CM", PID: "k1", Count: 2, Received: true,
		ExpiresAt: now.Add(48 * time.Hour)}))
	must(e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponRead, PID: "k1", Count: 2, ExpiresAt: now.Add(48 * time.Hour)}))
	must(e.svc.GrantCoupons(e.ctx, uid, money.Grant{Kind: money.CouponPass, Count: 1, Received: true, ExpiresAt: now.Add(48 * time.Hour)}))

	tickets := func(pid string) float64 { return e.coupons(uid, pid)["ticketCount"].(float64) }
	wallet := func() float64 {
		return e.do(req{method: "GET", path: "/home/api/v1/wallet", uid: uid}).mustOK(t)["comicTickets"].(float64)
	}
	if k1, k2, w := tickets("k1"), tickets("k2"), wallet(); k1 != 2 || k2 != 0 || w != 2 {
		t.Fatalf("tickets now: k1 %v k2 %v wallet %v, want 2 0 2 (k1's own; the section's from an hour on)", k1, k2, w)
	}
	r := e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "k2", "vols": []int{1}, "buyType": "T"}})
	r.mustFail(t, http.StatusPaymentRequired)
	if !strings.Contains(string(r.body), "대여권이 부족합니다") {
		t.Fatalf("ticket refusal: %s", r.body)
	}

	rcp := func() map[string]any { return e.coupons(uid, "k1")["RCPInfo"].(map[string]any) }
	if c := rcp(); c["count"].(float64) != 2 || c["usableCnt"].(float64) != 0 {
		t.Fatalf("read coupons in the gift box: %v", c)
	}
	r = e.useCoupon(uid, "k1", 2, "read")
	r.mustFail(t, http.StatusConflict)
	if !strings.Contains(string(r.body), "사용할 수 있는 열람 쿠폰이 없습니다.") {
		t.Fatalf("read coupon refusal: %s", r.body)
	}
	gifts := e.do(req{method: "GET", path: "/home/api/v1/coupons/gifts", uid: uid}).mustOK(t)["list"].([]any)
	e.do(req{method: "POST", path: "/home/api/v1/coupons/gifts/" + itoa(int64(gifts[0].(map[string]any)["id"].(float64))) + "/receive", uid: uid}).mustOK(t)
	if c := rcp(); c["usableCnt"].(float64) != 2 {
		t.Fatalf("received read coupons: %v", c)
	}
	e.useCoupon(uid, "k1", 2, "read").mustOK(t)
	if c := rcp(); c["usableCnt"].(float64) != 1 || c["usedCnt"].(float64) != 1 {
		t.Fatalf("after one read: %v", c)
	}

	r = e.useCoupon(uid, "kw", 6, "pass")
	r.mustFail(t, http.StatusConflict)
	if !strings.Contains(string(r.body), "이용권으로는 최신 2화를 열 수 없습니다.") {
		t.Fatalf("pass refusal: %s", r.body)
	}

	e.clock.Add(time.Hour)
	if k1, k2, w := tickets("k1"), tickets("k2"), wallet(); k1 != 3 || k2 != 1 || w != 3 {
		t.Fatalf("tickets an hour later: k1 %v k2 %v wallet %v, want 3 1 3", k1, k2, w)
	}
	e.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: newKey(),
		body: map[string]any{"pid": "k2", "vols": []int{1}, "buyType": "T"}}).mustOK(t)
	if k2 := tickets("k2"); k2 != 0 {
		t.Fatalf("k2 tickets after renting: %v", k2)
	}
}
