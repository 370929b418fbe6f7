package member

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// LibraryItem is one work on a shelf of the member's library (issue 34): the
// work, when the member last read it and when it last got an episode, the
// place they stopped at and the episode to open next.
type LibraryItem struct {
	PID        string     `json:"pid"`
	Title      string     `json:"title"`
	Section    string     `json:"section"`
	ThumbURL   string     `json:"thumbUrl"`
	IsAdult    bool       `json:"isAdult"`
	Unit       string     `json:"unit"`
	LastReadAt *time.Time `json:"lastReadAt"`
	UpdatedAt  *time.Time `json:"updatedAt"`
	LastVol    int        `json:"lastVol"`
	Place      *Place     `json:"place"`
	// NextVol is the episode to open: the one the member is in, the next
	// one when they reached the end of it, the first when they never read.
	// 0 when the work has no released episode.
	NextVol int `json:"nextVol"`
	// RentUntil is the earliest end of the member's running rentals of
	// the work (rented shelf only): the time left that matters first.
	RentUntil  *time.Time `json:"rentUntil,omitempty"`
	RentedVols int        `json:"rentedVols,omitempty"`
}

const libraryPageSize = 20

// shelves map a shelf name to the member's works on it: pid, and for rentals
// the earliest end and the count. $1 is the uid, $2 the writer's time.
var shelves = map[string]string{
	// 이어보기: works with a reading place.
	"reading": `SELECT pid, NULL::timestamptz AS rent_until, 0 AS rented FROM reading_places WHERE uid = $1`,
	"saved":   `SELECT target AS pid, NULL::timestamptz, 0 FROM zzims WHERE uid = $1 AND zzim_type = 'prod'`,
	"owned":   `SELECT DISTINCT pid, NULL::timestamptz, 0 FROM entitlements WHERE uid = $1 AND kind = 'B'`,
	"rented": `SELECT pid, min(expires_at), count(*)::int FROM entitlements
		WHERE uid = $1 AND kind = 'R' AND expires_at > $2 GROUP BY pid`,
}

var librarySorts = map[string]string{
	"read":   `read_at DESC NULLS LAST, w.pid`,
	"update": `updated DESC NULLS LAST, w.pid`,
}

// libraryList pages one shelf of the session member's library:
// GET /home/api/v1/users/library?shelf=reading|saved|owned|rented&sort=read|update&page=N.
// Adult works are left out for teen audiences, as in every member list.
func (s *Service) libraryList(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	shelfName := strings.TrimSpace(q.Get("shelf"))
	shelf, okShelf := shelves[shelfName]
	if !okShelf {
		return httpapi.BadRequest("서재 종류(shelf)는 reading, saved, owned, rented 중 하나여야 합니다.")
	}
	sortName := strings.TrimSpace(q.Get("sort"))
	if sortName == "" {
		sortName = "read"
	}
	order, okSort := librarySorts[sortName]
	if !okSort {
		return httpapi.BadRequest("정렬(sort)은 read(최근 읽은 순) 또는 update(업데이트 순)여야 합니다.")
	}
	page, err := httpapi.Params{"page": q.Get("page")}.Int("page", 1)
	if err != nil || page < 1 || page > 10000 {
		return httpapi.BadRequest("페이지(page)는 양의 정수여야 합니다.")
	}
	teen, err := s.teenView(r, httpapi.Params{"channel": q.Get("channel")})
	if err != nil {
		return err
	}
	ctx := r.Context()
	now := s.now()
	var total int
	// $2 is typed here because only the rented shelf uses it.
	if err := s.pool.QueryRow(ctx, `WITH shelf (pid, rent_until, rented) AS (`+shelf+`)
		SELECT count(*) FROM shelf JOIN works w ON w.pid = shelf.pid
		WHERE NOT w.hidden AND (NOT $3 OR w.age < 19) AND $2::timestamptz IS NOT NULL`,
		uid, now, teen).Scan(&total); err != nil {
		return fmt.Errorf("count library %s of %d: %w", shelfName, uid, err)
	}
	rows, err := s.pool.Query(ctx, `WITH shelf (pid, rent_until, rented) AS (`+shelf+`)
		SELECT w.pid, w.title, w.section, w.thumb_url, w.age >= 19, w.unit,
			COALESCE(rp.client_at, rv.viewed_at) AS read_at, rel.updated, COALESCE(rel.last_vol, 0),
			rp.vol, rp.page, rp.ratio, rp.char_offset, rp.updated_at, rp.client_at, COALESCE(pv.pages, 0),
			COALESCE(rv.vol, 0), shelf.rent_until, shelf.rented
		FROM shelf JOIN works w ON w.pid = shelf.pid
		LEFT JOIN reading_places rp ON rp.uid = $1 AND rp.pid = w.pid
		LEFT JOIN recent_views rv ON rv.uid = $1 AND rv.pid = w.pid
		LEFT JOIN volumes pv ON pv.pid = w.pid AND pv.no = rp.vol
		LEFT JOIN LATERAL (SELECT max(release_at) AS updated, max(no) AS last_vol FROM volumes v
			WHERE v.pid = w.pid AND v.release_at <= $2) rel ON true
		WHERE NOT w.hidden AND (NOT $3 OR w.age < 19)
		ORDER BY `+order+` LIMIT $4 OFFSET $5`,
		uid, now, teen, libraryPageSize, (page-1)*libraryPageSize)
	if err != nil {
		return fmt.Errorf("list library %s of %d: %w", shelfName, uid, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (LibraryItem, error) {
		var (
			it                LibraryItem
			vol, pg, off      *int
			ratio             *float64
			placeAt, clientAt *time.Time
			pages, recentVol  int
		)
		if err := row.Scan(&it.PID, &it.Title, &it.Section, &it.ThumbURL, &it.IsAdult, &it.Unit,
			&it.LastReadAt, &it.UpdatedAt, &it.LastVol, &vol, &pg, &ratio, &off, &placeAt, &clientAt, &pages,
			&recentVol, &it.RentUntil, &it.RentedVols); err != nil {
			return it, err
		}
		if vol != nil {
			it.Place = &Place{PID: it.PID, Vol: *vol, Page: *pg, Ratio: *ratio, Offset: *off, UpdatedAt: placeAt.UTC(), At: clientAt.UnixMilli()}
		}
		it.NextVol = nextVol(it.Place, pages, recentVol, it.LastVol)
		utc(it.LastReadAt)
		utc(it.UpdatedAt)
		utc(it.RentUntil)
		return it, nil
	})
	if err != nil {
		return fmt.Errorf("list library %s of %d: %w", shelfName, uid, err)
	}
	return httpapi.JSON(w, http.StatusOK, contract.NewInlinePagedList(list, page, libraryPageSize, total))
}

// nextVol is the episode to open next. A place on the last page, most of the
// way down, counts as finished: the reader goes on to the next released
// episode. Without a place, the recently viewed episode; else the first.
func nextVol(p *Place, pages, recentVol, lastVol int) int {
	if lastVol <= 0 {
		return 0
	}
	v := 1
	switch {
	case p != nil:
		v = p.Vol
		if pages > 0 && p.Page >= pages-1 && p.Ratio >= 0.9 && v < lastVol {
			v++
		}
	case recentVol > 0:
		v = recentVol
	}
	return min(v, lastVol)
}

func utc(t *time.Time) {
	if t != nil {
		*t = t.UTC()
	}
}
