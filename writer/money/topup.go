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
	"storefront/writer/httpapi"
)

// Automatic top-up (issue 32). Both kinds become a row of topups, the job a
// writer's worker takes, so the gateway is never called inside a purchase:
//
//   - threshold: the purchase that leaves the blue balance under
//     trigger_value flips auto_payments.topup_state from armed to pending and
//     inserts the job, in its own commit pipeline (one statement, only when
//     the purchase spent blue money). Purchases of a member serialise on the
//     wallet lock and the flip is conditional on armed, and a partial unique
//     index allows one pending threshold job per member: one top-up per
//     crossing whatever the concurrency. The job's end re-arms the setting.
//   - scheduled: ScheduleTopups inserts one job per member and Korean month
//     (UNIQUE (uid, period)) from the chosen day on; any number of writers
//     may run it at once.
//
// A worker claims a due job with FOR UPDATE SKIP LOCKED and moves its
// next_at past a lease before calling the gateway, so a writer killed
// mid-run leaves it to another after the lease. Every attempt charges with
// the job's orderId and the same Idempotency-Key: the gateway answers a
// repeat with the first answer (or DUPLICATED_ORDER_ID, settled by looking
// the order up), so no attempt charges twice. The answer is applied through
// the charge path (charges row, ledger, first-charge bonus, outbox event)
// under the idempotency key "topup-<orderId>". A decline pauses the setting
// and tells the member; a failure of the gateway is retried with backoff,
// TopupMaxAttempts times, and then pauses it too.

// Kinds of a top-up job, and of the charge it makes.
const (
	topupThreshold = "threshold"
	topupScheduled = "scheduled"
)

func newTopupOrderID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "at_" + hex.EncodeToString(b[:])
}

// queueThresholdTopup adds to a purchase's commit pipeline the statement
// that starts a threshold top-up when blue (the balance the purchase left)
// is under the member's armed threshold.
func queueThresholdTopup(b *pgx.Batch, uid, blue int64, now time.Time) {
	b.Queue(`WITH armed AS (
			UPDATE auto_payments SET topup_state = 'pending'
			WHERE uid = $1 AND is_use AND type = 'bluemoney-auto-payment' AND topup_state = 'armed' AND trigger_value > $2
			RETURNING uid, money)
		INSERT INTO topups (order_id, uid, kind, amount, status, next_at, created_at, updated_at)
		SELECT $3, uid, 'threshold', money, 'pending', $4, $4, $4 FROM armed
		ON CONFLICT DO NOTHING`, uid, blue, newTopupOrderID(), now)
}

// ScheduleTopups writes the scheduled top-ups due in the current Korean
// month: one per member whose chosen day has come, when the setting was on
// by that day. It tells how many it wrote (0 on every writer but one).
func (s *Service) ScheduleTopups(ctx context.Context) (int64, error) {
	now := s.now()
	k := now.In(contract.KST)
	period := k.Format("2006-01")
	tag, err := s.pool.Exec(ctx, `INSERT INTO topups (order_id, uid, kind, period, amount, status, next_at, created_at, updated_at)
		SELECT 'sch_' || uid || '_' || replace($1, '-', ''), uid, 'scheduled', $1, money, 'pending', $5, $5, $5
		FROM auto_payments
		WHERE is_use AND type = 'bluemoney-scheduled-payment' AND trigger_value <= $2
		  AND ((enabled_at AT TIME ZONE 'UTC') + interval '9 hours')::date <= make_date($3, $4, trigger_value::int)
		ON CONFLICT DO NOTHING`, period, k.Day(), k.Year(), int(k.Month()), now)
	if err != nil {
		return 0, fmt.Errorf("schedule top-ups %s: %w", period, err)
	}
	return tag.RowsAffected(), nil
}

type topupJob struct {
	OrderID, Kind string
	UID, Amount   int64
	Attempts      int
}

// claimTopup takes one due job for the lease (committed at once, so a
// writer that dies now leaves it to another when the lease ends).
func (s *Service) claimTopup(ctx context.Context, now time.Time) (*topupJob, error) {
	var j topupJob
	err := s.pool.QueryRow(ctx, `UPDATE topups SET attempts = attempts + 1, next_at = $2, updated_at = $1
		WHERE order_id = (SELECT order_id FROM topups WHERE status = 'pending' AND next_at <= $1
			ORDER BY next_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING order_id, kind, uid, amount, attempts`, now, now.Add(s.cfg.TopupLease)).
		Scan(&j.OrderID, &j.Kind, &j.UID, &j.Amount, &j.Attempts)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim top-up: %w", err)
	}
	return &j, nil
}

// ProcessTopups runs the due top-up jobs until none is left and tells how
// many it ran. Several writers may run it at once.
func (s *Service) ProcessTopups(ctx context.Context) (int, error) {
	if s.cfg.Billing == nil {
		return 0, nil
	}
	n := 0
	for {
		j, err := s.claimTopup(ctx, s.now())
		if err != nil || j == nil {
			return n, err
		}
		n++
		if err := s.runTopup(ctx, j); err != nil {
			return n, fmt.Errorf("top-up %s: %w", j.OrderID, err)
		}
	}
}

// RunTopups schedules and processes top-ups every TopupPoll until ctx ends
// (the writer starts it; every writer node may).
func (s *Service) RunTopups(ctx context.Context) {
	if s.cfg.Billing == nil {
		return
	}
	for {
		if _, err := s.ScheduleTopups(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("scheduling top-ups failed", "err", err)
		}
		if _, err := s.ProcessTopups(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("processing top-ups failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.cfg.TopupPoll):
		}
	}
}

// errTopupDeclined is a top-up the gateway refused for good.
type errTopupDeclined struct{ reason string }

func (e errTopupDeclined) Error() string { return "top-up declined: " + e.reason }

func (s *Service) runTopup(ctx context.Context, j *topupJob) error {
	now := s.now()
	chargeKind := "auto"
	if j.Kind == topupScheduled {
		chargeKind = "scheduled"
	}
	// The member's charge history shows the top-up from its first attempt.
	if _, err := s.pool.Exec(ctx, `INSERT INTO charges (order_id, uid, money, amount, status, kind, created_at, updated_at)
		VALUES ($1, $2, 'blue', $3, 'requested', $4, $5, $5) ON CONFLICT (order_id) DO NOTHING`,
		j.OrderID, j.UID, j.Amount, chargeKind, now); err != nil {
		return fmt.Errorf("record charge: %w", err)
	}
	billingKey, customerKey, err := s.chargingCard(ctx, j.UID)
	if err != nil {
		return err
	}
	if billingKey == "" {
		return s.pauseTopup(ctx, j, "등록된 카드가 없어 자동 충전을 하지 못했습니다.")
	}
	p, err := s.cfg.Billing.ChargeBilling(ctx, "billing-"+j.OrderID, billingKey, BillingCharge{CustomerKey: customerKey,
		Amount: j.Amount, OrderID: j.OrderID, OrderName: fmt.Sprintf("블루머니 %d원 자동 충전", j.Amount)})
	var ge *GatewayError
	switch {
	case err == nil:
	case errors.Is(err, ErrGatewayDown) || errors.As(err, &ge) && ge.Code == "DUPLICATED_ORDER_ID":
		// No answer, or an earlier attempt's charge: the order says which.
		lp, lerr := s.cfg.Billing.PaymentByOrder(ctx, j.OrderID)
		if lerr != nil {
			return s.retryTopup(ctx, j, err)
		}
		p = lp
	case errors.As(err, &ge):
		return s.pauseTopup(ctx, j, KoreanMessage(ge.Code))
	default:
		return err
	}
	err = s.settleTopup(ctx, j, p)
	var d errTopupDeclined
	switch {
	case errors.As(err, &d):
		return s.pauseTopup(ctx, j, d.reason)
	case err != nil && ctx.Err() == nil:
		// Not applied (the database, or a payment not final yet): the
		// next attempt asks the gateway again with the same order.
		return s.retryTopup(ctx, j, err)
	}
	return err
}

// settleTopup applies the gateway's payment of a top-up once: the charge
// path credits it (ledger, outbox), the job ends, the setting re-arms and
// the member gets the receipt, all in one transaction under the
// idempotency key of the order.
func (s *Service) settleTopup(ctx context.Context, j *topupJob, p Payment) error {
	var declined string
	_, err := s.once(ctx, j.UID, "topup-"+j.OrderID, "topup", map[string]string{"orderId": j.OrderID, "paymentKey": p.PaymentKey},
		func(tx pgx.Tx, _ *pgx.Batch, w *Wallet) (any, error) {
			declined = ""
			now := s.now()
			c, err := lockCharge(ctx, tx, j.OrderID)
			if err != nil {
				return nil, err
			}
			if _, err := s.applyPayment(ctx, tx, w, c, p, now); err != nil {
				return nil, err
			}
			switch c.Status {
			case "failed":
				declined = c.FailReason
				return nil, errTopupDeclined{reason: c.FailReason}
			case "requested":
				return nil, httpapi.Errorf(http.StatusBadGateway, "결제가 아직 끝나지 않았습니다. (%s)", p.Status)
			}
			if _, err := tx.Exec(ctx, `UPDATE topups SET status = 'done', last_error = '', updated_at = $2 WHERE order_id = $1`,
				j.OrderID, now); err != nil {
				return nil, fmt.Errorf("mark top-up done: %w", err)
			}
			if j.Kind == topupThreshold {
				if _, err := tx.Exec(ctx, `UPDATE auto_payments SET topup_state = 'armed' WHERE uid = $1 AND topup_state = 'pending'`,
					j.UID); err != nil {
					return nil, fmt.Errorf("re-arm auto payment: %w", err)
				}
			}
			title := "자동 충전 영수증"
			if j.Kind == topupScheduled {
				title = "정기 충전 영수증"
			}
			if err := addNotice(ctx, tx, j.UID, "topup_receipt", title,
				fmt.Sprintf("블루머니 %s원이 등록한 카드로 충전되었습니다. (주문번호 %s)", won(j.Amount), j.OrderID), j.OrderID, j.Amount, now); err != nil {
				return nil, err
			}
			return map[string]any{"orderId": j.OrderID, "status": c.Status, "wallet": w}, nil
		})
	if declined != "" {
		return errTopupDeclined{reason: declined}
	}
	if err == nil {
		s.cfg.Changed()
	}
	return err
}

// retryTopup puts a job whose charge got no answer back for a later
// attempt, with a doubling wait, or pauses the setting after the last.
func (s *Service) retryTopup(ctx context.Context, j *topupJob, cause error) error {
	s.log.Warn("top-up attempt failed", "order", j.OrderID, "attempt", j.Attempts, "err", cause)
	if j.Attempts >= s.cfg.TopupMaxAttempts {
		return s.pauseTopup(ctx, j, "결제사와 연결되지 않아 자동 충전을 하지 못했습니다.")
	}
	wait := s.cfg.TopupRetry << (j.Attempts - 1)
	if _, err := s.pool.Exec(ctx, `UPDATE topups SET next_at = $2, last_error = $3, updated_at = $4 WHERE order_id = $1 AND status = 'pending'`,
		j.OrderID, s.now().Add(wait), cause.Error(), s.now()); err != nil {
		return fmt.Errorf("reschedule top-up: %w", err)
	}
	return nil
}

// pauseTopup ends a job that cannot be charged: the charge fails (no
// balance changes), the setting is paused with the reason and the member is
// told.
func (s *Service) pauseTopup(ctx context.Context, j *topupJob, reason string) error {
	now := s.now()
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE charges SET status = 'failed', fail_reason = $2, updated_at = $3
			WHERE order_id = $1 AND status = 'requested'`, j.OrderID, reason, now); err != nil {
			return fmt.Errorf("fail charge: %w", err)
		}
		tag, err := tx.Exec(ctx, `UPDATE topups SET status = 'failed', last_error = $2, updated_at = $3 WHERE order_id = $1 AND status = 'pending'`,
			j.OrderID, reason, now)
		if err != nil {
			return fmt.Errorf("fail top-up: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil // ended meanwhile by another writer
		}
		if _, err := tx.Exec(ctx, `UPDATE auto_payments SET is_use = false, topup_state = 'paused', paused_reason = $2, updated_at = $3
			WHERE uid = $1`, j.UID, reason, now); err != nil {
			return fmt.Errorf("pause auto payment: %w", err)
		}
		return addNotice(ctx, tx, j.UID, "topup_paused", "자동 충전이 멈췄습니다",
			reason+" 카드를 확인한 뒤 자동 충전을 다시 켜 주세요.", j.OrderID, j.Amount, now)
	})
	if err != nil {
		return fmt.Errorf("pause top-up: %w", err)
	}
	s.log.Info("auto top-up paused", "uid", j.UID, "order", j.OrderID, "reason", reason)
	return nil
}

func addNotice(ctx context.Context, tx pgx.Tx, uid int64, kind, title, body, orderID string, amount int64, now time.Time) error {
	if _, err := tx.Exec(ctx, `INSERT INTO money_notices (uid, kind, title, body, order_id, amount, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (order_id, kind) DO NOTHING`, uid, kind, title, body, orderID, amount, now); err != nil {
		return fmt.Errorf("notice %s to %d: %w", kind, uid, err)
	}
	return nil
}

// won formats an amount with thousands separators (5,000).
func won(n int64) string {
	s := fmt.Sprint(n)
	out := []byte{}
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Notice is one of the member's money notices.
type Notice struct {
	ID        int64     `json:"id"`
	Kind      string    `json:"kind"` // topup_receipt | topup_paused
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	OrderID   string    `json:"orderId"`
	Amount    int64     `json:"amount"`
	CreatedAt time.Time `json:"createdAt"`
}

// Notices lists the member's money notices, newest first.
func (s *Service) Notices(ctx context.Context, uid int64, limit int) ([]Notice, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, kind, title, body, order_id, amount, created_at FROM money_notices
		WHERE uid = $1 ORDER BY id DESC LIMIT $2`, uid, limit)
	if err != nil {
		return nil, fmt.Errorf("list notices of %d: %w", uid, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Notice, error) {
		var n Notice
		err := r.Scan(&n.ID, &n.Kind, &n.Title, &n.Body, &n.OrderID, &n.Amount, &n.CreatedAt)
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("list notices of %d: %w", uid, err)
	}
	if out == nil {
		out = []Notice{}
	}
	return out, nil
}
