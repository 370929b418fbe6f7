package money_test

// Fuzz targets for what money decodes: every seed payload of the money routes
// against real PostgreSQL, and the payment gateway's webhook signature check.

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"storefront/devstack/testenv"
	"storefront/writer/money"
)

// fuzzRoutes are the money routes that decode a body (or a path id).
var fuzzRoutes = []struct{ method, path string }{
	{"POST", "/home/api/v1/purchases"},
	{"POST", "/protocol/api/v-1/product/download-auth.asp"},
	{"POST", "/home/api/v1/coupons/use"},
	{"PUT", "/home/api/v1/wallet/auto-payment"},
	{"POST", "/home/api/v1/charge/requests"},
	{"POST", "/home/api/v1/charge/confirm"},
	{"POST", "/home/api/v1/coupons/events/1/claim"},
	{"POST", "/home/api/v1/contents/comic/honey-benefit"},
	{"GET", "/home/api/v1/wallet/ledger?before=1&limit=5"},
	{"GET", "/home/api/v1/purchases/status?pid=p1"},
	// Routes that take no body (httpapi.NoBody): a 2xx needs none or {}.
	{"POST", "/home/api/v1/wallet/join-bonus"},
	{"POST", "/home/api/v1/coupons/gifts/1/receive"},
}

// FuzzMoneyAPI sends arbitrary bodies, content types, idempotency keys and
// channels to member 41's money routes. Whatever arrives: no 5xx (503 only
// where no payment gateway is configured), errors in the seed envelope with an
// agreeing status, a body uid other than the session's never succeeds (a GET
// reads no body), member
// 42's money and entitlements never change, and every balance stays equal to
// its ledger.
func FuzzMoneyAPI(f *testing.F) {
	e := newEnv(f, money.Config{})
	const uid, other = 41, 42
	e.addWork(work{pid: "p1", vols: 5, price: 100, rent: 50, wff: true, recycle: 60, free: 1})
	e.fund(uid, "blue", 1_000_000_000)
	e.fund(other, "blue", 5000)
	// Inside the fuzz function only its own t may fail: query the pool directly.
	query := func(t testing.TB, sql string) int64 {
		var n int64
		if err := e.pool.QueryRow(e.ctx, sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	const otherState = `SELECT (SELECT blue + android + ios + mileage FROM wallets WHERE uid = 42) * 1000 +
		(SELECT count(*) FROM entitlements WHERE uid = 42) + (SELECT count(*) FROM ledger WHERE uid = 42)`
	const ledgerOff = `SELECT count(*) FROM wallets w WHERE
		w.blue    <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'blue'), 0) OR
		w.android <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'android'), 0) OR
		w.ios     <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'ios'), 0) OR
		w.mileage <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'mileage'), 0)`
	before := query(f, otherState)

	add := func(route int, body, ctype, key, channel string) {
		f.Add(uint8(route), []byte(body), ctype, key, channel)
	}
	add(0, `{"pid":"p1","vols":[2],"buyType":"B"}`, "application/json", "k1", "")
	add(0, `{"pid":"p1","all":true,"buyType":"R","uid":"41"}`, "application/json", "k2", "AA")
	add(0, `{"pid":"p1","vols":[3],"buyType":"B","uid":"42"}`, "application/json", "k3", "IA")
	add(0, `{"pid":"p1","vols":[3],"buyType":"B","uid":42}`, "application/json; charset=utf-8", "k4", "")
	add(0, `{"pid":"p1","vols":[2],"buyType":"T","channel":"IA"}`, "", "k5", "XX")
	add(1, `pid=p1&vol=3&uid=41`, "application/x-www-form-urlencoded", "", "")
	add(1, `{"pid":"p1","vol":3,"uid":"42"}`, "application/json", "", "")
	add(1, `pid=../../etc/passwd&vol=1`, "", "", "")
	add(2, `{"pid":"p1","vol":5,"kind":"wff"}`, "application/json", "c1", "")
	add(3, `{"is_use":true,"type":"bluemoney-auto-payment","money":10000,"trigger_value":1000}`, "application/json", "", "")
	add(4, `{"amount":10000,"successUrl":"/charge/ok"}`, "application/json", "ch1", "AW")
	add(5, `{"orderId":"ch_0","paymentKey":"pk","amount":10000}`, "application/json", "cf1", "")
	add(6, ``, "", "", "")
	add(7, `{"eid":1}`, "application/json", "", "")
	add(8, ``, "", "", "")
	add(9, ``, "", "", "")
	add(0, `{"pid":"p1'; DROP TABLE wallets;--","vols":[1],"buyType":"B"}`, "application/json", "k'--", "")
	add(0, `{"pid":"p1","vols":[`+strings.Repeat("9,", 100)+`1],"buyType":"B"}`, "application/json", "k6", "")
	// Issue 24 items 8 to 12.
	add(0, `{"uid":"41","pid":"p1","vols":[2],"buyType":"B","uid":"42"}`, "application/json", "k7", "")
	add(0, `{"pid":"p1","vols":[2],"buyType":"\u0000"}`, "application/json", "k8", "")
	add(1, `pid=p1&vol=3&uid=41&uid=42`, "application/x-www-form-urlencoded", "", "")
	add(1, `pid=p1%00&vol=3`, "", "", "")
	add(3, `{}`, "application/json", "", "")
	add(3, `{"is_use":null}`, "application/json", "", "")
	add(10, `{"a":`, "application/json", "", "")
	add(10, "ÿ", "", "", "")
	add(10, `[]`, "application/json", "", "")
	add(11, `{"id":1}`, "application/json", "", "")

	f.Fuzz(func(t *testing.T, route uint8, body []byte, ctype, key, channel string) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		r := httptest.NewRequest(rt.method, rt.path, bytes.NewReader(body))
		r.Header.Set(uidHeader, "41")
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		if key != "" {
			r.Header.Set("Idempotency-Key", key)
		}
		if channel != "" {
			r.Header.Set("X-Channel", channel)
		}
		rec := httptest.NewRecorder()
		e.srv.Config.Handler.ServeHTTP(rec, r)
		status := rec.Code
		if status >= 500 && !(status == 503 && strings.Contains(rt.path, "/charge/")) {
			t.Fatalf("%s %s %q: %d %s", rt.method, rt.path, body, status, rec.Body)
		}
		if status >= 300 {
			var env struct {
				Header struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"header"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Header.Code != status {
				t.Fatalf("%d answer is not the envelope of its status: %s", status, rec.Body)
			}
			// Readers see the message: it is Korean.
			if !testenv.Korean(env.Header.Message) {
				t.Fatalf("%s %s: message %q is not Korean", rt.method, rt.path, env.Header.Message)
			}
		}
		// A GET's body is never read (its parameters are in the query, and a
		// uid there is checked): it answers the session's own data whatever
		// the body names.
		if status < 300 && (strings.HasSuffix(rt.path, "/join-bonus") || strings.HasSuffix(rt.path, "/receive")) &&
			len(bytes.TrimSpace(body)) > 0 && string(bytes.Join(bytes.Fields(body), nil)) != "{}" {
			t.Fatalf("%s %s takes no body but acted on %q -> %d", rt.method, rt.path, body, status)
		}
		if status < 300 && rt.method != "GET" && foreignUID(body, ctype, "41") {
			t.Fatalf("%s %s with another member's uid succeeded: %q -> %d %s", rt.method, rt.path, body, status, rec.Body)
		}
		if got := query(t, otherState); got != before {
			t.Fatalf("member 42 changed (%d -> %d) after %s %s %q", before, got, rt.method, rt.path, body)
		}
		if n := query(t, ledgerOff); n != 0 {
			t.Fatalf("%d wallets differ from their ledger after %s %s %q", n, rt.method, rt.path, body)
		}
	})
}

// foreignUID reports whether body names a uid other than self (as a JSON
// object field or a form value).
func foreignUID(body []byte, ctype, self string) bool {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&m) == nil {
		switch v := m["uid"].(type) {
		case nil:
			return false
		case string:
			return v != "" && v != self
		case json.Number:
			return v.String() != self
		default:
			return true
		}
	}
	if strings.Contains(ctype, "json") {
		return false
	}
	r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if r.ParseForm() != nil {
		return false
	}
	for _, v := range r.PostForm["uid"] {
		if v != "" && v != self {
			return true
		}
	}
	return false
}

// FuzzParseWebhook: any body is decoded or refused without a panic, and
// a decoded one names its event type (the writer then trusts only the
// gateway's lookup of the payment it names, never these fields).
func FuzzParseWebhook(f *testing.F) {
	f.Add([]byte(`{"eventType":"PAYMENT_STATUS_CHANGED","createdAt":"2026-11-25T12:00:00.000000","data":{"orderId":"ch_1","paymentKey":"tgen_1","status":"DONE","totalAmount":10000}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(`{"eventType":"","data":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := money.ParseWebhook(body)
		if err == nil && ev.EventType == "" {
			t.Fatalf("webhook %q accepted without an event type", body)
		}
	})
}
