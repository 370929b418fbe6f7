package money

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// PaymentGateway is a Korean card PG in the style of Toss Payments: the
// merchant creates a payment, the buyer approves it on the PG's checkout page,
// the merchant confirms it server to server, and the PG reports every status
// change by a signed webhook (which may arrive more than once).
type PaymentGateway interface {
	Create(ctx context.Context, o PaymentOrder) (Checkout, error)
	Confirm(ctx context.Context, paymentKey, orderID string, amount int64) (Payment, error)
	Cancel(ctx context.Context, paymentKey, reason string) (Payment, error)
	// ParseWebhook verifies the signature of a webhook and decodes it.
	ParseWebhook(body []byte, h http.Header) (WebhookEvent, error)
}

// PaymentOrder asks the PG for a checkout.
type PaymentOrder struct {
	OrderID    string `json:"orderId"`
	Amount     int64  `json:"amount"`
	OrderName  string `json:"orderName"`
	SuccessURL string `json:"successUrl"`
	FailURL    string `json:"failUrl"`
}

// Checkout is where the buyer approves the payment.
type Checkout struct {
	PaymentKey  string `json:"paymentKey"`
	CheckoutURL string `json:"checkoutUrl"`
}

// Payment statuses of the PG.
const (
	PayReady    = "READY"
	PayApproved = "APPROVED" // buyer approved, merchant has not confirmed
	PayDone     = "DONE"
	PayAborted  = "ABORTED"
	PayCanceled = "CANCELED"
)

// Payment is the PG's view of a payment.
type Payment struct {
	PaymentKey string `json:"paymentKey"`
	OrderID    string `json:"orderId"`
	Status     string `json:"status"`
	Amount     int64  `json:"totalAmount"`
}

// WebhookEvent is one status change reported by the PG.
type WebhookEvent struct {
	EventID   string    `json:"eventId"`
	EventType string    `json:"eventType"`
	CreatedAt time.Time `json:"createdAt"`
	Data      Payment   `json:"data"`
}

// GatewayError is a refusal of the PG (card declined, amount mismatch, ...).
type GatewayError struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *GatewayError) Error() string {
	return fmt.Sprintf("payment gateway %d %s: %s", e.Status, e.Code, e.Message)
}

// SignatureHeader carries the webhook signature: "v1=" + hex HMAC-SHA256(secret, body).
const SignatureHeader = "X-PG-Signature"

// SignWebhook computes the signature header value of body.
func SignWebhook(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// ErrBadSignature is a webhook whose signature does not verify.
var ErrBadSignature = errors.New("bad webhook signature")

// HTTPGateway talks to a PG over HTTP (the sandbox in dev and tests).
type HTTPGateway struct {
	BaseURL       string
	SecretKey     string
	WebhookSecret string
	Client        *http.Client
}

func (g *HTTPGateway) call(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("marshal %s: %w", path, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(g.BaseURL, "/")+path, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("build %s: %w", path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(g.SecretKey+":")))
	c := g.Client
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("call payment gateway %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("read payment gateway %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		ge := &GatewayError{Status: resp.StatusCode}
		if json.Unmarshal(body, ge) != nil || ge.Code == "" {
			return fmt.Errorf("payment gateway %s: status %d", path, resp.StatusCode)
		}
		// 401 means our keys are wrong, 5xx that the PG is down: neither is the buyer's refusal.
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusUnauthorized {
			return fmt.Errorf("payment gateway %s: %v", path, ge)
		}
		return ge
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode payment gateway %s: %w", path, err)
	}
	return nil
}

// Create implements PaymentGateway.
func (g *HTTPGateway) Create(ctx context.Context, o PaymentOrder) (Checkout, error) {
	var c Checkout
	err := g.call(ctx, "/v1/payments", o, &c)
	return c, err
}

// Confirm implements PaymentGateway.
func (g *HTTPGateway) Confirm(ctx context.Context, paymentKey, orderID string, amount int64) (Payment, error) {
	var p Payment
	err := g.call(ctx, "/v1/payments/confirm", map[string]any{"paymentKey": paymentKey, "orderId": orderID, "amount": amount}, &p)
	return p, err
}

// Cancel implements PaymentGateway.
func (g *HTTPGateway) Cancel(ctx context.Context, paymentKey, reason string) (Payment, error) {
	var p Payment
	err := g.call(ctx, "/v1/payments/"+url.PathEscape(paymentKey)+"/cancel", map[string]any{"cancelReason": reason}, &p)
	return p, err
}

// ParseWebhook implements PaymentGateway.
func (g *HTTPGateway) ParseWebhook(body []byte, h http.Header) (WebhookEvent, error) {
	var ev WebhookEvent
	want := SignWebhook([]byte(g.WebhookSecret), body)
	if !hmac.Equal([]byte(h.Get(SignatureHeader)), []byte(want)) {
		return ev, ErrBadSignature
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return ev, fmt.Errorf("decode webhook: %w", err)
	}
	if ev.EventID == "" || ev.Data.OrderID == "" {
		return ev, errors.New("webhook without event id or order id")
	}
	return ev, nil
}
