package appmoney_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/devstack/testenv"
	"storefront/writer/appmoney"
	"storefront/writer/appmoney/storetest"
	"storefront/writer/internal/writertest"
	"storefront/writer/money"
)

const (
	pkg    = "com.storefront.app"
	bundle = "com.storefront.ios"
)

type env struct {
	t      *testing.T
	pool   *pgxpool.Pool
	srv    *httptest.Server
	google *storetest.GooglePlay
	apple  *storetest.AppStore
	ctx    context.Context
}

// pushAudience is the audience of the test push subscription.
const pushAudience = "https://storefront.test" + appmoney.GoogleNotificationPath

// newEnv starts the fakes and the service; edit changes its settings
// (by default pushes are authenticated by OIDC token only).
func newEnv(t *testing.T, edit ...func(*appmoney.Config)) *env {
	t.Helper()
	pool, _ := writertest.Pool(t)
	g := storetest.StartGooglePlay(pkg)
	t.Cleanup(g.Close)
	a := storetest.StartAppStore(bundle)
	t.Cleanup(a.Close)
	log := writertest.Log()
	ms := money.New(pool, money.Config{}, log)
	sa := g.ServiceAccount()
	cfg := appmoney.Config{
		GoogleAPIURL: g.URL, GooglePackage: pkg, GoogleAccount: &sa,
		GooglePushAudience: pushAudience, GooglePushServiceAccount: g.PushEmail, GooglePushCertsURL: g.CertsURL(),
		AppleAPIURL: a.URL, AppleIssuerID: a.IssuerID, AppleKeyID: a.KeyID, AppleKeyPEM: a.KeyPEM(),
		AppleBundleID: bundle, AppleEnvironment: "Sandbox", AppleRootPEM: a.Chain.RootPEM(),
	}
	for _, f := range edit {
		f(&cfg)
	}
	svc, err := appmoney.New(context.Background(), pool, ms, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	svc.Routes(mux, func(r *http.Request) (int64, bool) {
		uid, err := strconv.ParseInt(r.Header.Get("X-Test-Uid"), 10, 64)
		return uid, err == nil && uid > 0
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &env{t: t, pool: pool, srv: srv, google: g, apple: a, ctx: context.Background()}
}

type answer struct {
	status int
	body   map[string]any
	raw    string
}

// post sends body (a string is sent as is) as uid (0 = no session) on channel.
func (e *env) post(path string, uid int64, channel string, body any) answer {
	e.t.Helper()
	return e.send(path, uid, channel, nil, body)
}

// notify pushes a Pub/Sub body as Google does for an authenticated
// subscription: with a valid OIDC token of the push service account.
func (e *env) notify(body []byte) answer {
	e.t.Helper()
	return e.pushAs(e.google.PushToken(e.google.PushClaims(pushAudience)), body)
}

// pushAs pushes body with bearer as its Authorization ("" = none).
func (e *env) pushAs(bearer string, body []byte) answer {
	e.t.Helper()
	hdr := map[string]string{}
	if bearer != "" {
		hdr["Authorization"] = "Bearer " + bearer
	}
	return e.send(appmoney.GoogleNotificationPath, 0, "", hdr, body)
}

func (e *env) send(path string, uid int64, channel string, hdr map[string]string, body any) answer {
	e.t.Helper()
	var b []byte
	switch v := body.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		b, _ = json.Marshal(v)
	}
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if uid != 0 {
		req.Header.Set("X-Test-Uid", strconv.FormatInt(uid, 10))
	}
	if channel != "" {
		req.Header.Set("X-Channel", channel)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, raw: string(raw)}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		e.t.Fatalf("answer %d is not JSON: %s", resp.StatusCode, raw)
	}
	if code, _ := a.body["header"].(map[string]any)["code"].(float64); int(code) != resp.StatusCode {
		e.t.Fatalf("header code %v differs from status %d: %s", code, resp.StatusCode, raw)
	}
	return a
}

// refused checks an error answer: status and a Korean message.
func (a answer) refused(t *testing.T, status int) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.raw)
	}
	msg, _ := a.body["header"].(map[string]any)["message"].(string)
	if !testenv.Korean(msg) {
		t.Fatalf("message %q is not Korean", msg)
	}
}

func (e *env) int(sql string, args ...any) int64 {
	e.t.Helper()
	var n int64
	if err := e.pool.QueryRow(e.ctx, sql, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.pool.Exec(e.ctx, sql, args...); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

func (e *env) balance(uid int64, m string) int64 {
	return e.int(`SELECT coalesce((SELECT `+m+` FROM wallets WHERE uid = $1), 0)`, uid)
}

// snapshot fingerprints every table app money writes.
func (e *env) snapshot() string {
	e.t.Helper()
	return testenv.TableFingerprint(e.t, e.ctx, e.pool, "wallets", "ledger", "store_purchases", "store_notifications", "money_flags", "outbox")
}

// checkLedger asserts that every balance equals the sum of its ledger rows.
func (e *env) checkLedger() {
	e.t.Helper()
	if n := e.int(`SELECT count(*) FROM wallets w WHERE
		w.android <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'android'), 0) OR
		w.ios     <> coalesce((SELECT sum(delta) FROM ledger l WHERE l.uid = w.uid AND money = 'ios'), 0)`); n != 0 {
		e.t.Fatalf("%d wallets differ from their ledger sums", n)
	}
}

// badCase is a receipt that must be refused with status.
type badCase struct {
	name    string
	uid     int64
	channel string
	body    any
	status  int
}

// refuseAll posts each case and checks it is refused and changes nothing.
func (e *env) refuseAll(t *testing.T, path string, cases []badCase) {
	t.Helper()
	before := e.snapshot()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.post(path, c.uid, c.channel, c.body).refused(t, c.status)
			if e.snapshot() != before {
				t.Fatal("changed something")
			}
		})
	}
}

// postConcurrently posts the same body n times at once and checks every
// answer is 200 and exactly one credited.
func (e *env) postConcurrently(path string, uid int64, channel string, body any, n int) []answer {
	e.t.Helper()
	var wg sync.WaitGroup
	answers := make([]answer, n)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = e.post(path, uid, channel, body)
		}()
	}
	wg.Wait()
	fresh := 0
	for _, a := range answers {
		if a.status != 200 {
			e.t.Fatalf("status %d: %s", a.status, a.raw)
		}
		if a.body["replayed"] == false {
			fresh++
		}
	}
	if fresh != 1 {
		e.t.Fatalf("%d answers credited, want 1", fresh)
	}
	return answers
}

// purchaseState is a store purchase's row as "status revoked/shortfall voided".
func (e *env) purchaseState(store, txID string) string {
	e.t.Helper()
	var status string
	var revoked, short, voided int64
	if err := e.pool.QueryRow(e.ctx, `SELECT status, revoked_amount, shortfall, voided_quantity FROM store_purchases
		WHERE store = $1 AND transaction_id = $2`, store, txID).Scan(&status, &revoked, &short, &voided); err != nil {
		e.t.Fatal(err)
	}
	return fmt.Sprintf("%s %d/%d %d", status, revoked, short, voided)
}
