package money

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"storefront/writer/httpapi"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
)

// couponEventKinds are the event kinds whose coupons readers claim.
var couponEventKinds = []string{contract.EventDoubleCoupon, contract.EventBluerun, contract.EventHoneyBenefit,
	contract.EventHeroism, contract.EventTicket}

// CouponEvent is an event whose coupons a user may claim.
type CouponEvent struct {
	EID     int64     `json:"eid"`
	Kind    string    `json:"kind"`
	Title   string    `json:"title"`
	PIDs    []string  `json:"pids"`
	Coupons int       `json:"coupons"`
	StartAt time.Time `json:"startAt"`
	EndAt   time.Time `json:"endAt"`
	Claimed bool      `json:"claimed"`
}

// CouponEvents lists the running coupon events (kind "" = all) with the user's claim state.
func (s *Service) CouponEvents(ctx context.Context, uid int64, kind string) ([]CouponEvent, error) {
	kinds := couponEventKinds
	if kind != "" {
		kinds = []string{kind}
	}
	now := s.clock(ctx)
	rows, err := s.pool.Query(ctx, `SELECT e.eid, e.kind, e.title, e.pids, e.coupons, e.start_at, e.end_at,
			EXISTS (SELECT 1 FROM event_claims c WHERE c.uid = $1 AND c.eid = e.eid)
		FROM events e WHERE e.kind = ANY($2) AND e.start_at <= $3 AND e.end_at > $3 ORDER BY e.eid`, uid, kinds, now)
	if err != nil {
		return nil, fmt.Errorf("list coupon events: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CouponEvent, error) {
		var e CouponEvent
		err := r.Scan(&e.EID, &e.Kind, &e.Title, &e.PIDs, &e.Coupons, &e.StartAt, &e.EndAt, &e.Claimed)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("list coupon events: %w", err)
	}
	return out, nil
}

// ClaimResult is the answer of an event claim.
type ClaimResult struct {
	Header contract.Header `json:"header"`
	EID    int64           `json:"eid"`
	Kind   string          `json:"kind"`
	Gifts  int             `json:"gifts"`
}

// ClaimEvent gives the user an event's coupons, once per user and only while
// the event runs. They land in the gift box and expire with the event:
//   - doublecoupon: twice the event's coupons as read coupons of each work;
//   - bluerun, honeybenefit (comics), heroism: the event's coupons as read coupons of each work;
//   - ticket (the comic ticket event 18322): the event's coupons as comic tickets.
func (s *Service) ClaimEvent(ctx context.Context, uid, eid int64) (*ClaimResult, error) {
	return s.claimEvent(ctx, uid, eid, "")
}

// claimEvent claims eid; a non-empty kind must be the event's (the comic honey
// benefit and heroism pages claim only their own events).
func (s *Service) claimEvent(ctx context.Context, uid, eid int64, want string) (*ClaimResult, error) {
	if eid <= 0 {
		return nil, httpapi.BadRequest("이벤트 ID(eid)가 필요합니다.")
	}
	var res *ClaimResult
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var kind string
		var pids []string
		var coupons int
		var start, end time.Time
		err := tx.QueryRow(ctx, `SELECT kind, pids, coupons, start_at, end_at FROM events WHERE eid = $1`, eid).
			Scan(&kind, &pids, &coupons, &start, &end)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && want != "" && kind != want) {
			return httpapi.Errorf(http.StatusNotFound, "이벤트를 찾을 수 없습니다.")
		}
		if err != nil {
			return fmt.Errorf("load event %d: %w", eid, err)
		}
		now := s.clock(ctx)
		if now.Before(start) || !now.Before(end) {
			return httpapi.Errorf(http.StatusConflict, "진행 중인 이벤트가 아닙니다.")
		}
		if eid == contract.ComicTicketEventID {
			kind = contract.EventTicket
		}
		if coupons <= 0 {
			coupons = 1
		}
		if _, err := lockWallet(ctx, tx, uid); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO event_claims (uid, eid, claimed_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, uid, eid, now)
		if err != nil {
			return fmt.Errorf("claim event %d: %w", eid, err)
		}
		if tag.RowsAffected() == 0 {
			return httpapi.Errorf(http.StatusConflict, "이미 받은 쿠폰입니다.")
		}
		res = &ClaimResult{Header: contract.Header{Code: 200}, EID: eid, Kind: kind}
		base := Grant{AvailableAt: now, ExpiresAt: end, Source: kind, EID: eid, Count: coupons}
		switch kind {
		case contract.EventTicket:
			g := base
			g.Kind, g.Section = CouponTicket, contract.SectionComic
			if err := insertGrant(ctx, tx, uid, g, now); err != nil {
				return err
			}
			res.Gifts++
		case contract.EventDoubleCoupon, contract.EventBluerun, contract.EventHoneyBenefit, contract.EventHeroism:
			if kind == contract.EventDoubleCoupon {
				base.Count *= 2
			}
			for _, pid := range pids {
				g := base
				g.Kind, g.PID = CouponRead, pid
				if err := insertGrant(ctx, tx, uid, g, now); err != nil {
					return err
				}
				res.Gifts++
			}
		default:
			return httpapi.Errorf(http.StatusConflict, "받을 수 있는 쿠폰이 없는 이벤트입니다.")
		}
		return s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCouponUse, Time: now,
			UID: uidString(uid), Props: map[string]string{"kind": "claim", "eid": strconv.FormatInt(eid, 10), "event": kind}})
	})
	if err == nil {
		s.cfg.Changed()
	}
	return res, err
}
