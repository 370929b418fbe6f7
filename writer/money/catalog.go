package money

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"storefront/writer/httpapi"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
)

// Querier runs queries: a pgx.Tx, a pool or a connection.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Product is what money needs of a work: its volumes with prices and the
// coupon and sales settings.
type Product struct {
	PID               string
	Section           string
	Hidden            bool
	Adult             bool // age rating 19: never sold to the teen version
	ServiceCode       int  // 200 ok, 201/203 service off, 202 payment off
	RentDays          int
	DiscountRate      int
	IsSpecialPriceSet bool
	WaitForFree       bool
	WaitRecycle       int // minutes
	WaitExcludeNewest int
	JumpingPass       bool
	// Early access (migration 0160): the first EarlyCount volumes still to
	// be released are bought (never rented) at EarlyPrice (early.go).
	EarlyCount int
	EarlyPrice int64
	Volumes    []Volume // ordered by number
}

// Volume is one volume's price and release.
type Volume struct {
	No          int
	IsFree      bool
	BuyPrice    int64
	BuyPriceOrg int64
	RentPrice   int64
	RentOrg     int64
	ReleaseAt   time.Time
	Pages       int
	Preview     int
}

// Released returns the volumes released at now, in number order.
func (p *Product) Released(now time.Time) []Volume {
	out := make([]Volume, 0, len(p.Volumes))
	for _, v := range p.Volumes {
		if !v.ReleaseAt.After(now) {
			out = append(out, v)
		}
	}
	return out
}

// Volume returns volume no if it is released at now.
func (p *Product) Volume(no int, now time.Time) (Volume, bool) {
	for _, v := range p.Volumes {
		if v.No == no {
			return v, !v.ReleaseAt.After(now)
		}
	}
	return Volume{}, false
}

// Catalog gives products. It returns ErrNoProduct for an unknown pid. With
// vols set, only those volumes are loaded (a purchase of one episode of a work
// with a thousand must not read a thousand rows); nil loads every volume.
type Catalog interface {
	Product(ctx context.Context, q Querier, pid string, vols []int) (*Product, error)
	// JumpingPass is the jumping pass on sale: its price and how many days a
	// bought pass lasts (ErrNotOnSale when there is none).
	JumpingPass(ctx context.Context, q Querier) (JumpingPassOffer, error)
}

// JumpingPassOffer is the jumping pass sold on /jumpingpass.
type JumpingPassOffer struct {
	Price int64
	Days  int
}

// ErrNotOnSale: the jumping pass has no price or term set.
var ErrNotOnSale = &httpapi.Error{Code: http.StatusNotFound, Msg: "지금은 점핑패스를 판매하지 않습니다."}

// JumpingPass reads the admin's jumping pass document (site_docs 'jumpingpass').
func (PGCatalog) JumpingPass(ctx context.Context, q Querier) (JumpingPassOffer, error) {
	var o JumpingPassOffer
	err := q.QueryRow(ctx, `SELECT coalesce((doc->>'price')::bigint, 0), coalesce((doc->>'days')::int, 0)
		FROM site_docs WHERE key = 'jumpingpass'`).Scan(&o.Price, &o.Days)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, ErrNotOnSale
	}
	if err != nil {
		return o, fmt.Errorf("load jumping pass offer: %w", err)
	}
	if o.Price <= 0 || o.Days <= 0 {
		return o, ErrNotOnSale
	}
	return o, nil
}

// PGCatalog reads the core engineer's works and volumes tables (writer/migrations 0001).
type PGCatalog struct{}

// productSQL reads a work and the asked volumes in one query, productAllSQL
// with every volume. Two statements, not one with "$2 IS NULL OR": a
// prepared statement's generic plan cannot tell the two apart, so the one
// statement either scanned every volume of the work for a purchase of one or
// was planned again on every call.
const (
	productCols = `SELECT w.section, w.hidden, w.age, w.service_code, w.rent_days, w.discount_rate,
			w.is_special_price_set, w.wait_for_free, w.wait_recycle, w.wait_exclude_newest, w.jumping_pass,
			w.early_count, w.early_price, v.no, v.is_free, v.buy_price, v.buy_price_org, v.rent_price, v.rent_price_org, v.release_at,
			v.pages, v.preview_pages
		FROM works w `
	productSQL    = productCols + `LEFT JOIN volumes v ON v.pid = w.pid AND v.no = ANY($2) WHERE w.pid = $1 ORDER BY v.no`
	productAllSQL = productCols + `LEFT JOIN volumes v ON v.pid = w.pid WHERE w.pid = $1 ORDER BY v.no`
	// productOneSQL is the usual purchase's: with "= ANY($2)" the generic
	// plan read the one volume through a bitmap scan, with its own
	// start-up cost on every purchase (issue 32).
	productOneSQL = productCols + `LEFT JOIN volumes v ON v.pid = w.pid AND v.no = $2 WHERE w.pid = $1`
)

// productQuery is the statement and arguments that read pid (vols nil:
// every volume).
func productQuery(pid string, vols []int) (string, []any) {
	switch len(vols) {
	case 0:
		if vols == nil {
			return productAllSQL, []any{pid}
		}
	case 1:
		return productOneSQL, []any{pid, vols[0]}
	}
	return productSQL, []any{pid, vols}
}

// queueProduct adds the read of pid (vols nil: every volume) to b.
func queueProduct(b *pgx.Batch, pid string, vols []int) {
	sql, args := productQuery(pid, vols)
	b.Queue(sql, args...)
}

// Product loads pid with one query.
func (PGCatalog) Product(ctx context.Context, q Querier, pid string, vols []int) (*Product, error) {
	sql, args := productQuery(pid, vols)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("load product %s: %w", pid, err)
	}
	return scanProduct(rows, pid)
}

// scanProduct reads the rows of productSQL (ErrNoProduct when there are none).
func scanProduct(rows pgx.Rows, pid string) (*Product, error) {
	defer rows.Close()
	var p *Product
	for rows.Next() {
		var pr Product
		var no, pages, preview *int
		var free *bool
		var buy, buyOrg, rent, rentOrg *int64
		var rel *time.Time
		var age int
		if err := rows.Scan(&pr.Section, &pr.Hidden, &age, &pr.ServiceCode, &pr.RentDays, &pr.DiscountRate,
			&pr.IsSpecialPriceSet, &pr.WaitForFree, &pr.WaitRecycle, &pr.WaitExcludeNewest, &pr.JumpingPass,
			&pr.EarlyCount, &pr.EarlyPrice, &no, &free, &buy, &buyOrg, &rent, &rentOrg, &rel, &pages, &preview); err != nil {
			return nil, fmt.Errorf("load product %s: %w", pid, err)
		}
		if p == nil {
			pr.PID = pid
			pr.Adult = contract.AdultAge(age)
			p = &pr
		}
		if no != nil {
			p.Volumes = append(p.Volumes, Volume{No: *no, IsFree: *free, BuyPrice: *buy, BuyPriceOrg: *buyOrg,
				RentPrice: *rent, RentOrg: *rentOrg, ReleaseAt: *rel, Pages: *pages, Preview: *preview})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load product %s: %w", pid, err)
	}
	if p == nil {
		return nil, ErrNoProduct
	}
	return p, nil
}
