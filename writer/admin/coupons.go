package admin

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/writer/httpapi"
	"storefront/writer/money"
)

// Coupons gives members coupons (writer/money). Passes, read coupons and
// tickets have no other source than events and this: compensation,
// promotions, customer service.
type Coupons interface {
	GrantCouponsIn(ctx context.Context, tx pgx.Tx, uid int64, g money.Grant) error
}

type grantBody struct {
	Kind        string     `json:"kind"`    // read, pass, jumping, ticket
	PID         string     `json:"pid"`     // read coupons: the work
	Section     string     `json:"section"` // tickets: CM or EB
	Count       int        `json:"count"`
	AvailableAt *time.Time `json:"availableAt"` // default now
	ExpiresAt   time.Time  `json:"expiresAt"`
	// Received false puts the coupons into the member's gift box.
	Received bool `json:"received"`
}

// grantCoupons is POST users/{uid}/coupons -> 201.
func (a *API) grantCoupons(w http.ResponseWriter, r *http.Request) error {
	if a.Coupons == nil {
		return httpapi.Errorf(http.StatusServiceUnavailable, "coupons are not available")
	}
	uid, err := strconv.ParseInt(r.PathValue("uid"), 10, 64)
	if err != nil || uid <= 0 {
		return httpapi.BadRequest("uid must be a positive integer")
	}
	var b grantBody
	if err := httpapi.DecodeJSONRequired(r, &b, "kind", "count", "expiresAt"); err != nil {
		return err
	}
	ctx := r.Context()
	var n int
	if err := a.pool.QueryRow(ctx, `SELECT count(*) FROM users WHERE uid = $1`, uid).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return httpapi.Errorf(http.StatusNotFound, "unknown member %d", uid)
	}
	if b.Kind == money.CouponRead {
		if err := a.pool.QueryRow(ctx, `SELECT count(*) FROM works WHERE pid = $1`, b.PID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return httpapi.Errorf(http.StatusNotFound, "unknown work %q", b.PID)
		}
	}
	g := money.Grant{Kind: b.Kind, PID: b.PID, Section: b.Section, Count: b.Count, ExpiresAt: b.ExpiresAt,
		Received: b.Received, Source: "admin"}
	if b.AvailableAt != nil {
		g.AvailableAt = *b.AvailableAt
	}
	// Coupons are money: the grant and its audit row (who gave what to
	// whom) are one transaction. money's refusals are httpapi.Errors.
	e := entry(r, "member:"+strconv.FormatInt(uid, 10))
	e.After = b
	if err := a.tx(ctx, e, func(tx pgx.Tx) error { return a.Coupons.GrantCouponsIn(ctx, tx, uid, g) }); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, httpapi.OK)
}
