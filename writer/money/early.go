package money

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"storefront/writer/httpapi"
)

// Early access (issue 32, KakaoPage's 미리보기): a work's first EarlyCount
// volumes still to be released are sold at EarlyPrice before their release.
// They are bought, never rented: wait-for-free, read coupons, passes,
// tickets and rentals open only released volumes, because an early episode
// is what those are meant to make a reader wait for. A bought one is an
// ordinary owned (B) entitlement, so at its release nothing changes for its
// buyer; until then Authorize gives its content token only to buyers.

// errEarlyBuyOnly refuses any way but buying into an early volume.
func errEarlyBuyOnly(no int) error {
	return httpapi.Errorf(http.StatusForbidden,
		"미리보기 회차는 소장(구매)으로만 볼 수 있습니다. 대여, 이용권, 기다리면 무료, 패스로는 열 수 없습니다. (%d화)", no)
}

// errNoVolume is the answer for a volume that does not exist or is not
// released (and not sold early).
func errNoVolume(no int) error {
	return httpapi.Errorf(http.StatusNotFound, "회차를 찾을 수 없습니다. (%d화)", no)
}

// earlyNos returns the numbers of p's volumes sold early at now: the first
// EarlyCount not released by now, by release time then number (the order
// of the edge's contract.EarlyEpisodes). Asked only when a request names an
// unreleased volume, so an ordinary purchase pays no round trip for it.
func earlyNos(ctx context.Context, q Querier, p *Product, now time.Time) (map[int]bool, error) {
	out := map[int]bool{}
	if p.EarlyCount <= 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT no FROM volumes WHERE pid = $1 AND release_at > $2
		ORDER BY release_at, no LIMIT $3`, p.PID, now, p.EarlyCount)
	if err != nil {
		return nil, fmt.Errorf("early volumes of %s: %w", p.PID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var no int
		if err := rows.Scan(&no); err != nil {
			return nil, fmt.Errorf("early volumes of %s: %w", p.PID, err)
		}
		out[no] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("early volumes of %s: %w", p.PID, err)
	}
	return out, nil
}

// unreleased explains why volume no of p, not released at now, cannot be
// opened by anything but a purchase: 403 when it is sold early, else 404.
func unreleased(ctx context.Context, q Querier, p *Product, no int, now time.Time) error {
	if p.EarlyCount <= 0 {
		return errNoVolume(no)
	}
	if v, _ := p.Volume(no, now); v.No == 0 {
		return errNoVolume(no)
	}
	early, err := earlyNos(ctx, q, p, now)
	if err != nil {
		return err
	}
	if early[no] {
		return errEarlyBuyOnly(no)
	}
	return errNoVolume(no)
}

// earlyVolumes is p's volumes sold early at now, from a product loaded
// with every volume (Status).
func (p *Product) earlyVolumes(now time.Time) []Volume {
	if p.EarlyCount <= 0 {
		return nil
	}
	var fut []Volume
	for _, v := range p.Volumes {
		if v.ReleaseAt.After(now) {
			fut = append(fut, v)
		}
	}
	// Volumes are in number order; releases almost always are too, but
	// the rule is release order (earlyNos).
	for i := 1; i < len(fut); i++ {
		for j := i; j > 0 && (fut[j].ReleaseAt.Before(fut[j-1].ReleaseAt) ||
			fut[j].ReleaseAt.Equal(fut[j-1].ReleaseAt) && fut[j].No < fut[j-1].No); j-- {
			fut[j], fut[j-1] = fut[j-1], fut[j]
		}
	}
	return fut[:min(len(fut), p.EarlyCount)]
}
