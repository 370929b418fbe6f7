package settlement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/writer/appmoney"
	"storefront/writer/appmoney/storetest"
	"storefront/writer/internal/writertest"
	"storefront/writer/money"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/server"
	"storefront/writer/settlement"
	"storefront/writer/staff"
)

const (
	pkg    = "com.storefront.app"
	bundle = "com.storefront.ios"
)

// clock is the writer's clock: the test places each sale in its month by
// moving it (sign-ins need a fresh TOTP step of it too).
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

type stack struct {
	t      *testing.T
	e      *writertest.Env
	clock  *clock
	google *storetest.GooglePlay
	apple  *storetest.AppStore
	pg     *tosssandbox.Server
	n      int
	// opSecret signs the operator in again after the clock moved past its
	// session's idle timeout.
	opSecret string
}

// start runs the real writer: PostgreSQL, the Toss sandbox, Google Play's
// fake behind the real appmoney client. The month under test is in the
// future of the machine's clock, so that volumes created now (released at
// the database's now()) are on sale by the writer's clock.
func start(t *testing.T) (*stack, time.Time) {
	now := time.Now().In(settlement.KST)
	month := time.Date(now.Year(), now.Month()+2, 1, 0, 0, 0, 0, settlement.KST)
	c := &clock{t: month.Add(-48 * time.Hour)}
	g := storetest.StartGooglePlay(pkg)
	t.Cleanup(g.Close)
	sa := g.ServiceAccount()
	a := storetest.StartAppStore(bundle)
	t.Cleanup(a.Close)
	// The gateway's sandbox is the test's, so that it can also act as the
	// gateway's console (a refund the writer hears of by webhook).
	pg, err := tosssandbox.Start("127.0.0.1:0", tosssandbox.Config{SecretKey: tosssandbox.DefaultSecretKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close() })
	e := writertest.StartWriter(t, func(cfg *server.Config) {
		cfg.Now = c.Now
		cfg.PaymentURL, cfg.PaymentCheckoutURL = pg.URL, pg.URL
		cfg.AppMoney = appmoney.Config{GoogleAPIURL: g.URL, GooglePackage: pkg, GoogleAccount: &sa,
			GooglePushAudience: "https://storefront.test" + appmoney.GoogleNotificationPath, GooglePushServiceAccount: g.PushEmail,
			GooglePushCertsURL: g.CertsURL(),
			AppleAPIURL:        a.URL, AppleIssuerID: a.IssuerID, AppleKeyID: a.KeyID, AppleKeyPEM: a.KeyPEM(),
			AppleBundleID: bundle, AppleEnvironment: "Sandbox", AppleRootPEM: a.Chain.RootPEM(),
			// The stores' tokens are signed by the machine's clock.
			Now: time.Now}
	})
	pg.SetWebhookURL(e.Base + "/home/api/v1/charge/webhook")
	return &stack{t: t, e: e, clock: c, google: g, apple: a, pg: pg}, month
}

func (s *stack) key() string { s.n++; return fmt.Sprintf("k-%d", s.n) }

// do sends a request and wants status; it returns the answer's body.
func (s *stack) do(c *writertest.Client, want int, method, path string, body any, hdr ...string) []byte {
	s.t.Helper()
	c.Headers = map[string]string{}
	for i := 0; i+1 < len(hdr); i += 2 {
		c.Headers[hdr[i]] = hdr[i+1]
	}
	st, b := c.Do(method, path, body)
	c.Headers = nil
	if st != want {
		s.t.Fatalf("%s %s: %d %s, want %d", method, path, st, b, want)
	}
	return b
}

const pw = "provider password for tests"

// staffSignIn signs login in with a TOTP code of the writer's clock (a fresh
// step each time).
func (s *stack) staffSignIn(login, secret string) *writertest.Client {
	s.t.Helper()
	s.clock.Set(s.clock.Now().Add(31 * time.Second))
	code, err := staff.TOTPCode(secret, s.clock.Now())
	if err != nil {
		s.t.Fatal(err)
	}
	b := s.e.Browser()
	s.do(b, 200, "POST", "/admin/api/v1/session", map[string]string{"login": login, "password": pw, "code": code})
	return b
}

func (s *stack) operator() *writertest.Client {
	s.t.Helper()
	if s.opSecret != "" {
		return s.staffSignIn("root.op", s.opSecret)
	}
	c, err := staff.CreateOperator(context.Background(), s.e.Pool, "root.op", "운영자", pw, "tester")
	if err != nil {
		s.t.Fatal(err)
	}
	s.opSecret = c.TOTPSecret
	return s.staffSignIn("root.op", c.TOTPSecret)
}

// member creates a staff account and signs it in.
func (s *stack) member(op *writertest.Client, login, role, provider string) (*writertest.Client, int64) {
	s.t.Helper()
	body := map[string]string{"login": login, "name": login, "role": role, "password": pw}
	if provider != "" {
		body["providerId"] = provider
	}
	var c staff.Created
	if err := json.Unmarshal(s.do(op, 201, "POST", "/admin/api/v1/staff", body), &c); err != nil {
		s.t.Fatal(err)
	}
	return s.staffSignIn(login, c.TOTPSecret), c.Account.ID
}

func (s *stack) reader(email string) *writertest.Client {
	s.t.Helper()
	b := s.e.Browser()
	s.do(b, 201, "POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"})
	return b
}

// work creates a work of six paid volumes at odd prices (so that fees and
// shares leave remainders).
func (s *stack) work(pid string, buy, rent int) {
	s.t.Helper()
	var vols []map[string]any
	for no := 1; no <= 6; no++ {
		vols = append(vols, map[string]any{"no": no, "title": fmt.Sprintf("%d화", no), "buyPrice": buy, "rentPrice": rent, "pages": 10, "previewPages": 2})
	}
	s.do(s.e.Admin, 201, "POST", "/admin/api/v1/works", map[string]any{"pid": pid, "section": "WT", "title": "작품 " + pid, "genreId": "05",
		"authors": []map[string]any{{"authorName": "작가", "isWriter": true}}, "volumes": vols})
}

// buy buys (B) or rents (R) one volume at time at, with X-Channel channel.
func (s *stack) buy(r *writertest.Client, at time.Time, channel, pid string, vol int, kind string) {
	s.t.Helper()
	s.clock.Set(at)
	s.do(r, 200, "POST", "/home/api/v1/purchases", map[string]any{"pid": pid, "vols": []int{vol}, "buyType": kind},
		"Idempotency-Key", s.key(), "X-Channel", channel)
}

// charge charges amount of blue money through the sandbox's widget; it
// returns the order and the gateway's payment key.
func (s *stack) charge(r *writertest.Client, amount int) (string, string) {
	s.t.Helper()
	var ch struct{ OrderID, CheckoutURL string }
	_ = json.Unmarshal(s.do(r, 200, "POST", "/home/api/v1/charge/requests", map[string]any{"amount": amount, "successUrl": "/ok", "failUrl": "/fail"},
		"Idempotency-Key", s.key()), &ch)
	red, err := tosssandbox.Pay(context.Background(), ch.CheckoutURL, true)
	if err != nil {
		s.t.Fatal(err)
	}
	s.do(r, 200, "POST", "/home/api/v1/charge/confirm", map[string]any{"orderId": ch.OrderID, "paymentKey": red.PaymentKey, "amount": amount},
		"Idempotency-Key", s.key())
	return ch.OrderID, red.PaymentKey
}

// consoleRefund refunds amount of a charge at the gateway's console: the
// writer hears of it by the gateway's webhook only.
func (s *stack) consoleRefund(order, paymentKey string, amount int64) {
	s.t.Helper()
	gw := &money.HTTPGateway{BaseURL: s.pg.URL, SecretKey: tosssandbox.DefaultSecretKey, Client: http.DefaultClient}
	if _, err := gw.Cancel(context.Background(), "console-"+order, paymentKey, money.CancelRequest{CancelReason: "상담원 환불", CancelAmount: amount}); err != nil {
		s.t.Fatal(err)
	}
	s.pg.Wait()
	writertest.Eventually(s.t, 10*time.Second, "the console refund applied", func() bool {
		return s.int(`SELECT count(*) FROM charges WHERE order_id = $1 AND canceled_amount >= $2`, order, amount) == 1
	})
}

// push delivers a Google Play notification through the real route.
func (s *stack) push(body []byte) {
	s.t.Helper()
	tok := s.google.PushToken(s.google.PushClaims("https://storefront.test" + appmoney.GoogleNotificationPath))
	s.do(s.e.Browser(), 200, "POST", appmoney.GoogleNotificationPath, body, "Authorization", "Bearer "+tok)
}

func (s *stack) int(sql string, args ...any) int64 {
	s.t.Helper()
	var n int64
	if err := s.e.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

type statement struct {
	Statement settlement.Statement `json:"statement"`
}

func (s *stack) statement(c *writertest.Client, id, month string) settlement.Statement {
	s.t.Helper()
	var st statement
	if err := json.Unmarshal(s.do(c, 200, "GET", "/admin/api/v1/providers/"+id+"/settlement?month="+month, nil), &st); err != nil {
		s.t.Fatal(err)
	}
	return st.Statement
}

// TestSettlementReconcilesWithTheLedger makes a month of sales through the
// real money routes (card-charged blue money with its first-charge mileage,
// Google Play money of five units, purchases and rentals of two providers'
// works, a partial refund of an unspent charge, two partial refunds of spent
// app money, sales a second either side of the month) and checks each
// provider's statement against sums SQL takes of the ledger itself, to the
// won.
func TestSettlementReconcilesWithTheLedger(t *testing.T) {
	t.Parallel()
	s, m := start(t)
	month := m.Format("2006-01")
	prev := m.AddDate(0, -1, 0).Format("2006-01")
	op := s.operator()
	for _, w := range []struct {
		pid       string
		buy, rent int
	}{{"SA1", 333, 77}, {"SA2", 500, 199}, {"SB1", 250, 90}} {
		s.work(w.pid, w.buy, w.rent)
	}
	// Contracts: studio-a at 50 % until the month before, 65 % from the
	// month on (the statement takes the rate in force); studio-b at 70 %.
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a", map[string]any{"name": "스튜디오 A", "rateBp": 5000, "from": prev})
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a", map[string]any{"name": "스튜디오 A", "rateBp": 6500, "from": month})
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-b", map[string]any{"name": "스튜디오 B", "rateBp": 7000, "from": prev})
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a/works/SA1", nil)
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a/works/SA2", nil)
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a/works/SB1", nil)
	// A work moved to its real owner: the trail says from whom to whom.
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-b/works/SB1", nil)
	if n := s.int(`SELECT count(*) FROM staff_audit WHERE action = 'provider.work.assign' AND target = 'work:SB1'
		AND before->>'providerId' = 'studio-a' AND after->>'providerId' = 'studio-b' AND actor_login = 'root.op'`); n != 1 {
		t.Fatalf("audit rows of the move: %d", n)
	}
	if n := s.int(`SELECT count(*) FROM staff_audit WHERE action = 'provider.contract' AND target = 'provider:studio-a'
		AND before IS NOT NULL AND after->'rates'->1->>'rateBp' = '6500'`); n != 1 {
		t.Fatalf("audit row of the rate change: %d", n)
	}

	// Reader 1: 20,000 blue money (+2,000 mileage, spent first).
	r1 := s.reader("blue@example.com")
	s.clock.Set(m.Add(-time.Hour))
	order, payKey := s.charge(r1, 20000)
	s.buy(r1, m.Add(-time.Second), "", "SA1", 1, "B") // last second of the month before: 333 mileage (1,667 left)
	s.buy(r1, m, "", "SA1", 2, "B")                   // first second of the month: 333 mileage (1,334 left)
	s.buy(r1, m.Add(time.Hour), "", "SA1", 3, "B")    // 333 mileage (1,001 left)
	s.buy(r1, m.Add(2*time.Hour), "", "SA2", 1, "B")  // 500 mileage (501 left)
	s.buy(r1, m.Add(3*time.Hour), "", "SA2", 2, "B")  // 500 mileage (1 left)
	s.buy(r1, m.Add(4*time.Hour), "", "SA2", 3, "B")  // 1 mileage + 499 blue
	s.buy(r1, m.Add(5*time.Hour), "", "SA1", 4, "R")  // 77 blue
	s.buy(r1, m.Add(6*time.Hour), "", "SB1", 1, "R")  // 90 blue
	s.buy(r1, m.Add(24*time.Hour), "", "SB1", 2, "B") // 250 blue
	// A partial refund of the charge's unspent money: it never reached a work.
	s.clock.Set(m.Add(30 * time.Hour))
	s.do(r1, 200, "POST", "/home/api/v1/charge/"+order+"/cancel", map[string]any{"cancelAmount": 3000}, "Idempotency-Key", s.key())
	// 16,500 more refunded at the gateway's console, with 16,084 left in the
	// wallet: 416 of spent blue money, charged back newest first to SB1 vol 2
	// (250), SB1 vol 1 (90) and SA1 vol 4 (76 of its 77).
	s.clock.Set(m.Add(40 * time.Hour))
	s.consoleRefund(order, payKey, 16500)
	// Money for the rest of the month: a second charge (no bonus).
	s.clock.Set(m.Add(41 * time.Hour))
	s.charge(r1, 1000)
	s.buy(r1, m.AddDate(0, 1, 0).Add(-time.Second), "", "SA2", 4, "R") // last second of the month: 199 blue
	s.buy(r1, m.AddDate(0, 1, 0), "", "SA2", 5, "R")                   // next month: 199 blue

	// Reader 2: five units of 1,000 Android money at the start of the month.
	r2 := s.reader("android@example.com")
	s.clock.Set(m.Add(2 * 24 * time.Hour))
	token, _ := s.google.Buy("bluemoney_1000", "")
	s.google.SetQuantity(token, 5)
	s.do(r2, 200, "POST", appmoney.GoogleReceiptPath, map[string]string{"packageName": pkg, "productId": "bluemoney_1000", "purchaseToken": token},
		"X-Channel", "AA")
	d := m.Add(2 * 24 * time.Hour)
	s.buy(r2, d.Add(time.Hour), "AA", "SA1", 1, "B")   // 333
	s.buy(r2, d.Add(2*time.Hour), "AA", "SA2", 1, "B") // 500
	s.buy(r2, d.Add(3*time.Hour), "AA", "SB1", 1, "B") // 250
	s.buy(r2, d.Add(4*time.Hour), "AA", "SA1", 2, "R") // 77
	s.buy(r2, d.Add(5*time.Hour), "AA", "SA2", 2, "B") // 500
	s.buy(r2, d.Add(6*time.Hour), "AA", "SB1", 2, "R") // 90
	s.buy(r2, d.Add(7*time.Hour), "AA", "SA1", 3, "B") // 333: 2,083 spent, 2,917 left
	// Two units refunded (2,000 due, all still in the wallet), then two more
	// (2,000 due, 917 left: 1,083 of spent money), both through Google's
	// real-time notifications.
	s.clock.Set(d.Add(8 * time.Hour))
	s.push(s.google.RefundUnits(token, 2))
	s.clock.Set(d.Add(9 * time.Hour))
	s.push(s.google.RefundUnits(token, 2))
	if got := s.int(`SELECT coalesce(sum(amount), 0) FROM money_flags WHERE reason = 'store_refund_spent'`); got != 1083 {
		t.Fatalf("spent money refunded: %d, want 1083", got)
	}
	// Charged back newest first: SA1 vol 3 (333), SB1 vol 2 (90), SA2 vol 2
	// (500), SA1 vol 2 (77 of its 77), SB1 vol 1 (83 of its 250).
	wantAndroid := map[string]int64{"SA1": 333 + 77, "SA2": 500, "SB1": 90 + 83}
	wantBlue := map[string]int64{"SA1": 76, "SA2": 0, "SB1": 250 + 90}

	op = s.operator() // days later
	a := s.statement(op, "studio-a", month)
	b := s.statement(op, "studio-b", month)
	if a.RateBP != 6500 || b.RateBP != 7000 || a.AppStoreBP != 3000 || a.GatewayBP != 330 || len(a.Works) != 2 || len(b.Works) != 1 {
		t.Fatalf("statements: %+v\n%+v", a, b)
	}
	ctx := context.Background()
	// Independent sums: the ledger's rows of the works' purchases and
	// rentals whose KST month is the month, by work, kind and money.
	type k struct{ pid, reason, money string }
	ledger := map[k]int64{}
	rows, err := s.e.Pool.Query(ctx, `SELECT p.pid, l.reason, l.money, sum(-l.delta)
		FROM purchases p JOIN ledger l ON l.ref = 'purchase:' || p.id
		WHERE to_char(l.created_at AT TIME ZONE 'Asia/Seoul', 'YYYY-MM') = $1 GROUP BY 1, 2, 3`, month)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key k
		var v int64
		if err := rows.Scan(&key.pid, &key.reason, &key.money, &v); err != nil {
			t.Fatal(err)
		}
		ledger[key] = v
	}
	rows.Close()
	var allLines []settlement.Line
	for _, st := range []settlement.Statement{a, b} {
		var sum settlement.Line
		for _, l := range st.Works {
			allLines = append(allLines, l)
			money := map[string]int64{"blue": l.Sales.Blue, "android": l.Sales.Android, "ios": l.Sales.IOS, "mileage": l.Sales.Mileage}
			for m, got := range money {
				if want := ledger[k{l.PID, "purchase", m}] + ledger[k{l.PID, "rental", m}]; got != want {
					t.Errorf("%s %s sales: %d, the ledger holds %d", l.PID, m, got, want)
				}
			}
			paid := func(reason string) int64 {
				return ledger[k{l.PID, reason, "blue"}] + ledger[k{l.PID, reason, "android"}] + ledger[k{l.PID, reason, "ios"}]
			}
			if l.Purchases != paid("purchase") || l.Rentals != paid("rental") || l.Gross != l.Purchases+l.Rentals {
				t.Errorf("%s purchases %d rentals %d gross %d, ledger %d + %d", l.PID, l.Purchases, l.Rentals, l.Gross, paid("purchase"), paid("rental"))
			}
			if l.Refunds.Android != wantAndroid[l.PID] || l.Refunds.Blue != wantBlue[l.PID] || l.RefundTotal != wantAndroid[l.PID]+wantBlue[l.PID] {
				t.Errorf("%s refunds %+v, want android %d blue %d", l.PID, l.Refunds, wantAndroid[l.PID], wantBlue[l.PID])
			}
			// The rounding rule: each fee and share truncated per line, the
			// store keeping the remainders, so the line adds up to the won.
			app := (l.Sales.Android + l.Sales.IOS - l.Refunds.Android - l.Refunds.IOS) * 3000 / 10000
			gw := (l.Sales.Blue - l.Refunds.Blue) * 330 / 10000
			base := l.Gross - l.RefundTotal - app - gw
			if l.AppStoreFee != app || l.GatewayFee != gw || l.Base != base || l.Net != base*st.RateBP/10000 ||
				l.Gross-l.RefundTotal != l.AppStoreFee+l.GatewayFee+l.Net+l.StoreShare {
				t.Errorf("%s does not add up: %+v", l.PID, l)
			}
			sum.Gross += l.Gross
			sum.RefundTotal += l.RefundTotal
			sum.AppStoreFee += l.AppStoreFee
			sum.GatewayFee += l.GatewayFee
			sum.Net += l.Net
			sum.StoreShare += l.StoreShare
			sum.Sales.Mileage += l.Sales.Mileage
		}
		if st.Total.Gross != sum.Gross || st.Total.RefundTotal != sum.RefundTotal || st.Total.AppStoreFee != sum.AppStoreFee ||
			st.Total.GatewayFee != sum.GatewayFee || st.Total.Net != sum.Net || st.Total.StoreShare != sum.StoreShare ||
			st.Total.Sales.Mileage != sum.Sales.Mileage {
			t.Errorf("%s total %+v is not the sum of its works %+v", st.ProviderID, st.Total, sum)
		}
	}
	// Every sale of the month is some provider's: the statements together
	// hold exactly the ledger's purchase and rental rows of the month, and
	// exactly the month's refunds of spent money.
	var gross, mileage, refunds int64
	for _, l := range allLines {
		gross += l.Gross
		mileage += l.Sales.Mileage
		refunds += l.RefundTotal
	}
	if want := s.int(`SELECT sum(-delta) FROM ledger WHERE reason IN ('purchase', 'rental') AND money <> 'mileage'
		AND to_char(created_at AT TIME ZONE 'Asia/Seoul', 'YYYY-MM') = $1`, month); gross != want {
		t.Errorf("statements' gross %d, the ledger's paid sales of the month %d", gross, want)
	}
	if want := s.int(`SELECT sum(-delta) FROM ledger WHERE reason IN ('purchase', 'rental') AND money = 'mileage'
		AND to_char(created_at AT TIME ZONE 'Asia/Seoul', 'YYYY-MM') = $1`, month); mileage != want {
		t.Errorf("statements' mileage %d, the ledger's %d", mileage, want)
	}
	if want := s.int(`SELECT coalesce(sum(amount), 0) FROM money_flags WHERE reason IN ('store_refund_spent', 'charge_refund_spent')
		AND to_char(created_at AT TIME ZONE 'Asia/Seoul', 'YYYY-MM') = $1`, month); refunds != want || refunds != 1083+416 {
		t.Errorf("statements' refunds %d, the month's refunds of spent money %d", refunds, want)
	}
	// The hand count of studio-a, to the won: SA1 333×2 mileage + 77 blue
	// + 333 + 77 + 333 Android; SA2 1,001 mileage + 499 + 199 blue + 500 +
	// 500 Android.
	if a.Total.Sales.Mileage != 333*2+1001 || a.Total.Sales.Blue != 77+499+199 || a.Total.Sales.Android != 333+77+333+500+500 {
		t.Errorf("studio-a's sales: %+v", a.Total.Sales)
	}
	// Gross 2,518, refunds 986; SA1: app (743-410)×30 % = 99, gateway
	// (77-76)×3.3 % = 0, base 820-486-99 = 235, net 65 % = 152; SA2: app
	// (1,000-500)×30 % = 150, gateway 698×3.3 % = 23, base 1,698-500-173 =
	// 1,025, net 666.
	if a.Total.Gross != 2518 || a.Total.RefundTotal != 986 || a.Total.AppStoreFee != 249 || a.Total.GatewayFee != 23 ||
		a.Total.Base != 1260 || a.Total.Net != 818 || a.Total.StoreShare != 442 {
		t.Errorf("studio-a's total: %+v", a.Total)
	}

	// The month before holds the last-second sale at the old rate.
	p := s.statement(op, "studio-a", prev)
	if p.RateBP != 5000 || p.Total.Sales.Mileage != 333 || p.Total.Gross != 0 {
		t.Errorf("the month before: %+v", p)
	}

	// Per day: the same sales and refunds, by KST day.
	var daily struct{ Days []settlement.Day }
	if err := json.Unmarshal(s.do(op, 200, "GET", "/admin/api/v1/providers/studio-a/daily?month="+month, nil), &daily); err != nil {
		t.Fatal(err)
	}
	var dp, dr, dm, dref int64
	firstDay := false
	for _, d := range daily.Days {
		dp, dr, dm, dref = dp+d.Purchases, dr+d.Rentals, dm+d.Mileage, dref+d.Refunds
		if d.Day == m.Format("2006-01-02") && d.PID == "SA1" && d.Mileage == 666 {
			firstDay = true
		}
	}
	if dp != a.Total.Purchases || dr != a.Total.Rentals || dm != a.Total.Sales.Mileage || dref != a.Total.RefundTotal || !firstDay {
		t.Errorf("daily %+v does not add up to the statement %+v", daily.Days, a.Total)
	}

	// A provider reads its own statement, the same numbers.
	pa, _ := s.member(op, "studio.a", staff.RoleProvider, "studio-a")
	if own := s.statement(pa, "studio-a", month); own.Total != a.Total {
		t.Errorf("the provider's own statement %+v, the operator's %+v", own.Total, a.Total)
	}
	var works struct{ Works []settlement.Work }
	_ = json.Unmarshal(s.do(pa, 200, "GET", "/admin/api/v1/providers/studio-a/works", nil), &works)
	if len(works.Works) != 2 || works.Works[0].PID != "SA1" || works.Works[1].PID != "SA2" {
		t.Errorf("studio-a's works: %+v", works.Works)
	}
	// Bad months are the envelope's 400.
	for _, q := range []string{"", "?month=2026-13", "?month=2026-1", "?month=x"} {
		if st, body := pa.Do("GET", "/admin/api/v1/providers/studio-a/settlement"+q, nil); st != 400 || writertest.Code(t, body) != 400 {
			t.Errorf("settlement%s: %d %s", q, st, body)
		}
	}
}

// TestSettlementRefundReversed: iOS money spent on a work and refunded by the
// App Store is charged back in the month of the refund; the store reversing
// its refund the month after gives it back in that month, fees and all.
func TestSettlementRefundReversed(t *testing.T) {
	t.Parallel()
	s, m := start(t)
	month, next := m.Format("2006-01"), m.AddDate(0, 1, 0).Format("2006-01")
	op := s.operator()
	s.work("SA1", 777, 100)
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a", map[string]any{"name": "스튜디오 A", "rateBp": 6500, "from": month})
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a/works/SA1", nil)

	r := s.reader("ios@example.com")
	s.clock.Set(m.Add(time.Hour))
	id := s.apple.Buy("bluemoney_5000")
	s.do(r, 200, "POST", appmoney.AppleReceiptPath, map[string]string{"transactionId": id}, "X-Channel", "IA")
	for vol := 1; vol <= 5; vol++ {
		s.buy(r, m.Add(time.Duration(1+vol)*time.Hour), "IA", "SA1", vol, "B") // 3,885 spent, 1,115 left
	}
	s.clock.Set(m.Add(10 * 24 * time.Hour))
	s.do(s.e.Browser(), 200, "POST", appmoney.AppleNotificationPath, s.apple.Refund(id, nil))
	s.clock.Set(m.AddDate(0, 1, 3))
	s.do(s.e.Browser(), 200, "POST", appmoney.AppleNotificationPath, s.apple.ReverseRefund(id))
	if n := s.int(`SELECT count(*) FROM money_flags WHERE amount = 3885 AND cleared_at IS NOT NULL`); n != 1 {
		t.Fatalf("cleared flags of 3,885: %d", n)
	}

	op = s.operator()
	a := s.statement(op, "studio-a", month)
	if l := a.Total; l.Sales.IOS != 3885 || l.Gross != 3885 || l.Refunds.IOS != 3885 || l.AppStoreFee != 0 || l.Base != 0 || l.Net != 0 {
		t.Errorf("the month of the refund: %+v", l)
	}
	// Given back: 3,885 of refunds undone, the app store's 30 % of it
	// (1,165.5 truncated), 2,720 left, 65 % = 1,768 to the provider.
	b := s.statement(op, "studio-a", next)
	if l := b.Total; l.Gross != 0 || l.RefundTotal != -3885 || l.AppStoreFee != 1165 || l.Base != 2720 || l.Net != 1768 || l.StoreShare != 952 {
		t.Errorf("the month of the reversal: %+v", l)
	}
	var daily struct{ Days []settlement.Day }
	_ = json.Unmarshal(s.do(op, 200, "GET", "/admin/api/v1/providers/studio-a/daily?month="+next, nil), &daily)
	if len(daily.Days) != 1 || daily.Days[0].Day != m.AddDate(0, 1, 3).Format("2006-01-02") || daily.Days[0].Refunds != -3885 {
		t.Errorf("the reversal's day: %+v", daily.Days)
	}
}

// TestProviderRoutesRefuse walks every provider route the writer serves (so
// a new one is covered without anyone adding it here): no session, a
// reader's session, staff without the permission, the machine token,
// another provider and a removed provider's old session are refused, and
// nothing changes.
func TestProviderRoutesRefuse(t *testing.T) {
	t.Parallel()
	s, m := start(t)
	month := m.Format("2006-01")
	op := s.operator()
	s.work("SA1", 100, 50)
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a", map[string]any{"name": "스튜디오 A", "rateBp": 6000})
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-b", map[string]any{"name": "스튜디오 B", "rateBp": 6000})
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-a/works/SA1", nil)
	own, _ := s.member(op, "studio.a", staff.RoleProvider, "studio-a")
	other, _ := s.member(op, "studio.b", staff.RoleProvider, "studio-b")
	removed, removedID := s.member(op, "studio.a2", staff.RoleProvider, "studio-a")
	s.do(op, 200, "DELETE", fmt.Sprintf("/admin/api/v1/staff/%d", removedID), nil)
	content, _ := s.member(op, "kim.content", staff.RoleContent, "")
	moderator, _ := s.member(op, "lee.mod", staff.RoleModerator, "")
	analyst, _ := s.member(op, "park.analyst", staff.RoleAnalyst, "")
	reader := s.reader("reader@example.com")
	body := map[string]any{"name": "바꾼 이름", "rateBp": 10000}

	fingerprint := func() string {
		var f string
		if err := s.e.Pool.QueryRow(context.Background(), `SELECT
			(SELECT coalesce(string_agg(id || name, ',' ORDER BY id), '') FROM providers) ||
			(SELECT coalesce(string_agg(provider_id || from_month || rate_bp, ',' ORDER BY provider_id, from_month), '') FROM provider_rates) ||
			(SELECT coalesce(string_agg(pid || provider_id, ',' ORDER BY pid), '') FROM work_providers) ||
			(SELECT count(*) FROM staff_audit)`).Scan(&f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	before := fingerprint()
	routes := 0
	for _, p := range s.e.Srv.Patterns() {
		method, path, _ := strings.Cut(p, " ")
		if !strings.HasPrefix(path, "/admin/api/v1/providers") {
			continue
		}
		routes++
		target := strings.NewReplacer("{id}", "studio-a", "{pid}", "SA1").Replace(path) + "?month=" + month
		var b any
		if method == "PUT" && !strings.Contains(path, "{pid}") {
			b = body
		}
		settle := method == "GET" && strings.Contains(path, "{id}")
		try := func(who string, c *writertest.Client, want int) {
			t.Helper()
			st, ans := c.Do(method, target, b)
			if st != want || writertest.Code(t, ans) != want {
				t.Errorf("%s: %s %s: %d %s, want %d", who, method, target, st, ans, want)
			}
		}
		try("no session", s.e.Browser(), 401)
		try("reader", reader, 401)
		try("removed provider", removed, 401)
		try("machine token", s.e.Admin, 403)
		try("content manager", content, 403)
		try("moderator", moderator, 403)
		try("other provider", other, 403)
		if settle {
			// The settlement permission: the own provider, analysts and
			// operators read; nobody else.
			try("own provider", own, 200)
			try("analyst", analyst, 200)
			try("operator", op, 200)
		} else {
			// Contracts and assignments are the operators' alone.
			try("own provider", own, 403)
			try("analyst", analyst, 403)
		}
		if after := fingerprint(); after != before {
			t.Fatalf("%s changed something: %s -> %s", p, before, after)
		}
	}
	if routes != 8 {
		t.Fatalf("%d provider routes, want 8", routes)
	}
	// Bad input and what is not there, even for the operator: the
	// envelope's status, nothing changed.
	for _, c := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"PUT", "providers/studio-a", map[string]any{"name": "A", "rateBp": 10001}, 400},
		{"PUT", "providers/studio-a", map[string]any{"name": "A", "rateBp": -1}, 400},
		{"PUT", "providers/studio-a", map[string]any{"name": " ", "rateBp": 5000}, 400},
		{"PUT", "providers/studio-a", map[string]any{"name": "A", "rateBp": 5000, "from": "2026-13"}, 400},
		{"PUT", "providers/studio-a", map[string]any{"name": "A"}, 400},
		{"PUT", "providers/studio%20a", map[string]any{"name": "A", "rateBp": 5000}, 400},
		{"PUT", "providers/studio-a/works/NOPE", nil, 404},
		{"PUT", "providers/nobody/works/SA1", nil, 404},
		{"DELETE", "providers/studio-b/works/SA1", nil, 404},
		{"GET", "providers/nobody/settlement?month=" + month, nil, 404},
		{"GET", "providers/studio-a/settlement?month=" + m.AddDate(-1, 0, 0).Format("2006-01"), nil, 404}, // before any rate
	} {
		if st, ans := op.Do(c.method, "/admin/api/v1/"+c.path, c.body); st != c.want || writertest.Code(t, ans) != c.want {
			t.Errorf("%s %s: %d %s, want %d", c.method, c.path, st, ans, c.want)
		}
	}
	if after := fingerprint(); after != before {
		t.Fatalf("bad input changed something: %s -> %s", before, after)
	}
	// Another provider's id in the own provider's session is refused even
	// where the provider's own would be read.
	if st, _ := own.Do("GET", "/admin/api/v1/providers/studio-b/settlement?month="+month, nil); st != http.StatusForbidden {
		t.Errorf("provider reads another's statement: %d", st)
	}
}
