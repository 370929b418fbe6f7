package money

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"storefront/writer/httpapi"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
)

// ChargeRequest starts a charge of Amount won into the channel's money.
type ChargeRequest struct {
	Amount     int64  `json:"amount"`
	Channel    string `json:"channel,omitempty"` // from X-Channel
	SuccessURL string `json:"successUrl,omitempty"`
	FailURL    string `json:"failUrl,omitempty"`
	// Host is the host the request was made to (the store's address as
	// the reader reached it): a return URL may name it (returnurl.go).
	Host          string `json:"-"`
	ForwardedHost string `json:"-"`
}

// Charge is a charge order. A new one also carries what the client opens
// the gateway's payment widget with (clientKey, orderName, successUrl,
// failUrl, and in the sandbox checkoutUrl, the widget's stand-in).
type Charge struct {
	Header  contract.Header `json:"header"`
	OrderID string          `json:"orderId"`
	Money   string          `json:"money"`
	Amount  int64           `json:"amount"`
	Status  string          `json:"status"` // requested, failed, done, partial_canceled, canceled
	// Kind is how the charge was started: widget (the member paid in the
	// payment widget), auto (threshold top-up), scheduled (monthly top-up).
	Kind           string    `json:"kind"`
	PaymentKey     string    `json:"paymentKey,omitempty"`
	CanceledAmount int64     `json:"canceledAmount"`
	CheckoutURL    string    `json:"checkoutUrl,omitempty"`
	ClientKey      string    `json:"clientKey,omitempty"`
	OrderName      string    `json:"orderName,omitempty"`
	SuccessURL     string    `json:"successUrl,omitempty"`
	FailURL        string    `json:"failUrl,omitempty"`
	FailReason     string    `json:"failReason,omitempty"`
	Bonus          int64     `json:"bonus,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	Wallet         *Wallet   `json:"wallet,omitempty"`
}

func newOrderID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "ch_" + hex.EncodeToString(b[:])
}

func (r *ChargeRequest) validate(maxAmount int64, origins map[string]bool) error {
	if r.Amount < 1000 || r.Amount > maxAmount || r.Amount%100 != 0 {
		return httpapi.BadRequest("충전 금액은 1000원부터 %d원까지 100원 단위로 정할 수 있습니다.", maxAmount)
	}
	if len(r.SuccessURL) > 2000 || len(r.FailURL) > 2000 {
		return httpapi.BadRequest("결제 후 이동할 주소(URL)가 너무 깁니다.")
	}
	if !ownReturnURL(r.SuccessURL, origins, r.Host, r.ForwardedHost) || !ownReturnURL(r.FailURL, origins, r.Host, r.ForwardedHost) {
		return httpapi.BadRequest("%s", msgReturnURL)
	}
	return nil
}

// RequestCharge fixes a charge order (order id and amount) once per key. The
// gateway is not called: the client opens the payment widget with the
// answer, and the amount the widget comes back with is checked against this
// order at confirm.
func (s *Service) RequestCharge(ctx context.Context, uid int64, key string, req ChargeRequest) (Answer, error) {
	if err := req.validate(s.cfg.MaxCharge, s.returnOrigins); err != nil {
		return Answer{}, err
	}
	if s.cfg.Gateway == nil {
		return Answer{}, ErrNoGateway
	}
	if err := validKey(key); err != nil {
		return Answer{}, err
	}
	if err := s.chargeAllowed(uid); err != nil {
		return Answer{}, err
	}
	return s.once(ctx, uid, key, "charge", req, func(tx pgx.Tx, _ *pgx.Batch, w *Wallet) (any, error) {
		now := s.now()
		c := &Charge{Header: contract.Header{Code: 200}, OrderID: newOrderID(), Money: MoneyFor(req.Channel),
			Amount: req.Amount, Status: "requested", Kind: "widget", CreatedAt: now, ClientKey: s.cfg.PaymentClientKey,
			OrderName: fmt.Sprintf("블루머니 %d원 충전", req.Amount), SuccessURL: req.SuccessURL, FailURL: req.FailURL}
		if s.cfg.PaymentCheckoutURL != "" {
			c.CheckoutURL = SandboxCheckoutURL(s.cfg.PaymentCheckoutURL, Widget{ClientKey: c.ClientKey, OrderID: c.OrderID,
				OrderName: c.OrderName, Amount: c.Amount, SuccessURL: c.SuccessURL, FailURL: c.FailURL})
		}
		_, err := tx.Exec(ctx, `INSERT INTO charges (order_id, uid, money, amount, status, checkout_url, created_at, updated_at)
			VALUES ($1, $2, $3, $4, 'requested', $5, $6, $6)`, c.OrderID, uid, c.Money, c.Amount, c.CheckoutURL, now)
		if err != nil {
			return nil, fmt.Errorf("record charge %s: %w", c.OrderID, err)
		}
		return c, nil
	})
}

// ownCharge refuses an unknown or another user's order before anything is
// written (the transaction checks again under lock).
func (s *Service) ownCharge(ctx context.Context, uid int64, orderID string) error {
	var owner int64
	err := s.pool.QueryRow(ctx, `SELECT uid FROM charges WHERE order_id = $1`, orderID).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && owner != uid) {
		return httpapi.Errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
	}
	if err != nil {
		return fmt.Errorf("find charge %s: %w", orderID, err)
	}
	return nil
}

type chargeRow struct {
	OrderID, Money, Status, PaymentKey, FailReason, Kind string
	UID, Amount, Bonus, Canceled                         int64
}

func lockCharge(ctx context.Context, tx pgx.Tx, orderID string) (*chargeRow, error) {
	var c chargeRow
	err := tx.QueryRow(ctx, `SELECT order_id, uid, money, amount, status, payment_key, bonus, canceled_amount, fail_reason, kind
		FROM charges WHERE order_id = $1 FOR UPDATE`,
		orderID).Scan(&c.OrderID, &c.UID, &c.Money, &c.Amount, &c.Status, &c.PaymentKey, &c.Bonus, &c.Canceled, &c.FailReason, &c.Kind)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, httpapi.Errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
	}
	if err != nil {
		return nil, fmt.Errorf("lock charge %s: %w", orderID, err)
	}
	return &c, nil
}

// credit applies a confirmed charge: money, the first-charge bonus, the event.
// The caller holds the wallet lock (taken before the charge lock).
func (s *Service) credit(ctx context.Context, tx pgx.Tx, w *Wallet, c *chargeRow, paymentKey string, now time.Time) error {
	if err := post(ctx, tx, w, c.Money, c.Amount, "charge", "charge:"+c.OrderID, now); err != nil {
		return err
	}
	var bonus int64
	if w.FirstChargeAt == nil {
		bonus = contract.FirstChargeBonus(c.Amount, s.cfg.FirstChargeBonusPct)
		if err := post(ctx, tx, w, Mileage, bonus, "first_charge_bonus", "charge:"+c.OrderID, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE wallets SET first_charge_at = $2 WHERE uid = $1`, w.UID, now); err != nil {
			return fmt.Errorf("mark first charge %d: %w", w.UID, err)
		}
		w.FirstChargeAt = &now
	}
	if _, err := tx.Exec(ctx, `UPDATE charges SET status = 'done', bonus = $2, payment_key = $3, fail_reason = '', updated_at = $4
		WHERE order_id = $1`, c.OrderID, bonus, paymentKey, now); err != nil {
		return fmt.Errorf("mark charge %s done: %w", c.OrderID, err)
	}
	c.Status, c.Bonus, c.PaymentKey = "done", bonus, paymentKey
	if err := s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCharge, Time: now,
		UID: uidString(w.UID), Amount: c.Amount, Money: c.Money,
		Props: map[string]string{"orderId": c.OrderID, "bonus": fmt.Sprint(bonus), "kind": c.Kind}}); err != nil {
		return err
	}
	return s.profileChanged(ctx, tx, w.UID)
}

// profileChanged enqueues the tracking profile after a change of balances
// and charge dates, when the writer wired it.
func (s *Service) profileChanged(ctx context.Context, tx pgx.Tx, uid int64) error {
	if s.cfg.ProfileChanged == nil {
		return nil
	}
	return s.cfg.ProfileChanged(ctx, tx, uid)
}

// applyPayment brings a charge to what the gateway says of its payment (an
// answer of the gateway itself, never a webhook's body): a paid payment
// credits a charge not yet credited, refunds take their money back, a
// failed or expired one fails a charge still waiting. It tells whether
// anything changed.
func (s *Service) applyPayment(ctx context.Context, tx pgx.Tx, w *Wallet, c *chargeRow, p Payment, now time.Time) (bool, error) {
	if p.OrderID != c.OrderID || p.TotalAmount != c.Amount || (c.PaymentKey != "" && c.PaymentKey != p.PaymentKey) {
		s.log.Error("payment gateway answer does not match the order", "order", c.OrderID, "amount", c.Amount,
			"paymentOrder", p.OrderID, "paymentAmount", p.TotalAmount)
		return false, httpapi.Errorf(http.StatusBadGateway, "결제사의 결제 정보가 주문과 일치하지 않습니다.")
	}
	changed := false
	switch p.Status {
	case PayDone, PayPartialCanceled, PayCanceled:
		if c.Status == "requested" || c.Status == "failed" {
			// The gateway took the money: credit it even if an earlier confirm recorded a failure.
			if err := s.credit(ctx, tx, w, c, p.PaymentKey, now); err != nil {
				return false, err
			}
			changed = true
		}
		refunded, err := s.takeBack(ctx, tx, w, c, p.Canceled(), now)
		return changed || refunded, err
	case PayAborted, PayExpired:
		if c.Status != "requested" {
			return false, nil
		}
		reason := "결제 시간이 지나 결제가 취소되었습니다."
		if p.Failure != nil {
			reason = KoreanMessage(p.Failure.Code)
		}
		return true, s.markFailed(ctx, tx, c, reason, now)
	}
	return false, nil
}

func (s *Service) markFailed(ctx context.Context, tx pgx.Tx, c *chargeRow, reason string, now time.Time) error {
	if _, err := tx.Exec(ctx, `UPDATE charges SET status = 'failed', fail_reason = $2, updated_at = $3 WHERE order_id = $1`,
		c.OrderID, reason, now); err != nil {
		return fmt.Errorf("mark charge %s failed: %w", c.OrderID, err)
	}
	c.Status = "failed"
	return nil
}

// ConfirmRequest confirms a charge after the widget's success redirect.
type ConfirmRequest struct {
	OrderID    string `json:"orderId"`
	PaymentKey string `json:"paymentKey"`
	Amount     int64  `json:"amount"`
}

// ConfirmCharge confirms the payment with the gateway and credits the
// wallet. The amount of the redirect must be the order's (a buyer could edit
// the query). A charge already credited (by an earlier confirm or the
// webhook) answers its state again; the gateway is asked only while the
// charge waits.
func (s *Service) ConfirmCharge(ctx context.Context, uid int64, key string, req ConfirmRequest) (Answer, error) {
	if req.OrderID == "" || len(req.OrderID) > 64 || req.PaymentKey == "" || len(req.PaymentKey) > 200 {
		return Answer{}, httpapi.BadRequest("주문 번호(orderId)와 결제 키(paymentKey)가 필요합니다.")
	}
	if req.Amount <= 0 {
		return Answer{}, httpapi.BadRequest("결제 금액(amount)이 필요합니다.")
	}
	if s.cfg.Gateway == nil {
		return Answer{}, ErrNoGateway
	}
	if err := validKey(key); err != nil {
		return Answer{}, err
	}
	if err := s.ownCharge(ctx, uid, req.OrderID); err != nil {
		return Answer{}, err
	}
	if err := s.chargeAllowed(uid); err != nil {
		return Answer{}, err
	}
	return s.once(ctx, uid, key, "confirm", req, func(tx pgx.Tx, _ *pgx.Batch, w *Wallet) (any, error) {
		c, err := lockCharge(ctx, tx, req.OrderID)
		if err != nil {
			return nil, err
		}
		if c.UID != uid {
			return nil, httpapi.Errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
		}
		if c.Amount != req.Amount {
			return nil, httpapi.BadRequest("결제 금액이 주문 금액과 다릅니다.")
		}
		if c.PaymentKey != "" && c.PaymentKey != req.PaymentKey {
			return nil, httpapi.BadRequest("결제 정보가 주문과 일치하지 않습니다.")
		}
		if c.Status == "requested" {
			if err := s.confirmAtGateway(ctx, tx, w, c, req.PaymentKey); err != nil {
				return nil, err
			}
		}
		return s.chargeAnswer(ctx, tx, c.OrderID, w)
	})
}

func (s *Service) confirmAtGateway(ctx context.Context, tx pgx.Tx, w *Wallet, c *chargeRow, paymentKey string) error {
	now := s.now()
	// One confirm per order and payment: a retry after a lost answer gets the first answer.
	p, err := s.cfg.Gateway.Confirm(ctx, "confirm-"+c.OrderID+"-"+paymentKey, paymentKey, c.OrderID, c.Amount)
	var ge *GatewayError
	switch {
	case err == nil:
		_, err = s.applyPayment(ctx, tx, w, c, p, now)
		return err
	case errors.Is(err, ErrGatewayDown):
		// No answer: the gateway may have confirmed. Its lookup by order id decides.
		return s.recoverByLookup(ctx, tx, w, c, paymentKey, now, err)
	case errors.As(err, &ge) && ge.Code == "ALREADY_PROCESSED_PAYMENT":
		// Confirmed before (another key, or a commit lost here): the lookup says how.
		return s.recoverByLookup(ctx, tx, w, c, paymentKey, now, err)
	case errors.As(err, &ge) && (ge.Status == http.StatusNotFound && ge.Code == "NOT_FOUND_PAYMENT" || ge.Code == "INVALID_REQUEST"):
		// Not this order's payment: the redirect was edited. The order still waits.
		return httpapi.BadRequest("%s", KoreanMessage(ge.Code))
	case errors.As(err, &ge):
		// A refusal (card declined, expired session): the answer to this order for good.
		return s.markFailed(ctx, tx, c, KoreanMessage(ge.Code), now)
	default:
		return err
	}
}

// recoverByLookup settles a confirm whose answer is unknown from the
// gateway's payment for the order.
func (s *Service) recoverByLookup(ctx context.Context, tx pgx.Tx, w *Wallet, c *chargeRow, paymentKey string, now time.Time, cause error) error {
	p, err := s.cfg.Gateway.PaymentByOrder(ctx, c.OrderID)
	if err != nil || p.PaymentKey != paymentKey {
		s.log.Error("payment gateway failed", "op", "confirm", "order", c.OrderID, "err", cause, "lookup", err)
		return httpapi.Errorf(http.StatusBadGateway, "일시적으로 결제를 확인할 수 없습니다. 잠시 후 다시 시도해 주세요.")
	}
	if _, err := s.applyPayment(ctx, tx, w, c, p, now); err != nil {
		return err
	}
	if c.Status == "requested" {
		return httpapi.Errorf(http.StatusBadGateway, "일시적으로 결제를 확인할 수 없습니다. 잠시 후 다시 시도해 주세요.")
	}
	return nil
}

func (s *Service) chargeAnswer(ctx context.Context, q Querier, orderID string, w *Wallet) (*Charge, error) {
	c := &Charge{Header: contract.Header{Code: 200}, Wallet: w}
	err := q.QueryRow(ctx, `SELECT order_id, money, amount, status, kind, payment_key, canceled_amount, checkout_url, fail_reason, bonus, created_at
		FROM charges WHERE order_id = $1`, orderID).Scan(&c.OrderID, &c.Money, &c.Amount, &c.Status, &c.Kind, &c.PaymentKey,
		&c.CanceledAmount, &c.CheckoutURL, &c.FailReason, &c.Bonus, &c.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("load charge %s: %w", orderID, err)
	}
	return c, nil
}

// CancelRequest of a member: CancelAmount 0 refunds what is left of the charge.
type CancelChargeRequest struct {
	CancelAmount int64  `json:"cancelAmount,omitempty"`
	CancelReason string `json:"cancelReason,omitempty"`
}

// CancelCharge refunds all or part of a done charge at the gateway and takes
// the money (and the same share of its first-charge bonus) back. Only
// unspent money can be refunded: the refund must fit in the balance of the
// charge's money, checked under the wallet lock that purchases take too.
func (s *Service) CancelCharge(ctx context.Context, uid int64, key, orderID string, req CancelChargeRequest) (Answer, error) {
	if orderID == "" || len(orderID) > 64 {
		return Answer{}, httpapi.BadRequest("주문 번호(orderId)가 필요합니다.")
	}
	if req.CancelAmount < 0 || req.CancelAmount > s.cfg.MaxCharge {
		return Answer{}, httpapi.BadRequest("취소 금액(cancelAmount)은 1원 이상 충전 금액 이하여야 합니다.")
	}
	if len([]rune(req.CancelReason)) > 200 {
		return Answer{}, httpapi.BadRequest("취소 사유(cancelReason)는 200자를 넘을 수 없습니다.")
	}
	if s.cfg.Gateway == nil {
		return Answer{}, ErrNoGateway
	}
	if err := validKey(key); err != nil {
		return Answer{}, err
	}
	if err := s.ownCharge(ctx, uid, orderID); err != nil {
		return Answer{}, err
	}
	if err := s.chargeAllowed(uid); err != nil {
		return Answer{}, err
	}
	return s.once(ctx, uid, key, "cancel", map[string]any{"orderId": orderID, "req": req}, func(tx pgx.Tx, _ *pgx.Batch, w *Wallet) (any, error) {
		c, err := lockCharge(ctx, tx, orderID)
		if err != nil {
			return nil, err
		}
		if c.UID != uid {
			return nil, httpapi.Errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
		}
		if c.Status != "done" && c.Status != "partial_canceled" {
			return nil, httpapi.Errorf(http.StatusConflict, "완료된 충전만 취소할 수 있습니다.")
		}
		left := c.Amount - c.Canceled
		amount := req.CancelAmount
		if amount == 0 {
			amount = left
		}
		if amount > left {
			return nil, httpapi.BadRequest("취소할 수 있는 금액은 %d원입니다.", left)
		}
		if w.Balance(c.Money) < amount {
			return nil, httpapi.Errorf(http.StatusConflict, "충전한 금액을 이미 사용해 취소할 수 없습니다. (취소할 수 있는 금액: %d원)",
				min(w.Balance(c.Money), left))
		}
		reason := req.CancelReason
		if reason == "" {
			reason = "고객 요청"
		}
		now := s.now()
		p, err := s.cfg.Gateway.Cancel(ctx, "cancel-"+orderID+"-"+key, c.PaymentKey,
			CancelRequest{CancelReason: reason, CancelAmount: amount, RefundableAmount: left})
		var ge *GatewayError
		if !errors.Is(err, ErrGatewayDown) && errors.As(err, &ge) {
			return nil, httpapi.Errorf(http.StatusConflict, "결제사에서 취소를 거절했습니다: %s", KoreanMessage(ge.Code))
		}
		if err != nil {
			// No answer: the refund may have happened. The payment says.
			if p, err = s.cfg.Gateway.Payment(ctx, c.PaymentKey); err != nil || p.Canceled() == c.Canceled {
				s.log.Error("payment gateway failed", "op", "cancel", "order", orderID, "err", err)
				return nil, httpapi.Errorf(http.StatusBadGateway, "일시적으로 결제를 취소할 수 없습니다. 잠시 후 다시 시도해 주세요.")
			}
		}
		if _, err := s.applyPayment(ctx, tx, w, c, p, now); err != nil {
			return nil, err
		}
		return s.chargeAnswer(ctx, tx, c.OrderID, w)
	})
}

// takeBack applies the gateway's refunded total to a credited charge: the
// refunded money and the same share of the first-charge bonus leave the
// wallet, never below zero: what was already spent is recorded as the
// shortfall (only a refund made at the gateway's console can leave one).
func (s *Service) takeBack(ctx context.Context, tx pgx.Tx, w *Wallet, c *chargeRow, refunded int64, now time.Time) (bool, error) {
	delta := refunded - c.Canceled
	if delta <= 0 {
		return false, nil
	}
	take := min(delta, w.Balance(c.Money))
	if err := post(ctx, tx, w, c.Money, -take, "charge_cancel", "charge:"+c.OrderID, now); err != nil {
		return false, err
	}
	bonus := min(c.Bonus*refunded/c.Amount-c.Bonus*c.Canceled/c.Amount, w.Mileage)
	if err := post(ctx, tx, w, Mileage, -bonus, "charge_cancel", "charge:"+c.OrderID, now); err != nil {
		return false, err
	}
	reason := c.FailReason
	if take < delta {
		reason = strings.TrimSpace(fmt.Sprintf("%s shortfall %d", reason, delta-take))
		// As for app money (store.go): the spent rest is a row the operators
		// see and writer/settlement charges back to the works it bought.
		if _, err := tx.Exec(ctx, `INSERT INTO money_flags (uid, reason, ref, amount, created_at) VALUES ($1, 'charge_refund_spent', $2, $3, $4)`,
			w.UID, "charge:"+c.OrderID, delta-take, now); err != nil {
			return false, fmt.Errorf("flag %d for charge %s: %w", w.UID, c.OrderID, err)
		}
	}
	status := "partial_canceled"
	if refunded == c.Amount {
		status = "canceled"
	}
	if _, err := tx.Exec(ctx, `UPDATE charges SET status = $2, canceled_amount = $3, fail_reason = $4, updated_at = $5 WHERE order_id = $1`,
		c.OrderID, status, refunded, reason, now); err != nil {
		return false, fmt.Errorf("mark charge %s %s: %w", c.OrderID, status, err)
	}
	c.Status, c.Canceled, c.FailReason = status, refunded, reason
	if err := s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCharge, Time: now,
		UID: uidString(w.UID), Amount: -take, Money: c.Money, Props: map[string]string{"orderId": c.OrderID, "kind": "cancel"}}); err != nil {
		return false, err
	}
	return true, s.profileChanged(ctx, tx, w.UID)
}

// statusRank orders the statuses a paid payment goes through.
var statusRank = map[string]int{PayDone: 1, PayPartialCanceled: 2, PayCanceled: 3}

// consistent tells whether a webhook's claimed status can be a report of
// the payment the gateway shows now: the same, or an earlier step of a paid
// payment (webhooks may arrive late and out of order).
func consistent(claimed, actual string) bool {
	if claimed == actual || claimed == PayInProgress || claimed == PayReady {
		return true
	}
	c, ok1 := statusRank[claimed]
	a, ok2 := statusRank[actual]
	return ok1 && ok2 && c <= a
}

// Webhook handles a PAYMENT_STATUS_CHANGED webhook. Its body is only a hint
// (it is not signed): the payment is looked up by key at the gateway and the
// charge brought to that answer. A body that the lookup contradicts (unknown
// payment, another order or amount, a status the payment never had) is
// refused and changes nothing. A body seen before is acknowledged again.
func (s *Service) Webhook(ctx context.Context, body []byte) (applied bool, err error) {
	if s.cfg.Gateway == nil {
		return false, ErrNoGateway
	}
	ev, err := ParseWebhook(body)
	if err != nil {
		return false, httpapi.BadRequest("웹훅 형식이 올바르지 않습니다: %v", err)
	}
	if ev.EventType != EventPaymentStatusChanged {
		return false, nil // other events are acknowledged and not used
	}
	if ev.Data.PaymentKey == "" || ev.Data.OrderID == "" || len(ev.Data.PaymentKey) > 200 || len(ev.Data.OrderID) > 64 {
		return false, httpapi.BadRequest("웹훅에 결제 키(paymentKey)와 주문 번호(orderId)가 필요합니다.")
	}
	sum := sha256.Sum256(body)
	id := "sha256:" + hex.EncodeToString(sum[:16])
	var seen bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_webhooks WHERE event_id = $1)`, id).Scan(&seen); err != nil {
		return false, fmt.Errorf("find webhook %s: %w", id, err)
	}
	if seen {
		return false, nil
	}
	p, err := s.cfg.Gateway.Payment(ctx, ev.Data.PaymentKey)
	var ge *GatewayError
	if !errors.Is(err, ErrGatewayDown) && errors.As(err, &ge) {
		return false, httpapi.BadRequest("웹훅의 결제를 결제사에서 찾을 수 없습니다.")
	}
	if err != nil {
		s.log.Error("payment gateway failed", "op", "webhook lookup", "err", err)
		return false, httpapi.Errorf(http.StatusBadGateway, "일시적으로 결제를 확인할 수 없습니다.")
	}
	if p.OrderID != ev.Data.OrderID || (ev.Data.TotalAmount != 0 && ev.Data.TotalAmount != p.TotalAmount) ||
		!consistent(ev.Data.Status, p.Status) {
		s.log.Warn("webhook refused: the gateway's payment disagrees", "paymentKey", ev.Data.PaymentKey,
			"claimed", ev.Data.Status, "actual", p.Status)
		return false, httpapi.BadRequest("웹훅 내용이 결제사의 결제 정보와 다릅니다.")
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		applied = false
		var uid int64
		err := tx.QueryRow(ctx, `SELECT uid FROM charges WHERE order_id = $1`, p.OrderID).Scan(&uid)
		if errors.Is(err, pgx.ErrNoRows) {
			return httpapi.Errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
		}
		if err != nil {
			return fmt.Errorf("find charge %s: %w", p.OrderID, err)
		}
		now := s.now()
		// Wallet before charge: the same lock order as confirm and cancel.
		w, err := lockWallet(ctx, tx, uid)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO pg_webhooks (event_id, order_id, type, received_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, id, p.OrderID, ev.Data.Status, now)
		if err != nil {
			return fmt.Errorf("record webhook %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return nil // a re-delivery racing this one
		}
		c, err := lockCharge(ctx, tx, p.OrderID)
		if err != nil {
			return err
		}
		applied, err = s.applyPayment(ctx, tx, w, c, p, now)
		return err
	})
	if err == nil && applied {
		s.cfg.Changed()
	}
	return applied, err
}

// Charges lists the user's charges, newest first.
func (s *Service) Charges(ctx context.Context, uid int64, limit int) ([]Charge, error) {
	rows, err := s.pool.Query(ctx, `SELECT order_id, money, amount, status, kind, payment_key, canceled_amount, checkout_url, fail_reason, bonus, created_at
		FROM charges WHERE uid = $1 ORDER BY created_at DESC, order_id LIMIT $2`, uid, limit)
	if err != nil {
		return nil, fmt.Errorf("list charges %d: %w", uid, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Charge, error) {
		c := Charge{Header: contract.Header{Code: 200}}
		err := r.Scan(&c.OrderID, &c.Money, &c.Amount, &c.Status, &c.Kind, &c.PaymentKey, &c.CanceledAmount, &c.CheckoutURL, &c.FailReason, &c.Bonus, &c.CreatedAt)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("list charges %d: %w", uid, err)
	}
	return out, nil
}

// GetCharge returns one of the user's charges.
func (s *Service) GetCharge(ctx context.Context, uid int64, orderID string) (*Charge, error) {
	if orderID == "" || len(orderID) > 64 {
		return nil, httpapi.BadRequest("주문 번호(orderId)가 필요합니다.")
	}
	if err := s.ownCharge(ctx, uid, orderID); err != nil {
		return nil, err
	}
	return s.chargeAnswer(ctx, s.pool, orderID, nil)
}
