package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

// fingerprint hashes every row of every table of the writer's database, so a
// test can tell that a call changed nothing at all in PostgreSQL.
func fingerprint(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	ctx := context.Background()
	// The push worker's tables change in the background (a volume created
	// by the test is a release to announce), never by a request. A staff
	// session's last_seen moves with any call it makes, refused or not.
	rows, err := pool.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'
		AND tablename NOT IN ('goose_db_version', 'push_schedule', 'push_releases', 'push_deliveries', 'staff_sessions') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	if rows.Err() != nil || len(tables) < 20 {
		t.Fatalf("tables %v: %v", tables, rows.Err())
	}
	return testenv.TableFingerprint(t, ctx, pool, tables...)
}

// diffTables names the tables whose fingerprints differ.
func diffTables(a, b string) []string {
	as, bs := strings.Split(a, ";"), strings.Split(b, ";")
	var out []string
	for i := range as {
		if i < len(bs) && as[i] != bs[i] {
			out = append(out, strings.SplitN(as[i], "=", 2)[0])
		}
	}
	return out
}

// Every route of the writer (auth, member, money, admin), reached through the
// real wiring (session middleware, CSRF guard, body limits): bad input of
// every kind - missing fields, wrong types, negative or huge amounts, unknown
// ids, another member's uid (body, form or query), oversized bodies,
// malformed JSON or forms - is a 4xx in the seed envelope with the agreeing
// HTTP status, and leaves every table of PostgreSQL exactly as it was.
func TestEveryRouteRefusesBadInputAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) { c.PaymentSandbox = true })
	w := newWork("B1")
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", w); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	m, uid := signupUID(t, e, "bad@example.com")
	o, ouid := signupUID(t, e, "other@example.com")
	visitor := e.Browser()
	// Some state for the calls to (not) change: money, a purchase, a zzim entry, a review.
	if st, body := m.Do("POST", "/home/api/v1/wallet/join-bonus", nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, body)
	}
	m.Headers = map[string]string{"Idempotency-Key": "setup-buy"}
	if st, body := m.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "B1", "vols": []int{2}, "buyType": "B"}); st != 200 {
		t.Fatalf("purchase: %d %s", st, body)
	}
	m.Headers = nil
	if st, body := o.Do("POST", "/protocol/appapi/mb/user/info/zzim-add", writertest.Form("uid="+ouid+"&zzim_type=prod&pid=B1")); st != 200 {
		t.Fatalf("zzim-add: %d %s", st, body)
	}
	st, body := m.Do("POST", "/home/api/v1/products/B1/reviews", map[string]any{"body": "좋아요", "point": 8})
	if st != 201 {
		t.Fatalf("review: %d %s", st, body)
	}
	var rv struct{ ID int64 }
	_ = json.Unmarshal(body, &rv)
	writertest.Eventually(t, 10*time.Second, "setup published", func() bool {
		return countRows(t, e.Pool, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`) == 0
	})

	form := func(kv ...string) writertest.Form {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return writertest.Form(v.Encode())
	}
	key := map[string]string{"Idempotency-Key": "bad-1"}
	plain := map[string]string{"Content-Type": "text/plain"}
	evil := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
	big := `{"pid":"` + strings.Repeat("x", 2<<20) + `"}`
	bigForm := writertest.Form("uid=" + uid + "&pid=" + strings.Repeat("x", 2<<20))
	review := fmt.Sprintf("/home/api/v1/reviews/%d", rv.ID)
	const zz = "/protocol/appapi/mb/user/info/"
	type call struct {
		name         string
		c            *writertest.Client
		method, path string
		body         any
		headers      map[string]string
		want         int
	}
	cases := []call{
		// Accounts and sessions.
		{"signup malformed", visitor, "POST", "/home/api/v1/auth/signup", `{"email":`, nil, 400},
		{"signup wrong type", visitor, "POST", "/home/api/v1/auth/signup", `{"email":5,"password":"12345678"}`, nil, 400},
		{"signup missing", visitor, "POST", "/home/api/v1/auth/signup", `{}`, nil, 400},
		{"signup taken", visitor, "POST", "/home/api/v1/auth/signup", map[string]any{"email": "BAD@example.com", "password": "12345678"}, nil, 409},
		{"signup oversized", visitor, "POST", "/home/api/v1/auth/signup", big, nil, 413},
		{"signup form", visitor, "POST", "/home/api/v1/auth/signup", form("email", "x@example.com", "password", "12345678"), nil, 400},
		{"login malformed", visitor, "POST", "/home/api/v1/auth/login", `{"email":`, nil, 400},
		{"login wrong password", visitor, "POST", "/home/api/v1/auth/login", map[string]any{"email": "bad@example.com", "password": "wrong wrong"}, nil, 401},
		{"verify visitor", visitor, "POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": "iv-x"}, nil, 401},
		{"verify typed identity", m, "POST", "/home/api/v1/auth/adult/verify", map[string]any{"name": "홍길동", "birthDate": "1990-01-01"}, nil, 400},
		{"verify no id", m, "POST", "/home/api/v1/auth/adult/verify", `{}`, nil, 400},
		{"verify unknown id", m, "POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": "iv-never-started"}, nil, 404},
		{"verify wrong type", m, "POST", "/home/api/v1/auth/adult/verify", `{"identityVerificationId":1}`, nil, 400},
		{"start visitor", visitor, "POST", "/home/api/v1/auth/adult/start", nil, nil, 401},
		{"toggle missing", m, "PUT", "/home/api/v1/auth/adult/toggle", `{}`, nil, 400},
		{"toggle wrong type", m, "PUT", "/home/api/v1/auth/adult/toggle", `{"on":"yes"}`, nil, 400},
		{"toggle not adult", m, "PUT", "/home/api/v1/auth/adult/toggle", `{"on":false}`, nil, 403},
		{"hash no id", m, "POST", "/home/api/v1/auth/hash", form(), nil, 400},
		{"hash malformed form", m, "POST", "/home/api/v1/auth/hash", writertest.Form("id=%zz"), nil, 400},
		{"oauth unknown provider", visitor, "GET", "/home/api/v1/auth/oauth/facebook/start?url=/", nil, nil, 404},
		{"cross-site call", m, "POST", zz + "zzim-add", form("uid", uid, "zzim_type", "prod", "pid", "B1"), evil, 403},
		// Member features: the seed's uid payloads.
		{"zzim-add other uid form", m, "POST", zz + "zzim-add", form("uid", ouid, "zzim_type", "prod", "pid", "B1"), nil, 403},
		{"zzim-add other uid json", m, "POST", zz + "zzim-add", map[string]any{"uid": ouid, "zzim_type": "prod", "pid": "B1"}, nil, 403},
		{"zzim-add other uid number", m, "POST", zz + "zzim-add", `{"uid":` + ouid + `,"zzim_type":"prod","pid":"B1"}`, nil, 403},
		{"zzim-add other uid query", m, "POST", zz + "zzim-add?uid=" + ouid, form("zzim_type", "prod", "pid", "B1"), nil, 403},
		{"zzim-add visitor", visitor, "POST", zz + "zzim-add", form("zzim_type", "prod", "pid", "B1"), nil, 401},
		{"zzim-add missing pid", m, "POST", zz + "zzim-add", form("uid", uid, "zzim_type", "prod"), nil, 400},
		{"zzim-add unknown pid", m, "POST", zz + "zzim-add", form("uid", uid, "pid", "NOPE"), nil, 404},
		{"zzim-add bad type", m, "POST", zz + "zzim-add", form("uid", uid, "zzim_type", "x", "pid", "B1"), nil, 400},
		{"zzim-add malformed json", m, "POST", zz + "zzim-add", `{"uid":`, nil, 400},
		{"zzim-add malformed form", m, "POST", zz + "zzim-add", writertest.Form("uid=%zz&pid=B1"), nil, 400},
		{"zzim-add wrong type", m, "POST", zz + "zzim-add", `{"pid":{"a":1}}`, nil, 400},
		{"zzim-add oversized", m, "POST", zz + "zzim-add", bigForm, nil, 413},
		{"zzim-add text", m, "POST", zz + "zzim-add", "pid=B1", plain, 415},
		{"zzim-del other uid", o, "POST", zz + "zzim-del", form("uid", uid, "idxs", "1", "zzim_type", "prod"), nil, 403},
		{"zzim-del bad idxs", o, "POST", zz + "zzim-del", form("uid", ouid, "idxs", "a,b"), nil, 400},
		{"zzim-del no idxs", o, "POST", zz + "zzim-del", form("uid", ouid), nil, 400},
		{"zzim-delete other uid", o, "POST", zz + "zzim-delete", form("uid", uid, "idxs", "1"), nil, 403},
		{"zzim-list other uid", m, "POST", zz + "zzim-list", form("uid", ouid), nil, 403},
		{"zzim-list bad level", m, "POST", zz + "zzim-list", form("uid", uid, "adultLevel", "x"), nil, 400},
		{"alarm-set other uid", m, "POST", zz + "alarm-set", form("uid", ouid, "pid", "B1", "isAlarm", "Y"), nil, 403},
		{"alarm-set unknown pid", m, "POST", zz + "alarm-set", form("uid", uid, "pid", "NOPE", "isAlarm", "Y"), nil, 404},
		{"alarm-set bad flag", m, "POST", zz + "alarm-set", form("uid", uid, "pid", "B1", "isAlarm", "maybe"), nil, 400},
		{"user-get-info other uid", m, "POST", zz + "user-get-info", form("uid", ouid, "channel", "AW", "nai", "0"), nil, 403},
		{"user-get-info bad nai", m, "POST", zz + "user-get-info", form("uid", uid, "nai", "7"), nil, 400},
		{"qna_list other uid", m, "POST", "/protocol/appapi/mb/helpdesk/qna_list", form("uid", ouid, "page", "1"), nil, 403},
		{"qna list other uid query", m, "GET", "/home/api/v1/cs/qna?uid=" + ouid, nil, nil, 403},
		{"tracking profile other uid", m, "GET", "/iam/v2/user-info?uid=" + ouid, nil, nil, 403},
		{"genres other uid", m, "GET", "/home/api/v1/users/interests/genres?uid=" + ouid, nil, nil, 403},
		{"genres put other uid query", m, "PUT", "/home/api/v1/users/interests/genres?uid=" + ouid, map[string]any{"genres": []map[string]any{{"integratedGenreId": "21", "isSelected": true}}}, nil, 403},
		{"genres put malformed", m, "PUT", "/home/api/v1/users/interests/genres", `{"genres":`, nil, 400},
		{"genres put wrong type", m, "PUT", "/home/api/v1/users/interests/genres", `{"genres":"21"}`, nil, 400},
		{"genres put unknown genre", m, "PUT", "/home/api/v1/users/interests/genres", map[string]any{"genres": []map[string]any{{"integratedGenreId": "zz", "isSelected": true}}}, nil, 400},
		{"genres reject visitor", visitor, "POST", "/home/api/v1/users/interests/genres/rejection", nil, nil, 401},
		{"qna add missing", m, "POST", "/home/api/v1/cs/qna", map[string]any{"category": "etc"}, nil, 400},
		{"qna add bad category", m, "POST", "/home/api/v1/cs/qna", map[string]any{"category": "x", "title": "t", "body": "b"}, nil, 400},
		{"review no body", m, "POST", "/home/api/v1/products/B1/reviews", map[string]any{"point": 5}, nil, 400},
		{"review point huge", m, "POST", "/home/api/v1/products/B1/reviews", map[string]any{"body": "x", "point": 1e9}, nil, 400},
		{"review uid field", m, "POST", "/home/api/v1/products/B1/reviews", map[string]any{"body": "x", "point": 5, "uid": ouid}, nil, 400},
		{"review unknown pid", m, "POST", "/home/api/v1/products/NOPE/reviews", map[string]any{"body": "x", "point": 5}, nil, 404},
		{"review oversized", m, "POST", "/home/api/v1/products/B1/reviews", big, nil, 413},
		{"review delete other's", o, "DELETE", review, nil, nil, 403},
		{"review like unknown", o, "POST", "/home/api/v1/reviews/999999/like", nil, nil, 404},
		{"review like bad id", o, "POST", "/home/api/v1/reviews/x/like", nil, nil, 400},
		{"review report own", m, "POST", review + "/report", map[string]any{"reason": "x"}, nil, 400},
		{"review report wrong type", o, "POST", review + "/report", `{"reason":5}`, nil, 400},
		{"review block unknown", o, "POST", "/home/api/v1/reviews/999999/block", nil, nil, 404},
		{"award vote unknown", m, "POST", "/pc/api/awards/999999/vote", form("section", "wt", "pid", "B1"), nil, 404},
		{"award vote bad eid", m, "POST", "/pc/api/awards/x/vote", form("section", "wt", "pid", "B1"), nil, 400},
		// Money.
		{"wallet other uid", m, "GET", "/home/api/v1/wallet?uid=" + ouid, nil, nil, 403},
		{"join bonus again", m, "POST", "/home/api/v1/wallet/join-bonus", nil, nil, 409},
		{"auto-payment bad type", m, "PUT", "/home/api/v1/wallet/auto-payment", map[string]any{"is_use": true, "type": "x", "money": 10000, "trigger_value": 1}, nil, 400},
		{"auto-payment other uid", m, "PUT", "/home/api/v1/wallet/auto-payment", map[string]any{"uid": ouid, "is_use": true, "type": "bluemoney-auto-payment", "money": 10000, "trigger_value": 1}, nil, 403},
		{"purchase no key", m, "POST", "/home/api/v1/purchases", map[string]any{"pid": "B1", "vols": []int{2}, "buyType": "B"}, nil, 400},
		{"purchase other uid", m, "POST", "/home/api/v1/purchases", map[string]any{"uid": ouid, "pid": "B1", "vols": []int{2}, "buyType": "B"}, key, 403},
		{"purchase other uid query", m, "POST", "/home/api/v1/purchases?uid=" + ouid, map[string]any{"pid": "B1", "vols": []int{2}, "buyType": "B"}, key, 403},
		{"purchase negative vol", m, "POST", "/home/api/v1/purchases", map[string]any{"pid": "B1", "vols": []int{-2}, "buyType": "B"}, key, 400},
		{"purchase huge vol", m, "POST", "/home/api/v1/purchases", `{"pid":"B1","vols":[99999999999],"buyType":"B"}`, key, 400},
		{"purchase vol over int32", m, "POST", "/home/api/v1/purchases", `{"pid":"B1","vols":[2147483648],"buyType":"B"}`, key, 400},
		{"download-auth huge vol", m, "POST", "/protocol/api/v-1/product/download-auth.asp", form("pid", "B1", "vol", "99999999999"), nil, 400},
		{"coupon use huge vol", m, "POST", "/home/api/v1/coupons/use", map[string]any{"pid": "B1", "vol": 99999999999, "kind": "pass"}, key, 400},
		{"review huge vol", m, "POST", "/home/api/v1/products/B1/reviews", map[string]any{"body": "x", "point": 5, "vol": 99999999999}, nil, 400},
		{"purchase unknown pid", m, "POST", "/home/api/v1/purchases", map[string]any{"pid": "NOPE", "vols": []int{2}, "buyType": "B"}, key, 404},
		{"purchase malformed", m, "POST", "/home/api/v1/purchases", `{"pid":`, key, 400},
		{"purchase form", m, "POST", "/home/api/v1/purchases", form("pid", "B1"), key, 415},
		{"purchase oversized", m, "POST", "/home/api/v1/purchases", big, key, 413},
		{"charge negative", m, "POST", "/home/api/v1/charge/requests", map[string]any{"amount": -1000}, key, 400},
		{"charge huge", m, "POST", "/home/api/v1/charge/requests", map[string]any{"amount": 1e15}, key, 400},
		{"charge string", m, "POST", "/home/api/v1/charge/requests", map[string]any{"amount": "1000"}, key, 400},
		{"charge other uid", m, "POST", "/home/api/v1/charge/requests", map[string]any{"amount": 1000, "uid": ouid}, key, 403},
		{"confirm unknown", m, "POST", "/home/api/v1/charge/confirm", map[string]any{"orderId": "ch_x", "paymentKey": "pk", "amount": 1000}, key, 404},
		{"cancel unknown", m, "POST", "/home/api/v1/charge/ch_x/cancel", nil, key, 404},
		{"webhook without type", visitor, "POST", "/home/api/v1/charge/webhook", map[string]any{"data": map[string]any{"orderId": "x", "status": "DONE"}}, nil, 400},
		{"webhook of no payment", visitor, "POST", "/home/api/v1/charge/webhook", map[string]any{"eventType": "PAYMENT_STATUS_CHANGED", "data": map[string]any{"paymentKey": "tgen_forged", "orderId": "x", "status": "DONE"}}, nil, 400},
		{"download-auth other uid", m, "POST", "/protocol/api/v-1/product/download-auth.asp", form("uid", ouid, "pid", "B1", "vol", "2"), nil, 403},
		{"download-auth other uid json", m, "POST", "/protocol/api/v-1/product/download-auth.asp", map[string]any{"uid": ouid, "pid": "B1", "vol": 2}, nil, 403},
		{"download-auth bad vol", m, "POST", "/protocol/api/v-1/product/download-auth.asp", form("pid", "B1", "vol", "x"), nil, 400},
		{"download-auth unknown", m, "POST", "/protocol/api/v-1/product/download-auth.asp", form("pid", "NOPE", "vol", "1"), nil, 404},
		{"coupon use no kind", m, "POST", "/home/api/v1/coupons/use", map[string]any{"pid": "B1", "vol": 2}, key, 400},
		{"coupon use other uid", m, "POST", "/home/api/v1/coupons/use", map[string]any{"uid": ouid, "pid": "B1", "vol": 2, "kind": "pass"}, key, 403},
		{"coupons other uid", m, "GET", "/home/api/v1/coupons?pid=B1&uid=" + ouid, nil, nil, 403},
		{"jumping pass other uid", m, "POST", "/home/api/v1/coupons/jumping-pass", map[string]any{"uid": ouid}, key, 403},
		{"jumping pass not on sale", m, "POST", "/home/api/v1/coupons/jumping-pass", nil, key, 404},
		{"honey benefit no eid", m, "POST", "/home/api/v1/contents/comic/honey-benefit", map[string]any{}, nil, 400},
		{"heroism other uid", m, "POST", "/home/api/v1/contents/comic/heroism/coupons", map[string]any{"uid": ouid, "eid": 1}, nil, 403},
		{"gift receive bad id", m, "POST", "/home/api/v1/coupons/gifts/x/receive", nil, nil, 400},
		{"gift receive unknown", m, "POST", "/home/api/v1/coupons/gifts/999999/receive", nil, nil, 404},
		{"event claim unknown", m, "POST", "/home/api/v1/coupons/events/999999/claim", nil, nil, 404},
		// Admin.
		{"admin no token", visitor, "PATCH", "/admin/api/v1/works/B1", map[string]any{"title": "x"}, nil, 401},
		{"admin member session", m, "PATCH", "/admin/api/v1/works/B1", map[string]any{"title": "x"}, nil, 401},
		{"admin malformed", e.Admin, "PATCH", "/admin/api/v1/works/B1", `{"title":`, nil, 400},
		{"admin negative price", e.Admin, "PUT", "/admin/api/v1/works/B1/volumes/2", `{"buyPrice":-1}`, nil, 400},
		{"admin alt title empty", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"altTitles": []string{" "}}, nil, 400},
		{"admin alt titles too many", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"altTitles": []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}}, nil, 400},
		{"admin alt titles repeated", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"altTitles": []string{"다른 이름", " 다른 이름"}}, nil, 400},
		{"admin alt titles not a list", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"altTitles": "다른 이름"}, nil, 400},
		{"admin right to left on a webtoon", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"rightToLeft": true}, nil, 400},
		{"admin right to left not a boolean", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"rightToLeft": "yes"}, nil, 400},
		{"admin unknown work", e.Admin, "PATCH", "/admin/api/v1/works/NOPE", map[string]any{"title": "x"}, nil, 404},
		// Early access (미리보기): how many volumes to come, at what price.
		{"admin early negative count", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"earlyCount": -1, "earlyPrice": 300}, nil, 400},
		{"admin early count over 50", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"earlyCount": 51, "earlyPrice": 300}, nil, 400},
		{"admin early no price", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"earlyCount": 2}, nil, 400},
		{"admin early price under 100", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"earlyCount": 2, "earlyPrice": 50}, nil, 400},
		{"admin early price not in 100s", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"earlyCount": 2, "earlyPrice": 150}, nil, 400},
		{"admin early price over a million", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"earlyCount": 2, "earlyPrice": 1_000_100}, nil, 400},
		{"admin early price without count", e.Admin, "PATCH", "/admin/api/v1/works/B1", map[string]any{"earlyPrice": 300}, nil, 400},
		{"admin early count wrong type", e.Admin, "PATCH", "/admin/api/v1/works/B1", `{"earlyCount":"2","earlyPrice":300}`, nil, 400},
		{"admin get unknown work", e.Admin, "GET", "/admin/api/v1/works/NOPE", nil, nil, 404},
		{"admin create bad section", e.Admin, "POST", "/admin/api/v1/works", map[string]any{"pid": "B9", "section": "XX", "title": "t", "genreId": "21"}, nil, 400},
		{"admin create adult age 18", e.Admin, "POST", "/admin/api/v1/works", map[string]any{"pid": "B9", "section": "WT", "title": "t", "genreId": "21", "age": 18}, nil, 400},
		{"admin create unknown genre", e.Admin, "POST", "/admin/api/v1/works", map[string]any{"pid": "B9", "section": "WT", "title": "t", "genreId": "nope"}, nil, 400},
		{"admin create bad pid", e.Admin, "POST", "/admin/api/v1/works", map[string]any{"pid": "../x", "section": "WT", "title": "t", "genreId": "21"}, nil, 400},
		{"admin hide unknown work", e.Admin, "DELETE", "/admin/api/v1/works/NOPE", nil, nil, 404},
		{"admin volume bad number", e.Admin, "PUT", "/admin/api/v1/works/B1/volumes/x", map[string]any{"buyPrice": 100}, nil, 400},
		{"admin volume numbers differ", e.Admin, "PUT", "/admin/api/v1/works/B1/volumes/2", map[string]any{"no": 3, "buyPrice": 100}, nil, 400},
		{"admin volume of unknown work", e.Admin, "POST", "/admin/api/v1/works/NOPE/volumes", map[string]any{"title": "x"}, nil, 404},
		{"admin delete volume bad number", e.Admin, "DELETE", "/admin/api/v1/works/B1/volumes/x", nil, nil, 400},
		{"admin delete unknown volume", e.Admin, "DELETE", "/admin/api/v1/works/B1/volumes/999", nil, nil, 404},
		{"admin author no name", e.Admin, "POST", "/admin/api/v1/authors", map[string]any{"name": ""}, nil, 400},
		{"admin author bad id", e.Admin, "PATCH", "/admin/api/v1/authors/x", map[string]any{"name": "n"}, nil, 400},
		{"admin author unknown", e.Admin, "PATCH", "/admin/api/v1/authors/999999", map[string]any{"name": "n"}, nil, 404},
		{"admin grant coupons bad uid", e.Admin, "POST", "/admin/api/v1/users/x/coupons", map[string]any{"pid": "B1", "count": 1}, nil, 400},
		{"admin grant coupons malformed", e.Admin, "POST", "/admin/api/v1/users/" + uid + "/coupons", `{"pid":`, nil, 400},
		{"admin event no window", e.Admin, "POST", "/admin/api/v1/events", map[string]any{"kind": "bluerun", "title": "t"}, nil, 400},
		{"admin event ends before start", e.Admin, "POST", "/admin/api/v1/events", map[string]any{"kind": "bluerun", "title": "t",
			"startAt": "2026-03-02T00:00:00Z", "endAt": "2026-03-01T00:00:00Z"}, nil, 400},
		{"admin event negative coupons", e.Admin, "POST", "/admin/api/v1/events", map[string]any{"kind": "doublecoupon", "title": "t",
			"startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z", "coupons": -1}, nil, 400},
		{"admin event bad id", e.Admin, "PUT", "/admin/api/v1/events/x", map[string]any{"kind": "bluerun"}, nil, 400},
		{"admin delete unknown event", e.Admin, "DELETE", "/admin/api/v1/events/999999", nil, nil, 404},
		{"admin award bad result type", e.Admin, "POST", "/admin/api/v1/awards", map[string]any{"title": "t", "resultType": "MAYBE",
			"startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z"}, nil, 400},
		{"admin faq bad cid", e.Admin, "POST", "/admin/api/v1/faq", map[string]any{"cid": "99999", "question": "q", "answer": "a"}, nil, 400},
		{"admin faq no question", e.Admin, "POST", "/admin/api/v1/faq", map[string]any{"cid": "01000", "answer": "a"}, nil, 400},
		{"admin delete unknown faq", e.Admin, "DELETE", "/admin/api/v1/faq/999999", nil, nil, 404},
		{"admin notice bad kind", e.Admin, "POST", "/admin/api/v1/notices", map[string]any{"kind": "gossip", "title": "t"}, nil, 400},
		{"admin notice wrong type", e.Admin, "POST", "/admin/api/v1/notices", `{"kind":"notice","title":7}`, nil, 400},
		{"admin banner bad place", e.Admin, "POST", "/admin/api/v1/banners", map[string]any{"place": "moon", "title": "t",
			"startAt": "2026-03-01T00:00:00Z", "endAt": "2026-03-02T00:00:00Z"}, nil, 400},
		{"admin delete unknown banner", e.Admin, "DELETE", "/admin/api/v1/banners/999999", nil, nil, 404},
		{"admin keyword no name", e.Admin, "POST", "/admin/api/v1/keywords", map[string]any{"name": " "}, nil, 400},
		{"admin keyword unknown field", e.Admin, "POST", "/admin/api/v1/keywords", map[string]any{"name": "k", "uid": uid}, nil, 400},
		{"admin quick link no title", e.Admin, "PUT", "/admin/api/v1/quicklinks", map[string]any{"links": []any{map[string]any{"linkUrl": "/"}}}, nil, 400},
		{"admin jumping pass negative price", e.Admin, "PUT", "/admin/api/v1/jumpingpass", map[string]any{"title": "t", "price": -1, "days": 7}, nil, 400},
		{"admin site config negative version", e.Admin, "PUT", "/admin/api/v1/siteconfig", map[string]any{"webVersionCode": -1}, nil, 400},
		{"admin site config malformed", e.Admin, "PUT", "/admin/api/v1/siteconfig", `{"webVersionCode":`, nil, 400},
		{"admin events no token", visitor, "POST", "/admin/api/v1/events", map[string]any{"kind": "bluerun", "title": "t"}, nil, 401},
		// Member routes not reached above.
		{"me other uid", m, "GET", "/home/api/v1/auth/me?uid=" + ouid, nil, nil, 403},
		{"review state unknown work", m, "GET", "/home/api/v1/products/NOPE/reviews/state", nil, nil, 404},
		{"review state visitor", visitor, "GET", "/home/api/v1/products/B1/reviews/state", nil, nil, 401},
		{"review unblock unknown", o, "DELETE", "/home/api/v1/reviews/999999/block", nil, nil, 404},
		{"review unblock bad id", o, "DELETE", "/home/api/v1/reviews/x/block", nil, nil, 400},
		{"award votes bad eid", m, "GET", "/pc/api/awards/x/votes", nil, nil, 400},
		{"award votes visitor", visitor, "GET", "/pc/api/awards/1/votes", nil, nil, 401},
	}
	before := fingerprint(t, e.Pool)
	for _, c := range cases {
		old := c.c.Headers
		c.c.Headers = c.headers
		resp, body := c.c.Req(c.method, c.path, c.body)
		c.c.Headers = old
		if resp.StatusCode != c.want || writertest.Code(t, body) != c.want {
			t.Errorf("%s: %d %.200s, want %d", c.name, resp.StatusCode, body, c.want)
		}
		// A refusal a member or visitor can meet is shown to readers: Korean
		// (the admin and the payment gateway's webhook are not readers).
		// The early-access settings' refusals are the content manager's
		// own words (Korean), unlike the rest of the admin API.
		if !strings.HasPrefix(c.path, "/admin/") && !strings.Contains(c.path, "/charge/webhook") ||
			strings.HasPrefix(c.name, "admin early") && !strings.Contains(c.name, "wrong type") {
			if msg := writertest.Message(t, body); !testenv.Korean(msg) {
				t.Errorf("%s: message %q is not Korean", c.name, msg)
			}
		}
		if after := fingerprint(t, e.Pool); after != before {
			t.Fatalf("%s changed %v", c.name, diffTables(before, after))
		}
	}
	// A valid early-access setting is stored and read back.
	if st, body := e.Admin.Do("PATCH", "/admin/api/v1/works/B1", map[string]any{"earlyCount": 2, "earlyPrice": 300}); st != 200 {
		t.Fatalf("admin early access: %d %s", st, body)
	}
	var work struct {
		Product struct {
			EarlyCount int `json:"earlyCount"`
			EarlyPrice int `json:"earlyPrice"`
		} `json:"product"`
	}
	if _, body := e.Admin.Do("GET", "/admin/api/v1/works/B1", nil); json.Unmarshal(body, &work) != nil || work.Product.EarlyCount != 2 || work.Product.EarlyPrice != 300 {
		t.Fatalf("admin early access read back %+v: %.300s", work, body)
	}
	before = fingerprint(t, e.Pool)
	// The fingerprint sees a real change: a business refusal (409, nothing
	// left to rent) is stored with its key so that the key replays it.
	m.Headers = map[string]string{"Idempotency-Key": "real"}
	if st, body := m.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "B1", "all": true, "buyType": "R"}); st != 409 {
		t.Fatalf("rent-all of an owned work: %d %s", st, body)
	}
	if fingerprint(t, e.Pool) == before {
		t.Fatal("fingerprint blind to a stored refusal")
	}
}
