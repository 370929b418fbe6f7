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
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
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

// Delivery is one webhook and its last attempt.
type Delivery struct {
	Status string // the payment status reported
	Code   int    // HTTP status of the last attempt, 0 if it never answered
	Body   []byte
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
	mux.HandleFunc("GET /sandbox/checkout/{session}", s.page)
	mux.HandleFunc("POST /sandbox/checkout/{session}/approve", s.approve)
	mux.HandleFunc("POST /sandbox/checkout/{session}/fail", s.giveUp)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return mux
}

// Server is a sandbox listening on its own port.
type Server struct {
	*Sandbox
	URL string
	srv *http.Server
}

// Start serves a sandbox on addr ("127.0.0.1:0" for a free port), for the dev launcher.
func Start(addr string, cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen payment sandbox: %w", err)
	}
	sb := New(cfg)
	srv := &http.Server{Handler: sb.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &Server{Sandbox: sb, URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// Close stops the server and its deliveries.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
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

type settlement struct {
	MID            string `json:"mId"`
	PaymentKey     string `json:"paymentKey"`
	TransactionKey string `json:"transactionKey"`
	OrderID        string `json:"orderId"`
	Currency       string `json:"currency"`
	Method         string `json:"method"`
	Amount         int64  `json:"amount"`
	InterestFree   int64  `json:"interestFreeAmount"`
	Fees           []fee  `json:"fees"`
	SupplyAmount   int64  `json:"supplyAmount"`
	Vat            int64  `json:"vat"`
	PayOutAmount   int64  `json:"payOutAmount"`
	ApprovedAt     string `json:"approvedAt"`
	SoldDate       string `json:"soldDate"`
	PaidOutDate    string `json:"paidOutDate"`
	Cancel         any    `json:"cancel"`
	at             time.Time
}

type fee struct {
	Type string `json:"type"`
	Fee  int64  `json:"fee"`
}

// settlements lists approvals and cancels sold (in Korean days) between
// startDate and endDate inclusive, oldest first, paged.
func (s *Sandbox) settlements(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	start, err1 := time.ParseInLocation(time.DateOnly, q.Get("startDate"), kst)
	end, err2 := time.ParseInLocation(time.DateOnly, q.Get("endDate"), kst)
	page, size := 1, 100
	var err3, err4 error
	if v := q.Get("page"); v != "" {
		page, err3 = strconv.Atoi(v)
	}
	if v := q.Get("size"); v != "" {
		size, err4 = strconv.Atoi(v)
	}
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || end.Before(start) || page < 1 || size < 1 || size > 10000 {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	}
	end = end.AddDate(0, 0, 1)
	in := func(t time.Time) bool { return !t.Before(start) && t.Before(end) }
	s.mu.Lock()
	var rows []settlement
	for _, p := range s.payments {
		if p.ApprovedAt == nil {
			continue
		}
		row := func(tx string, amount int64, at time.Time, c any) settlement {
			f := amount * 3 / 100 // the sandbox's card fee: 3 %
			return settlement{MID: p.MID, PaymentKey: p.PaymentKey, TransactionKey: tx, OrderID: p.OrderID, Currency: "KRW",
				Method: p.Method, Amount: amount, Fees: []fee{{Type: "BASE", Fee: f}}, SupplyAmount: amount * 10 / 11,
				Vat: amount - amount*10/11, PayOutAmount: amount - f, ApprovedAt: *p.ApprovedAt,
				SoldDate: at.In(kst).Format(time.DateOnly), PaidOutDate: at.In(kst).AddDate(0, 0, 2).Format(time.DateOnly), Cancel: c, at: at}
		}
		if in(p.approved) {
			first := *p.LastTransactionKey
			if len(p.Cancels) > 0 {
				first = "approval-" + p.PaymentKey
			}
			rows = append(rows, row(first, p.TotalAmount, p.approved, nil))
		}
		for _, c := range p.Cancels {
			if in(c.at) {
				rows = append(rows, row(c.TransactionKey, -c.CancelAmount, c.at,
					map[string]any{"cancelAmount": c.CancelAmount, "cancelReason": c.CancelReason, "canceledAt": c.CanceledAt}))
			}
		}
	}
	s.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].at.Equal(rows[j].at) {
			return rows[i].at.Before(rows[j].at)
		}
		return rows[i].TransactionKey < rows[j].TransactionKey
	})
	from := min((page-1)*size, len(rows))
	writeJSON(w, http.StatusOK, append([]settlement{}, rows[from:min(from+size, len(rows))]...))
}

// widget is what the widget was opened with.
type widget struct {
	ClientKey  string `json:"clientKey"`
	OrderID    string `json:"orderId"`
	OrderName  string `json:"orderName"`
	Amount     int64  `json:"amount"`
	SuccessURL string `json:"successUrl"`
	FailURL    string `json:"failUrl"`
}

func (s *Sandbox) session(w http.ResponseWriter, r *http.Request) (widget, bool) {
	var wd widget
	b, err := base64.RawURLEncoding.DecodeString(r.PathValue("session"))
	if err != nil || json.Unmarshal(b, &wd) != nil || wd.OrderID == "" || wd.Amount <= 0 {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return wd, false
	}
	if !hmac.Equal([]byte(wd.ClientKey), []byte(s.cfg.ClientKey)) {
		fail(w, http.StatusUnauthorized, "UNAUTHORIZED_KEY", "인증되지 않은 시크릿 키 혹은 클라이언트 키 입니다.")
		return wd, false
	}
	return wd, true
}

var pageTmpl = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="ko"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>결제 샌드박스</title>
<h1>{{.OrderName}}</h1><p>{{.Amount}}원 (테스트 결제: 실제로 청구되지 않습니다)</p>
<form method="post" action="{{.Path}}/approve"><button>결제하기</button></form>
<form method="post" action="{{.Path}}/fail"><button>취소</button></form>
</html>`))

func (s *Sandbox) page(w http.ResponseWriter, r *http.Request) {
	wd, ok := s.session(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTmpl.Execute(w, map[string]any{"OrderName": wd.OrderName, "Amount": wd.Amount, "Path": r.URL.Path})
}

func redirect(w http.ResponseWriter, r *http.Request, target string, q url.Values) {
	if target == "" {
		// No page to go back to (a load test or a script): the query as JSON.
		flat := map[string]string{}
		for k := range q {
			flat[k] = q.Get(k)
		}
		writeJSON(w, http.StatusOK, flat)
		return
	}
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	http.Redirect(w, r, target+sep+q.Encode(), http.StatusSeeOther)
}

// approve is the buyer passing authentication in the widget: the payment
// exists from here on, IN_PROGRESS until the merchant confirms it.
func (s *Sandbox) approve(w http.ResponseWriter, r *http.Request) {
	wd, ok := s.session(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	if key, dup := s.byOrder[wd.OrderID]; dup {
		p := s.payments[key]
		s.mu.Unlock()
		// The widget refuses an order id used before; a second approval of
		// one still waiting for its confirm lands on the same payment.
		if p.Status != InProgress {
			redirect(w, r, wd.FailURL, url.Values{"code": {"DUPLICATED_ORDER_ID"},
				"message": {"이미 승인 및 취소가 진행된 중복된 주문번호 입니다. 다른 주문번호로 진행해주세요."}, "orderId": {wd.OrderID}})
			return
		}
		redirect(w, r, wd.SuccessURL, successQuery(p))
		return
	}
	now := s.cfg.Now()
	p := &payment{Version: "2022-11-16", PaymentKey: "tgen_" + randomKey(12), Type: "NORMAL", OrderID: wd.OrderID,
		OrderName: wd.OrderName, MID: "tvivarepublica", Currency: "KRW", Method: "카드", TotalAmount: wd.Amount,
		BalanceAmount: wd.Amount, Status: InProgress, RequestedAt: s.stamp(now), Cancels: nil, IsPartialCancelable: true,
		Country: "KR", requested: now}
	p.SuppliedAmount = wd.Amount * 10 / 11
	p.Vat = wd.Amount - p.SuppliedAmount
	s.payments[p.PaymentKey] = p
	s.byOrder[p.OrderID] = p.PaymentKey
	s.mu.Unlock()
	redirect(w, r, wd.SuccessURL, successQuery(p))
}

func successQuery(p *payment) url.Values {
	return url.Values{"paymentType": {p.Type}, "orderId": {p.OrderID}, "paymentKey": {p.PaymentKey},
		"amount": {strconv.FormatInt(p.TotalAmount, 10)}}
}

// giveUp is the buyer closing the widget: no payment, no webhook, only the
// fail redirect.
func (s *Sandbox) giveUp(w http.ResponseWriter, r *http.Request) {
	wd, ok := s.session(w, r)
	if !ok {
		return
	}
	redirect(w, r, wd.FailURL, url.Values{"code": {"PAY_PROCESS_CANCELED"}, "message": {"사용자에 의해 결제가 취소되었습니다."},
		"orderId": {wd.OrderID}})
}

// notify queues a webhook for p's current status. Caller holds s.mu.
func (s *Sandbox) notify(p *payment) {
	body, _ := json.Marshal(map[string]any{
		"eventType": "PAYMENT_STATUS_CHANGED",
		"createdAt": s.cfg.Now().In(kst).Format("2006-01-02T15:04:05.000000"),
		"data":      p,
	})
	d := &Delivery{Status: p.Status, Body: body}
	s.deliveries = append(s.deliveries, d)
	s.send(d)
}

// send delivers d in the background, retrying with backoff until a 200 or Close.
func (s *Sandbox) send(d *Delivery) {
	target := s.cfg.WebhookURL
	if target == "" {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		backoff := 50 * time.Millisecond
		for attempt := 0; attempt < 8; attempt++ {
			code := s.post(target, d.Body)
			s.mu.Lock()
			d.Code = code
			s.mu.Unlock()
			if code == http.StatusOK {
				return
			}
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(4*backoff, 2*time.Second)
		}
	}()
}

func (s *Sandbox) post(target string, body []byte) int {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		s.cfg.Log.Warn("payment sandbox: webhook failed", "err", err)
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// Deliveries returns a copy of every webhook queued so far, in order.
func (s *Sandbox) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Delivery, len(s.deliveries))
	for i, d := range s.deliveries {
		out[i] = *d
	}
	return out
}

// Redeliver sends webhook i (an index into Deliveries) again, as the
// gateway does when an answer was lost.
func (s *Sandbox) Redeliver(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.deliveries) {
		return fmt.Errorf("no webhook %d", i)
	}
	s.send(s.deliveries[i])
	return nil
}

// Wait blocks until every queued delivery finished (acknowledged or given up).
func (s *Sandbox) Wait() { s.wg.Wait() }

// Redirect is where the widget sent the buyer back: the success query
// (PaymentKey, OrderID, Amount) or the fail query (Code, Message, OrderID).
type Redirect struct {
	PaymentKey, OrderID, Code, Message string
	Amount                             int64
}

// Pay plays the buyer in the widget over HTTP: approve (or give up) on the
// checkout page at checkoutURL and read where the widget redirects to.
func Pay(ctx context.Context, checkoutURL string, approve bool) (Redirect, error) {
	step := "/fail"
	if approve {
		step = "/approve"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, checkoutURL+step, nil)
	if err != nil {
		return Redirect{}, fmt.Errorf("checkout request: %w", err)
	}
	c := &http.Client{Timeout: 15 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return Redirect{}, fmt.Errorf("checkout %s: %w", step, err)
	}
	defer resp.Body.Close()
	q := url.Values{}
	switch resp.StatusCode {
	case http.StatusSeeOther:
		u, err := url.Parse(resp.Header.Get("Location"))
		if err != nil {
			return Redirect{}, fmt.Errorf("checkout redirect: %w", err)
		}
		q = u.Query()
	case http.StatusOK:
		var flat map[string]string
		if err := json.NewDecoder(resp.Body).Decode(&flat); err != nil {
			return Redirect{}, fmt.Errorf("checkout answer: %w", err)
		}
		for k, v := range flat {
			q.Set(k, v)
		}
	default:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return Redirect{}, fmt.Errorf("checkout %s: %d %s", step, resp.StatusCode, b)
	}
	amount, _ := strconv.ParseInt(q.Get("amount"), 10, 64)
	return Redirect{PaymentKey: q.Get("paymentKey"), OrderID: q.Get("orderId"), Code: q.Get("code"),
		Message: q.Get("message"), Amount: amount}, nil
}
