package money

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ProfileFacts is what the member tracking profile (seed §3) takes from money.
type ProfileFacts struct {
	Wallet       Wallet
	ComicTickets int64
	NovelTickets int64
	AutoPayment  AutoPayment
	// Completed charges: how many, the first and the last (nil when none).
	ChargeCount                 int
	FirstChargeAt, LastChargeAt *time.Time
}

// LoadProfileFacts reads uid's money facts through q, a pool or the caller's
// transaction (inside one it sees that transaction's charge or purchase).
func LoadProfileFacts(ctx context.Context, q Querier, uid int64, now time.Time) (ProfileFacts, error) {
	var f ProfileFacts
	w, err := scanWallet(q.QueryRow(ctx, `SELECT `+walletCols+` FROM wallets WHERE uid = $1`, uid))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		f.Wallet = Wallet{UID: uid}
	case err != nil:
		return f, fmt.Errorf("load wallet %d: %w", uid, err)
	default:
		f.Wallet = *w
	}
	err = q.QueryRow(ctx, `SELECT is_use, type, money, trigger_value FROM auto_payments WHERE uid = $1`, uid).
		Scan(&f.AutoPayment.IsUse, &f.AutoPayment.Type, &f.AutoPayment.Money, &f.AutoPayment.TriggerValue)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return f, fmt.Errorf("load auto payment %d: %w", uid, err)
	}
	err = q.QueryRow(ctx, `SELECT
		coalesce((SELECT sum(count - used_cnt) FILTER (WHERE section = 'CM') FROM coupon_grants
			WHERE uid = $1 AND kind = 'ticket' AND is_recv AND expires_at > $2), 0),
		coalesce((SELECT sum(count - used_cnt) FILTER (WHERE section = 'EB') FROM coupon_grants
			WHERE uid = $1 AND kind = 'ticket' AND is_recv AND expires_at > $2), 0),
		(SELECT count(*) FROM charges WHERE uid = $1 AND status = 'done'),
		(SELECT min(created_at) FROM charges WHERE uid = $1 AND status = 'done'),
		(SELECT max(created_at) FROM charges WHERE uid = $1 AND status = 'done')`, uid, now).
		Scan(&f.ComicTickets, &f.NovelTickets, &f.ChargeCount, &f.FirstChargeAt, &f.LastChargeAt)
	if err != nil {
		return f, fmt.Errorf("load tickets and charges of %d: %w", uid, err)
	}
	return f, nil
}
