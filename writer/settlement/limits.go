package settlement

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// Limits are what a provider's contract lets its accounts set on its works
// in the partner portal; nil is no limit. Content managers are not bound by
// them.
type Limits struct {
	// MinPrice and MaxPrice bound every price of a paid episode (buy and,
	// when it is rentable, rent), in won.
	MinPrice *int `json:"minPrice"`
	MaxPrice *int `json:"maxPrice"`
	// MaxFree bounds the free episodes (isFree) of a work.
	MaxFree *int `json:"maxFree"`
}

func (l *Limits) valid() error {
	for _, v := range []*int{l.MinPrice, l.MaxPrice, l.MaxFree} {
		if v != nil && (*v < 0 || *v > 1_000_000) {
			return httpapi.BadRequest("계약 한도는 0부터 1,000,000 사이의 정수여야 합니다.")
		}
	}
	if l.MinPrice != nil && l.MaxPrice != nil && *l.MinPrice > *l.MaxPrice {
		return httpapi.BadRequest("최저 가격이 최고 가격보다 높을 수 없습니다.")
	}
	return nil
}

// LimitsOf reads provider id's limits (all nil for an unknown provider: a
// provider account without a contract is refused by the scope check first).
func LimitsOf(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, id string) (Limits, error) {
	var l Limits
	err := q.QueryRow(ctx, `SELECT min_price, max_price, max_free FROM providers WHERE id = $1`, id).Scan(&l.MinPrice, &l.MaxPrice, &l.MaxFree)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return l, fmt.Errorf("read limits of %s: %w", id, err)
	}
	return l, nil
}

// Check refuses (400, in Korean) a work's episodes outside the limits:
// changed is the episode the provider changes, so that an episode priced
// before the contract's limits were set does not block every other change.
// The free count is the work's whole.
func (l Limits) Check(vols []contract.Volume, changed int) error {
	free, changedFree := 0, false
	for _, v := range vols {
		if v.IsFree {
			free++
			changedFree = changedFree || v.No == changed
		}
		if v.No != changed || v.IsFree {
			continue
		}
		for _, price := range []struct {
			name string
			won  int
		}{{"구매 가격", v.BuyPrice}, {"대여 가격", v.RentPrice}} {
			if price.name == "대여 가격" && price.won == 0 {
				continue // not rentable
			}
			if l.MinPrice != nil && price.won < *l.MinPrice {
				return httpapi.BadRequest("%d화의 %s %d원은 계약의 최저 가격 %d원보다 낮습니다.", v.No, price.name, price.won, *l.MinPrice)
			}
			if l.MaxPrice != nil && price.won > *l.MaxPrice {
				return httpapi.BadRequest("%d화의 %s %d원은 계약의 최고 가격 %d원보다 높습니다.", v.No, price.name, price.won, *l.MaxPrice)
			}
		}
	}
	// Only making an episode free is refused over the count, so a contract
	// tightened later does not block the work's other changes.
	if l.MaxFree != nil && changedFree && free > *l.MaxFree {
		return httpapi.BadRequest("무료 회차는 계약상 작품당 %d개까지입니다 (이 변경으로 %d개).", *l.MaxFree, free)
	}
	return nil
}
