package money

import (
	"context"
	"fmt"
	"net/http"
	"storefront/writer/httpapi"
	"time"

	"github.com/jackc/pgx/v5"
)

// Gift is a grant waiting in the gift box.
type Gift struct {
	ID        int64     `json:"id"`
	Kind      string    `json:"kind"`
	PID       string    `json:"pid,omitempty"`
	Section   string    `json:"section,omitempty"`
	Count     int       `json:"count"`
	ExpiresAt time.Time `json:"expiresAt"`
	Source    string    `json:"source"`
	EID       int64     `json:"eid,omitempty"`
}

// GiftBox lists the user's unreceived, unexpired grants.
func (s *Service) GiftBox(ctx context.Context, uid int64) ([]Gift, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, kind, pid, section, count, expires_at, source, eid FROM coupon_grants
		WHERE uid = $1 AND NOT is_recv AND expires_at > $2 ORDER BY id`, uid, s.clock(ctx))
	if err != nil {
		return nil, fmt.Errorf("list gift box %d: %w", uid, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Gift, error) {
		var g Gift
		err := r.Scan(&g.ID, &g.Kind, &g.PID, &g.Section, &g.Count, &g.ExpiresAt, &g.Source, &g.EID)
		return g, err
	})
	if err != nil {
		return nil, fmt.Errorf("list gift box %d: %w", uid, err)
	}
	return out, nil
}

// ReceiveGift moves a grant out of the gift box so it can be used.
func (s *Service) ReceiveGift(ctx context.Context, uid, id int64) error {
	tag, err := s.pool.Exec(ctx, `UPDATE coupon_grants SET is_recv = true
		WHERE id = $1 AND uid = $2 AND NOT is_recv AND expires_at > $3`, id, uid, s.clock(ctx))
	if err != nil {
		return fmt.Errorf("receive gift %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return httpapi.Errorf(http.StatusNotFound, "선물함에 없는 선물입니다.")
	}
	return nil
}
