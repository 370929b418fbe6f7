// Package pgsandbox is a fake Korean card payment gateway (in the style of
// Toss Payments) that speaks real HTTP: the merchant creates a payment, the
// buyer approves or declines it on the checkout page, the merchant confirms it,
// and every status change is reported to the merchant's webhook URL with an
// HMAC signature, retried until acknowledged. Cancellation and re-delivery of
// a webhook (what real PGs do on timeouts) are supported.
//
// Use it in tests through httptest (New + Handler) and in the dev launcher
// through Start. It keeps everything in memory; it is not for production.
package pgsandbox

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Dev defaults of the keys, matching the writer's PAYMENT_SECRET_KEY and
// PAYMENT_WEBHOOK_SECRET defaults.
const (
	DefaultSecretKey     = "test_sk_sandbox"
	DefaultWebhookSecret = "whsec_sandbox"
)

// Config of a sandbox. Zero values get defaults.
type Config struct {
	// SecretKey authenticates the merchant (HTTP Basic user, empty password).
	SecretKey string
	// WebhookSecret signs webhooks: header X-PG-Signature "v1=" + hex HMAC-SHA256(body).
	WebhookSecret string
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
	Ready    = "READY"
	Approved = "APPROVED"
	Done     = "DONE"
	Aborted  = "ABORTED"
	Canceled = "CANCELED"
)

type payment struct {
	PaymentKey string `json:"paymentKey"`
	OrderID    string `json:"orderId"`
	OrderName  string `json:"orderName"`
	Status     string `json:"status"`
	Amount     int64  `json:"totalAmount"`
	successURL string
	failURL    string
}

// Delivery is one webhook attempt record.
type Delivery struct {
	EventID string
	Status  string // the payment status reported
	Code    int    // HTTP status of the last attempt, 0 if it never answered
	Body    []byte
}

// Sandbox is the fake PG. Safe for concurrent use.
type Sandbox struct {
	cfg        Config
	mu         sync.Mutex
	payments   map[string]*payment
	byOrder    map[string]string
	deliveries []*Delivery
	wg         sync.WaitGroup
	ctx        context.Context
	stop       context.CancelFunc
	base       string
}

// New makes a sandbox.
func New(cfg Config) *Sandbox {
	if cfg.SecretKey == "" {
		cfg.SecretKey = DefaultSecretKey
	}
	if cfg.WebhookSecret == "" {
		cfg.WebhookSecret = DefaultWebhookSecret
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
	return &Sandbox{cfg: cfg, payments: map[string]*payment{}, byOrder: map[string]string{}, ctx: ctx, stop: stop}
}

// SetWebhookURL sets where webhooks go.
func (s *Sandbox) SetWebhookURL(u string) {
	s.mu.Lock()
	s.cfg.WebhookURL = u
	s.mu.Unlock()
}

// SetBaseURL sets the public base of checkout URLs (default: the request's host).
func (s *Sandbox) SetBaseURL(u string) {
	s.mu.Lock()
	s.base = strings.TrimRight(u, "/")
	s.mu.Unlock()
}

// Close stops webhook retries and waits for deliveries in flight.
func (s *Sandbox) Close() {
	s.stop()
	s.wg.Wait()
}

// Handler serves the PG API and the checkout page:
//
//	POST /v1/payments                    {orderId, amount, orderName, successUrl, failUrl} -> {paymentKey, checkoutUrl}
//	POST /v1/payments/confirm            {paymentKey, orderId, amount} -> payment (DONE)
//	POST /v1/payments/{paymentKey}/cancel {cancelReason} -> payment (CANCELED)
//	GET  /v1/payments/{paymentKey}       payment
//	GET  /checkout/{paymentKey}          the buyer's page (approve / decline buttons)
//	POST /checkout/{paymentKey}/approve  buyer approves -> 303 to successUrl?paymentKey&orderId&amount
//	POST /checkout/{paymentKey}/fail     buyer declines -> 303 to failUrl?code&message&orderId
func (s *Sandbox) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/payments", s.auth(s.create))
	mux.HandleFunc("POST /v1/payments/confirm", s.auth(s.confirm))
	mux.HandleFunc("POST /v1/payments/{key}/cancel", s.auth(s.cancel))
	mux.HandleFunc("GET /v1/payments/{key}", s.auth(s.get))
	mux.HandleFunc("GET /checkout/{key}", s.page)
	mux.HandleFunc("POST /checkout/{key}/approve", s.approve)
	mux.HandleFunc("POST /checkout/{key}/fail", s.fail)
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
	u := "http://" + ln.Addr().String()
	sb.SetBaseURL(u)
	srv := &http.Server{Handler: sb.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &Server{Sandbox: sb, URL: u, srv: srv}, nil
}

// Close stops the server and its deliveries.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	s.Sandbox.Close()
	return err
}

type pgError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, pgError{Code: code, Message: msg})
}

func (s *Sandbox) auth(h http.HandlerFunc) http.HandlerFunc {
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(s.cfg.SecretKey+":"))
	return func(w http.ResponseWriter, r *http.Request) {
		if !hmac.Equal([]byte(r.Header.Get("Authorization")), []byte(want)) {
			fail(w, http.StatusUnauthorized, "UNAUTHORIZED_KEY", "인증되지 않은 시크릿 키입니다.")
			return
		}
		h(w, r)
	}
}

func randomKey(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func (s *Sandbox) create(w http.ResponseWriter, r *http.Request) {
	var in struct {
		OrderID    string `json:"orderId"`
		Amount     int64  `json:"amount"`
		OrderName  string `json:"orderName"`
		SuccessURL string `json:"successUrl"`
		FailURL    string `json:"failUrl"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil || in.OrderID == "" || in.Amount <= 0 {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.byOrder[in.OrderID]; dup {
		fail(w, http.StatusConflict, "DUPLICATED_ORDER_ID", "이미 사용된 주문번호입니다.")
		return
	}
	p := &payment{PaymentKey: randomKey("pk_"), OrderID: in.OrderID, OrderName: in.OrderName, Status: Ready,
		Amount: in.Amount, successURL: in.SuccessURL, failURL: in.FailURL}
	s.payments[p.PaymentKey] = p
	s.byOrder[p.OrderID] = p.PaymentKey
	base := s.base
	if base == "" {
		base = "http://" + r.Host
	}
	writeJSON(w, http.StatusOK, map[string]string{"paymentKey": p.PaymentKey, "checkoutUrl": base + "/checkout/" + p.PaymentKey})
}

func (s *Sandbox) lookup(key string) (*payment, bool) {
	p, ok := s.payments[key]
	return p, ok
}

func (s *Sandbox) confirm(w http.ResponseWriter, r *http.Request) {
	var in struct {
		PaymentKey string `json:"paymentKey"`
		OrderID    string `json:"orderId"`
		Amount     int64  `json:"amount"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.lookup(in.PaymentKey)
	switch {
	case !ok || p.OrderID != in.OrderID:
		fail(w, http.StatusNotFound, "NOT_FOUND_PAYMENT", "존재하지 않는 결제 정보 입니다.")
		return
	case p.Amount != in.Amount:
		fail(w, http.StatusBadRequest, "INVALID_AMOUNT", "결제 금액이 일치하지 않습니다.")
		return
	case p.Status == Done:
		fail(w, http.StatusBadRequest, "ALREADY_PROCESSED_PAYMENT", "이미 처리된 결제 입니다.")
		return
	case p.Status != Approved:
		fail(w, http.StatusForbidden, "NOT_AUTHORIZED_PAYMENT", "구매자 인증이 완료되지 않은 결제입니다.")
		return
	case s.cfg.DeclineAmount != 0 && p.Amount == s.cfg.DeclineAmount:
		p.Status = Aborted
		s.notify(p)
		fail(w, http.StatusForbidden, "REJECT_CARD_COMPANY", "카드사에서 결제를 거절했습니다.")
		return
	}
	p.Status = Done
	s.notify(p)
	writeJSON(w, http.StatusOK, p)
}

func (s *Sandbox) cancel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.lookup(r.PathValue("key"))
	if !ok {
		fail(w, http.StatusNotFound, "NOT_FOUND_PAYMENT", "존재하지 않는 결제 정보 입니다.")
		return
	}
	if p.Status != Done {
		fail(w, http.StatusForbidden, "NOT_CANCELABLE_PAYMENT", "취소할 수 없는 결제입니다.")
		return
	}
	p.Status = Canceled
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

var pageTmpl = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="ko"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>결제 샌드박스</title>
<h1>{{.OrderName}}</h1><p>{{.Amount}}원 (샌드박스)</p>
<form method="post" action="/checkout/{{.PaymentKey}}/approve"><button>결제하기</button></form>
<form method="post" action="/checkout/{{.PaymentKey}}/fail"><button>취소</button></form>
</html>`))

func (s *Sandbox) page(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p, ok := s.lookup(r.PathValue("key"))
	var cp payment
	if ok {
		cp = *p
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTmpl.Execute(w, cp)
}

func redirect(w http.ResponseWriter, r *http.Request, target string, q url.Values) {
	if target == "" {
		writeJSON(w, http.StatusOK, q)
		return
	}
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	http.Redirect(w, r, target+sep+q.Encode(), http.StatusSeeOther)
}

// approve is the buyer passing card authentication.
func (s *Sandbox) approve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p, ok := s.lookup(r.PathValue("key"))
	if !ok || p.Status != Ready {
		s.mu.Unlock()
		fail(w, http.StatusConflict, "INVALID_STATUS", "결제를 진행할 수 없습니다.")
		return
	}
	p.Status = Approved
	q := url.Values{"paymentKey": {p.PaymentKey}, "orderId": {p.OrderID}, "amount": {fmt.Sprint(p.Amount)}}
	target := p.successURL
	s.mu.Unlock()
	redirect(w, r, target, q)
}

// fail is the buyer giving up or failing authentication.
func (s *Sandbox) fail(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p, ok := s.lookup(r.PathValue("key"))
	if !ok || (p.Status != Ready && p.Status != Approved) {
		s.mu.Unlock()
		fail(w, http.StatusConflict, "INVALID_STATUS", "결제를 진행할 수 없습니다.")
		return
	}
	p.Status = Aborted
	s.notify(p)
	q := url.Values{"code": {"PAY_PROCESS_CANCELED"}, "message": {"사용자에 의해 결제가 취소되었습니다."}, "orderId": {p.OrderID}}
	target := p.failURL
	s.mu.Unlock()
	redirect(w, r, target, q)
}

// notify queues a webhook for p's current status. Caller holds s.mu.
func (s *Sandbox) notify(p *payment) {
	body, _ := json.Marshal(map[string]any{
		"eventId":   randomKey("ev_"),
		"eventType": "PAYMENT_STATUS_CHANGED",
		"createdAt": s.cfg.Now().UTC(),
		"data":      p,
	})
	var ev struct {
		EventID string `json:"eventId"`
	}
	_ = json.Unmarshal(body, &ev)
	d := &Delivery{EventID: ev.EventID, Status: p.Status, Body: body}
	s.deliveries = append(s.deliveries, d)
	s.send(d)
}

// Sign returns the signature header value of body.
func (s *Sandbox) Sign(body []byte) string {
	m := hmac.New(sha256.New, []byte(s.cfg.WebhookSecret))
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// send delivers d in the background, retrying with backoff until a 2xx or Close.
func (s *Sandbox) send(d *Delivery) {
	target := s.cfg.WebhookURL
	if target == "" {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		backoff := 50 * time.Millisecond
		for attempt := 0; attempt < 10; attempt++ {
			code := s.post(target, d.Body)
			s.mu.Lock()
			d.Code = code
			s.mu.Unlock()
			if code >= 200 && code < 300 {
				return
			}
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 2*time.Second)
		}
	}()
}

func (s *Sandbox) post(target string, body []byte) int {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PG-Signature", s.Sign(body))
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		s.cfg.Log.Warn("payment sandbox: webhook failed", "err", err)
		return 0
	}
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

// Redeliver sends the webhook of eventID again, as a PG does after a timeout.
func (s *Sandbox) Redeliver(eventID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.deliveries {
		if d.EventID == eventID {
			s.send(d)
			return nil
		}
	}
	return fmt.Errorf("no webhook %s", eventID)
}

// Wait blocks until every queued delivery finished (acknowledged or given up).
func (s *Sandbox) Wait() { s.wg.Wait() }
