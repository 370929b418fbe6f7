package member

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/writer/httpapi"
)

// Place is where a member stopped reading a work: the volume and the place
// inside it. Page is the 0-based page at the top of the screen (a webtoon
// strip image or a comic page), Ratio how far into that page (0..1) and
// Offset the character at the top of a novel's text. The numbers do not
// depend on the screen, so another device lands on the same panel or line.
type Place struct {
	PID       string    `json:"pid"`
	Vol       int       `json:"vol"`
	Page      int       `json:"page"`
	Ratio     float64   `json:"ratio"`
	Offset    int       `json:"offset"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Bounds of a place: generous for the longest volumes, small enough to
// refuse garbage.
const (
	maxPlacePage   = 100_000
	maxPlaceOffset = 50_000_000
)

// placeGet answers the member's place in a work, or place null when there is none.
func (s *Service) placeGet(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	pid := r.PathValue("pid")
	ctx := r.Context()
	if _, err := loadWork(ctx, s.pool, pid); err != nil {
		return err
	}
	p, err := s.loadPlace(ctx, uid, pid)
	if err != nil {
		return err
	}
	return placeAnswer(w, p)
}

// placePut keeps the member's place in a work. PUT from the viewer while
// reading; POST for navigator.sendBeacon when the page is hidden (a beacon
// can only POST). The last write wins.
func (s *Service) placePut(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	var body struct {
		Vol    *int    `json:"vol"`
		Page   int     `json:"page"`
		Ratio  float64 `json:"ratio"`
		Offset int     `json:"offset"`
	}
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	switch {
	case body.Vol == nil || *body.Vol <= 0:
		return httpapi.BadRequest("회차 번호(vol)는 1 이상이어야 합니다.")
	case body.Page < 0 || body.Page > maxPlacePage:
		return httpapi.BadRequest("페이지(page)는 0부터 %d까지입니다.", maxPlacePage)
	case math.IsNaN(body.Ratio) || body.Ratio < 0 || body.Ratio > 1:
		return httpapi.BadRequest("읽은 비율(ratio)은 0부터 1까지입니다.")
	case body.Offset < 0 || body.Offset > maxPlaceOffset:
		return httpapi.BadRequest("읽은 위치(offset)는 0부터 %d까지입니다.", maxPlaceOffset)
	}
	pid := r.PathValue("pid")
	ctx := r.Context()
	if _, err := loadWork(ctx, s.pool, pid); err != nil {
		return err
	}
	now := s.now()
	// A volume not out yet has a reading place only for a member who
	// bought it early (미리보기, writer/money early.go: an owned B
	// entitlement before the release comes from nothing else).
	var released bool
	err = s.pool.QueryRow(ctx, `SELECT release_at <= $3 OR EXISTS (SELECT 1 FROM entitlements e
			WHERE e.uid = $4 AND e.pid = $1 AND e.vol = $2 AND e.kind = 'B')
		FROM volumes WHERE pid = $1 AND no = $2`, pid, *body.Vol, now, uid).Scan(&released)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && !released {
		return httpapi.Errorf(http.StatusNotFound, "회차를 찾을 수 없습니다. (%d화)", *body.Vol)
	}
	if err != nil {
		return fmt.Errorf("load volume %s/%d: %w", pid, *body.Vol, err)
	}
	p := &Place{PID: pid, Vol: *body.Vol, Page: body.Page, Ratio: body.Ratio, Offset: body.Offset, UpdatedAt: now.UTC()}
	if _, err := s.pool.Exec(ctx, `INSERT INTO reading_places (uid, pid, vol, page, ratio, char_offset, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (uid, pid) DO UPDATE SET vol = EXCLUDED.vol, page = EXCLUDED.page, ratio = EXCLUDED.ratio,
			char_offset = EXCLUDED.char_offset, updated_at = EXCLUDED.updated_at`,
		uid, pid, p.Vol, p.Page, p.Ratio, p.Offset, now); err != nil {
		return fmt.Errorf("save reading place %d/%s: %w", uid, pid, err)
	}
	return placeAnswer(w, p)
}

func (s *Service) loadPlace(ctx context.Context, uid int64, pid string) (*Place, error) {
	p := Place{PID: pid}
	err := s.pool.QueryRow(ctx, `SELECT vol, page, ratio, char_offset, updated_at FROM reading_places WHERE uid = $1 AND pid = $2`, uid, pid).
		Scan(&p.Vol, &p.Page, &p.Ratio, &p.Offset, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load reading place %d/%s: %w", uid, pid, err)
	}
	p.UpdatedAt = p.UpdatedAt.UTC()
	return &p, nil
}

// placeAnswer writes {header, place}; no place is null rather than a 404, so
// a first visit does not log a failed request in the reader's console.
func placeAnswer(w http.ResponseWriter, p *Place) error {
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Place *Place `json:"place"`
	}{ok(), p})
}
