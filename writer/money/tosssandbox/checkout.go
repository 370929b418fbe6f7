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
	"strconv"
	"strings"
	"time"

	"storefront/writer/internal/standin"
)

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
	// The widget redirects the buyer, the payment key in the query, only
	// to a web address: the writer hands out only the store's own
	// (money/returnurl.go); a session forged with javascript:, data:,
	// "//host" or userinfo is refused here too.
	if !webAddress(wd.SuccessURL) || !webAddress(wd.FailURL) {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return wd, false
	}
	return wd, true
}

// webAddress reports whether a return address is empty, a path, or an
// http(s) URL without userinfo, with nothing a browser reads differently
// (backslashes, control characters).
func webAddress(raw string) bool {
	if raw == "" {
		return true
	}
	if strings.ContainsAny(raw, "\\\x00\t\r\n ") {
		return false
	}
	if strings.HasPrefix(raw, "/") {
		return !strings.HasPrefix(raw, "//")
	}
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.Host == "" || u.Opaque != "" {
		return false
	}
	return strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")
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
			standin.Back(w, r, wd.FailURL, url.Values{"code": {"DUPLICATED_ORDER_ID"},
				"message": {"이미 승인 및 취소가 진행된 중복된 주문번호 입니다. 다른 주문번호로 진행해주세요."}, "orderId": {wd.OrderID}})
			return
		}
		standin.Back(w, r, wd.SuccessURL, successQuery(p))
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
	standin.Back(w, r, wd.SuccessURL, successQuery(p))
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
	standin.Back(w, r, wd.FailURL, url.Values{"code": {"PAY_PROCESS_CANCELED"}, "message": {"사용자에 의해 결제가 취소되었습니다."},
		"orderId": {wd.OrderID}})
}

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
