package money

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
)

// JumpingPassRequest buys one jumping pass at the price of the jumping pass
// on sale (the admin's /jumpingpass document).
type JumpingPassRequest struct {
	// Channel decides which money is spent (seed §6); it comes from the
	// X-Channel header, not the body.
	Channel string `json:"channel,omitempty"`
}

// JumpingPassResult is the answer of a jumping pass purchase.
type JumpingPassResult struct {
	Header contract.Header `json:"header"`
	// JcpID is the new pass (a coupon grant of kind jumping, count 1).
	JcpID     int64     `json:"jcpId"`
	Amount    int64     `json:"amount"`
	Paid      Paid      `json:"paid"`
	ExpiresAt time.Time `json:"expiresAt"`
	Wallet    Wallet    `json:"wallet"`
}

// BuyJumpingPass sells one jumping pass, once per idempotency key: the price
// is spent like a purchase (mileage first, then the channel's money) and the
// pass is usable at once until now + the offer's days. It opens the volumes of
// jumping-pass works, the newest included (UseCoupon kind jumping).
func (s *Service) BuyJumpingPass(ctx context.Context, uid int64, key string, req JumpingPassRequest) (Answer, error) {
	if err := validKey(key); err != nil {
		return Answer{}, err
	}
	offer, err := s.cfg.Catalog.JumpingPass(ctx, s.pool)
	if err != nil {
		return Answer{}, err
	}
	return s.once(ctx, uid, key, "jumpingpass", req, func(tx pgx.Tx, b *pgx.Batch, w *Wallet) (any, error) {
		now := s.now()
		exp := now.Add(time.Duration(offer.Days) * 24 * time.Hour)
		res := &JumpingPassResult{Header: contract.Header{Code: 200}, Amount: offer.Price, ExpiresAt: exp}
		if err := tx.QueryRow(ctx, `INSERT INTO coupon_grants (uid, kind, count, is_recv, available_at, expires_at, source, created_at)
			VALUES ($1, 'jumping', 1, true, $2, $3, 'purchase', $2) RETURNING id`, uid, now, exp).Scan(&res.JcpID); err != nil {
			return nil, fmt.Errorf("grant jumping pass to %d: %w", uid, err)
		}
		money := MoneyFor(req.Channel)
		ref := "jumpingpass:" + strconv.FormatInt(res.JcpID, 10)
		if res.Paid, err = spend(ctx, tx, w, money, offer.Price, "jumping_pass", ref, now); err != nil {
			return nil, err
		}
		if err := s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvPurchase, Time: now,
			UID: uidString(uid), Amount: offer.Price, Money: money, Channel: req.Channel,
			Props: map[string]string{"kind": "jumpingpass", "jcpId": strconv.FormatInt(res.JcpID, 10),
				"days": strconv.Itoa(offer.Days)}}); err != nil {
			return nil, err
		}
		if res.Paid[Blue] > 0 {
			queueThresholdTopup(b, uid, w.Blue, now) // like a purchase (topup.go)
		}
		res.Wallet = *w
		return res, nil
	})
}
