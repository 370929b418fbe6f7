package push

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// NoticeURL is where a money notice's notification opens: the automatic
// top-up screen, which lists the member's receipts and pauses
// (frontend/app/routes/payment-auto.tsx).
const NoticeURL = "/payment/auto"

// fanOutNotices turns each money notice not yet rung (writer/money writes
// one per top-up receipt and per pause of the setting, in the top-up's own
// transaction) into one delivery per web subscription of its member, as
// fanOut does for releases: the notices are marked and the deliveries made
// in one transaction, rows another node holds are skipped, and a notice
// older than the window is marked without ringing (a writer down for a day
// does not send yesterday's receipts). A member without a subscription has
// the notice in their history only.
func (w *Worker) fanOutNotices(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := w.fanOutNoticeBatch(ctx)
		if err != nil || n < fanOutBatch {
			return err
		}
	}
	return nil
}

func (w *Worker) fanOutNoticeBatch(ctx context.Context) (int, error) {
	now := w.s.cfg.Now()
	var n int
	err := pgx.BeginFunc(ctx, w.s.pool, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `WITH due AS (
				UPDATE money_notices m SET pushed_at = $1 FROM (
					SELECT id FROM money_notices WHERE pushed_at IS NULL ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED) d
				WHERE m.id = d.id
				RETURNING m.id, m.uid, m.created_at),
			ins AS (
				INSERT INTO push_notice_deliveries (notice_id, sub_id, next_at)
				SELECT due.id, s.id, $1 FROM due
				JOIN push_subscriptions s ON s.uid = due.uid AND s.channel NOT IN ('AA', 'AO', 'AC', 'IA')
				WHERE due.created_at > $2
				ON CONFLICT DO NOTHING)
			SELECT count(*) FROM due`, now, now.Add(-w.s.cfg.Window), fanOutBatch).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("push: fan out money notices: %w", err)
	}
	return n, nil
}
