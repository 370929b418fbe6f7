package money

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/writer/httpapi"
)

// check refuses a purchase the catalog does not allow (before a stored answer
// is replayed, as when the catalog was read before the transaction).
func (r *purchaseReads) check(ctx context.Context, tx pgx.Tx) error {
	p, req, now := r.p, r.req, r.now
	if err := sellable(p); err != nil {
		return err
	}
	if err := r.s.forAudienceOn(ctx, tx, r.uid, p, req.Channel, now); err != nil {
		return err
	}
	r.early = nil
	for _, no := range req.Vols {
		v, ok := p.Volume(no, now)
		if !ok {
			if err := r.checkEarly(ctx, tx, no); err != nil {
				return err
			}
			continue
		}
		if req.BuyType == BuyRent && v.RentPrice <= 0 && !v.IsFree {
			return httpapi.BadRequest("대여할 수 없는 회차입니다. (%d화)", no)
		}
	}
	return nil
}

// checkEarly allows unreleased volume no only when it is sold early and
// bought (errEarlyBuyOnly for any other buy type, 404 when not sold early).
func (r *purchaseReads) checkEarly(ctx context.Context, tx pgx.Tx, no int) error {
	if v, _ := r.p.Volume(no, r.now); v.No == 0 || r.p.EarlyCount <= 0 {
		return errNoVolume(no)
	}
	if r.early == nil {
		var err error
		if r.early, err = earlyNos(ctx, tx, r.p, r.now); err != nil {
			return err
		}
	}
	switch {
	case !r.early[no]:
		return errNoVolume(no)
	case r.req.BuyType != BuyBuy:
		return errEarlyBuyOnly(no)
	}
	return nil
}

// purchaseReads are the work (when the catalog is PGCatalog), the
// entitlements and a new purchase id, read in the round trip that takes the
// wallet lock.
type purchaseReads struct {
	s    *Service
	req  PurchaseRequest
	uid  int64
	pid  string
	vols []int
	now  time.Time
	p    *Product
	ents map[int]entitlement
	id   int64
	// read: p comes from this round trip.
	read bool
	// armed: the trigger_value of the member's armed threshold top-up
	// (nil: none armed).
	armed *int64
	// early: the volumes sold early (checkEarly), nil while the request
	// names no unreleased volume.
	early map[int]bool
}

func (r *purchaseReads) queue(b *pgx.Batch) {
	r.read = r.p == nil
	if r.read {
		queueProduct(b, r.pid, r.vols)
	}
	// Separate statements for the reason of productSQL. One volume (the
	// usual purchase) gets its own: the generic plan of "vol = ANY($3)"
	// took the array as a filter on (uid, pid), so a member who had bought
	// hundreds of episodes of a long work read all of them on every buy.
	switch {
	case r.vols == nil:
		b.Queue(`SELECT vol, kind, expires_at FROM entitlements WHERE uid = $1 AND pid = $2`, r.uid, r.pid)
	case len(r.vols) == 1:
		b.Queue(`SELECT vol, kind, expires_at FROM entitlements WHERE uid = $1 AND pid = $2 AND vol = $3`, r.uid, r.pid, r.vols[0])
	default:
		b.Queue(`SELECT vol, kind, expires_at FROM entitlements WHERE uid = $1 AND pid = $2 AND vol = ANY($3)`, r.uid, r.pid, r.vols)
	}
	// The purchase id and the armed threshold in one statement. It runs
	// after the wallet lock is granted, with its own snapshot, so it sees a
	// re-arm committed by the top-up that held the lock before us (top-ups
	// re-arm under the wallet lock); the purchase then queues the top-up
	// statement only when the balance it leaves is under that threshold,
	// instead of running that UPDATE ... INSERT on every purchase.
	b.Queue(`SELECT nextval('purchases_id_seq'), (SELECT trigger_value FROM auto_payments
		WHERE uid = $1 AND is_use AND type = 'bluemoney-auto-payment' AND topup_state = 'armed')`, r.uid)
}

func (r *purchaseReads) scan(br pgx.BatchResults) error {
	var err error
	if r.read {
		rows, err := br.Query()
		if err != nil {
			return fmt.Errorf("load product %s: %w", r.pid, err)
		}
		if r.p, err = scanProduct(rows, r.pid); err != nil {
			return err
		}
	}
	if r.ents, err = scanEntitlements(br); err != nil {
		return fmt.Errorf("load entitlements %d/%s: %w", r.uid, r.pid, err)
	}
	if err := br.QueryRow().Scan(&r.id, &r.armed); err != nil {
		return fmt.Errorf("new purchase id: %w", err)
	}
	return nil
}

func scanEntitlements(br pgx.BatchResults) (map[int]entitlement, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]entitlement{}
	for rows.Next() {
		var vol int
		var e entitlement
		if err := rows.Scan(&vol, &e.Kind, &e.ExpiresAt); err != nil {
			return nil, err
		}
		out[vol] = e
	}
	return out, rows.Err()
}
