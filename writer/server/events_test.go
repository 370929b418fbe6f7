package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/writer/internal/writertest"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/server"
)

// bizEvents reads every business event in EVENTS (oldest first), by
// sequence: no consumer, so polling it costs the stream nothing.
func bizEvents(t *testing.T, js jetstream.JetStream) []contract.TrackedEvent {
	t.Helper()
	ctx := context.Background()
	s, err := js.Stream(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []contract.TrackedEvent
	for seq := info.State.FirstSeq; seq > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(m.Subject, "events.biz.") {
			continue
		}
		var ev contract.TrackedEvent
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			t.Fatalf("event: %v", err)
		}
		if m.Header.Get(jetstream.MsgIDHeader) != ev.ID {
			t.Fatalf("event %s published with message id %q", ev.ID, m.Header.Get(jetstream.MsgIDHeader))
		}
		out = append(out, ev)
	}
	return out
}

// waitBiz waits until EVENTS holds business events of uid that want accepts
// (checked on the whole list each time) and returns uid's events.
func waitBiz(t *testing.T, js jetstream.JetStream, uid string, what string, want func([]contract.TrackedEvent) bool) []contract.TrackedEvent {
	t.Helper()
	var mine []contract.TrackedEvent
	writertest.Eventually(t, 5*time.Second, what, func() bool {
		mine = mine[:0]
		for _, ev := range bizEvents(t, js) {
			if ev.UID == uid {
				mine = append(mine, ev)
			}
		}
		return want(mine)
	})
	return mine
}

func types(evs []contract.TrackedEvent) map[string]int {
	n := map[string]int{}
	for _, ev := range evs {
		n[ev.Type]++
	}
	return n
}

func uidOf(t *testing.T, body []byte) string {
	t.Helper()
	var m struct {
		AuthInfo struct{ UID string } `json:"authInfo"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.AuthInfo.UID == "" {
		t.Fatalf("no uid in %s", body)
	}
	return m.AuthInfo.UID
}

// Business events of a request carry what the edge gives that browser's page
// views: the sf_sid session, channel, app version, user-agent class and the
// IP hash of the address the edge saw (the last X-Forwarded-For entry) with
// the shared TRACK_IP_SALT. So a purchase joins its visit in analytics.
func TestBusinessEventsCarryTheRequestEnrichment(t *testing.T) {
	t.Parallel()
	const salt = "events-test-salt"
	e := writertest.StartWriter(t, func(c *server.Config) { c.IPSalt = salt })
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", newWork("EN1")); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	const sid = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	b := e.Browser()
	base, _ := url.Parse(e.Base)
	b.HTTP.Jar.SetCookies(base, []*http.Cookie{{Name: contract.SessionCookie, Value: sid, Path: "/"}})
	ua := "Mozilla/5.0 (Linux; Android 14; SM-S918N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
	// The first entry is whatever the client wrote; the edge appended the second.
	b.Headers = map[string]string{contract.HeaderChannel: "AW", contract.HeaderAppVersion: "6.1.0",
		"User-Agent": ua, "X-Forwarded-For": "10.9.9.9, 203.0.113.7"}
	st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "visit@example.com", "password": "correct horse"})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	uid := uidOf(t, body)
	if st, body := b.Do("POST", "/home/api/v1/wallet/join-bonus", nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, body)
	}
	b.Headers["Idempotency-Key"] = "visit-buy"
	if st, body := b.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "EN1", "vols": []int{2}, "buyType": "B"}); st != 200 {
		t.Fatalf("purchase: %d %s", st, body)
	}
	delete(b.Headers, "Idempotency-Key")
	if st, body := b.Do("POST", "/protocol/appapi/mb/user/info/zzim-add",
		writertest.Form(url.Values{"uid": {uid}, "zzim_type": {"prod"}, "pid": {"EN1"}}.Encode())); st != 200 {
		t.Fatalf("zzim-add: %d %s", st, body)
	}
	evs := waitBiz(t, e.JS, uid, "signup, login, profile, charge, purchase and zzim events", func(evs []contract.TrackedEvent) bool {
		n := types(evs)
		return n[contract.EvSignup] == 1 && n[contract.EvLogin] == 1 && n[contract.EvMemberProfile] == 1 &&
			n[contract.EvCharge] == 1 && n[contract.EvPurchase] == 1 && n[contract.EvZzim] == 1
	})
	want := contract.Enrichment{Channel: "AW", AppVersion: "6.1.0", UAClass: "android-web",
		IPHash: contract.IPHash([]byte(salt), "203.0.113.7"), SessionID: sid}
	for _, ev := range evs {
		got := contract.Enrichment{Channel: ev.Channel, AppVersion: ev.AppVersion, UAClass: ev.UAClass, IPHash: ev.IPHash, SessionID: ev.SessionID}
		if got != want {
			t.Errorf("%s event enriched as %+v, want %+v", ev.Type, got, want)
		}
	}
	for _, ev := range evs {
		if ev.Type == contract.EvPurchase && (ev.PID != "EN1" || ev.Amount != 100) {
			t.Errorf("purchase event %+v", ev)
		}
	}

	// A request without the cookie (or with one the edge would not have
	// made) gives no session; without X-Forwarded-For the peer address is
	// hashed; without headers the user agent decides the class.
	b2 := e.Browser()
	b2.HTTP.Jar.SetCookies(base, []*http.Cookie{{Name: contract.SessionCookie, Value: "short", Path: "/"}})
	st, body = b2.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "nosid@example.com", "password": "correct horse"})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	evs = waitBiz(t, e.JS, uidOf(t, body), "the second member's signup events", func(evs []contract.TrackedEvent) bool {
		n := types(evs)
		return n[contract.EvSignup] == 1 && n[contract.EvLogin] == 1 && n[contract.EvMemberProfile] == 1
	})
	for _, ev := range evs {
		if ev.SessionID != "" || ev.Channel != "" || ev.AppVersion != "" || ev.UAClass != "desktop" ||
			ev.IPHash != contract.IPHash([]byte(salt), "127.0.0.1") {
			t.Errorf("%s event without session cookie or edge headers: %+v", ev.Type, ev)
		}
	}
}

// The member tracking profile (the 27 fields of GET /iam/v2/user-info) goes
// to EVENTS as a member_profile event, through the outbox in the transaction
// of the change: at sign-up (its login), at every login, after a charge, after
// adult verification.
func TestMemberProfileEvents(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) { c.PaymentSandbox = true })
	b := e.Browser()
	b.Headers = map[string]string{contract.HeaderChannel: "AW"}
	st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "profile@example.com", "password": "correct horse", "marketingAgree": true})
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	uid := uidOf(t, body)
	profiles := func(n int) []map[string]string {
		t.Helper()
		var out []map[string]string
		waitBiz(t, e.JS, uid, "member_profile events", func(evs []contract.TrackedEvent) bool {
			out = out[:0]
			for _, ev := range evs {
				if ev.Type == contract.EvMemberProfile {
					if ev.MemberType != ev.Props["memberType"] || ev.Channel != ev.Props["channel"] {
						t.Fatalf("profile event %+v disagrees with its props", ev)
					}
					out = append(out, ev.Props)
				}
			}
			return len(out) >= n
		})
		if len(out) != n {
			t.Fatalf("%d member_profile events, want %d", len(out), n)
		}
		return out
	}
	// What the page reads is what analytics gets, field for field.
	p := profiles(1)[0]
	st, body = b.Do("GET", "/iam/v2/user-info", nil)
	var ans struct {
		UserInfo map[string]any `json:"userInfo"`
	}
	if err := json.Unmarshal(body, &ans); err != nil || st != 200 || len(ans.UserInfo) != 27 {
		t.Fatalf("user-info: %d %s", st, body)
	}
	if len(p) != 27 {
		t.Fatalf("profile props have %d fields, want 27: %v", len(p), p)
	}
	for k, v := range ans.UserInfo {
		if want := jsonString(v); p[k] != want {
			t.Errorf("props[%s] = %q, user-info says %q", k, p[k], want)
		}
	}
	if p["uid"] != uid || p["loginCount"] != "1" || p["channel"] != "AW" || p["marketingAgree"] != "true" ||
		p["memberType"] != "member" || p["loginPlatform"] != "email" || p["chargeCount"] != "0" || p["joinDate"] == "" {
		t.Fatalf("profile at sign-up: %v", p)
	}

	// A charge through the Toss sandbox: balances and charge dates change.
	b.Headers["Idempotency-Key"] = "profile-charge"
	st, body = b.Do("POST", "/home/api/v1/charge/requests", map[string]any{"amount": 5000, "successUrl": "/ok", "failUrl": "/fail"})
	if st != 200 {
		t.Fatalf("charge request: %d %s", st, body)
	}
	var ch struct{ OrderID, PaymentKey, CheckoutURL string }
	_ = json.Unmarshal(body, &ch)
	red, err := tosssandbox.Pay(context.Background(), ch.CheckoutURL, true)
	if err != nil {
		t.Fatal(err)
	}
	b.Headers["Idempotency-Key"] = "profile-confirm"
	if st, body := b.Do("POST", "/home/api/v1/charge/confirm", map[string]any{"orderId": ch.OrderID, "paymentKey": red.PaymentKey, "amount": 5000}); st != 200 {
		t.Fatalf("confirm: %d %s", st, body)
	}
	delete(b.Headers, "Idempotency-Key")
	today := time.Now().In(contract.KST).Format("2006-01-02")
	p = profiles(2)[1]
	if p["chargeCount"] != "1" || p["blueMoney"] != "5000" || p["blueMileage"] != "500" || p["firstChargeDate"] != today || p["lastChargeDate"] != today {
		t.Fatalf("profile after the charge: %v", p)
	}

	// Adult verification: age, gender and the adult fields.
	if st, body := b.VerifyAdult("홍길동", "1990-05-17"); st != 200 {
		t.Fatalf("verify: %d %s", st, body)
	}
	p = profiles(3)[2]
	if p["adultVerified"] != "true" || p["gender"] != "F" || p["age"] == "0" || p["adultLevel"] == "0" {
		t.Fatalf("profile after adult verification: %v", p)
	}

	// Another login (another device, iOS app): counted, on its channel.
	b2 := e.Browser()
	b2.Headers = map[string]string{contract.HeaderChannel: "IA"}
	if st, body := b2.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "profile@example.com", "password": "correct horse"}); st != 200 {
		t.Fatalf("login: %d %s", st, body)
	}
	p = profiles(4)[3]
	if p["loginCount"] != "2" || p["channel"] != "IA" || p["chargeCount"] != "1" || p["gender"] != "F" {
		t.Fatalf("profile after the second login: %v", p)
	}

	// A refused login changes nothing and sends no profile.
	if st, _ := b2.Do("POST", "/home/api/v1/auth/login", map[string]any{"email": "profile@example.com", "password": "wrong password"}); st != 401 {
		t.Fatalf("wrong password: %d", st)
	}
	time.Sleep(300 * time.Millisecond)
	profiles(4)
}

// jsonString renders a decoded JSON value as props hold it.
func jsonString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		b, _ := json.Marshal(x)
		return strings.TrimSpace(string(b))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// A full EVENTS stream (analytics far behind) refuses the relay's events:
// the outbox rows stay pending (none is marked refused for good) and go out
// once analytics has processed the backlog.
func TestFullEventsStreamKeepsOutboxRows(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	ctx := context.Background()
	s, err := e.JS.Stream(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	// An operator's edit (Ensure never shrinks a stream): room for a few events.
	cfg := s.CachedInfo().Config
	cfg.MaxBytes = 4 << 10
	if _, err := e.JS.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	uids := map[string]bool{}
	for i := 0; ; i++ {
		if i == 20 {
			t.Fatal("20 sign-ups and the stream is not full")
		}
		b := e.Browser()
		st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": fmt.Sprintf("full%d@example.com", i), "password": "correct horse"})
		if st != 201 {
			t.Fatalf("signup: %d %s", st, body)
		}
		uids[uidOf(t, body)] = true
		time.Sleep(100 * time.Millisecond)
		if e.Count(`SELECT count(*) FROM outbox WHERE sent_at IS NULL`) > 0 {
			break
		}
	}
	// Refused, not lost: the rows wait (the relay retries with backoff).
	time.Sleep(time.Second)
	if n := e.Count(`SELECT count(*) FROM outbox WHERE sent_at IS NULL`); n == 0 {
		t.Fatal("the relay gave up on events a full stream refused")
	}
	if n := e.Count(`SELECT count(*) FROM outbox WHERE error IS NOT NULL`); n != 0 {
		t.Fatalf("%d rows marked as refused for good", n)
	}
	// Analytics catches up; every member's sign-up, login and profile arrive.
	cons, err := e.JS.Consumer(ctx, contract.EventsStream, contract.AnalyticsConsumer)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]bool{}
	writertest.Eventually(t, 10*time.Second, "every event of every member", func() bool {
		batch, err := cons.Fetch(100, jetstream.FetchMaxWait(100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			var ev contract.TrackedEvent
			_ = json.Unmarshal(m.Data(), &ev)
			if got[ev.UID] == nil {
				got[ev.UID] = map[string]bool{}
			}
			got[ev.UID][ev.Type] = true
			_ = m.Ack()
		}
		for uid := range uids {
			if !got[uid][contract.EvSignup] || !got[uid][contract.EvLogin] || !got[uid][contract.EvMemberProfile] {
				return false
			}
		}
		return e.Count(`SELECT count(*) FROM outbox WHERE sent_at IS NULL`) == 0
	})
}
