package money

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
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
}

// Charge is a charge order.
type Charge struct {
	Header      contract.Header `json:"header"`
	OrderID     string          `json:"orderId"`
	Money       string          `json:"money"`
	Amount      int64           `json:"amount"`
	Status      string          `json:"status"` // requested, failed, done, canceled
	PaymentKey  string          `json:"paymentKey,omitempty"`
	CheckoutURL string          `json:"checkoutUrl,omitempty"`
	FailReason  string          `json:"failReason,omitempty"`
	Bonus       int64           `json:"bonus,omitempty"`
	CreatedAt   time.Time       `json:"createdAt"`
	Wallet      *Wallet         `json:"wallet,omitempty"`
}

func newOrderID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "ch_" + hex.EncodeToString(b[:])
}

func (r *ChargeRequest) validate(maxAmount int64) error {
	if r.Amount < 1000 || r.Amount > maxAmount || r.Amount%100 != 0 {
		return invalid("충전 금액은 1000원부터 %d원까지 100원 단위로 정할 수 있습니다.", maxAmount)
	}
	if len(r.SuccessURL) > 2000 || len(r.FailURL) > 2000 {
		return invalid("결제 후 이동할 주소(URL)가 너무 깁니다.")
	}
	return nil
}

// RequestCharge creates a charge order and its PG checkout, once per key.
func (s *Service) RequestCharge(ctx context.Context, uid int64, key string, req ChargeRequest) (Answer, error) {
	if err := req.validate(s.cfg.MaxCharge); err != nil {
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
			Amount: req.Amount, Status: "requested", CreatedAt: now}
		co, err := s.cfg.Gateway.Create(ctx, PaymentOrder{OrderID: c.OrderID, Amount: c.Amount,
			OrderName: fmt.Sprintf("블루머니 %d원 충전", c.Amount), SuccessURL: req.SuccessURL, FailURL: req.FailURL})
		var ge *GatewayError
		if errors.As(err, &ge) {
			return nil, errorf(http.StatusPaymentRequired, "결제가 거절되었습니다: %s", ge.Message)
		}
		if err != nil {
			s.log.Error("payment gateway failed", "op", "create", "err", err)
			return nil, errorf(http.StatusBadGateway, "일시적으로 결제를 이용할 수 없습니다. 잠시 후 다시 시도해 주세요.")
		}
		c.PaymentKey, c.CheckoutURL = co.PaymentKey, co.CheckoutURL
		_, err = tx.Exec(ctx, `INSERT INTO charges (order_id, uid, money, amount, status, payment_key, checkout_url, created_at, updated_at)
			VALUES ($1, $2, $3, $4, 'requested', $5, $6, $7, $7)`, c.OrderID, uid, c.Money, c.Amount, c.PaymentKey, c.CheckoutURL, now)
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
		return errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
	}
	if err != nil {
		return fmt.Errorf("find charge %s: %w", orderID, err)
	}
	return nil
}

type chargeRow struct {
	OrderID, Money, Status, PaymentKey string
	UID, Amount, Bonus                 int64
}

func lockCharge(ctx context.Context, tx pgx.Tx, orderID string) (*chargeRow, error) {
	var c chargeRow
	err := tx.QueryRow(ctx, `SELECT order_id, uid, money, amount, status, payment_key, bonus FROM charges WHERE order_id = $1 FOR UPDATE`,
		orderID).Scan(&c.OrderID, &c.UID, &c.Money, &c.Amount, &c.Status, &c.PaymentKey, &c.Bonus)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
	}
	if err != nil {
		return nil, fmt.Errorf("lock charge %s: %w", orderID, err)
	}
	return &c, nil
}

// credit applies a confirmed charge: money, the first-charge bonus, the event.
// The caller holds the wallet lock (taken before the charge lock).
func (s *Service) credit(ctx context.Context, tx pgx.Tx, w *Wallet, c *chargeRow, now time.Time) error {
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
	if _, err := tx.Exec(ctx, `UPDATE charges SET status = 'done', bonus = $2, updated_at = $3 WHERE order_id = $1`,
		c.OrderID, bonus, now); err != nil {
		return fmt.Errorf("mark charge %s done: %w", c.OrderID, err)
	}
	c.Status, c.Bonus = "done", bonus
	if err := s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCharge, Time: now,
		UID: uidString(w.UID), Amount: c.Amount, Money: c.Money,
		Props: map[string]string{"orderId": c.OrderID, "bonus": fmt.Sprint(bonus)}}); err != nil {
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

// ConfirmRequest confirms a charge after the buyer approved it at the PG.
type ConfirmRequest struct {
	OrderID    string `json:"orderId"`
	PaymentKey string `json:"paymentKey"`
	Amount     int64  `json:"amount"`
}

// ConfirmCharge confirms the payment with the PG and credits the wallet.
// A charge already credited (by an earlier confirm or the webhook) answers its
// state again; the PG is asked only while the charge is requested.
func (s *Service) ConfirmCharge(ctx context.Context, uid int64, key string, req ConfirmRequest) (Answer, error) {
	if req.OrderID == "" || len(req.OrderID) > 64 || req.PaymentKey == "" || len(req.PaymentKey) > 200 {
		return Answer{}, invalid("주문 번호(orderId)와 결제 키(paymentKey)가 필요합니다.")
	}
	if req.Amount <= 0 {
		return Answer{}, invalid("결제 금액(amount)이 필요합니다.")
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
			return nil, errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
		}
		if c.PaymentKey != req.PaymentKey || c.Amount != req.Amount {
			return nil, invalid("결제 정보가 주문과 일치하지 않습니다.")
		}
		now := s.now()
		if c.Status == "requested" {
			_, err := s.cfg.Gateway.Confirm(ctx, c.PaymentKey, c.OrderID, c.Amount)
			var ge *GatewayError
			switch {
			case errors.As(err, &ge) && ge.Code == "ALREADY_PROCESSED_PAYMENT":
				// An earlier attempt confirmed it at the PG but did not commit here.
				if err := s.credit(ctx, tx, w, c, now); err != nil {
					return nil, err
				}
			case errors.As(err, &ge):
				// The refusal is recorded: it is the answer to this order for good.
				if _, err := tx.Exec(ctx, `UPDATE charges SET status = 'failed', fail_reason = $2, updated_at = $3 WHERE order_id = $1`,
					c.OrderID, ge.Code+": "+ge.Message, now); err != nil {
					return nil, fmt.Errorf("mark charge %s failed: %w", c.OrderID, err)
				}
				c.Status = "failed"
			case err != nil:
				return nil, err
			default:
				if err := s.credit(ctx, tx, w, c, now); err != nil {
					return nil, err
				}
			}
		}
		return s.chargeAnswer(ctx, tx, c.OrderID, w)
	})
}

func (s *Service) chargeAnswer(ctx context.Context, q Querier, orderID string, w *Wallet) (*Charge, error) {
	c := &Charge{Header: contract.Header{Code: 200}, Wallet: w}
	err := q.QueryRow(ctx, `SELECT order_id, money, amount, status, payment_key, checkout_url, fail_reason, bonus, created_at
		FROM charges WHERE order_id = $1`, orderID).Scan(&c.OrderID, &c.Money, &c.Amount, &c.Status, &c.PaymentKey,
		&c.CheckoutURL, &c.FailReason, &c.Bonus, &c.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("load charge %s: %w", orderID, err)
	}
	return c, nil
}

// CancelCharge cancels a done charge at the PG and takes the money (and its
// first-charge bonus) back. It needs the charged money to be still unspent.
func (s *Service) CancelCharge(ctx context.Context, uid int64, key, orderID string) (Answer, error) {
	if orderID == "" || len(orderID) > 64 {
		return Answer{}, invalid("주문 번호(orderId)가 필요합니다.")
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
	return s.once(ctx, uid, key, "cancel", orderID, func(tx pgx.Tx, _ *pgx.Batch, w *Wallet) (any, error) {
		c, err := lockCharge(ctx, tx, orderID)
		if err != nil {
			return nil, err
		}
		if c.UID != uid {
			return nil, errorf(http.StatusNotFound, "충전 내역을 찾을 수 없습니다.")
		}
		if c.Status != "done" {
			return nil, errorf(http.StatusConflict, "완료된 충전만 취소할 수 있습니다.")
		}
		if w.Balance(c.Money) < c.Amount {
			return nil, errorf(http.StatusConflict, "충전한 금액을 이미 사용해 취소할 수 없습니다.")
		}
		if _, err := s.cfg.Gateway.Cancel(ctx, c.PaymentKey, "고객 요청"); err != nil {
			var ge *GatewayError
			if errors.As(err, &ge) {
				return nil, errorf(http.StatusConflict, "결제사에서 취소를 거절했습니다: %s", ge.Message)
			}
			return nil, err
		}
		if err := s.takeBack(ctx, tx, w, c, s.now()); err != nil {
			return nil, err
		}
		return s.chargeAnswer(ctx, tx, c.OrderID, w)
	})
}

// takeBack reverses a done charge, never below zero: what was already spent is
// recorded as the shortfall (only a PG-side cancel can leave one).
func (s *Service) takeBack(ctx context.Context, tx pgx.Tx, w *Wallet, c *chargeRow, now time.Time) error {
	take := min(c.Amount, w.Balance(c.Money))
	if err := post(ctx, tx, w, c.Money, -take, "charge_cancel", "charge:"+c.OrderID, now); err != nil {
		return err
	}
	bonus := min(c.Bonus, w.Mileage)
	if err := post(ctx, tx, w, Mileage, -bonus, "charge_cancel", "charge:"+c.OrderID, now); err != nil {
		return err
	}
	reason := ""
	if take < c.Amount {
		reason = fmt.Sprintf("shortfall %d", c.Amount-take)
	}
	if _, err := tx.Exec(ctx, `UPDATE charges SET status = 'canceled', fail_reason = $2, updated_at = $3 WHERE order_id = $1`,
		c.OrderID, reason, now); err != nil {
		return fmt.Errorf("mark charge %s canceled: %w", c.OrderID, err)
	}
	if err := s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCharge, Time: now,
		UID: uidString(w.UID), Amount: -take, Money: c.Money, Props: map[string]string{"orderId": c.OrderID, "kind": "cancel"}}); err != nil {
		return err
	}
	return s.profileChanged(ctx, tx, w.UID)
}

// Webhook handles a PG webhook: verified, applied once per event id.
// It credits a payment the buyer approved but never confirmed here (closed
// browser), records aborted payments and applies PG-side cancellations.
func (s *Service) Webhook(ctx context.Context, body []byte, h http.Header) (applied bool, err error) {
	if s.cfg.Gateway == nil {
		return false, ErrNoGateway
	}
	ev, err := s.cfg.Gateway.ParseWebhook(body, h)
	if errors.Is(err, ErrBadSignature) {
		return false, errorf(http.StatusUnauthorized, "bad signature")
	}
	if err != nil {
		return false, invalid("%v", err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		applied = false
		var uid int64
		err := tx.QueryRow(ctx, `SELECT uid FROM charges WHERE order_id = $1`, ev.Data.OrderID).Scan(&uid)
		if errors.Is(err, pgx.ErrNoRows) {
			return errorf(http.StatusNotFound, "no such order")
		}
		if err != nil {
			return fmt.Errorf("find charge %s: %w", ev.Data.OrderID, err)
		}
		now := s.now()
		// Wallet before charge: the same lock order as confirm and cancel.
		w, err := lockWallet(ctx, tx, uid)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO pg_webhooks (event_id, order_id, type, received_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, ev.EventID, ev.Data.OrderID, ev.Data.Status, now)
		if err != nil {
			return fmt.Errorf("record webhook %s: %w", ev.EventID, err)
		}
		if tag.RowsAffected() == 0 {
			return nil // a re-delivery
		}
		applied = true
		c, err := lockCharge(ctx, tx, ev.Data.OrderID)
		if err != nil {
			return err
		}
		switch {
		case ev.Data.Status == PayDone && (c.Status == "requested" || c.Status == "failed"):
			// The PG took the money: credit it even if our confirm recorded a failure.
			if ev.Data.Amount != c.Amount || ev.Data.PaymentKey != c.PaymentKey {
				return invalid("webhook does not match the order")
			}
			return s.credit(ctx, tx, w, c, now)
		case ev.Data.Status == PayAborted && c.Status == "requested":
			_, err := tx.Exec(ctx, `UPDATE charges SET status = 'failed', fail_reason = 'aborted at the payment gateway', updated_at = $2
				WHERE order_id = $1`, c.OrderID, now)
			return err
		case ev.Data.Status == PayCanceled && c.Status == "done":
			return s.takeBack(ctx, tx, w, c, now)
		}
		return nil
	})
	if err == nil && applied {
		s.cfg.Changed()
	}
	return applied, err
}

// Charges lists the user's charges, newest first.
func (s *Service) Charges(ctx context.Context, uid int64, limit int) ([]Charge, error) {
	rows, err := s.pool.Query(ctx, `SELECT order_id, money, amount, status, payment_key, checkout_url, fail_reason, bonus, created_at
		FROM charges WHERE uid = $1 ORDER BY created_at DESC, order_id LIMIT $2`, uid, limit)
	if err != nil {
		return nil, fmt.Errorf("list charges %d: %w", uid, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Charge, error) {
		c := Charge{Header: contract.Header{Code: 200}}
		err := r.Scan(&c.OrderID, &c.Money, &c.Amount, &c.Status, &c.PaymentKey, &c.CheckoutURL, &c.FailReason, &c.Bonus, &c.CreatedAt)
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
		return nil, invalid("주문 번호(orderId)가 필요합니다.")
	}
	if err := s.ownCharge(ctx, uid, orderID); err != nil {
		return nil, err
	}
	return s.chargeAnswer(ctx, s.pool, orderID, nil)
}
