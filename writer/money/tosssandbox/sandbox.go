// Package tosssandbox is a fake of Toss Payments' core API v1 in test mode,
// over real HTTP, so the writer's gateway client is the production code:
//
//   - the payment widget's part (client key, order id and amount fixed by the
//     merchant, buyer authentication, redirect to successUrl with paymentKey,
//     orderId and amount, or to failUrl with code, message and orderId) is a
//     checkout page standing in for the widget;
//   - confirm, lookup by payment key and by order id, full and partial cancel
//     and the settlement list answer with the documented paths, fields, status
//     codes and error codes ({code, message}), Basic auth with the secret key,
//     Idempotency-Key replay on POST;
//   - every status change is sent as an unsigned PAYMENT_STATUS_CHANGED
//     webhook {eventType, createdAt, data: Payment}, retried until 200.
//   - automatic payments (billing.go): a card-registration window page
//     returning customerKey and authKey, POST /v1/billing/authorizations/issue
//     and POST /v1/billing/{billingKey}.
//
// Use it in tests through httptest (New + Handler) and in the dev launcher
// through Start. It keeps everything in memory; it is not for production.
package tosssandbox

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"storefront/writer/internal/standin"
)

// Dev defaults of the keys, matching the writer's PAYMENT_SECRET_KEY and
// PAYMENT_CLIENT_KEY defaults (test mode keys start test_sk_ / test_ck_).
const (
	DefaultSecretKey = "test_sk_sandbox"
	DefaultClientKey = "test_ck_sandbox"
)

// ConfirmTimeout is how long an authenticated payment waits for the
// merchant's confirm before it expires (the documented 10 minutes).
const ConfirmTimeout = 10 * time.Minute

// Config of a sandbox. Zero values get defaults.
type Config struct {
	// SecretKey authenticates the merchant's server (HTTP Basic user, empty password).
	SecretKey string
	// ClientKey opens the widget (the checkout page).
	ClientKey string
	// WebhookURL receives status changes (may be set later with SetWebhookURL).
	WebhookURL string
	// DeclineAmount makes the card company decline payments of exactly this
	// amount at confirm time (a test hook for the failure path); 0 = none.
	DeclineAmount int64
	Client        *http.Client
	Log           *slog.Logger
	Now           func() time.Time
}

// Payment statuses.
const (
	InProgress      = "IN_PROGRESS"
	Done            = "DONE"
	Canceled        = "CANCELED"
	PartialCanceled = "PARTIAL_CANCELED"
	Aborted         = "ABORTED"
	Expired         = "EXPIRED"
)

// kst is the gateway's clock zone: its times carry +09:00 and its
// settlement dates are Korean days.
var kst = time.FixedZone("KST", 9*3600)

const isoOffset = "2006-01-02T15:04:05-07:00"

type cancel struct {
	CancelAmount     int64  `json:"cancelAmount"`
	CancelReason     string `json:"cancelReason"`
	TaxFreeAmount    int64  `json:"taxFreeAmount"`
	RefundableAmount int64  `json:"refundableAmount"`
	CanceledAt       string `json:"canceledAt"`
	TransactionKey   string `json:"transactionKey"`
	ReceiptKey       any    `json:"receiptKey"`
	CancelStatus     string `json:"cancelStatus"`
	CancelRequestID  any    `json:"cancelRequestId"`
	at               time.Time
}

type failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type payment struct {
	Version             string     `json:"version"`
	PaymentKey          string     `json:"paymentKey"`
	Type                string     `json:"type"`
	OrderID             string     `json:"orderId"`
	OrderName           string     `json:"orderName"`
	MID                 string     `json:"mId"`
	Currency            string     `json:"currency"`
	Method              string     `json:"method"`
	TotalAmount         int64      `json:"totalAmount"`
	BalanceAmount       int64      `json:"balanceAmount"`
	Status              string     `json:"status"`
	RequestedAt         string     `json:"requestedAt"`
	ApprovedAt          *string    `json:"approvedAt"`
	UseEscrow           bool       `json:"useEscrow"`
	LastTransactionKey  *string    `json:"lastTransactionKey"`
	SuppliedAmount      int64      `json:"suppliedAmount"`
	Vat                 int64      `json:"vat"`
	CultureExpense      bool       `json:"cultureExpense"`
	TaxFreeAmount       int64      `json:"taxFreeAmount"`
	TaxExemptionAmount  int64      `json:"taxExemptionAmount"`
	Cancels             []*cancel  `json:"cancels"`
	IsPartialCancelable bool       `json:"isPartialCancelable"`
	Card                any        `json:"card"`
	Receipt             *urlObject `json:"receipt"`
	Checkout            *urlObject `json:"checkout"`
	Failure             *failure   `json:"failure"`
	Country             string     `json:"country"`
	requested, approved time.Time
}

type urlObject struct {
	URL string `json:"url"`
}

type stored struct {
	code int
	body []byte
}

// Sandbox is the fake gateway. Safe for concurrent use.
type Sandbox struct {
	cfg        Config
	mu         sync.Mutex
	payments   map[string]*payment
	byOrder    map[string]string
	idem       map[string]stored
	deliveries []*Delivery
	billing    *billingState
	wg         sync.WaitGroup
	ctx        context.Context
	stop       context.CancelFunc
}

// New makes a sandbox.
func New(cfg Config) *Sandbox {
	if cfg.SecretKey == "" {
		cfg.SecretKey = DefaultSecretKey
	}
	if cfg.ClientKey == "" {
		cfg.ClientKey = DefaultClientKey
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 5 * time.Second}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Sandbox{cfg: cfg, payments: map[string]*payment{}, byOrder: map[string]string{}, idem: map[string]stored{},
		ctx: ctx, stop: stop}
}

// SetWebhookURL sets where webhooks go.
func (s *Sandbox) SetWebhookURL(u string) {
	s.mu.Lock()
	s.cfg.WebhookURL = u
	s.mu.Unlock()
}

// Close stops webhook retries and waits for deliveries in flight.
func (s *Sandbox) Close() {
	s.stop()
	s.wg.Wait()
}

// Handler serves the gateway API and the widget's stand-in:
//
//	POST /v1/payments/confirm                {paymentKey, orderId, amount} -> Payment (DONE)
//	GET  /v1/payments/{paymentKey}           Payment
//	GET  /v1/payments/orders/{orderId}       Payment
//	POST /v1/payments/{paymentKey}/cancel    {cancelReason, cancelAmount?, refundableAmount?} -> Payment
//	GET  /v1/settlements?startDate=&endDate=&page=&size=   [Settlement]
//	POST /v1/billing/authorizations/issue    {authKey, customerKey} -> Billing (billingKey, card)
//	POST /v1/billing/{billingKey}            {customerKey, amount, orderId, orderName} -> Payment (BILLING, DONE)
//	GET  /sandbox/billing/{session}          the card-registration window (register / give up)
//	POST /sandbox/billing/{session}/approve  card holder authenticated -> 303 successUrl?customerKey&authKey
//	POST /sandbox/billing/{session}/fail     gave up -> 303 failUrl?code&message
//	GET  /sandbox/checkout/{session}         the widget's page (approve / give up)
//	POST /sandbox/checkout/{session}/approve buyer authenticated -> 303 successUrl?paymentType&orderId&paymentKey&amount
//	POST /sandbox/checkout/{session}/fail    buyer gave up -> 303 failUrl?code&message&orderId
//
// {session} is money.SandboxCheckoutURL's encoding of the widget's
// parameters (clientKey, orderId, orderName, amount, successUrl, failUrl).
func (s *Sandbox) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/payments/confirm", s.auth(s.idempotent(s.confirm)))
	mux.HandleFunc("GET /v1/payments/orders/{orderId}", s.auth(s.getByOrder))
	mux.HandleFunc("GET /v1/payments/{key}", s.auth(s.get))
	mux.HandleFunc("POST /v1/payments/{key}/cancel", s.auth(s.idempotent(s.cancel)))
	mux.HandleFunc("GET /v1/settlements", s.auth(s.settlements))
	mux.HandleFunc("POST /v1/billing/authorizations/issue", s.auth(s.idempotent(s.issueBillingKey)))
	mux.HandleFunc("POST /v1/billing/{billingKey}", s.auth(s.idempotent(s.chargeBilling)))
	mux.HandleFunc("GET /sandbox/billing/{session}", s.billingPage)
	mux.HandleFunc("POST /sandbox/billing/{session}/approve", s.billingApprove)
	mux.HandleFunc("POST /sandbox/billing/{session}/fail", s.billingGiveUp)
	mux.HandleFunc("GET /sandbox/checkout/{session}", s.page)
	mux.HandleFunc("POST /sandbox/checkout/{session}/approve", s.approve)
	mux.HandleFunc("POST /sandbox/checkout/{session}/fail", s.giveUp)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return mux
}

// Server is a sandbox listening on its own port (its URL).
type Server struct {
	*Sandbox
	*standin.Server
}

// Start serves a sandbox on addr ("127.0.0.1:0" for a free port), for the dev launcher.
func Start(addr string, cfg Config) (*Server, error) {
	sb := New(cfg)
	h, err := standin.Start(addr, sb.Handler())
	if err != nil {
		sb.Close()
		return nil, fmt.Errorf("payment sandbox: %w", err)
	}
	return &Server{sb, h}, nil
}

// Close stops the server and its deliveries.
func (s *Server) Close() error {
	err := s.Server.Close()
	s.Sandbox.Close()
	return err
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, failure{Code: code, Message: msg})
}

func (s *Sandbox) auth(h http.HandlerFunc) http.HandlerFunc {
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(s.cfg.SecretKey+":"))
	return func(w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		if !strings.HasPrefix(a, "Basic ") {
			fail(w, http.StatusUnauthorized, "INCORRECT_BASIC_AUTH_FORMAT", "잘못된 요청입니다. ':' 를 포함해 인코딩해주세요.")
			return
		}
		if !hmac.Equal([]byte(a), []byte(want)) {
			fail(w, http.StatusUnauthorized, "UNAUTHORIZED_KEY", "인증되지 않은 시크릿 키 혹은 클라이언트 키 입니다.")
			return
		}
		h(w, r)
	}
}

// recorder keeps an answer so that an Idempotency-Key replays it.
type recorder struct {
	http.ResponseWriter
	code int
	buf  bytes.Buffer
}

func (r *recorder) WriteHeader(code int) { r.code = code; r.ResponseWriter.WriteHeader(code) }
func (r *recorder) Write(b []byte) (int, error) {
	r.buf.Write(b)
	return r.ResponseWriter.Write(b)
}

// idempotent answers a POST carrying an Idempotency-Key it has seen with the
// first answer again (keys up to 300 characters; kept for the sandbox's life,
// the real gateway keeps them 15 days).
func (s *Sandbox) idempotent(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			h(w, r)
			return
		}
		if len(key) > 300 {
			fail(w, http.StatusBadRequest, "INVALID_REQUEST", "멱등키는 300자 이하여야 합니다.")
			return
		}
		id := r.URL.Path + "\n" + key
		s.mu.Lock()
		st, ok := s.idem[id]
		s.mu.Unlock()
		if ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st.code)
			_, _ = w.Write(st.body)
			return
		}
		rec := &recorder{ResponseWriter: w, code: http.StatusOK}
		h(rec, r)
		if rec.code >= 500 {
			return // the gateway failed before doing anything: a retry is a new attempt
		}
		s.mu.Lock()
		s.idem[id] = stored{code: rec.code, body: rec.buf.Bytes()}
		s.mu.Unlock()
	}
}

func randomKey(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Sandbox) stamp(t time.Time) string { return t.In(kst).Format(isoOffset) }

// expire turns a payment not confirmed in time into EXPIRED. Caller holds s.mu.
func (s *Sandbox) expire(p *payment) {
	if p.Status == InProgress && s.cfg.Now().Sub(p.requested) > ConfirmTimeout {
		p.Status = Expired
		s.notify(p)
	}
}

func (s *Sandbox) lookup(key string) (*payment, bool) {
	p, ok := s.payments[key]
	if ok {
		s.expire(p)
	}
	return p, ok
}

func readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(v); err != nil {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return false
	}
	return true
}

func (s *Sandbox) confirm(w http.ResponseWriter, r *http.Request) {
	var in struct {
		PaymentKey string `json:"paymentKey"`
		OrderID    string `json:"orderId"`
		Amount     *int64 `json:"amount"`
	}
	if !readBody(w, r, &in) {
		return
	}
	if in.PaymentKey == "" || in.OrderID == "" || in.Amount == nil {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.lookup(in.PaymentKey)
	switch {
	case !ok:
		fail(w, http.StatusNotFound, "NOT_FOUND_PAYMENT", "존재하지 않는 결제 정보 입니다.")
		return
	case p.Status == Expired:
		fail(w, http.StatusNotFound, "NOT_FOUND_PAYMENT_SESSION", "결제 시간이 만료되어 결제 진행 데이터가 존재하지 않습니다.")
		return
	case p.OrderID != in.OrderID || p.TotalAmount != *in.Amount:
		// The widget fixed both: anything else is a tampered success redirect.
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	case p.Status != InProgress:
		fail(w, http.StatusBadRequest, "ALREADY_PROCESSED_PAYMENT", "이미 처리된 결제 입니다.")
		return
	case s.cfg.DeclineAmount != 0 && p.TotalAmount == s.cfg.DeclineAmount:
		p.Status = Aborted
		p.Failure = &failure{Code: "REJECT_CARD_PAYMENT", Message: "한도초과 혹은 잔액부족으로 결제에 실패했습니다."}
		s.notify(p)
		fail(w, http.StatusForbidden, p.Failure.Code, p.Failure.Message)
		return
	}
	now := s.cfg.Now()
	at := s.stamp(now)
	tx := randomKey(16)
	p.Status, p.ApprovedAt, p.LastTransactionKey, p.approved = Done, &at, &tx, now
	p.BalanceAmount = p.TotalAmount
	p.Receipt = &urlObject{URL: "https://dashboard.tosspayments.com/receipt/redirection?transactionId=" + tx}
	s.notify(p)
	writeJSON(w, http.StatusOK, p)
}

func (s *Sandbox) get(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.lookup(r.PathValue("key"))
	if !ok {
		fail(w, http.StatusNotFound, "NOT_FOUND_PAYMENT", "존재하지 않는 결제 정보 입니다.")
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (s *Sandbox) getByOrder(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.lookup(s.byOrder[r.PathValue("orderId")])
	if !ok {
		fail(w, http.StatusNotFound, "NOT_FOUND_PAYMENT", "존재하지 않는 결제 정보 입니다.")
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (s *Sandbox) cancel(w http.ResponseWriter, r *http.Request) {
	var in struct {
		CancelReason     string `json:"cancelReason"`
		CancelAmount     *int64 `json:"cancelAmount"`
		RefundableAmount *int64 `json:"refundableAmount"`
	}
	if !readBody(w, r, &in) {
		return
	}
	if in.CancelReason == "" || len([]rune(in.CancelReason)) > 200 || (in.CancelAmount != nil && *in.CancelAmount <= 0) {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.lookup(r.PathValue("key"))
	switch {
	case !ok:
		fail(w, http.StatusNotFound, "NOT_FOUND_PAYMENT", "존재하지 않는 결제 정보 입니다.")
		return
	case p.Status == Canceled:
		fail(w, http.StatusBadRequest, "ALREADY_CANCELED_PAYMENT", "이미 취소된 결제 입니다.")
		return
	case p.Status != Done && p.Status != PartialCanceled:
		fail(w, http.StatusForbidden, "NOT_CANCELABLE_PAYMENT", "취소 할 수 없는 결제 입니다.")
		return
	case in.RefundableAmount != nil && *in.RefundableAmount != p.BalanceAmount:
		fail(w, http.StatusBadRequest, "NOT_MATCHES_REFUNDABLE_AMOUNT", "잔액 결과가 일치하지 않습니다.")
		return
	}
	amount := p.BalanceAmount
	if in.CancelAmount != nil {
		amount = *in.CancelAmount
	}
	if amount > p.BalanceAmount {
		fail(w, http.StatusForbidden, "NOT_CANCELABLE_AMOUNT", "취소 할 수 없는 금액 입니다.")
		return
	}
	now := s.cfg.Now()
	tx := randomKey(16)
	p.BalanceAmount -= amount
	p.Cancels = append(p.Cancels, &cancel{CancelAmount: amount, CancelReason: in.CancelReason, RefundableAmount: p.BalanceAmount,
		CanceledAt: s.stamp(now), TransactionKey: tx, CancelStatus: "DONE", at: now})
	p.LastTransactionKey = &tx
	p.Status = PartialCanceled
	if p.BalanceAmount == 0 {
		p.Status = Canceled
	}
	s.notify(p)
	writeJSON(w, http.StatusOK, p)
}
