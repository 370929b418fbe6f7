package push_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"storefront/devstack/testenv"
	"storefront/writer/internal/writertest"
	"storefront/writer/push"
	"storefront/writer/push/pushtest"
	"storefront/writer/server"
)

const subs = push.SubscriptionsPath

func startWriter(t *testing.T) (*writertest.Env, *pushtest.Service) {
	f := startFake(t)
	e := writertest.StartWriter(t, func(c *server.Config) {
		c.Push.EndpointHosts = "127.0.0.1"
		c.Push.Poll = 100 * time.Millisecond
	})
	return e, f
}

func signup(t *testing.T, e *writertest.Env, email string) *writertest.Client {
	t.Helper()
	b := e.Browser()
	if st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"}); st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	return b
}

func newSub(t *testing.T, f *pushtest.Service) pushtest.Subscription {
	t.Helper()
	s, err := f.NewSubscription(push.DevPublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSubscriptionAPI: the key is public; subscribing needs a session, a
// web channel, an endpoint on an allowed push service and valid keys, and
// answers bad input with a Korean envelope changing nothing; the same
// endpoint posted by another member is refused (409, nothing changed: no
// takeover); turning one alarm off keeps
// the device while another alarm is on.
func TestSubscriptionAPI(t *testing.T) {
	e, f := startWriter(t)
	st, body := e.Browser().Do("GET", push.KeyPath, nil)
	var key struct{ PublicKey string }
	_ = json.Unmarshal(body, &key)
	if st != 200 || key.PublicKey != push.DevPublicKey {
		t.Fatalf("key: %d %s", st, body)
	}
	s := newSub(t, f)
	if st, _ := e.Browser().Do("POST", subs, s); st != 401 {
		t.Fatalf("anonymous subscribe: %d", st)
	}
	a := signup(t, e, "push-a@example.com")
	bad := func(name string, v any, wantMsg string, headers map[string]string) {
		t.Helper()
		a.Headers = headers
		defer func() { a.Headers = nil }()
		st, body := a.Do("POST", subs, v)
		if st != 400 || writertest.Code(t, body) != 400 || !strings.Contains(writertest.Message(t, body), wantMsg) {
			t.Errorf("%s: %d %s", name, st, body)
		}
	}
	with := func(edit func(*pushtest.Subscription)) pushtest.Subscription {
		c := s
		edit(&c)
		return c
	}
	bad("other host", with(func(c *pushtest.Subscription) { c.Endpoint = "https://evil.example.com/push/x" }), "endpoint", nil)
	bad("ftp", with(func(c *pushtest.Subscription) { c.Endpoint = strings.Replace(c.Endpoint, "http:", "ftp:", 1) }), "endpoint", nil)
	bad("userinfo", with(func(c *pushtest.Subscription) { c.Endpoint = strings.Replace(c.Endpoint, "//", "//u:p@", 1) }), "endpoint", nil)
	bad("p256dh not a point", with(func(c *pushtest.Subscription) { c.Keys.P256dh = c.Keys.Auth }), "p256dh", nil)
	bad("auth short", with(func(c *pushtest.Subscription) { c.Keys.Auth = "AAAA" }), "auth", nil)
	bad("no keys", map[string]any{"endpoint": s.Endpoint}, "", nil)
	bad("app channel", s, "앱", map[string]string{"X-Channel": "AA"})
	if n := e.Count(`SELECT count(*) FROM push_subscriptions`); n != 0 {
		t.Fatalf("%d subscriptions after refusals", n)
	}
	a.Headers = map[string]string{"X-Channel": "AW", "User-Agent": "Chrome-ish"}
	// PushSubscription.toJSON() carries expirationTime too.
	full := map[string]any{"endpoint": s.Endpoint, "expirationTime": nil, "keys": map[string]string{"p256dh": s.Keys.P256dh, "auth": s.Keys.Auth}}
	if st, body := a.Do("POST", subs, full); st != 200 {
		t.Fatalf("subscribe: %d %s", st, body)
	}
	a.Headers = nil
	if n := e.Count(`SELECT count(*) FROM push_subscriptions WHERE endpoint = $1 AND channel = 'AW' AND user_agent = 'Chrome-ish'`, s.Endpoint); n != 1 {
		t.Fatal("subscription not stored with channel and user agent")
	}
	// Another member posting a's endpoint (a takeover, or the same browser
	// now logged in as b) is refused and nothing changes (issue 30); b
	// gets a fresh endpoint of the browser and subscribes with it.
	b := signup(t, e, "push-b@example.com")
	before := testenv.TableFingerprint(t, t.Context(), e.Pool, "push_subscriptions")
	for _, body := range []any{s, full, with(func(c *pushtest.Subscription) { c.Keys = newSub(t, f).Keys })} {
		st, resp := b.Do("POST", subs, body)
		if st != 409 || writertest.Code(t, resp) != 409 || !strings.Contains(writertest.Message(t, resp), "다른 회원") {
			t.Fatalf("b posting a's endpoint: %d %s, want 409", st, resp)
		}
	}
	if after := testenv.TableFingerprint(t, t.Context(), e.Pool, "push_subscriptions"); after != before {
		t.Fatal("a refused takeover changed push_subscriptions")
	}
	// b cannot remove a's device either.
	if st, body := b.Do("DELETE", subs, map[string]any{"endpoint": s.Endpoint}); st != 200 || strings.Contains(string(body), `"removed":true`) {
		t.Fatalf("b removed a's device: %d %s", st, body)
	}
	// a may post its own again (keys renewed): stays a's.
	if st, body := a.Do("POST", subs, s); st != 200 {
		t.Fatalf("a subscribing again: %d %s", st, body)
	}
	s = newSub(t, f)
	if st, body := b.Do("POST", subs, s); st != 200 {
		t.Fatalf("subscribe b: %d %s", st, body)
	}
	var uidB int64
	_ = e.Pool.QueryRow(t.Context(), `SELECT uid FROM users WHERE email = 'push-b@example.com'`).Scan(&uidB)
	if n := e.Count(`SELECT count(*) FROM push_subscriptions WHERE uid = $1`, uidB); n != 1 || e.Count(`SELECT count(*) FROM push_subscriptions`) != 2 {
		t.Fatal("b's own endpoint not stored next to a's")
	}
	// a cannot remove b's device.
	if st, body := a.Do("DELETE", subs, map[string]any{"endpoint": s.Endpoint}); st != 200 || strings.Contains(string(body), `"removed":true`) {
		t.Fatalf("a removed b's device: %d %s", st, body)
	}
	// Alarm off on one work while another is on: the device stays.
	addWork(t, e, "P1")
	if st, body := b.Do("POST", "/protocol/appapi/mb/user/info/alarm-set", writertest.Form(url.Values{"pid": {"P1"}, "isAlarm": {"Y"}}.Encode())); st != 200 {
		t.Fatalf("alarm-set: %d %s", st, body)
	}
	if st, body := b.Do("POST", subs+"/delete", map[string]any{"endpoint": s.Endpoint, "ifNoAlarms": true}); st != 200 || !strings.Contains(string(body), `"removed":false`) {
		t.Fatalf("unsubscribe with an alarm on: %d %s", st, body)
	}
	// The alarm off, but automatic top-up on: the device stays for the
	// top-up receipts it is rung with (issue 32); with both off it goes.
	if st, body := b.Do("POST", "/protocol/appapi/mb/user/info/alarm-set", writertest.Form(url.Values{"pid": {"P1"}, "isAlarm": {"N"}}.Encode())); st != 200 {
		t.Fatalf("alarm-set N: %d %s", st, body)
	}
	if _, err := e.Pool.Exec(t.Context(), `INSERT INTO auto_payments (uid, is_use, type, money, trigger_value, updated_at)
		VALUES ($1, true, 'bluemoney-auto-payment', 10000, 1000, now())`, uidB); err != nil {
		t.Fatal(err)
	}
	if st, body := b.Do("POST", subs+"/delete", map[string]any{"endpoint": s.Endpoint, "ifNoAlarms": true}); st != 200 || !strings.Contains(string(body), `"removed":false`) {
		t.Fatalf("unsubscribe with automatic top-up on: %d %s", st, body)
	}
	if _, err := e.Pool.Exec(t.Context(), `UPDATE auto_payments SET is_use = false WHERE uid = $1`, uidB); err != nil {
		t.Fatal(err)
	}
	if st, body := b.Do("POST", "/protocol/appapi/mb/user/info/alarm-set", writertest.Form(url.Values{"pid": {"P1"}, "isAlarm": {"Y"}}.Encode())); st != 200 {
		t.Fatalf("alarm-set Y: %d %s", st, body)
	}
	// Every alarm off but an author followed (issue 34): the device stays,
	// the author's new episodes ring on it.
	if st, body := b.Do("POST", "/protocol/appapi/mb/user/info/alarm-set", writertest.Form(url.Values{"pid": {"P1"}, "isAlarm": {"N"}}.Encode())); st != 200 {
		t.Fatalf("alarm-set off: %d %s", st, body)
	}
	if _, err := e.Pool.Exec(t.Context(), `INSERT INTO authors (id, name) VALUES (8801, '작가') ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	if st, body := b.Do("POST", "/protocol/appapi/mb/user/info/zzim-add", writertest.Form(url.Values{"zzim_type": {"author"}, "pid": {"8801"}}.Encode())); st != 200 {
		t.Fatalf("follow: %d %s", st, body)
	}
	if st, body := b.Do("POST", subs+"/delete", map[string]any{"endpoint": s.Endpoint, "ifNoAlarms": true}); st != 200 || !strings.Contains(string(body), `"removed":false`) {
		t.Fatalf("unsubscribe while following an author: %d %s", st, body)
	}
	if st, body := b.Do("DELETE", subs, map[string]any{"endpoint": s.Endpoint}); st != 200 || !strings.Contains(string(body), `"removed":true`) {
		t.Fatalf("unsubscribe: %d %s", st, body)
	}
	if e.Count(`SELECT count(*) FROM push_subscriptions WHERE uid = $1`, uidB) != 0 {
		t.Fatal("subscription left")
	}
}

// TestMaxDevices: a member's oldest devices go beyond MaxDevices.
func TestMaxDevices(t *testing.T) {
	e, f := startWriter(t)
	a := signup(t, e, "push-many@example.com")
	for range push.MaxDevices + 3 {
		if st, body := a.Do("POST", subs, newSub(t, f)); st != 200 {
			t.Fatalf("subscribe: %d %s", st, body)
		}
	}
	if n := e.Count(`SELECT count(*) FROM push_subscriptions`); n != push.MaxDevices {
		t.Fatalf("%d devices", n)
	}
}

func addWork(t *testing.T, e *writertest.Env, pid string) {
	t.Helper()
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", map[string]any{"pid": pid, "section": "WT", "title": "작품 " + pid,
		"authors": []map[string]any{{"authorId": 77, "authorName": "작가", "isWriter": true}},
		"volumes": []map[string]any{{"no": 1, "pages": 3, "releaseAt": time.Now().Add(-48 * time.Hour).UTC()}}}); st != 201 {
		t.Fatalf("add work: %d %s", st, body)
	}
}

// TestAlarmRingsAtScheduledRelease: the whole path in one writer. A member
// turns a work's alarm on and subscribes; the admin schedules a volume; the
// writer's own worker sends nothing before the release instant and one
// notification, opening the viewer, right after it.
func TestAlarmRingsAtScheduledRelease(t *testing.T) {
	e, f := startWriter(t)
	addWork(t, e, "P9")
	m := signup(t, e, "push-ring@example.com")
	if st, body := m.Do("POST", "/protocol/appapi/mb/user/info/alarm-set", writertest.Form("pid=P9&isAlarm=Y")); st != 200 {
		t.Fatalf("alarm-set: %d %s", st, body)
	}
	s := newSub(t, f)
	if st, body := m.Do("POST", subs, s); st != 200 {
		t.Fatalf("subscribe: %d %s", st, body)
	}
	at := time.Now().Add(2 * time.Second).UTC()
	if st, body := e.Admin.Do("PUT", "/admin/api/v1/works/P9/volumes/2", map[string]any{"no": 2, "pages": 3, "releaseAt": at}); st/100 != 2 {
		t.Fatalf("schedule: %d %s", st, body)
	}
	writertest.Eventually(t, 15*time.Second, "the notification", func() bool { return len(f.Messages(s.Endpoint)) > 0 })
	msgs := f.Messages(s.Endpoint)
	if msgs[0].At.Before(at) {
		t.Fatalf("notified at %s, before the release %s", msgs[0].At, at)
	}
	time.Sleep(500 * time.Millisecond)
	if msgs = f.Messages(s.Endpoint); len(msgs) != 1 {
		t.Fatalf("%d notifications", len(msgs))
	}
	var p push.Payload
	if err := json.Unmarshal(msgs[0].Payload, &p); err != nil || p.URL != "/viewer?pid=P9&no=2" || p.Title != "작품 P9" {
		t.Fatalf("payload %s: %v", msgs[0].Raw, err)
	}
}
