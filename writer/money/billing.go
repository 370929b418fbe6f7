package money

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// BillingGateway is the automatic-payment part of Toss Payments' core API
// v1: a card registered once in the gateway's window gives an authKey, which
// the writer exchanges for a billing key; the billing key is then charged
// without the member, with an orderId of ours the gateway refuses to approve
// twice.
type BillingGateway interface {
	// IssueBillingKey exchanges the window's authKey (POST /v1/billing/authorizations/issue).
	IssueBillingKey(ctx context.Context, idemKey, authKey, customerKey string) (Billing, error)
	// ChargeBilling charges a billing key (POST /v1/billing/{billingKey}).
	ChargeBilling(ctx context.Context, idemKey, billingKey string, c BillingCharge) (Payment, error)
	// PaymentByOrder looks a payment up by our order id (GET /v1/payments/orders/{orderId}).
	PaymentByOrder(ctx context.Context, orderID string) (Payment, error)
}

// Billing is the gateway's Billing object (the fields the writer reads).
type Billing struct {
	MID             string      `json:"mId"`
	CustomerKey     string      `json:"customerKey"`
	AuthenticatedAt string      `json:"authenticatedAt"`
	Method          string      `json:"method"`
	BillingKey      string      `json:"billingKey"`
	Card            BillingCard `json:"card"`
	CardCompany     string      `json:"cardCompany"`
	CardNumber      string      `json:"cardNumber"`
}

// BillingCard is the card of a Billing (its number masked by the gateway).
type BillingCard struct {
	IssuerCode   string `json:"issuerCode"`
	AcquirerCode string `json:"acquirerCode"`
	Number       string `json:"number"`
	CardType     string `json:"cardType"`
	OwnerType    string `json:"ownerType"`
}

// BillingCharge is the body of a billing charge.
type BillingCharge struct {
	CustomerKey string `json:"customerKey"`
	Amount      int64  `json:"amount"`
	OrderID     string `json:"orderId"`
	OrderName   string `json:"orderName"`
}

// IssueBillingKey implements BillingGateway.
func (g *HTTPGateway) IssueBillingKey(ctx context.Context, idemKey, authKey, customerKey string) (Billing, error) {
	var b Billing
	err := g.call(ctx, http.MethodPost, "/v1/billing/authorizations/issue", idemKey,
		map[string]string{"authKey": authKey, "customerKey": customerKey}, &b)
	return b, err
}

// ChargeBilling implements BillingGateway.
func (g *HTTPGateway) ChargeBilling(ctx context.Context, idemKey, billingKey string, c BillingCharge) (Payment, error) {
	var p Payment
	err := g.call(ctx, http.MethodPost, "/v1/billing/"+url.PathEscape(billingKey), idemKey, c, &p)
	if err != nil {
		// The key is in the path, so in the client's error text: never
		// let it reach a log line or a stored error.
		err = &redacted{err: err, secret: billingKey}
	}
	return p, err
}

// redacted is an error whose text hides a secret; errors.Is and errors.As
// still see what it wraps.
type redacted struct {
	err    error
	secret string
}

func (r *redacted) Error() string {
	msg := r.err.Error()
	if r.secret != "" {
		msg = strings.ReplaceAll(msg, r.secret, "[billingKey]")
		msg = strings.ReplaceAll(msg, url.PathEscape(r.secret), "[billingKey]")
	}
	return msg
}

func (r *redacted) Unwrap() error { return r.err }

// keyBox encrypts billing keys at rest: AES-256-GCM under a key derived from
// BillingKeySecret, the member's uid as additional data, and an HMAC of the
// billing key to recognise a card registered twice without decrypting.
type keyBox struct {
	aead   cipher.AEAD
	macKey []byte
}

func newKeyBox(secret string) *keyBox {
	k := sha256.Sum256([]byte("billing-key-enc\x00" + secret))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // a 32-byte key never fails
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	m := sha256.Sum256([]byte("billing-key-mac\x00" + secret))
	return &keyBox{aead: aead, macKey: m[:]}
}

func (k *keyBox) seal(uid int64, plain string) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return k.aead.Seal(nonce, nonce, []byte(plain), []byte(strconv.FormatInt(uid, 10)))
}

func (k *keyBox) open(uid int64, sealed []byte) (string, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("sealed billing key too short")
	}
	p, err := k.aead.Open(nil, sealed[:n], sealed[n:], []byte(strconv.FormatInt(uid, 10)))
	if err != nil {
		return "", fmt.Errorf("open billing key of %d: %w", uid, err)
	}
	return string(p), nil
}

func (k *keyBox) mac(plain string) []byte {
	m := hmac.New(sha256.New, k.macKey)
	m.Write([]byte(plain))
	return m.Sum(nil)
}

// customerKey returns the member's gateway customerKey, made on first use.
func (s *Service) customerKey(ctx context.Context, uid int64) (string, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	var ck string
	err := s.pool.QueryRow(ctx, `WITH ins AS (INSERT INTO billing_customers (uid, customer_key, created_at) VALUES ($1, $2, $3)
			ON CONFLICT (uid) DO NOTHING RETURNING customer_key)
		SELECT customer_key FROM ins UNION ALL SELECT customer_key FROM billing_customers WHERE uid = $1`,
		uid, "cus_"+hex.EncodeToString(b[:]), s.now()).Scan(&ck)
	if err != nil {
		return "", fmt.Errorf("customer key of %d: %w", uid, err)
	}
	return ck, nil
}

// CardRegistrationRequest starts a card registration.
type CardRegistrationRequest struct {
	SuccessURL string `json:"successUrl,omitempty"`
	FailURL    string `json:"failUrl,omitempty"`
	// Host and ForwardedHost: where the request came to (returnurl.go).
	Host          string `json:"-"`
	ForwardedHost string `json:"-"`
}

// CardRegistration is what the client opens the gateway's card-registration
// window with (requestBillingAuth("카드", {customerKey, successUrl, failUrl})).
type CardRegistration struct {
	Header      contract.Header `json:"header"`
	ClientKey   string          `json:"clientKey"`
	CustomerKey string          `json:"customerKey"`
	SuccessURL  string          `json:"successUrl"`
	FailURL     string          `json:"failUrl"`
	// WindowURL is the sandbox's page standing in for the window (dev and tests only).
	WindowURL string `json:"windowUrl,omitempty"`
}

// StartCardRegistration answers what opens the registration window. The
// return addresses follow the charge's rule: the store's own only.
func (s *Service) StartCardRegistration(ctx context.Context, uid int64, req CardRegistrationRequest) (*CardRegistration, error) {
	if len(req.SuccessURL) > 2000 || len(req.FailURL) > 2000 {
		return nil, httpapi.BadRequest("결제 후 이동할 주소(URL)가 너무 깁니다.")
	}
	if !ownReturnURL(req.SuccessURL, s.returnOrigins, req.Host, req.ForwardedHost) ||
		!ownReturnURL(req.FailURL, s.returnOrigins, req.Host, req.ForwardedHost) {
		return nil, httpapi.BadRequest("%s", msgReturnURL)
	}
	if s.cfg.Billing == nil {
		return nil, ErrNoGateway
	}
	ck, err := s.customerKey(ctx, uid)
	if err != nil {
		return nil, err
	}
	out := &CardRegistration{Header: contract.Header{Code: 200}, ClientKey: s.cfg.PaymentClientKey, CustomerKey: ck,
		SuccessURL: req.SuccessURL, FailURL: req.FailURL}
	if s.cfg.PaymentCheckoutURL != "" {
		out.WindowURL = sandboxBillingWindowURL(s.cfg.PaymentCheckoutURL, out.ClientKey, ck, req.SuccessURL, req.FailURL)
	}
	return out, nil
}

// Card is a registered card as the member sees it (never the billing key).
type Card struct {
	ID          int64     `json:"id"`
	CardCompany string    `json:"cardCompany"`
	CardNumber  string    `json:"cardNumber"`
	CardType    string    `json:"cardType"`
	CreatedAt   time.Time `json:"createdAt"`
}

// RegisterCardRequest is the registration window's success redirect.
type RegisterCardRequest struct {
	CustomerKey string `json:"customerKey"`
	AuthKey     string `json:"authKey"`
}

var errNotOwnCustomer = httpapi.Errorf(http.StatusForbidden, "로그인한 회원의 카드 등록이 아닙니다.")

// RegisterCard exchanges the window's authKey for a billing key and stores
// it encrypted. The customerKey must be the member's own: an authKey
// obtained for another member is refused before the gateway hears of it.
func (s *Service) RegisterCard(ctx context.Context, uid int64, req RegisterCardRequest) (*Card, error) {
	if req.CustomerKey == "" || len(req.CustomerKey) > 300 || req.AuthKey == "" || len(req.AuthKey) > 300 {
		return nil, httpapi.BadRequest("고객 키(customerKey)와 인증 키(authKey)가 필요합니다.")
	}
	if s.cfg.Billing == nil {
		return nil, ErrNoGateway
	}
	var own string
	err := s.pool.QueryRow(ctx, `SELECT customer_key FROM billing_customers WHERE uid = $1`, uid).Scan(&own)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !hmac.Equal([]byte(own), []byte(req.CustomerKey))) {
		return nil, errNotOwnCustomer
	}
	if err != nil {
		return nil, fmt.Errorf("customer key of %d: %w", uid, err)
	}
	if err := s.chargeAllowed(uid); err != nil {
		return nil, err
	}
	// The same authKey again (a retried request) gets the gateway's first answer.
	b, err := s.cfg.Billing.IssueBillingKey(ctx, "issue-"+req.AuthKey, req.AuthKey, req.CustomerKey)
	var ge *GatewayError
	switch {
	case errors.Is(err, ErrGatewayDown):
		s.log.Error("payment gateway failed", "op", "issue billing key", "uid", uid, "err", err)
		return nil, httpapi.Errorf(http.StatusBadGateway, "일시적으로 카드를 등록할 수 없습니다. 잠시 후 다시 시도해 주세요.")
	case errors.As(err, &ge):
		return nil, httpapi.BadRequest("카드를 등록하지 못했습니다: %s", KoreanMessage(ge.Code))
	case err != nil:
		return nil, err
	case b.BillingKey == "" || b.CustomerKey != req.CustomerKey:
		s.log.Error("payment gateway billing answer does not match", "uid", uid)
		return nil, httpapi.Errorf(http.StatusBadGateway, "결제사의 카드 정보가 요청과 일치하지 않습니다.")
	}
	number := b.Card.Number
	if number == "" {
		number = b.CardNumber
	}
	c := &Card{CardCompany: b.CardCompany, CardNumber: number, CardType: b.Card.CardType, CreatedAt: s.now()}
	err = s.pool.QueryRow(ctx, `WITH ins AS (INSERT INTO billing_cards (uid, key_enc, key_mac, card_company, card_number, card_type, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (uid, key_mac) DO NOTHING RETURNING id, created_at)
		SELECT id, created_at FROM ins UNION ALL SELECT id, created_at FROM billing_cards WHERE uid = $1 AND key_mac = $3`,
		uid, s.keys.seal(uid, b.BillingKey), s.keys.mac(b.BillingKey), c.CardCompany, c.CardNumber, c.CardType, c.CreatedAt).
		Scan(&c.ID, &c.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("store card of %d: %w", uid, err)
	}
	return c, nil
}

// Cards lists the member's cards, newest first (the newest is charged).
func (s *Service) Cards(ctx context.Context, uid int64) ([]Card, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, card_company, card_number, card_type, created_at FROM billing_cards
		WHERE uid = $1 ORDER BY id DESC`, uid)
	if err != nil {
		return nil, fmt.Errorf("list cards of %d: %w", uid, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Card, error) {
		var c Card
		err := r.Scan(&c.ID, &c.CardCompany, &c.CardNumber, &c.CardType, &c.CreatedAt)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("list cards of %d: %w", uid, err)
	}
	if out == nil {
		out = []Card{}
	}
	return out, nil
}

// RemoveCard forgets a card of the member (its encrypted billing key is
// deleted, so nothing can charge it any more).
func (s *Service) RemoveCard(ctx context.Context, uid, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM billing_cards WHERE uid = $1 AND id = $2`, uid, id)
	if err != nil {
		return fmt.Errorf("remove card %d of %d: %w", id, uid, err)
	}
	if tag.RowsAffected() == 0 {
		return httpapi.Errorf(http.StatusNotFound, "등록된 카드를 찾을 수 없습니다.")
	}
	return nil
}

// chargingCard returns the billing key and customerKey of the member's
// newest card ("" when none).
func (s *Service) chargingCard(ctx context.Context, uid int64) (billingKey, customerKey string, err error) {
	var enc []byte
	err = s.pool.QueryRow(ctx, `SELECT c.key_enc, b.customer_key FROM billing_cards c JOIN billing_customers b USING (uid)
		WHERE c.uid = $1 ORDER BY c.id DESC LIMIT 1`, uid).Scan(&enc, &customerKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("card of %d: %w", uid, err)
	}
	billingKey, err = s.keys.open(uid, enc)
	return billingKey, customerKey, err
}

// sandboxBillingWindowURL is tosssandbox.BillingWindowURL's encoding.
func sandboxBillingWindowURL(base, clientKey, customerKey, successURL, failURL string) string {
	b, _ := json.Marshal(struct {
		ClientKey   string `json:"clientKey"`
		CustomerKey string `json:"customerKey"`
		SuccessURL  string `json:"successUrl"`
		FailURL     string `json:"failUrl"`
	}{clientKey, customerKey, successURL, failURL})
	return strings.TrimRight(base, "/") + "/sandbox/billing/" + base64.RawURLEncoding.EncodeToString(b)
}
