package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"storefront/writer/internal/writertest"
	"storefront/writer/money/tosssandbox"
	"storefront/writer/server"
)

// The writer runs the top-up scheduler itself: a member who registered a
// card through the sandbox's window and turned the threshold on gets a
// top-up after the purchase that crossed it, with no call of theirs, and
// the receipt among their notices.
func TestWriterRunsAutomaticTopup(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, func(c *server.Config) { c.PaymentSandbox = true; c.TopupPoll = 50 * time.Millisecond })
	work := newWork("TOP1")
	work["volumes"] = []map[string]any{{"no": 1, "title": "1화", "buyPrice": 1000, "rentPrice": 500, "pages": 10, "previewPages": 2}}
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", work); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	b := e.Browser()
	if st, body := b.Do("POST", "/home/api/v1/auth/signup", map[string]any{"email": "topup@example.com", "password": "correct horse"}); st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	// 5,000 blue money through the widget (and 500 mileage of first-charge bonus).
	b.Headers = map[string]string{"Idempotency-Key": "charge-1"}
	_, body := b.Do("POST", "/home/api/v1/charge/requests", map[string]any{"amount": 5000, "successUrl": "/ok", "failUrl": "/fail"})
	var ch struct{ OrderID, CheckoutURL string }
	_ = json.Unmarshal(body, &ch)
	red, err := tosssandbox.Pay(context.Background(), ch.CheckoutURL, true)
	if err != nil {
		t.Fatal(err)
	}
	b.Headers = map[string]string{"Idempotency-Key": "confirm-1"}
	if st, body := b.Do("POST", "/home/api/v1/charge/confirm", map[string]any{"orderId": ch.OrderID, "paymentKey": red.PaymentKey, "amount": 5000}); st != 200 {
		t.Fatalf("confirm: %d %s", st, body)
	}
	b.Headers = nil
	// A card through the registration window.
	_, body = b.Do("POST", "/home/api/v1/wallet/cards/registration", map[string]any{"successUrl": "/payment/auto", "failUrl": "/payment/auto?result=fail"})
	var reg struct{ CustomerKey, WindowURL string }
	_ = json.Unmarshal(body, &reg)
	q, err := tosssandbox.RegisterCard(context.Background(), reg.WindowURL, true)
	if err != nil {
		t.Fatalf("window: %v (%s)", err, body)
	}
	if st, body := b.Do("POST", "/home/api/v1/wallet/cards", map[string]any{"customerKey": q.Get("customerKey"), "authKey": q.Get("authKey")}); st != 200 {
		t.Fatalf("register card: %d %s", st, body)
	}
	if st, body := b.Do("PUT", "/home/api/v1/wallet/auto-payment", map[string]any{"is_use": true, "type": "bluemoney-auto-payment", "money": 10000, "trigger_value": 5000}); st != 200 {
		t.Fatalf("auto-payment: %d %s", st, body)
	}
	// 1,000: 500 mileage and 500 blue, leaving 4,500 < 5,000.
	b.Headers = map[string]string{"Idempotency-Key": "buy-1"}
	if st, body := b.Do("POST", "/home/api/v1/purchases", map[string]any{"pid": "TOP1", "vols": []int{1}, "buyType": "B"}); st != 200 {
		t.Fatalf("purchase: %d %s", st, body)
	}
	b.Headers = nil
	writertest.Eventually(t, 10*time.Second, "the top-up credited", func() bool {
		_, body := b.Do("GET", "/home/api/v1/wallet", nil)
		return strings.Contains(string(body), `"bluemoney":14500`)
	})
	// The sandbox's webhook can credit the charge before the scheduler's
	// own settlement (which writes the receipt) commits: the receipt
	// follows the credit, it is not in the credit's transaction.
	writertest.Eventually(t, 10*time.Second, "the receipt among the notices", func() bool {
		_, body = b.Do("GET", "/home/api/v1/wallet/notices", nil)
		return strings.Contains(string(body), "자동 충전 영수증") && strings.Contains(string(body), "10,000원")
	})
	_, body = b.Do("GET", "/home/api/v1/charge/history", nil)
	if !strings.Contains(string(body), `"kind":"auto"`) {
		t.Fatalf("history: %s", body)
	}
}
