package money_test

import (
	"strings"
	"testing"

	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
)

// snapshot fingerprints every table money writes (and the outbox).
func (e *env) snapshot() string {
	e.t.Helper()
	return testenv.TableFingerprint(e.t, e.ctx, e.pool, "wallets", "ledger", "purchases", "entitlements", "money_idempotency", "charges",
		"coupon_grants", "event_claims", "wff_state", "auto_payments", "pg_webhooks", "outbox")
}

func TestBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid, other = 41, 42
	p.addWork(work{pid: "p1", vols: 5, price: 100, rent: 50, wff: true, recycle: 60, free: 1})
	p.addWork(work{pid: "off", vols: 2, price: 100, serviceCode: 202})
	p.fund(uid, "blue", 1000)
	p.fund(other, "blue", 1000)
	order, _ := p.request(t, other, 1000)
	before := p.snapshot()
	huge := `{"pid":"p1","buyType":"B","vols":[` + strings.Repeat("1,", 1001) + `1]}`
	big := `{"pid":"` + strings.Repeat("x", 20000) + `"}`
	cases := []struct {
		name   string
		r      req
		status int
	}{
		{"no session", req{method: "POST", path: "/home/api/v1/purchases", key: "k", body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "B"}}, 401},
		{"no key", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "B"}}, 400},
		{"long key", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: strings.Repeat("k", 129), body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "B"}}, 400},
		{"malformed", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: `{"pid":`, ctype: "application/json"}, 400},
		{"empty body", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: ``, ctype: "application/json"}, 400},
		{"array body", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: `[1]`, ctype: "application/json"}, 400},
		{"trailing", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: `{"pid":"p1","vols":[2],"buyType":"B"} {}`, ctype: "application/json"}, 400},
		{"wrong type", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": "2", "buyType": "B"}}, 400},
		{"unknown field", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "B", "price": 0}}, 400},
		{"negative vol", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": []int{-2}, "buyType": "B"}}, 400},
		{"duplicate vol", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": []int{2, 2}, "buyType": "B"}}, 400},
		{"too many vols", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: huge, ctype: "application/json"}, 400},
		{"oversized", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: big, ctype: "application/json"}, 413},
		{"bad buyType", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "X"}}, 400},
		{"no pid", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"vols": []int{2}, "buyType": "B"}}, 400},
		{"unknown pid", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "nope", "vols": []int{2}, "buyType": "B"}}, 404},
		{"unknown vol", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": []int{99}, "buyType": "B"}}, 404},
		{"all and vols", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": []int{2}, "all": true, "buyType": "B"}}, 400},
		{"payment off", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "off", "vols": []int{1}, "buyType": "B"}}, 403},
		{"other uid", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"uid": other, "pid": "p1", "vols": []int{2}, "buyType": "B"}}, 403},
		{"other uid string", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"uid": "42", "pid": "p1", "vols": []int{2}, "buyType": "B"}}, 403},
		{"form body", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: "pid=p1", ctype: "text/plain"}, 415},
		{"bad channel", req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", channel: "ZZ", body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "B"}}, 400},
		{"coupon no kind", req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vol": 2}}, 400},
		{"coupon vol 0", req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vol": 0, "kind": "wff"}}, 400},
		{"coupon unknown pid", req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, key: "k", body: map[string]any{"pid": "zz", "vol": 2, "kind": "wff"}}, 404},
		{"coupon free vol", req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vol": 1, "kind": "wff"}}, 400},
		{"coupon other uid", req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, key: "k", body: map[string]any{"uid": other, "pid": "p1", "vol": 2, "kind": "wff"}}, 403},
		{"coupon no key", req{method: "POST", path: "/home/api/v1/coupons/use", uid: uid, body: map[string]any{"pid": "p1", "vol": 2, "kind": "wff"}}, 400},
		{"charge negative", req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: "k", body: map[string]any{"amount": -1000}}, 400},
		{"charge zero", req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: "k", body: map[string]any{"amount": 0}}, 400},
		{"charge huge", req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: "k", body: map[string]any{"amount": 1e15}}, 400},
		{"charge odd", req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: "k", body: map[string]any{"amount": 1050}}, 400},
		{"charge string", req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: "k", body: map[string]any{"amount": "1000"}}, 400},
		{"charge no key", req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, body: map[string]any{"amount": 1000}}, 400},
		{"charge other uid", req{method: "POST", path: "/home/api/v1/charge/requests", uid: uid, key: "k", body: map[string]any{"amount": 1000, "uid": other}}, 403},
		{"confirm missing", req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: "k", body: map[string]any{"amount": 1000}}, 400},
		{"confirm unknown", req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: "k", body: map[string]any{"orderId": "ch_x", "paymentKey": "pk", "amount": 1000}}, 404},
		{"confirm others", req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: "k", body: map[string]any{"orderId": order, "paymentKey": "pk", "amount": 1000}}, 404},
		{"cancel unknown", req{method: "POST", path: "/home/api/v1/charge/ch_x/cancel", uid: uid, key: "k"}, 404},
		{"cancel others", req{method: "POST", path: "/home/api/v1/charge/" + order + "/cancel", uid: uid, key: "k"}, 404},
		{"webhook without type", req{method: "POST", path: "/home/api/v1/charge/webhook", body: map[string]any{"data": map[string]any{"orderId": order, "status": "DONE"}}}, 400},
		{"webhook without key", req{method: "POST", path: "/home/api/v1/charge/webhook", body: map[string]any{"eventType": "PAYMENT_STATUS_CHANGED", "data": map[string]any{"orderId": order, "status": "DONE"}}}, 400},
		{"auth no vol", req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, body: "pid=p1", ctype: "application/x-www-form-urlencoded"}, 400},
		{"auth bad vol", req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, body: "pid=p1&vol=abc", ctype: "application/x-www-form-urlencoded"}, 400},
		{"auth unknown", req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, body: "pid=nope&vol=1", ctype: "application/x-www-form-urlencoded"}, 404},
		{"auth other uid", req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, body: "uid=42&pid=p1&vol=1", ctype: "application/x-www-form-urlencoded"}, 403},
		{"auth malformed", req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, body: `{"pid":`, ctype: "application/json"}, 400},
		{"auth no session", req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", body: "pid=p1&vol=2", ctype: "application/x-www-form-urlencoded"}, 401},
		{"coupons no pid", req{method: "GET", path: "/home/api/v1/coupons", uid: uid}, 400},
		{"coupons unknown", req{method: "GET", path: "/home/api/v1/coupons?pid=nope", uid: uid}, 404},
		{"status no pid", req{method: "GET", path: "/home/api/v1/purchases/status", uid: uid}, 400},
		{"history bad type", req{method: "GET", path: "/home/api/v1/purchases?type=x", uid: uid}, 400},
		{"history bad limit", req{method: "GET", path: "/home/api/v1/purchases?limit=0", uid: uid}, 400},
		{"ledger bad before", req{method: "GET", path: "/home/api/v1/wallet/ledger?before=-1", uid: uid}, 400},
		{"gift bad id", req{method: "POST", path: "/home/api/v1/coupons/gifts/abc/receive", uid: uid}, 400},
		{"claim bad eid", req{method: "POST", path: "/home/api/v1/coupons/events/x/claim", uid: uid}, 400},
		{"claim unknown", req{method: "POST", path: "/home/api/v1/coupons/events/77/claim", uid: uid}, 404},
		{"events bad kind", req{method: "GET", path: "/home/api/v1/coupons/events?kind=x", uid: uid}, 400},
		{"auto bad type", req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: map[string]any{"is_use": true, "type": "x", "money": 10000, "trigger_value": 1}}, 400},
		{"auto negative", req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: map[string]any{"is_use": true, "type": "bluemoney-auto-payment", "money": -10000, "trigger_value": 1}}, 400},
		{"auto other uid", req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: map[string]any{"uid": other, "is_use": true, "type": "bluemoney-auto-payment", "money": 10000, "trigger_value": 1}}, 403},
		{"wallet bad channel", req{method: "GET", path: "/home/api/v1/wallet", uid: uid, channel: "XX"}, 400},
		{"join no session", req{method: "POST", path: "/home/api/v1/wallet/join-bonus"}, 401},
		{"join other uid", req{method: "POST", path: "/home/api/v1/wallet/join-bonus?uid=42", uid: uid}, 403},
		{"wallet other uid", req{method: "GET", path: "/home/api/v1/wallet?uid=42", uid: uid}, 403},
		{"ledger other uid", req{method: "GET", path: "/home/api/v1/wallet/ledger?uid=42", uid: uid}, 403},
		{"history other uid", req{method: "GET", path: "/home/api/v1/purchases?type=buy&uid=42", uid: uid}, 403},
		{"status other uid", req{method: "GET", path: "/home/api/v1/purchases/status?pid=p1&uid=42", uid: uid}, 403},
		{"coupons other uid", req{method: "GET", path: "/home/api/v1/coupons?pid=p1&uid=42", uid: uid}, 403},
		{"gifts other uid", req{method: "GET", path: "/home/api/v1/coupons/gifts?uid=42", uid: uid}, 403},
		{"charges other uid", req{method: "GET", path: "/home/api/v1/charge/history?uid=42", uid: uid}, 403},
		{"charge other uid query", req{method: "POST", path: "/home/api/v1/charge/requests?uid=42", uid: uid, key: "k", body: map[string]any{"amount": 1000}}, 403},
		{"purchase other uid query", req{method: "POST", path: "/home/api/v1/purchases?uid=42", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "B"}}, 403},
		{"auth other uid json", req{method: "POST", path: "/protocol/api/v-1/product/download-auth.asp", uid: uid, body: map[string]any{"uid": 42, "pid": "p1", "vol": 2}}, 403},
		{"claim other uid", req{method: "POST", path: "/home/api/v1/contents/comic/honey-benefit", uid: uid, body: map[string]any{"uid": other, "eid": 1}}, 403},
		{"heroism other uid", req{method: "POST", path: "/home/api/v1/contents/comic/heroism/coupons", uid: uid, body: map[string]any{"uid": other, "eid": 1}}, 403},
		{"heroism no eid", req{method: "POST", path: "/home/api/v1/contents/comic/heroism/coupons", uid: uid, body: map[string]any{}}, 400},
		{"heroism malformed", req{method: "POST", path: "/home/api/v1/contents/comic/heroism/coupons", uid: uid, body: `{"eid":`, ctype: "application/json"}, 400},
		{"honey negative eid", req{method: "POST", path: "/home/api/v1/contents/comic/honey-benefit", uid: uid, body: map[string]any{"eid": -3}}, 400},
		{"honey unknown eid", req{method: "POST", path: "/home/api/v1/contents/comic/honey-benefit", uid: uid, body: map[string]any{"eid": 123456}}, 404},
		{"jumping not on sale", req{method: "POST", path: "/home/api/v1/coupons/jumping-pass", uid: uid, key: "k"}, 404},
		{"jumping no key", req{method: "POST", path: "/home/api/v1/coupons/jumping-pass", uid: uid}, 400},
		{"jumping other uid", req{method: "POST", path: "/home/api/v1/coupons/jumping-pass", uid: uid, key: "k", body: map[string]any{"uid": other}}, 403},
		{"jumping malformed", req{method: "POST", path: "/home/api/v1/coupons/jumping-pass", uid: uid, key: "k", body: `{"uid":`, ctype: "application/json"}, 400},
		{"jumping unknown field", req{method: "POST", path: "/home/api/v1/coupons/jumping-pass", uid: uid, key: "k", body: map[string]any{"price": 0}}, 400},
		{"gift of nobody", req{method: "POST", path: "/home/api/v1/coupons/gifts/77777/receive", uid: uid}, 404},
		{"auto scheduled day 0", req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: map[string]any{"is_use": true, "type": "bluemoney-scheduled-payment", "money": 10000, "trigger_value": 0}}, 400},
		{"auto negative trigger", req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: map[string]any{"is_use": true, "type": "bluemoney-auto-payment", "money": 10000, "trigger_value": -1}}, 400},
		{"auto huge money", req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: map[string]any{"is_use": true, "type": "bluemoney-auto-payment", "money": 1e12, "trigger_value": 1000}}, 400},
		{"auto money string", req{method: "PUT", path: "/home/api/v1/wallet/auto-payment", uid: uid, body: map[string]any{"is_use": true, "type": "bluemoney-auto-payment", "money": "10000", "trigger_value": 1000}}, 400},
		{"webhook malformed", req{method: "POST", path: "/home/api/v1/charge/webhook", body: `{"eventType":`, ctype: "application/json"}, 400},
		{"confirm negative", req{method: "POST", path: "/home/api/v1/charge/confirm", uid: uid, key: "k", body: map[string]any{"orderId": order, "paymentKey": "pk", "amount": -1000}}, 400},
	}
	// What some refusals tell the reader, word for word.
	wantMsg := map[string]string{
		"no session":          "로그인이 필요한 서비스입니다.",
		"no key":              "요청 키(Idempotency-Key 헤더)가 필요합니다.",
		"unknown field":       `알 수 없는 항목입니다. ("price")`,
		"duplicate vol":       "같은 회차(2화)가 두 번 들어 있습니다.",
		"unknown pid":         "작품을 찾을 수 없습니다.",
		"unknown vol":         "회차를 찾을 수 없습니다. (99화)",
		"oversized":           "요청 내용이 너무 큽니다.",
		"payment off":         "지금은 구매할 수 없는 작품입니다.",
		"other uid":           "로그인한 회원의 요청이 아닙니다.",
		"form body":           "요청 형식은 JSON(application/json)이어야 합니다.",
		"coupon free vol":     "무료 회차입니다. (1화)",
		"charge odd":          "100원 단위",
		"jumping not on sale": "지금은 점핑패스를 판매하지 않습니다.",
	}
	for _, c := range cases {
		r := p.do(c.r)
		msg := writertest.Message(t, r.body)
		if want, ok := wantMsg[c.name]; ok {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: message %q, want %q", c.name, msg, want)
			}
			delete(wantMsg, c.name)
		}
		if r.status != c.status || r.code(t) != c.status {
			t.Errorf("%s: want %d envelope, got %d %s", c.name, c.status, r.status, r.body)
		}
		// Readers see the message (the webhook answers the payment gateway).
		if !strings.Contains(c.r.path, "/charge/webhook") && !testenv.Korean(msg) {
			t.Errorf("%s: message %q is not Korean", c.name, msg)
		}
		if got := p.snapshot(); got != before {
			t.Fatalf("%s changed the database", c.name)
		}
	}
	if len(wantMsg) > 0 {
		t.Errorf("no case for %v", wantMsg)
	}
	// The fingerprint does see a real change.
	p.do(req{method: "POST", path: "/home/api/v1/purchases", uid: uid, key: "k", body: map[string]any{"pid": "p1", "vols": []int{2}, "buyType": "B"}}).mustOK(t)
	if p.snapshot() == before {
		t.Fatal("snapshot blind to a purchase")
	}
}
