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

// RecentItem is one recently viewed work.
type RecentItem struct {
	PID      string    `json:"pid"`
	Vol      int       `json:"vol"`
	ViewedAt time.Time `json:"viewedAt"`
	Title    string    `json:"title"`
	Section  string    `json:"section"`
	ThumbURL string    `json:"thumbUrl"`
	IsAdult  bool      `json:"isAdult"`
	// Unit counts the work's volumes (화 or 권): "1권까지 봤어요" for a comic,
	// not "1화" (issue 24).
	Unit string `json:"unit"`
}

const recentPageSize = 20

// recentAdd records that the member viewed a volume of a work.
func (s *Service) recentAdd(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	var body struct {
		PID string `json:"pid"`
		Vol int    `json:"vol"`
	}
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	if body.PID == "" {
		return httpapi.BadRequest("작품 ID(pid)가 필요합니다.")
	}
	if body.Vol < 0 {
		return httpapi.BadRequest("회차 번호(vol)는 0 이상이어야 합니다.")
	}
	ctx := r.Context()
	if _, err := loadWork(ctx, s.pool, body.PID); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO recent_views (uid, pid, vol, viewed_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (uid, pid) DO UPDATE SET vol = EXCLUDED.vol, viewed_at = EXCLUDED.viewed_at`, uid, body.PID, body.Vol, s.now()); err != nil {
		return fmt.Errorf("record view: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// recentList pages the member's recently viewed works, newest first.
func (s *Service) recentList(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	p := httpapi.Params{"page": r.URL.Query().Get("page")}
	page, err := p.Int("page", 1)
	if err != nil || page < 1 || page > 10000 {
		return httpapi.BadRequest("페이지(page)는 양의 정수여야 합니다.")
	}
	// Like the zzim list: a member in the teen version (toggle off, store
	// app) keeps adult works viewed earlier, but they are not shown.
	// The header alone decides, never a query's channel (as at the edge).
	teen, err := s.teenView(r, httpapi.Params{"channel": r.URL.Query().Get("channel")})
	if err != nil {
		return err
	}
	ctx := r.Context()
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM recent_views rv JOIN works w ON w.pid = rv.pid
		WHERE rv.uid = $1 AND NOT w.hidden AND (NOT $2 OR w.age < 19)`, uid, teen).Scan(&total); err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, `SELECT rv.pid, rv.vol, rv.viewed_at, w.title, w.section, w.thumb_url, w.age >= 19, w.unit
		FROM recent_views rv JOIN works w ON w.pid = rv.pid WHERE rv.uid = $1 AND NOT w.hidden AND (NOT $4 OR w.age < 19)
		ORDER BY rv.viewed_at DESC, rv.pid LIMIT $2 OFFSET $3`, uid, recentPageSize, (page-1)*recentPageSize, teen)
	if err != nil {
		return err
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (RecentItem, error) {
		var it RecentItem
		err := row.Scan(&it.PID, &it.Vol, &it.ViewedAt, &it.Title, &it.Section, &it.ThumbURL, &it.IsAdult, &it.Unit)
		it.ViewedAt = it.ViewedAt.UTC()
		return it, err
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, contract.NewInlinePagedList(list, page, recentPageSize, total))
}

// recentDelete removes works from the member's list (pids as a JSON array,
// comma-separated form value or query; all=true clears it).
func (s *Service) recentDelete(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	// all is a yes or no: anything else ("x") is refused rather than read
	// as no, which went on to delete the pids sent with it.
	all := false
	if v := strings.TrimSpace(p["all"]); v != "" {
		b, okb := parseBool(v)
		if !okb {
			return httpapi.BadRequest("전체 삭제(all)는 true 또는 false여야 합니다.")
		}
		all = b
	}
	ctx := r.Context()
	if all {
		_, err = s.pool.Exec(ctx, `DELETE FROM recent_views WHERE uid = $1`, uid)
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, httpapi.OK)
	}
	var pids []string
	for _, f := range strings.Split(p["pids"], ",") {
		if f = strings.TrimSpace(f); f != "" {
			if !contract.ValidKeyID(f) {
				return httpapi.BadRequest("작품 ID 목록(pids)에 잘못된 작품 ID가 있습니다.")
			}
			pids = append(pids, f)
		}
	}
	if len(pids) == 0 || len(pids) > 1000 {
		return httpapi.BadRequest("작품 ID 목록(pids)에는 작품을 1개부터 1000개까지 넣을 수 있습니다.")
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM recent_views WHERE uid = $1 AND pid = ANY($2)`, uid, pids); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}
