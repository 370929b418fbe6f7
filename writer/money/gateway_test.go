package money_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"storefront/writer/money"
	"storefront/writer/money/tosssandbox"
)

// The writer's gateway client against the protocol-faithful sandbox, without
// the writer: what each documented call answers, byte for byte where the
// writer depends on it.

type gwEnv struct {
	sb  *tosssandbox.Sandbox
	srv *httptest.Server
	gw  *money.HTTPGateway
	now time.Time
}

func newGW(t *testing.T, decline int64) *gwEnv {
	t.Helper()
	g := &gwEnv{now: time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)} // 12:00 in Korea
	g.sb = tosssandbox.New(tosssandbox.Config{SecretKey: testSecret, ClientKey: testClient, DeclineAmount: decline,
		Now: func() time.Time { return g.now }})
	g.srv = httptest.NewServer(g.sb.Handler())
	t.Cleanup(g.srv.Close)
	t.Cleanup(g.sb.Close)
	g.gw = &money.HTTPGateway{BaseURL: g.srv.URL, SecretKey: testSecret}
	return g
}

// authenticate opens the widget for an order and approves it.
func (g *gwEnv) authenticate(t *testing.T, orderID string, amount int64) string {
	t.Helper()
	r, err := tosssandbox.Pay(context.Background(), money.SandboxCheckoutURL(g.srv.URL, money.Widget{ClientKey: testClient,
		OrderID: orderID, OrderName: "테스트", Amount: amount, SuccessURL: "https://shop.example/ok?x=1"}), true)
	if err != nil || r.PaymentKey == "" || r.OrderID != orderID || r.Amount != amount {
		t.Fatalf("authenticate %s: %+v %v", orderID, r, err)
	}
	return r.PaymentKey
}

func gwCode(t *testing.T, err error, status int, code string) {
	t.Helper()
	var ge *money.GatewayError
	if !errors.As(err, &ge) || ge.Status != status || ge.Code != code || errors.Is(err, money.ErrGatewayDown) {
		t.Fatalf("want %d %s, got %v", status, code, err)
	}
	if ge.Message == "" || money.KoreanMessage(code) == "" {
		t.Fatalf("error %s without message", code)
	}
}

func TestGatewayConfirm(t *testing.T) {
	t.Parallel()
	g := newGW(t, 7000)
	ctx := context.Background()
	key := g.authenticate(t, "ord-1", 10000)
	p, err := g.gw.Payment(ctx, key)
	if err != nil || p.Status != money.PayInProgress || p.ApprovedAt != nil {
		t.Fatalf("before confirm: %+v %v", p, err)
	}
	// Amount mismatch: the confirm is refused and the payment still waits.
	_, err = g.gw.Confirm(ctx, "", key, "ord-1", 1000)
	gwCode(t, err, 400, "INVALID_REQUEST")
	// Success.
	p, err = g.gw.Confirm(ctx, "idem-1", key, "ord-1", 10000)
	if err != nil || p.Status != money.PayDone || p.TotalAmount != 10000 || p.BalanceAmount != 10000 || p.ApprovedAt == nil ||
		p.Method != "카드" || p.OrderID != "ord-1" || p.PaymentKey != key {
		t.Fatalf("confirm: %+v %v", p, err)
	}
	if _, err := time.Parse(time.RFC3339, *p.ApprovedAt); err != nil {
		t.Fatalf("approvedAt %q: %v", *p.ApprovedAt, err)
	}
	// The same Idempotency-Key replays the first answer; another key is a duplicate confirm.
	again, err := g.gw.Confirm(ctx, "idem-1", key, "ord-1", 10000)
	if err != nil || again.LastTransactionKey != p.LastTransactionKey {
		t.Fatalf("idempotent replay: %+v %v", again, err)
	}
	_, err = g.gw.Confirm(ctx, "idem-2", key, "ord-1", 10000)
	gwCode(t, err, 400, "ALREADY_PROCESSED_PAYMENT")
	// Lookups by key and by order id.
	if byOrder, err := g.gw.PaymentByOrder(ctx, "ord-1"); err != nil || byOrder.PaymentKey != key || byOrder.Status != money.PayDone {
		t.Fatalf("by order: %+v %v", byOrder, err)
	}
	_, err = g.gw.Payment(ctx, "tgen_nosuch")
	gwCode(t, err, 404, "NOT_FOUND_PAYMENT")
	_, err = g.gw.PaymentByOrder(ctx, "ord-nosuch")
	gwCode(t, err, 404, "NOT_FOUND_PAYMENT")
	// Failure: the card company declines; the payment is ABORTED with its failure.
	key2 := g.authenticate(t, "ord-2", 7000)
	_, err = g.gw.Confirm(ctx, "", key2, "ord-2", 7000)
	gwCode(t, err, 403, "REJECT_CARD_PAYMENT")
	if p, _ := g.gw.Payment(ctx, key2); p.Status != money.PayAborted || p.Failure == nil || p.Failure.Code != "REJECT_CARD_PAYMENT" {
		t.Fatalf("declined payment: %+v", p)
	}
	// A widget opened again for a used order id goes to the fail URL.
	r, err := tosssandbox.Pay(ctx, money.SandboxCheckoutURL(g.srv.URL, money.Widget{ClientKey: testClient, OrderID: "ord-1",
		Amount: 10000, FailURL: "https://shop.example/no"}), true)
	if err != nil || r.Code != "DUPLICATED_ORDER_ID" {
		t.Fatalf("reused order id: %+v %v", r, err)
	}
	// Our secret key wrong: not an answer about the payment.
	bad := &money.HTTPGateway{BaseURL: g.srv.URL, SecretKey: "test_sk_other"}
	if _, err := bad.Payment(ctx, key); !errors.Is(err, money.ErrGatewayDown) {
		t.Fatalf("wrong secret key: %v", err)
	}
	// Network loss after the confirm: the payment is recovered by order id.
	key3 := g.authenticate(t, "ord-3", 5000)
	lossy := &money.HTTPGateway{BaseURL: g.srv.URL, SecretKey: testSecret,
		Client: &http.Client{Transport: &loseAnswers{suffix: "/confirm", n: 1}}}
	if _, err := lossy.Confirm(ctx, "idem-3", key3, "ord-3", 5000); !errors.Is(err, money.ErrGatewayDown) {
		t.Fatalf("lost answer: %v", err)
	}
	if p, err := lossy.PaymentByOrder(ctx, "ord-3"); err != nil || p.Status != money.PayDone || p.PaymentKey != key3 {
		t.Fatalf("recovered by order id: %+v %v", p, err)
	}
	if p, err := lossy.Confirm(ctx, "idem-3", key3, "ord-3", 5000); err != nil || p.Status != money.PayDone {
		t.Fatalf("the retry with the same key replays the answer: %+v %v", p, err)
	}
	// Not confirmed within 10 minutes: expired.
	key4 := g.authenticate(t, "ord-4", 5000)
	g.now = g.now.Add(tosssandbox.ConfirmTimeout + time.Second)
	_, err = g.gw.Confirm(ctx, "", key4, "ord-4", 5000)
	gwCode(t, err, 404, "NOT_FOUND_PAYMENT_SESSION")
}

func TestGatewayCancel(t *testing.T) {
	t.Parallel()
	g := newGW(t, 0)
	ctx := context.Background()
	key := g.authenticate(t, "ord-c", 10000)
	// Not confirmed yet: not cancelable.
	_, err := g.gw.Cancel(ctx, "", key, money.CancelRequest{CancelReason: "테스트"})
	gwCode(t, err, 403, "NOT_CANCELABLE_PAYMENT")
	if _, err := g.gw.Confirm(ctx, "", key, "ord-c", 10000); err != nil {
		t.Fatal(err)
	}
	_, err = g.gw.Cancel(ctx, "", key, money.CancelRequest{CancelAmount: 1000})
	gwCode(t, err, 400, "INVALID_REQUEST") // cancelReason is required
	p, err := g.gw.Cancel(ctx, "c-1", key, money.CancelRequest{CancelReason: "부분", CancelAmount: 3000, RefundableAmount: 10000})
	if err != nil || p.Status != money.PayPartialCanceled || p.BalanceAmount != 7000 || len(p.Cancels) != 1 ||
		p.Cancels[0].CancelAmount != 3000 || p.Cancels[0].CancelStatus != "DONE" || p.Cancels[0].TransactionKey == "" {
		t.Fatalf("partial cancel: %+v %v", p, err)
	}
	// The same key replays; a stale refundableAmount and too much are refused.
	if again, err := g.gw.Cancel(ctx, "c-1", key, money.CancelRequest{CancelReason: "부분", CancelAmount: 3000, RefundableAmount: 10000}); err != nil || again.BalanceAmount != 7000 {
		t.Fatalf("replayed cancel: %+v %v", again, err)
	}
	_, err = g.gw.Cancel(ctx, "", key, money.CancelRequest{CancelReason: "부분", CancelAmount: 1000, RefundableAmount: 10000})
	gwCode(t, err, 400, "NOT_MATCHES_REFUNDABLE_AMOUNT")
	_, err = g.gw.Cancel(ctx, "", key, money.CancelRequest{CancelReason: "많이", CancelAmount: 8000})
	gwCode(t, err, 403, "NOT_CANCELABLE_AMOUNT")
	// The rest: full cancel.
	p, err = g.gw.Cancel(ctx, "", key, money.CancelRequest{CancelReason: "전액"})
	if err != nil || p.Status != money.PayCanceled || p.BalanceAmount != 0 || p.Canceled() != 10000 || len(p.Cancels) != 2 {
		t.Fatalf("full cancel: %+v %v", p, err)
	}
	_, err = g.gw.Cancel(ctx, "", key, money.CancelRequest{CancelReason: "또"})
	gwCode(t, err, 400, "ALREADY_CANCELED_PAYMENT")
	// Every status change became an unsigned PAYMENT_STATUS_CHANGED webhook carrying the Payment.
	var statuses []string
	for _, d := range g.sb.Deliveries() {
		var ev map[string]json.RawMessage
		if err := json.Unmarshal(d.Body, &ev); err != nil || len(ev) != 3 || string(ev["eventType"]) != `"PAYMENT_STATUS_CHANGED"` {
			t.Fatalf("webhook body %s", d.Body)
		}
		if _, err := time.Parse("2006-01-02T15:04:05.000000", string(ev["createdAt"][1:len(ev["createdAt"])-1])); err != nil {
			t.Fatalf("createdAt %s: %v", ev["createdAt"], err)
		}
		w, err := money.ParseWebhook(d.Body)
		if err != nil || w.Data.PaymentKey != key {
			t.Fatalf("webhook %s: %v", d.Body, err)
		}
		statuses = append(statuses, w.Data.Status)
	}
	if want := []string{"DONE", "PARTIAL_CANCELED", "CANCELED"}; len(statuses) != 3 || statuses[0] != want[0] || statuses[1] != want[1] || statuses[2] != want[2] {
		t.Fatalf("webhook statuses %v, want %v", statuses, want)
	}
}

// The settlement list: one row per approval and per cancel (negative), by
// the Korean day they were sold, paged.
func TestGatewaySettlements(t *testing.T) {
	t.Parallel()
	g := newGW(t, 0)
	ctx := context.Background()
	for i, amount := range []int64{1000, 2000, 3000} {
		key := g.authenticate(t, "ord-s"+string(rune('a'+i)), amount)
		if _, err := g.gw.Confirm(ctx, "", key, "ord-s"+string(rune('a'+i)), amount); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			g.now = g.now.Add(24 * time.Hour) // the next Korean day
			if _, err := g.gw.Cancel(ctx, "", key, money.CancelRequest{CancelReason: "x", CancelAmount: 500}); err != nil {
				t.Fatal(err)
			}
		}
	}
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	rows, err := g.gw.Settlements(ctx, day, day, 1, 100)
	if err != nil || len(rows) != 3 {
		t.Fatalf("day 1: %+v %v", rows, err)
	}
	next, err := g.gw.Settlements(ctx, day.AddDate(0, 0, 1), day.AddDate(0, 0, 1), 1, 100)
	if err != nil || len(next) != 1 || next[0].Amount != -500 || next[0].Cancel == nil || next[0].Cancel.CancelAmount != 500 {
		t.Fatalf("day 2: %+v %v", next, err)
	}
	page2, err := g.gw.Settlements(ctx, day, day.AddDate(0, 0, 1), 2, 3)
	if err != nil || len(page2) != 1 {
		t.Fatalf("page 2: %+v %v", page2, err)
	}
	if _, err := g.gw.Settlements(ctx, day.AddDate(0, 0, 1), day, 1, 100); err == nil {
		t.Fatal("end before start accepted")
	}
}
