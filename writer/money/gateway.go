package money

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// PaymentGateway is the server side of Toss Payments' core API v1. The buyer
// never meets it: the payment widget (client side, with the client key)
// takes the order id and amount the writer fixed, authenticates the buyer and
// redirects to successUrl?paymentKey&orderId&amount; the writer then confirms
// with the secret key. Status changes arrive as PAYMENT_STATUS_CHANGED
// webhooks, which carry no signature: the writer trusts only what Payment
// answers for the payment key they name.
type PaymentGateway interface {
	// Confirm approves a payment the buyer authenticated (POST /v1/payments/confirm).
	Confirm(ctx context.Context, idemKey, paymentKey, orderID string, amount int64) (Payment, error)
	// Payment looks a payment up by its key (GET /v1/payments/{paymentKey}).
	Payment(ctx context.Context, paymentKey string) (Payment, error)
	// PaymentByOrder looks a payment up by our order id (GET /v1/payments/orders/{orderId}).
	PaymentByOrder(ctx context.Context, orderID string) (Payment, error)
	// Cancel refunds all (CancelAmount 0) or part of a payment (POST /v1/payments/{paymentKey}/cancel).
	Cancel(ctx context.Context, idemKey, paymentKey string, c CancelRequest) (Payment, error)
	// Settlements lists the settled transactions sold between two dates (GET /v1/settlements).
	Settlements(ctx context.Context, start, end time.Time, page, size int) ([]Settlement, error)
}

// Payment statuses of Toss Payments v1.
const (
	PayReady           = "READY"       // the widget opened, the buyer not yet authenticated
	PayInProgress      = "IN_PROGRESS" // authenticated, waiting for the merchant's confirm
	PayWaitingDeposit  = "WAITING_FOR_DEPOSIT"
	PayDone            = "DONE"
	PayCanceled        = "CANCELED"
	PayPartialCanceled = "PARTIAL_CANCELED"
	PayAborted         = "ABORTED" // the approval failed
	PayExpired         = "EXPIRED" // not confirmed in time
)

// EventPaymentStatusChanged is the webhook event type of a payment's status change.
const EventPaymentStatusChanged = "PAYMENT_STATUS_CHANGED"

// Payment is the gateway's Payment object (the fields the writer reads).
type Payment struct {
	Version             string     `json:"version,omitempty"`
	PaymentKey          string     `json:"paymentKey"`
	Type                string     `json:"type,omitempty"`
	OrderID             string     `json:"orderId"`
	OrderName           string     `json:"orderName,omitempty"`
	MID                 string     `json:"mId,omitempty"`
	Currency            string     `json:"currency,omitempty"`
	Method              string     `json:"method,omitempty"`
	TotalAmount         int64      `json:"totalAmount"`
	BalanceAmount       int64      `json:"balanceAmount"`
	Status              string     `json:"status"`
	RequestedAt         string     `json:"requestedAt,omitempty"`
	ApprovedAt          *string    `json:"approvedAt"`
	LastTransactionKey  string     `json:"lastTransactionKey,omitempty"`
	IsPartialCancelable bool       `json:"isPartialCancelable"`
	Cancels             []Cancel   `json:"cancels"`
	Failure             *Failure   `json:"failure"`
	Receipt             *URLObject `json:"receipt,omitempty"`
}

// Canceled is how much of the payment has been refunded.
func (p Payment) Canceled() int64 { return p.TotalAmount - p.BalanceAmount }

// Cancel is one refund of a payment.
type Cancel struct {
	CancelAmount     int64  `json:"cancelAmount"`
	CancelReason     string `json:"cancelReason"`
	RefundableAmount int64  `json:"refundableAmount"`
	CanceledAt       string `json:"canceledAt"`
	TransactionKey   string `json:"transactionKey"`
	CancelStatus     string `json:"cancelStatus"`
}

// Failure is why a payment failed.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// URLObject is an object with only a url (receipt, checkout).
type URLObject struct {
	URL string `json:"url"`
}

// CancelRequest is the body of a cancel. CancelAmount 0 cancels what is
// left; RefundableAmount, when set, makes the gateway refuse the cancel if
// the payment's balance is not that (a guard against a concurrent refund).
type CancelRequest struct {
	CancelReason     string `json:"cancelReason"`
	CancelAmount     int64  `json:"cancelAmount,omitempty"`
	RefundableAmount int64  `json:"refundableAmount,omitempty"`
}

// Settlement is one settled transaction: an approval, or a cancel with a
// negative amount and its Cancel set.
type Settlement struct {
	MID            string            `json:"mId"`
	PaymentKey     string            `json:"paymentKey"`
	TransactionKey string            `json:"transactionKey"`
	OrderID        string            `json:"orderId"`
	Currency       string            `json:"currency"`
	Method         string            `json:"method"`
	Amount         int64             `json:"amount"`
	Fees           []SettlementFee   `json:"fees"`
	SupplyAmount   int64             `json:"supplyAmount"`
	Vat            int64             `json:"vat"`
	PayOutAmount   int64             `json:"payOutAmount"`
	ApprovedAt     string            `json:"approvedAt"`
	SoldDate       string            `json:"soldDate"`
	PaidOutDate    string            `json:"paidOutDate"`
	Cancel         *SettlementCancel `json:"cancel"`
}

// SettlementFee is one fee taken from a settlement.
type SettlementFee struct {
	Type string `json:"type"`
	Fee  int64  `json:"fee"`
}

// SettlementCancel is the cancel a settlement row reverses.
type SettlementCancel struct {
	CancelAmount int64  `json:"cancelAmount"`
	CancelReason string `json:"cancelReason"`
	CanceledAt   string `json:"canceledAt"`
}

// WebhookEvent is the body of a webhook: {eventType, createdAt, data}.
// createdAt is the gateway's local time without offset
// (yyyy-MM-dd'T'HH:mm:ss.SSSSSS), so it stays a string.
type WebhookEvent struct {
	EventType string  `json:"eventType"`
	CreatedAt string  `json:"createdAt"`
	Data      Payment `json:"data"`
}

// GatewayError is the gateway's error body {code, message} and its status.
type GatewayError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *GatewayError) Error() string {
	return fmt.Sprintf("payment gateway %d %s: %s", e.Status, e.Code, e.Message)
}

// ErrGatewayDown is a call that got no answer of the gateway's own
// (network, 5xx, our keys refused): whether it took effect is unknown.
var ErrGatewayDown = errors.New("payment gateway unavailable")

// gatewayMessages are our Korean words for the gateway's documented error
// codes, shown to the member instead of the gateway's own text.
var gatewayMessages = map[string]string{
	"ALREADY_PROCESSED_PAYMENT":      "이미 처리된 결제입니다.",
	"PROVIDER_ERROR":                 "결제 기관에 일시적인 오류가 있습니다. 잠시 후 다시 시도해 주세요.",
	"INVALID_REQUEST":                "결제 요청이 올바르지 않습니다.",
	"INVALID_API_KEY":                "결제 설정에 문제가 있습니다. 고객센터에 문의해 주세요.",
	"UNAUTHORIZED_KEY":               "결제 설정에 문제가 있습니다. 고객센터에 문의해 주세요.",
	"REJECT_CARD_PAYMENT":            "한도 초과 또는 잔액 부족으로 카드 결제가 거절되었습니다.",
	"REJECT_CARD_COMPANY":            "카드사에서 결제를 거절했습니다. 다른 카드로 시도해 주세요.",
	"REJECT_ACCOUNT_PAYMENT":         "잔액 부족으로 계좌 결제가 거절되었습니다.",
	"INVALID_CARD_EXPIRATION":        "카드 유효기간이 올바르지 않습니다.",
	"INVALID_STOPPED_CARD":           "정지된 카드입니다.",
	"INVALID_CARD_LOST_OR_STOLEN":    "분실 또는 도난 신고된 카드입니다.",
	"EXCEED_MAX_DAILY_PAYMENT_COUNT": "하루 결제 가능 횟수를 넘었습니다.",
	"EXCEED_MAX_PAYMENT_AMOUNT":      "한 번에 결제할 수 있는 금액을 넘었습니다.",
	"NOT_FOUND_PAYMENT":              "결제 정보를 찾을 수 없습니다.",
	"NOT_FOUND_PAYMENT_SESSION":      "결제 시간이 만료되었습니다. 다시 충전해 주세요.",
	"FORBIDDEN_REQUEST":              "허용되지 않은 결제 요청입니다.",
	"ALREADY_CANCELED_PAYMENT":       "이미 취소된 결제입니다.",
	"NOT_CANCELABLE_AMOUNT":          "취소할 수 없는 금액입니다.",
	"NOT_CANCELABLE_PAYMENT":         "취소할 수 없는 결제입니다.",
	"NOT_MATCHES_REFUNDABLE_AMOUNT":  "환불 가능 금액이 바뀌었습니다. 다시 시도해 주세요.",
	"FORBIDDEN_CONSECUTIVE_REQUEST":  "같은 요청이 너무 빨리 반복되었습니다. 잠시 후 다시 시도해 주세요.",
	"PAY_PROCESS_CANCELED":           "결제를 취소했습니다.",
	"PAY_PROCESS_ABORTED":            "결제가 중단되었습니다.",
	"INVALID_AUTHORIZE_AUTH":         "카드 인증이 만료되었거나 이미 사용되었습니다. 카드를 다시 등록해 주세요.",
	"NOT_FOUND_BILLING":              "등록된 카드 정보를 결제사에서 찾을 수 없습니다. 카드를 다시 등록해 주세요.",
	"DUPLICATED_ORDER_ID":            "이미 처리된 주문입니다.",
}

// KoreanMessage is the member-facing message of a gateway error code.
func KoreanMessage(code string) string {
	if m, ok := gatewayMessages[code]; ok {
		return m
	}
	return "결제를 처리하지 못했습니다. (" + code + ")"
}

// HTTPGateway talks to Toss Payments (or the sandbox, tosssandbox) over HTTP.
type HTTPGateway struct {
	BaseURL   string
	SecretKey string
	Client    *http.Client
}

func (g *HTTPGateway) call(ctx context.Context, method, path, idemKey string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("marshal %s: %w", path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(g.BaseURL, "/")+path, body)
	if err != nil {
		return fmt.Errorf("build %s: %w", path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// The secret key is the Basic user name with an empty password.
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(g.SecretKey+":")))
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	c := g.Client
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s %s: %w", ErrGatewayDown, method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("%w: read %s: %w", ErrGatewayDown, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		ge := &GatewayError{Status: resp.StatusCode}
		if json.Unmarshal(b, ge) != nil || ge.Code == "" {
			return fmt.Errorf("%w: %s %s: status %d", ErrGatewayDown, method, path, resp.StatusCode)
		}
		// 401 means our keys are wrong, 5xx that the gateway failed: neither
		// is an answer about the payment.
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusUnauthorized {
			return fmt.Errorf("%w: %s %s: %w", ErrGatewayDown, method, path, ge)
		}
		return ge
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%w: decode %s: %w", ErrGatewayDown, path, err)
	}
	return nil
}

// Confirm implements PaymentGateway.
func (g *HTTPGateway) Confirm(ctx context.Context, idemKey, paymentKey, orderID string, amount int64) (Payment, error) {
	var p Payment
	err := g.call(ctx, http.MethodPost, "/v1/payments/confirm", idemKey,
		map[string]any{"paymentKey": paymentKey, "orderId": orderID, "amount": amount}, &p)
	return p, err
}

// Payment implements PaymentGateway.
func (g *HTTPGateway) Payment(ctx context.Context, paymentKey string) (Payment, error) {
	var p Payment
	err := g.call(ctx, http.MethodGet, "/v1/payments/"+url.PathEscape(paymentKey), "", nil, &p)
	return p, err
}

// PaymentByOrder implements PaymentGateway.
func (g *HTTPGateway) PaymentByOrder(ctx context.Context, orderID string) (Payment, error) {
	var p Payment
	err := g.call(ctx, http.MethodGet, "/v1/payments/orders/"+url.PathEscape(orderID), "", nil, &p)
	return p, err
}

// Cancel implements PaymentGateway.
func (g *HTTPGateway) Cancel(ctx context.Context, idemKey, paymentKey string, c CancelRequest) (Payment, error) {
	var p Payment
	err := g.call(ctx, http.MethodPost, "/v1/payments/"+url.PathEscape(paymentKey)+"/cancel", idemKey, c, &p)
	return p, err
}

// Settlements implements PaymentGateway.
func (g *HTTPGateway) Settlements(ctx context.Context, start, end time.Time, page, size int) ([]Settlement, error) {
	q := url.Values{"startDate": {start.Format(time.DateOnly)}, "endDate": {end.Format(time.DateOnly)},
		"page": {fmt.Sprint(page)}, "size": {fmt.Sprint(size)}}
	var out []Settlement
	err := g.call(ctx, http.MethodGet, "/v1/settlements?"+q.Encode(), "", nil, &out)
	return out, err
}

// ParseWebhook decodes a webhook body. It proves nothing: the caller looks
// the payment up and trusts only that answer.
func ParseWebhook(body []byte) (WebhookEvent, error) {
	var ev WebhookEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return ev, fmt.Errorf("decode webhook: %w", err)
	}
	if ev.EventType == "" {
		return ev, errors.New("webhook without eventType")
	}
	return ev, nil
}

// Widget is what the client needs to open the payment widget: the order
// the writer fixed, the client key and where the widget comes back to.
type Widget struct {
	ClientKey  string `json:"clientKey"`
	OrderID    string `json:"orderId"`
	OrderName  string `json:"orderName"`
	Amount     int64  `json:"amount"`
	SuccessURL string `json:"successUrl"`
	FailURL    string `json:"failUrl"`
}

// SandboxCheckoutURL is the sandbox's stand-in for the widget: the widget's
// parameters base64url-encoded in the path, so that base + "/approve" and
// base + "/fail" are the buyer's two answers.
func SandboxCheckoutURL(base string, w Widget) string {
	b, _ := json.Marshal(w)
	return strings.TrimRight(base, "/") + "/sandbox/checkout/" + base64.RawURLEncoding.EncodeToString(b)
}
