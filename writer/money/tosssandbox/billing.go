package tosssandbox

import (
	"context"
	"crypto/hmac"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"storefront/writer/internal/standin"
)

// Automatic payments (billing), as Toss's v1 documents them:
//
//   - the card-registration window (the SDK's requestBillingAuth("카드",
//     {customerKey, successUrl, failUrl})) authenticates the card holder and
//     redirects to successUrl?customerKey=..&authKey=.. (or failUrl?code&message);
//   - POST /v1/billing/authorizations/issue {authKey, customerKey} turns the
//     one-use authKey into a Billing object carrying the billingKey;
//   - POST /v1/billing/{billingKey} {customerKey, amount, orderId, orderName}
//     charges it without the buyer: a Payment of type BILLING, DONE when approved.
//
// The window here is a page standing in for the SDK's window; the two API
// calls answer with the documented fields, status codes and {code, message}.

// AuthKeyTimeout is how long an authKey of the registration window can be
// exchanged for a billing key.
const AuthKeyTimeout = 10 * time.Minute

// customerKeyRE is the documented customerKey alphabet and length: letters,
// digits and - _ = . @, 2 to 300 characters.
var customerKeyRE = regexp.MustCompile(`^[A-Za-z0-9\-_=.@]{2,300}$`)

// billingWindow is what the registration window was opened with.
type billingWindow struct {
	ClientKey   string `json:"clientKey"`
	CustomerKey string `json:"customerKey"`
	SuccessURL  string `json:"successUrl"`
	FailURL     string `json:"failUrl"`
}

type authKey struct {
	customerKey string
	at          time.Time
	used        bool
}

// billingCard is the card object of a Billing.
type billingCard struct {
	IssuerCode   string `json:"issuerCode"`
	AcquirerCode string `json:"acquirerCode"`
	Number       string `json:"number"`
	CardType     string `json:"cardType"`
	OwnerType    string `json:"ownerType"`
}

// billing is the documented Billing object.
type billing struct {
	MID             string      `json:"mId"`
	CustomerKey     string      `json:"customerKey"`
	AuthenticatedAt string      `json:"authenticatedAt"`
	Method          string      `json:"method"`
	BillingKey      string      `json:"billingKey"`
	Card            billingCard `json:"card"`
	CardCompany     string      `json:"cardCompany"`
	CardNumber      string      `json:"cardNumber"`
}

// billingState is the sandbox's memory of billing. Guarded by Sandbox.mu.
type billingState struct {
	auths    map[string]*authKey
	keys     map[string]*billing // by billingKey
	declined map[string]bool     // customerKeys whose card company declines
	failNext int                 // billing charges answered 500 before reaching the card company
	charges  map[string]int      // approved billing payments per customerKey
}

func (s *Sandbox) bill() *billingState {
	if s.billing == nil {
		s.billing = &billingState{auths: map[string]*authKey{}, keys: map[string]*billing{}, declined: map[string]bool{},
			charges: map[string]int{}}
	}
	return s.billing
}

// DeclineCustomer makes the card company decline every billing charge of
// customerKey (REJECT_CARD_COMPANY), or accept them again.
func (s *Sandbox) DeclineCustomer(customerKey string, decline bool) {
	s.mu.Lock()
	s.bill().declined[customerKey] = decline
	s.mu.Unlock()
}

// FailNextBilling makes the next n billing charges fail with a 500 before
// anything is charged (a transient failure of the gateway).
func (s *Sandbox) FailNextBilling(n int) {
	s.mu.Lock()
	s.bill().failNext = n
	s.mu.Unlock()
}

// BillingCharges is how many billing payments of customerKey were approved.
func (s *Sandbox) BillingCharges(customerKey string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bill().charges[customerKey]
}

// BillingWindowURL is the sandbox's stand-in for the card-registration
// window: its parameters base64url-encoded in the path, so that base +
// "/approve" and base + "/fail" are the card holder's two answers.
func BillingWindowURL(base, clientKey, customerKey, successURL, failURL string) string {
	b, _ := json.Marshal(billingWindow{ClientKey: clientKey, CustomerKey: customerKey, SuccessURL: successURL, FailURL: failURL})
	return strings.TrimRight(base, "/") + "/sandbox/billing/" + base64.RawURLEncoding.EncodeToString(b)
}

func (s *Sandbox) billingSession(w http.ResponseWriter, r *http.Request) (billingWindow, bool) {
	var bw billingWindow
	b, err := base64.RawURLEncoding.DecodeString(r.PathValue("session"))
	if err != nil || json.Unmarshal(b, &bw) != nil || !customerKeyRE.MatchString(bw.CustomerKey) {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return bw, false
	}
	if !hmac.Equal([]byte(bw.ClientKey), []byte(s.cfg.ClientKey)) {
		fail(w, http.StatusUnauthorized, "UNAUTHORIZED_KEY", "인증되지 않은 시크릿 키 혹은 클라이언트 키 입니다.")
		return bw, false
	}
	if !webAddress(bw.SuccessURL) || !webAddress(bw.FailURL) {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return bw, false
	}
	return bw, true
}

var billingPageTmpl = template.Must(template.New("billing").Parse(`<!doctype html>
<html lang="ko"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>카드 등록 샌드박스</title>
<h1>자동결제 카드 등록</h1><p>테스트 카드 (4330-12**-****-123*)가 등록됩니다. 실제로 청구되지 않습니다.</p>
<form method="post" action="{{.Path}}/approve"><button>카드 등록하기</button></form>
<form method="post" action="{{.Path}}/fail"><button>취소</button></form>
</html>`))

func (s *Sandbox) billingPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.billingSession(w, r); !ok {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = billingPageTmpl.Execute(w, map[string]any{"Path": r.URL.Path})
}

// billingApprove is the card holder passing authentication in the window:
// a one-use authKey goes back to successUrl with the customerKey.
func (s *Sandbox) billingApprove(w http.ResponseWriter, r *http.Request) {
	bw, ok := s.billingSession(w, r)
	if !ok {
		return
	}
	key := "bln_" + randomKey(16)
	s.mu.Lock()
	s.bill().auths[key] = &authKey{customerKey: bw.CustomerKey, at: s.cfg.Now()}
	s.mu.Unlock()
	standin.Back(w, r, bw.SuccessURL, url.Values{"customerKey": {bw.CustomerKey}, "authKey": {key}})
}

func (s *Sandbox) billingGiveUp(w http.ResponseWriter, r *http.Request) {
	bw, ok := s.billingSession(w, r)
	if !ok {
		return
	}
	standin.Back(w, r, bw.FailURL, url.Values{"code": {"PAY_PROCESS_CANCELED"}, "message": {"사용자에 의해 결제가 취소되었습니다."}})
}

// issueBillingKey is POST /v1/billing/authorizations/issue.
func (s *Sandbox) issueBillingKey(w http.ResponseWriter, r *http.Request) {
	var in struct {
		AuthKey     string `json:"authKey"`
		CustomerKey string `json:"customerKey"`
	}
	if !readBody(w, r, &in) {
		return
	}
	if in.AuthKey == "" || !customerKeyRE.MatchString(in.CustomerKey) {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.bill().auths[in.AuthKey]
	if !ok || a.used || a.customerKey != in.CustomerKey || s.cfg.Now().Sub(a.at) > AuthKeyTimeout {
		// One use, for the customer the window was opened for, in time.
		fail(w, http.StatusBadRequest, "INVALID_AUTHORIZE_AUTH", "유효하지 않은 인증 방식입니다.")
		return
	}
	a.used = true
	b := &billing{MID: "tvivarepublica", CustomerKey: in.CustomerKey, AuthenticatedAt: s.stamp(s.cfg.Now()), Method: "카드",
		BillingKey: randomKey(24), CardCompany: "신한", CardNumber: "43301234****123*",
		Card: billingCard{IssuerCode: "4V", AcquirerCode: "41", Number: "43301234****123*", CardType: "신용", OwnerType: "개인"}}
	s.bill().keys[b.BillingKey] = b
	writeJSON(w, http.StatusOK, b)
}

// chargeBilling is POST /v1/billing/{billingKey}.
func (s *Sandbox) chargeBilling(w http.ResponseWriter, r *http.Request) {
	var in struct {
		CustomerKey string `json:"customerKey"`
		Amount      *int64 `json:"amount"`
		OrderID     string `json:"orderId"`
		OrderName   string `json:"orderName"`
	}
	if !readBody(w, r, &in) {
		return
	}
	if in.CustomerKey == "" || in.Amount == nil || *in.Amount <= 0 || len(in.OrderID) < 6 || len(in.OrderID) > 64 || in.OrderName == "" {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	bs := s.bill()
	b, ok := bs.keys[r.PathValue("billingKey")]
	switch {
	case !ok:
		fail(w, http.StatusNotFound, "NOT_FOUND_BILLING", "존재하지 않는 빌링키 입니다.")
		return
	case b.CustomerKey != in.CustomerKey:
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	case bs.failNext > 0:
		bs.failNext--
		fail(w, http.StatusInternalServerError, "FAILED_INTERNAL_SYSTEM_PROCESSING", "내부 시스템 처리 작업이 실패했습니다. 잠시 후 다시 시도해주세요.")
		return
	}
	if _, dup := s.byOrder[in.OrderID]; dup {
		fail(w, http.StatusBadRequest, "DUPLICATED_ORDER_ID", "이미 승인 및 취소가 진행된 중복된 주문번호 입니다. 다른 주문번호로 진행해주세요.")
		return
	}
	now := s.cfg.Now()
	p := &payment{Version: "2022-11-16", PaymentKey: "tbill_" + randomKey(12), Type: "BILLING", OrderID: in.OrderID,
		OrderName: in.OrderName, MID: b.MID, Currency: "KRW", Method: "카드", TotalAmount: *in.Amount, BalanceAmount: *in.Amount,
		RequestedAt: s.stamp(now), IsPartialCancelable: true, Country: "KR", requested: now,
		Card: map[string]any{"issuerCode": b.Card.IssuerCode, "acquirerCode": b.Card.AcquirerCode, "number": b.Card.Number,
			"cardType": b.Card.CardType, "ownerType": b.Card.OwnerType, "amount": *in.Amount, "installmentPlanMonths": 0,
			"approveNo": "", "useCardPoint": false, "acquireStatus": "READY", "isInterestFree": false}}
	p.SuppliedAmount = *in.Amount * 10 / 11
	p.Vat = *in.Amount - p.SuppliedAmount
	s.payments[p.PaymentKey] = p
	s.byOrder[p.OrderID] = p.PaymentKey
	if bs.declined[in.CustomerKey] {
		p.Status = Aborted
		p.Failure = &failure{Code: "REJECT_CARD_COMPANY", Message: "결제 승인이 거절되었습니다."}
		s.notify(p)
		fail(w, http.StatusForbidden, p.Failure.Code, p.Failure.Message)
		return
	}
	at := s.stamp(now)
	tx := randomKey(16)
	p.Status, p.ApprovedAt, p.LastTransactionKey, p.approved = Done, &at, &tx, now
	p.Receipt = &urlObject{URL: "https://dashboard.tosspayments.com/receipt/redirection?transactionId=" + tx}
	bs.charges[in.CustomerKey]++
	s.notify(p)
	writeJSON(w, http.StatusOK, p)
}

// RegisterCard plays the card holder in the registration window over HTTP
// (approve or give up) and returns where the window sent them back: the
// success query (customerKey, authKey) or the fail query (code, message).
func RegisterCard(ctx context.Context, windowURL string, approve bool) (url.Values, error) {
	step := "/fail"
	if approve {
		step = "/approve"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, windowURL+step, nil)
	if err != nil {
		return nil, fmt.Errorf("billing window request: %w", err)
	}
	c := &http.Client{Timeout: 15 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("billing window %s: %w", step, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusSeeOther:
		u, err := url.Parse(resp.Header.Get("Location"))
		if err != nil {
			return nil, fmt.Errorf("billing window redirect: %w", err)
		}
		return u.Query(), nil
	case http.StatusOK:
		var flat map[string]string
		if err := json.NewDecoder(resp.Body).Decode(&flat); err != nil {
			return nil, fmt.Errorf("billing window answer: %w", err)
		}
		q := url.Values{}
		for k, v := range flat {
			q.Set(k, v)
		}
		return q, nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	return nil, fmt.Errorf("billing window %s: %d %s", step, resp.StatusCode, b)
}
