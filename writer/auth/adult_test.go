package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"storefront/writer/identity/portonesandbox"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

func level(t *testing.T, c *writertest.Client) (int, int) {
	t.Helper()
	m := getMe(t, c)
	return m.AdultInfo.AdultLevel, m.AdultInfo.Age
}

// Finding 2 of issue 30: a member verified once cannot verify again as
// someone else (a teen posting an adult's identity), one person's CI cannot
// verify a second account, a verification id works only for the member who
// started it and only once, and the body cannot name anyone.
func TestOnePersonOneAdultIdentity(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	teen := e.Browser()
	signup(t, teen, "teen2012@example.com")
	if st, b := teen.VerifyAdult("이청소", "2012-03-03"); st != 200 {
		t.Fatalf("teen verification: %d %s", st, b)
	}
	if lv, _ := level(t, teen); lv != 1 {
		t.Fatalf("teen level %d", lv)
	}
	// Re-verification as another person (an adult's name and 1991): refused.
	st, b := teen.VerifyAdult("김어른", "1991-05-05")
	if st != 409 || writertest.Code(t, b) != 409 || !strings.Contains(writertest.Message(t, b), "다른 사람") {
		t.Fatalf("re-verification as another person: %d %s", st, b)
	}
	if lv, _ := level(t, teen); lv != 1 {
		t.Fatalf("teen became level %d", lv)
	}
	if e.Count(`SELECT count(*) FROM users WHERE real_name = '김어른'`) != 0 {
		t.Fatal("the other person was stored")
	}
	// The same person again is fine (nothing to change).
	if st, b := teen.VerifyAdult("이청소", "2012-03-03"); st != 200 {
		t.Fatalf("same person again: %d %s", st, b)
	}

	// The adult verifies their own account; a second account of theirs is
	// refused (same CI), and so is the teen using the adult's id.
	adult := e.Browser()
	signup(t, adult, "adult1991@example.com")
	if st, b := adult.VerifyAdult("김어른", "1991-05-05"); st != 200 {
		t.Fatalf("adult verification: %d %s", st, b)
	}
	second := e.Browser()
	signup(t, second, "adult1991-second@example.com")
	st, b = second.VerifyAdult("김어른", "1991-05-05")
	if st != 409 || !strings.Contains(writertest.Message(t, b), "다른 계정") {
		t.Fatalf("same CI on a second account: %d %s", st, b)
	}
	if lv, _ := level(t, second); lv != 0 {
		t.Fatalf("second account level %d", lv)
	}

	// An id started by the adult, presented by another member: refused.
	id, page := adult.StartAdult()
	if err := portonesandbox.Certify(context.Background(), page, portonesandbox.Person{Name: "박새로", BirthDate: "1985-01-01"}); err != nil {
		t.Fatal(err)
	}
	if st, b := second.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": id}); st != 403 {
		t.Fatalf("another member's verification id: %d %s", st, b)
	}
	// A spent id cannot be replayed.
	id, page = second.StartAdult()
	if err := portonesandbox.Certify(context.Background(), page, portonesandbox.Person{Name: "최다른", BirthDate: "1980-02-02"}); err != nil {
		t.Fatal(err)
	}
	if st, b := second.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": id}); st != 200 {
		t.Fatalf("second account as its own person: %d %s", st, b)
	}
	if st, _ := second.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": id}); st != 409 {
		t.Fatalf("replayed verification id: %d", st)
	}
	if st, _ := second.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": "iv-never-started"}); st != 404 {
		t.Fatalf("unknown verification id: %d", st)
	}
	// The body names nobody: the old typed name and birth date are refused.
	st, b = teen.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"name": "김어른", "birthDate": "1991-05-05"})
	if st != 400 || !strings.Contains(writertest.Message(t, b), "identityVerificationId") {
		t.Fatalf("typed identity: %d %s", st, b)
	}
	// Started verifications are bounded per member (each is a row).
	for i := 0; i < 20; i++ {
		st, b := teen.Do("POST", "/home/api/v1/auth/adult/start", nil)
		if st == 429 {
			if n := e.Count(`SELECT count(*) FROM identity_verifications v JOIN users u USING (uid) WHERE u.login_id = 'teen2012@example.com' AND used_at IS NULL`); n != 10 {
				t.Fatalf("429 with %d pending verifications", n)
			}
			break
		}
		if st != 200 || i == 19 {
			t.Fatalf("start %d: %d %s", i, st, b)
		}
	}
	// Raw CIs are never stored.
	if e.Count(`SELECT count(*) FROM users WHERE ci_hash = $1`, portonesandbox.CI(portonesandbox.Person{Name: "김어른", BirthDate: "1991-05-05", PhoneNumber: "01000000000"})) != 0 {
		t.Fatal("a raw CI was stored")
	}
	if e.Count(`SELECT count(*) FROM users WHERE ci_hash IS NOT NULL`) != 3 {
		t.Fatal("CI hashes not kept")
	}
}

// A member verified before CIs were kept (by the old sandbox, from a typed
// name and birth date) may verify only as that name and birth date; then the
// CI is kept like anyone's.
func TestMemberVerifiedBeforeCIs(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	c := e.Browser()
	m := signup(t, c, "legacy@example.com")
	if _, err := e.Pool.Exec(context.Background(), `UPDATE users SET auth_real = true, auth_adult = false, real_name = '이청소',
		birth_date = '2012-03-03', verified_at = now() WHERE uid = $1`, m.AuthInfo.UID); err != nil {
		t.Fatal(err)
	}
	if st, b := c.VerifyAdult("김어른", "1991-05-05"); st != 409 {
		t.Fatalf("legacy member as another person: %d %s", st, b)
	}
	if st, b := c.VerifyAdult("이청소", "2012-03-03"); st != 200 {
		t.Fatalf("legacy member as the same person: %d %s", st, b)
	}
	if e.Count(`SELECT count(*) FROM users WHERE uid = $1 AND ci_hash IS NOT NULL`, m.AuthInfo.UID) != 1 {
		t.Fatal("the CI was not kept")
	}
}

// documented is a provider that answers GET /identity-verifications/{id}
// with the bytes of PortOne V2's documented shapes, set per id by the test:
// the real protocol's answers, against which the writer's client runs the
// same table as against the sandbox.
type documented struct {
	secret  string
	mu      sync.Mutex
	answers map[string]func(id string) (int, string)
}

func (d *documented) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/identity-verifications/")
	if r.Header.Get("Authorization") != "PortOne "+d.secret || r.URL.Query().Get("storeId") != portonesandbox.DefaultStoreID {
		w.WriteHeader(401)
		_, _ = w.Write([]byte(`{"type":"UNAUTHORIZED","message":"인증 정보가 올바르지 않습니다."}`))
		return
	}
	d.mu.Lock()
	f := d.answers[id]
	d.mu.Unlock()
	if f == nil {
		w.WriteHeader(404)
		_, _ = w.Write([]byte(`{"type":"IDENTITY_VERIFICATION_NOT_FOUND","message":"요청된 본인인증 건이 존재하지 않습니다."}`))
		return
	}
	st, body := f(id)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(st)
	_, _ = w.Write([]byte(body))
}

// docCI is a CI of the documented shape (88 base64 characters), one per person.
func docCI(name, birth string) string {
	return portonesandbox.CI(portonesandbox.Person{Name: name, BirthDate: birth, PhoneNumber: "01012345678"})
}

func docVerified(name, birth string) func(string) (int, string) {
	return func(id string) (int, string) {
		return 200, `{"status":"VERIFIED","id":"` + id + `","channel":{"type":"LIVE","id":"channel-id-1","key":"channel-key-1","name":"다날 본인인증","pgProvider":"DANAL","pgMerchantId":"A010002002"},` +
			`"verifiedCustomer":{"name":"` + name + `","operator":"SKT","phoneNumber":"01012345678","birthDate":"` + birth + `","gender":"MALE","isForeigner":false,"ci":"` + docCI(name, birth) + `","di":"MC0GCCqGSIb3DQIJAyEAhRKu3J1PbwJsU3lgOPsHY1QJrmh4eu3Dvx2tyeaQ3Qs="},` +
			`"requestedAt":"2026-11-22T02:59:00Z","updatedAt":"2026-11-22T02:59:40Z","statusChangedAt":"2026-11-22T02:59:40Z","verifiedAt":"2026-11-22T02:59:40Z","pgTxId":"202611221159401234","pgRawResponse":"{}","version":"V2"}`
	}
}

func docStatus(status, extra string) func(string) (int, string) {
	return func(id string) (int, string) {
		return 200, `{"status":"` + status + `","id":"` + id + `","channel":{"type":"LIVE","pgProvider":"DANAL","pgMerchantId":"A010002002"},"requestedCustomer":{},` +
			`"requestedAt":"2026-11-22T02:59:00Z","updatedAt":"2026-11-22T02:59:40Z","statusChangedAt":"2026-11-22T02:59:40Z"` + extra + `,"version":"V2"}`
	}
}

func tampered(f func(string) (int, string), from, to string) func(string) (int, string) {
	return func(id string) (int, string) {
		st, b := f(id)
		return st, strings.Replace(b, from, to, 1)
	}
}

// The identity sandbox and the real protocol's documented answers go
// through the same table, the writer's production client reading both over
// HTTP: verified, failed, under 19, pending, tampered answers, provider down
// (a clean 503). Every refusal changes nothing.
func TestIdentityProviderTable(t *testing.T) {
	t.Parallel()
	type row struct {
		name string
		// sandbox plays the case on the sandbox (the certification page,
		// then test hooks); doc is the documented answer.
		sandbox func(sb *portonesandbox.Sandbox, id, page string)
		doc     func(string) (int, string)
		status  int
		level   int
	}
	certify := func(name, birth string) func(*portonesandbox.Sandbox, string, string) {
		return func(_ *portonesandbox.Sandbox, _, page string) {
			if err := portonesandbox.Certify(context.Background(), page, portonesandbox.Person{Name: name, BirthDate: birth, Gender: "MALE"}); err != nil {
				t.Error(err)
			}
		}
	}
	tamper := func(name string, f func(map[string]any)) func(*portonesandbox.Sandbox, string, string) {
		return func(sb *portonesandbox.Sandbox, id, page string) {
			certify(name, "1990-01-02")(sb, id, page)
			sb.Tamper(id, f)
		}
	}
	customer := func(m map[string]any) map[string]any { return m["verifiedCustomer"].(map[string]any) }
	rows := []row{
		{"verified adult", certify("홍길동", "1990-01-02"), docVerified("홍길동", "1990-01-02"), 200, 2},
		// fixedNow is 2026-11-22 12:00 KST: born a day later is 18.
		{"under 19", certify("김철수", "2007-11-23"), docVerified("김철수", "2007-11-23"), 200, 1},
		{"failed", certify("홍길동불일치", "1990-01-02"),
			docStatus("FAILED", `,"failure":{"reason":"본인인증 정보가 일치하지 않습니다.","pgCode":"9997","pgMessage":"실명 불일치"}`), 400, 0},
		{"pending (window opened)", func(_ *portonesandbox.Sandbox, _, page string) {
			if r, err := http.Get(page); err == nil {
				r.Body.Close()
			}
		}, docStatus("READY", ""), 409, 0},
		{"pending (never opened)", func(*portonesandbox.Sandbox, string, string) {}, nil, 409, 0},
		{"tampered id", tamper("홍길동", func(m map[string]any) { m["id"] = "iv-someone-else" }),
			tampered(docVerified("홍길동", "1990-01-02"), `"id":"iv-`, `"id":"iv-someone-else`), 502, 0},
		{"tampered birth date", tamper("홍길동", func(m map[string]any) { customer(m)["birthDate"] = "1990-13-45" }),
			docVerified("홍길동", "1990-13-45"), 502, 0},
		{"future birth date", tamper("홍길동", func(m map[string]any) { customer(m)["birthDate"] = "2990-01-01" }),
			docVerified("홍길동", "2990-01-01"), 502, 0},
		{"no CI", tamper("홍길동", func(m map[string]any) { delete(customer(m), "ci") }),
			tampered(docVerified("홍길동", "1990-01-02"), `"ci":"`+docCI("홍길동", "1990-01-02")+`"`, `"ci":""`), 502, 0},
		{"unknown status", tamper("홍길동", func(m map[string]any) { m["status"] = "APPROVED" }),
			tampered(docVerified("홍길동", "1990-01-02"), `"VERIFIED"`, `"APPROVED"`), 502, 0},
		{"not JSON", tamper("홍길동", func(m map[string]any) { m["status"] = map[string]any{"x": 1} }),
			func(string) (int, string) { return 200, `<html>maintenance</html>` }, 503, 0},
		{"provider down", func(sb *portonesandbox.Sandbox, id, page string) {
			certify("홍길동", "1990-01-02")(sb, id, page)
			sb.SetDown(503)
		}, func(string) (int, string) { return 503, `{"type":"UNKNOWN"}` }, 503, 0},
	}
	for _, backend := range []string{"sandbox", "documented"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			sb := portonesandbox.New(portonesandbox.Config{})
			sbSrv := httptest.NewServer(sb.Handler())
			t.Cleanup(sbSrv.Close)
			doc := &documented{secret: portonesandbox.DefaultSecret, answers: map[string]func(string) (int, string){}}
			docSrv := httptest.NewServer(doc)
			t.Cleanup(docSrv.Close)
			e := start(t, func(c *server.Config) {
				c.Identity.URL, c.Identity.PageURL, c.Identity.Sandbox = sbSrv.URL, sbSrv.URL, false
				if backend == "documented" {
					c.Identity.URL = docSrv.URL
				}
			})
			for i, r := range rows {
				sb.SetDown(0)
				c := e.Browser()
				signup(t, c, "table"+string(rune('a'+i))+"-"+backend+"@example.com")
				id, page := c.StartAdult()
				if backend == "sandbox" {
					r.sandbox(sb, id, page)
				} else if r.doc != nil {
					doc.mu.Lock()
					doc.answers[id] = r.doc
					doc.mu.Unlock()
				}
				before := e.Count(`SELECT count(*) FROM users WHERE auth_real`)
				st, b := c.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": id})
				if st != r.status || writertest.Code(t, b) != r.status {
					t.Errorf("%s: %d %s, want %d", r.name, st, b, r.status)
					continue
				}
				if lv, _ := level(t, c); lv != r.level {
					t.Errorf("%s: level %d, want %d", r.name, lv, r.level)
				}
				if r.status != 200 {
					if after := e.Count(`SELECT count(*) FROM users WHERE auth_real`); after != before {
						t.Errorf("%s: a refusal stored a verification", r.name)
					}
					if e.Count(`SELECT count(*) FROM identity_verifications WHERE id = $1 AND used_at IS NULL`, id) != 1 {
						t.Errorf("%s: a refusal spent the verification id", r.name)
					}
				}
			}
		})
	}
}

// A verification on a TEST channel proves nobody's age: a live writer
// refuses it (the sandbox's channel is TEST, so even a sandbox reached by
// URL cannot verify anyone there) and takes the same answer on a LIVE one.
func TestTestChannelRefusedWhenLive(t *testing.T) {
	t.Parallel()
	doc := &documented{secret: "live-portone-secret", answers: map[string]func(string) (int, string){}}
	docSrv := httptest.NewServer(doc)
	t.Cleanup(docSrv.Close)
	e := start(t, func(c *server.Config) {
		c.CookieMode, c.AdminToken = "live", "tok"
		c.AudienceSecret, c.ContentSecret, c.IPSalt, c.AnalystSecret = "aud", "c-secret", "salt", "an-secret"
		c.PaymentSecretKey, c.PaymentClientKey, c.PaymentSandbox = "live_sk_x", "live_ck_x", false
		c.BillingKeySecret = "live-billing-secret"
		c.Push.PublicKey, c.Push.PrivateKey = liveVAPIDPublic, liveVAPIDPrivate
		c.Identity = server.IdentityConfig{URL: docSrv.URL, Secret: "live-portone-secret", StoreID: portonesandbox.DefaultStoreID,
			ChannelKey: "live-channel", CISecret: "live-ci-secret"}
	})
	c := e.Browser()
	signup(t, c, "live@example.com")
	startLive := func() string {
		st, b := c.Do("POST", "/home/api/v1/auth/adult/start", nil)
		var a struct {
			ID      string  `json:"identityVerificationId"`
			Store   string  `json:"storeId"`
			Channel string  `json:"channelKey"`
			Page    *string `json:"pageUrl"`
		}
		if st != 200 || json.Unmarshal(b, &a) != nil || a.Page != nil || a.Store != portonesandbox.DefaultStoreID || a.Channel != "live-channel" {
			t.Fatalf("live start (no sandbox page): %d %s", st, b)
		}
		return a.ID
	}
	id := startLive()
	doc.mu.Lock()
	doc.answers[id] = tampered(docVerified("홍길동", "1990-01-02"), `"type":"LIVE"`, `"type":"TEST"`)
	doc.mu.Unlock()
	if st, b := c.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": id}); st != 502 {
		t.Fatalf("TEST channel in live mode: %d %s", st, b)
	}
	id = startLive()
	doc.mu.Lock()
	doc.answers[id] = docVerified("홍길동", "1990-01-02")
	doc.mu.Unlock()
	if st, b := c.Do("POST", "/home/api/v1/auth/adult/verify", map[string]any{"identityVerificationId": id}); st != 200 {
		t.Fatalf("LIVE channel in live mode: %d %s", st, b)
	}
}

// A VAPID pair that is not the dev one (webpush.GenerateVAPIDKeys).
const (
	liveVAPIDPublic  = "BCfaY_GEcv7YjUX-JpTl0YJEobILWKnjmdepB7RgpMiaeN_E9MG_KOAkrlBqP3zQqTHk09MDqEFgRr4c87SEDQ4"
	liveVAPIDPrivate = "CioIBIPe9-3Ye0-_aw_Ic188IS3-gleFCD1xEpX_JGQ"
)
