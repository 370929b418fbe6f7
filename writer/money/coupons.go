package money

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"storefront/writer/httpapi"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/devclock"
)

// clock is the time of the coupon rules for this call: Config.Now, moved by
// the request's dev-clock offset (writer/devclock: always zero unless the
// writer runs with -dev-clock), so an end-to-end test can let one member's
// wait-for-free timer run out while everyone else keeps the real time.
func (s *Service) clock(ctx context.Context) time.Time { return s.now().Add(devclock.Offset(ctx)) }

// Coupon kinds of coupon_grants, and the wait-for-free kind of CouponUse.
const (
	CouponWFF     = "wff"     // wait-for-free: one volume every recycle×60 s
	CouponRead    = "read"    // read coupon for one work
	CouponPass    = "pass"    // pass: any work, not its newest volumes
	CouponJumping = "jumping" // jumping pass: jumping-pass works, newest volumes included
	CouponTicket  = "ticket"  // ticket for a section (comic/novel), spent by buy type T
)

// purchases.buy_type of each coupon unlock.
var couponBuyType = map[string]string{CouponWFF: "W", CouponRead: "C", CouponPass: "P", CouponJumping: "J"}

// Grant is a batch of coupons given to a user.
type Grant struct {
	Kind        string
	PID         string // read coupons: the work
	Section     string // tickets: CM or EB
	Count       int
	AvailableAt time.Time
	ExpiresAt   time.Time
	Source      string
	EID         int64
	// Received false puts the grant into the gift box until the user receives it.
	Received bool
}

func (g *Grant) validate() error {
	switch g.Kind {
	case CouponRead:
		if !contract.ValidKeyID(g.PID) {
			return httpapi.BadRequest("read coupons need a pid")
		}
	case CouponPass, CouponJumping:
	case CouponTicket:
		if g.Section != contract.SectionComic && g.Section != contract.SectionNovel {
			return httpapi.BadRequest("tickets need section CM or EB")
		}
	default:
		return httpapi.BadRequest("unknown coupon kind %q", g.Kind)
	}
	if g.Count <= 0 || g.Count > 10000 {
		return httpapi.BadRequest("count must be 1..10000")
	}
	if !g.ExpiresAt.After(g.AvailableAt) {
		return httpapi.BadRequest("expiry must be after availability")
	}
	return nil
}

func insertGrant(ctx context.Context, tx pgx.Tx, uid int64, g Grant, now time.Time) error {
	if g.Source == "" {
		g.Source = "admin"
	}
	_, err := tx.Exec(ctx, `INSERT INTO coupon_grants (uid, kind, pid, section, count, is_recv, available_at, expires_at, source, eid, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		uid, g.Kind, g.PID, g.Section, g.Count, g.Received, g.AvailableAt, g.ExpiresAt, g.Source, g.EID, now)
	if err != nil {
		return fmt.Errorf("grant %d %s coupons to %d: %w", g.Count, g.Kind, uid, err)
	}
	return nil
}

// GrantCoupons gives coupons to a user (compensation, tests).
func (s *Service) GrantCoupons(ctx context.Context, uid int64, g Grant) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return s.GrantCouponsIn(ctx, tx, uid, g) })
}

// GrantCouponsIn is GrantCoupons inside the caller's transaction: the admin
// API's grant writes its staff audit row in the same one.
func (s *Service) GrantCouponsIn(ctx context.Context, tx pgx.Tx, uid int64, g Grant) error {
	if g.AvailableAt.IsZero() {
		g.AvailableAt = s.clock(ctx)
	}
	if err := g.validate(); err != nil {
		return err
	}
	if _, err := lockWallet(ctx, tx, uid); err != nil {
		return err
	}
	return insertGrant(ctx, tx, uid, g, s.clock(ctx))
}

// couponSubject is a coupon kind as the store names it, with its subject particle.
func couponSubject(kind string) string {
	switch kind {
	case CouponWFF:
		return "기다리면 무료 이용권이"
	case CouponRead:
		return "열람 쿠폰이"
	case CouponPass:
		return "이용권이"
	case CouponJumping:
		return "점핑패스가"
	}
	return "쿠폰이"
}

// takeCoupon spends one coupon of kind from the earliest-expiring usable grant.
// Counts never go below zero: used_cnt < count is part of the choice and a CHECK.
func takeCoupon(ctx context.Context, tx pgx.Tx, uid int64, kind, pid string, now time.Time) (int64, error) {
	var id int64
	err := tx.QueryRow(ctx, `UPDATE coupon_grants SET used_cnt = used_cnt + 1 WHERE id = (
			SELECT id FROM coupon_grants
			WHERE uid = $1 AND kind = $2 AND pid = $3 AND is_recv AND used_cnt < count
			  AND available_at <= $4 AND expires_at > $4
			ORDER BY expires_at, id LIMIT 1)
		RETURNING id`, uid, kind, pid, now).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, httpapi.Errorf(http.StatusConflict, "사용할 수 있는 %s 없습니다.", couponSubject(kind))
	}
	if err != nil {
		return 0, fmt.Errorf("take %s coupon of %d: %w", kind, uid, err)
	}
	return id, nil
}

// usableTickets selects the ticket grants of user $1 that can rent work $2 of
// section $3 at $4: the work's own and its section's, received, available,
// not used up, not expired. What the coupon state counts is what useTickets
// spends.
const usableTickets = `uid = $1 AND kind = 'ticket' AND (pid = $2 OR (pid = '' AND section = $3))
		  AND is_recv AND used_cnt < count AND available_at <= $4 AND expires_at > $4`

// useTickets spends n tickets valid for p (its own or its section's).
func useTickets(ctx context.Context, tx pgx.Tx, uid int64, p *Product, n int, now time.Time) (int, error) {
	rows, err := tx.Query(ctx, `SELECT id, count - used_cnt FROM coupon_grants WHERE `+usableTickets+`
		ORDER BY expires_at, id`, uid, p.PID, p.Section, now)
	if err != nil {
		return 0, fmt.Errorf("load tickets of %d: %w", uid, err)
	}
	type left struct{ id, n int64 }
	ls, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (left, error) {
		var l left
		err := r.Scan(&l.id, &l.n)
		return l, err
	})
	if err != nil {
		return 0, fmt.Errorf("load tickets of %d: %w", uid, err)
	}
	need := int64(n)
	for _, l := range ls {
		if need == 0 {
			break
		}
		take := min(need, l.n)
		if _, err := tx.Exec(ctx, `UPDATE coupon_grants SET used_cnt = used_cnt + $2 WHERE id = $1`, l.id, take); err != nil {
			return 0, fmt.Errorf("use tickets of %d: %w", uid, err)
		}
		need -= take
	}
	if need > 0 {
		return 0, httpapi.Errorf(http.StatusPaymentRequired, "대여권이 부족합니다. (%d장 필요)", n)
	}
	return n, nil
}

// CouponUse unlocks one volume with a coupon.
type CouponUse struct {
	PID  string `json:"pid"`
	Vol  int    `json:"vol"`
	Kind string `json:"kind"` // wff, read, pass, jumping
	// Channel is the X-Channel header (never the body): adult works are not
	// opened on the store apps' channels.
	Channel string `json:"-"`
}

// CouponResult is the answer of a coupon use.
type CouponResult struct {
	Header      contract.Header `json:"header"`
	PID         string          `json:"pid"`
	Vol         int             `json:"vol"`
	Kind        string          `json:"kind"`
	AuthEndDate time.Time       `json:"authEndDate"`
	// WaitTime is the wait-for-free wait in seconds after this use.
	WaitTime int64 `json:"waitTime,omitempty"`
}

func (u *CouponUse) validate() error {
	if !contract.ValidKeyID(u.PID) {
		return httpapi.BadRequest("작품 ID(pid)가 필요합니다.")
	}
	if u.Vol <= 0 || u.Vol > MaxVolNo {
		return httpapi.BadRequest("회차 번호(vol)는 1부터 %d까지입니다.", MaxVolNo)
	}
	if _, ok := couponBuyType[u.Kind]; !ok {
		return httpapi.BadRequest("쿠폰 종류(kind)는 wff, read, pass, jumping 중 하나여야 합니다.")
	}
	return nil
}

// newest reports whether vol is among the n newest released volumes.
func newest(p *Product, vol, n int, now time.Time) bool {
	if n <= 0 {
		return false
	}
	rel := p.Released(now)
	for i := max(0, len(rel)-n); i < len(rel); i++ {
		if rel[i].No == vol {
			return true
		}
	}
	return false
}

// UseCoupon unlocks pid/vol as a rental with a coupon, once per idempotency key.
func (s *Service) UseCoupon(ctx context.Context, uid int64, key string, u CouponUse) (Answer, error) {
	if err := u.validate(); err != nil {
		return Answer{}, err
	}
	if err := validKey(key); err != nil {
		return Answer{}, err
	}
	p, err := s.cfg.Catalog.Product(ctx, s.pool, u.PID, nil)
	if err != nil {
		return Answer{}, err
	}
	if err := sellable(p); err != nil {
		return Answer{}, err
	}
	now := s.clock(ctx)
	if err := s.forAudience(ctx, uid, p, u.Channel, now); err != nil {
		return Answer{}, err
	}
	v, ok := p.Volume(u.Vol, now)
	if !ok {
		return Answer{}, unreleased(ctx, s.pool, p, u.Vol, now)
	}
	if v.IsFree {
		return Answer{}, httpapi.BadRequest("무료 회차입니다. (%d화)", u.Vol)
	}
	return s.once(ctx, uid, key, "coupon", u, func(tx pgx.Tx, _ *pgx.Batch, _ *Wallet) (any, error) {
		// once holds the wallet lock: coupon changes of a user serialise on it.
		return s.useCoupon(ctx, tx, uid, p, u, now)
	})
}

func (s *Service) useCoupon(ctx context.Context, tx pgx.Tx, uid int64, p *Product, u CouponUse, now time.Time) (*CouponResult, error) {
	ents, err := loadEntitlements(ctx, tx, uid, p.PID)
	if err != nil {
		return nil, err
	}
	if e, has := ents[u.Vol]; has && e.active(now) {
		return nil, httpapi.Errorf(http.StatusConflict, "이미 열려 있는 회차입니다. (%d화)", u.Vol)
	}
	res := &CouponResult{Header: contract.Header{Code: 200}, PID: p.PID, Vol: u.Vol, Kind: u.Kind}
	ref := ""
	switch u.Kind {
	case CouponWFF:
		if !p.WaitForFree {
			return nil, httpapi.Errorf(http.StatusConflict, "기다리면 무료가 없는 작품입니다.")
		}
		if newest(p, u.Vol, p.WaitExcludeNewest, now) {
			return nil, httpapi.Errorf(http.StatusConflict, "기다리면 무료로는 최신 %d화를 열 수 없습니다.", p.WaitExcludeNewest)
		}
		var at time.Time
		err := tx.QueryRow(ctx, `SELECT available_at FROM wff_state WHERE uid = $1 AND pid = $2`, uid, p.PID).Scan(&at)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("load wait-for-free %d/%s: %w", uid, p.PID, err)
		}
		if wait := waitSeconds(at, now); wait > 0 {
			return nil, httpapi.Errorf(http.StatusConflict, "기다리면 무료는 %d초 후에 쓸 수 있습니다.", wait)
		}
		// Seed §4/§9: using it sets the wait to recycle × 60 seconds.
		next := now.Add(time.Duration(p.WaitRecycle) * time.Minute)
		if _, err := tx.Exec(ctx, `INSERT INTO wff_state (uid, pid, available_at) VALUES ($1, $2, $3)
			ON CONFLICT (uid, pid) DO UPDATE SET available_at = $3`, uid, p.PID, next); err != nil {
			return nil, fmt.Errorf("save wait-for-free %d/%s: %w", uid, p.PID, err)
		}
		res.WaitTime = waitSeconds(next, now)
	case CouponRead:
		id, err := takeCoupon(ctx, tx, uid, CouponRead, p.PID, now)
		if err != nil {
			return nil, err
		}
		ref = strconv.FormatInt(id, 10)
	case CouponPass:
		if newest(p, u.Vol, p.WaitExcludeNewest, now) {
			return nil, httpapi.Errorf(http.StatusConflict, "이용권으로는 최신 %d화를 열 수 없습니다. 점핑패스를 이용해 주세요.", p.WaitExcludeNewest)
		}
		id, err := takeCoupon(ctx, tx, uid, CouponPass, "", now)
		if err != nil {
			return nil, err
		}
		ref = strconv.FormatInt(id, 10)
	case CouponJumping:
		if !p.JumpingPass {
			return nil, httpapi.Errorf(http.StatusConflict, "점핑패스를 쓸 수 없는 작품입니다.")
		}
		id, err := takeCoupon(ctx, tx, uid, CouponJumping, "", now)
		if err != nil {
			return nil, err
		}
		ref = strconv.FormatInt(id, 10)
	}
	exp := now.Add(s.rentTerm(p))
	res.AuthEndDate = exp
	if err := grant(ctx, tx, uid, p.PID, []int{u.Vol}, BuyRent, u.Kind, &exp, now); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO purchases (uid, pid, buy_type, vols, amount, expires_at, created_at)
		VALUES ($1, $2, $3, $4, 0, $5, $6)`, uid, p.PID, couponBuyType[u.Kind], []int{u.Vol}, exp, now); err != nil {
		return nil, fmt.Errorf("record coupon use: %w", err)
	}
	err = s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCouponUse, Time: now,
		UID: uidString(uid), PID: p.PID, Section: p.Section, Vol: u.Vol,
		Props: map[string]string{"kind": u.Kind, "grant": ref}})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// waitSeconds is the seed's wait time: seconds until at, rounded up; <= 0 means available.
func waitSeconds(at, now time.Time) int64 {
	if at.IsZero() {
		return 0
	}
	return int64(math.Ceil(at.Sub(now).Seconds()))
}

// WCPInfo is the wait-for-free state of a work for a user.
type WCPInfo struct {
	Recycle     int        `json:"recycle"`
	IsAvailable bool       `json:"isAvailable"`
	WaitTime    int64      `json:"waitTime"`
	EndDate     *time.Time `json:"endDate,omitempty"`
	ExcludeNew  int        `json:"excludeNewest"`
}

// RCPInfo is the read-coupon state of a work for a user.
type RCPInfo struct {
	Count         int        `json:"count"`
	UsedCnt       int        `json:"usedCnt"`
	AvailableTime *time.Time `json:"availableTime,omitempty"`
	IsRecv        bool       `json:"isRecv"`
	// UsableCnt is what the reader can spend now: received, available and
	// not used up (count - usedCnt also holds what waits in the gift box).
	UsableCnt   int        `json:"usableCnt"`
	ID          int64      `json:"id,omitempty"`
	EarliestExp *time.Time `json:"earliestExpireDate,omitempty"`
}

// maxExpireDates bounds PCPInfo.JumpingExpireDates.
const maxExpireDates = 100

// PCPInfo is the pass and jumping-pass state of a user. JcpID is the pass
// spent next (the earliest to expire).
type PCPInfo struct {
	PassCount          int         `json:"passCount"`
	JumpingCount       int         `json:"jumpingCount"`
	JcpID              int64       `json:"jcpId,omitempty"`
	JumpingExpireDates []time.Time `json:"jumpingExpireDates"`
}

// CouponInfo is a user's coupons for one work.
type CouponInfo struct {
	Header  contract.Header `json:"header"`
	PID     string          `json:"pid"`
	WCPInfo *WCPInfo        `json:"WCPInfo,omitempty"`
	RCPInfo RCPInfo         `json:"RCPInfo"`
	PCPInfo PCPInfo         `json:"PCPInfo"`
	// TicketCount is the tickets that can rent this work now (its own and
	// its section's), which the wallet's per-section counts cannot tell.
	TicketCount int `json:"ticketCount"`
}

// Coupons returns the coupon state of uid for pid.
func (s *Service) Coupons(ctx context.Context, uid int64, pid string) (*CouponInfo, error) {
	if !contract.ValidKeyID(pid) {
		return nil, httpapi.BadRequest("작품 ID(pid)가 필요합니다.")
	}
	p, err := s.cfg.Catalog.Product(ctx, s.pool, pid, nil)
	if err != nil {
		return nil, err
	}
	now := s.clock(ctx)
	ci := &CouponInfo{Header: contract.Header{Code: 200}, PID: pid, PCPInfo: PCPInfo{JumpingExpireDates: []time.Time{}}}
	if p.WaitForFree {
		var at time.Time
		err := s.pool.QueryRow(ctx, `SELECT available_at FROM wff_state WHERE uid = $1 AND pid = $2`, uid, pid).Scan(&at)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("load wait-for-free %d/%s: %w", uid, pid, err)
		}
		w := waitSeconds(at, now)
		ci.WCPInfo = &WCPInfo{Recycle: p.WaitRecycle, WaitTime: w, IsAvailable: w <= 0, ExcludeNew: p.WaitExcludeNewest}
		if w > 0 {
			ci.WCPInfo.EndDate = &at
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT id, kind, count, used_cnt, is_recv, available_at, expires_at FROM coupon_grants
		WHERE uid = $1 AND ((kind = 'read' AND pid = $2) OR kind IN ('pass', 'jumping')) AND expires_at > $3
		ORDER BY expires_at, id`, uid, pid, now)
	if err != nil {
		return nil, fmt.Errorf("load coupons %d/%s: %w", uid, pid, err)
	}
	defer rows.Close()
	ci.RCPInfo.IsRecv = true
	for rows.Next() {
		var id int64
		var kind string
		var count, used int
		var recv bool
		var avail, exp time.Time
		if err := rows.Scan(&id, &kind, &count, &used, &recv, &avail, &exp); err != nil {
			return nil, fmt.Errorf("load coupons %d/%s: %w", uid, pid, err)
		}
		usable := recv && used < count && !avail.After(now)
		switch kind {
		case CouponRead:
			ci.RCPInfo.Count += count
			ci.RCPInfo.UsedCnt += used
			if usable {
				ci.RCPInfo.UsableCnt += count - used
			}
			if !recv {
				ci.RCPInfo.IsRecv = false
			}
			if recv && used < count {
				if ci.RCPInfo.AvailableTime == nil || avail.Before(*ci.RCPInfo.AvailableTime) {
					a := avail
					ci.RCPInfo.AvailableTime = &a
				}
				if usable && ci.RCPInfo.ID == 0 {
					e := exp
					ci.RCPInfo.ID, ci.RCPInfo.EarliestExp = id, &e
				}
			}
		case CouponPass:
			if usable {
				ci.PCPInfo.PassCount += count - used
			}
		case CouponJumping:
			if usable {
				ci.PCPInfo.JumpingCount += count - used
				// One date per pass left, earliest first (the order they are
				// spent in), so the list matches jumpingCount up to its cap.
				for i := 0; i < count-used && len(ci.PCPInfo.JumpingExpireDates) < maxExpireDates; i++ {
					ci.PCPInfo.JumpingExpireDates = append(ci.PCPInfo.JumpingExpireDates, exp)
				}
				if ci.PCPInfo.JcpID == 0 {
					ci.PCPInfo.JcpID = id
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load coupons %d/%s: %w", uid, pid, err)
	}
	err = s.pool.QueryRow(ctx, `SELECT coalesce(sum(count - used_cnt), 0) FROM coupon_grants WHERE `+usableTickets,
		uid, pid, p.Section, now).Scan(&ci.TicketCount)
	if err != nil {
		return nil, fmt.Errorf("count tickets %d/%s: %w", uid, pid, err)
	}
	return ci, nil
}
