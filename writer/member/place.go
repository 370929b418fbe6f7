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
	// At is the device's time of the save (ms since the epoch): the save
	// with the newest At is kept, whatever order saves arrive in.
	At int64 `json:"at"`
}

// Bounds of a place: generous for the longest volumes, small enough to
// refuse garbage.
const (
	maxPlacePage   = 100_000
	maxPlaceOffset = 50_000_000
	// A device clock a little ahead of the writer's is normal; one far ahead
	// would pin the place forever (no later save could beat it), so it is refused.
	maxClientAhead = 10 * time.Minute
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
// can only POST). The save with the newest device time (at, ms since the
// epoch; the writer's clock when absent) wins: a save queued offline and sent
// later never moves the reader behind a newer save from another device. The
// answer is the place kept, so a device whose save lost learns the newer one.
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
		At     *int64  `json:"at"`
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
	now := s.now()
	clientAt := now
	if body.At != nil {
		clientAt = time.UnixMilli(*body.At)
		if *body.At <= 0 || clientAt.After(now.Add(maxClientAhead)) {
			return httpapi.BadRequest("저장 시각(at)이 올바르지 않습니다. 기기의 시각을 확인해 주세요.")
		}
	}
	pid := r.PathValue("pid")
	ctx := r.Context()
	if _, err := loadWork(ctx, s.pool, pid); err != nil {
		return err
	}
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
	// The WHERE makes the comparison and the write one statement, so two
	// devices saving at once cannot both win. A tie goes to the later arrival.
	if _, err := s.pool.Exec(ctx, `INSERT INTO reading_places (uid, pid, vol, page, ratio, char_offset, updated_at, client_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (uid, pid) DO UPDATE SET vol = EXCLUDED.vol, page = EXCLUDED.page, ratio = EXCLUDED.ratio,
			char_offset = EXCLUDED.char_offset, updated_at = EXCLUDED.updated_at, client_at = EXCLUDED.client_at
		WHERE reading_places.client_at <= EXCLUDED.client_at`,
		uid, pid, *body.Vol, body.Page, body.Ratio, body.Offset, now, clientAt); err != nil {
		return fmt.Errorf("save reading place %d/%s: %w", uid, pid, err)
	}
	p, err := s.loadPlace(ctx, uid, pid)
	if err != nil {
		return err
	}
	return placeAnswer(w, p)
}

func (s *Service) loadPlace(ctx context.Context, uid int64, pid string) (*Place, error) {
	p := Place{PID: pid}
	var at time.Time
	err := s.pool.QueryRow(ctx, `SELECT vol, page, ratio, char_offset, updated_at, client_at FROM reading_places WHERE uid = $1 AND pid = $2`, uid, pid).
		Scan(&p.Vol, &p.Page, &p.Ratio, &p.Offset, &p.UpdatedAt, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load reading place %d/%s: %w", uid, pid, err)
	}
	p.UpdatedAt = p.UpdatedAt.UTC()
	p.At = at.UnixMilli()
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
