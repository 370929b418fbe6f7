package money_test

import (
	"net/http"
	"strconv"
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
