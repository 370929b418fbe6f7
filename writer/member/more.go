package member

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
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
	// Like the dibs list: a member in the teen version (toggle off, store
	// app) keeps adult works viewed earlier, but they are not shown.
	// The header alone decides, never a query's channel (as at the edge).
	if err := payloadChannel(httpapi.Params{"channel": r.URL.Query().Get("channel")}); err != nil {
		return err
	}
	channel, err := httpapi.Channel(r)
	if err != nil {
		return err
	}
	level, err := s.userLevel(r)
	if err != nil {
		return err
	}
	teen := !contract.AdultContent(level, contract.AdultChannel(channel))
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
	if list == nil {
		list = []RecentItem{}
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		List       []RecentItem `json:"list"`
		CurPage    int64        `json:"curPage"`
		PageCount  int          `json:"pageCount"`
		TotalCount int          `json:"totalCount"`
	}{ok(), list, page, (total + recentPageSize - 1) / recentPageSize, total})
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

// GenreChoice is one entry of the interest genres.
type GenreChoice struct {
	ID         string `json:"integratedGenreId"`
	IsSelected bool   `json:"isSelected"`
}

type genreState struct {
	genres     []string
	configured bool
	rejected   bool
}

func (s *Service) loadGenres(r *http.Request, uid int64) (genreState, error) {
	var g genreState
	err := s.pool.QueryRow(r.Context(), `SELECT genres, configured, rejected FROM interest_genres WHERE uid = $1`, uid).Scan(&g.genres, &g.configured, &g.rejected)
	if errors.Is(err, pgx.ErrNoRows) {
		return g, nil
	}
	return g, err
}

// genresGet answers isConfigured, showsPopup and every genre with its selection.
func (s *Service) genresGet(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	g, err := s.loadGenres(r, uid)
	if err != nil {
		return err
	}
	sel := map[string]bool{}
	for _, id := range g.genres {
		sel[id] = true
	}
	list := make([]GenreChoice, len(contract.Genres))
	for i, cg := range contract.Genres {
		list[i] = GenreChoice{ID: cg.ID, IsSelected: sel[cg.ID]}
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsConfigured bool          `json:"isConfigured"`
		ShowsPopup   bool          `json:"showsPopup"`
		Genres       []GenreChoice `json:"genres"`
	}{ok(), g.configured, !g.configured && !g.rejected, list})
}

func (s *Service) genresExists(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	g, err := s.loadGenres(r, uid)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsConfigured bool `json:"isConfigured"`
		ShowsPopup   bool `json:"showsPopup"`
	}{ok(), g.configured, !g.configured && !g.rejected})
}

// genresReject records that the member dismissed the sheet: 204.
func (s *Service) genresReject(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	if _, err := s.pool.Exec(r.Context(), `INSERT INTO interest_genres (uid, rejected, updated_at) VALUES ($1, true, $2)
		ON CONFLICT (uid) DO UPDATE SET rejected = true, updated_at = EXCLUDED.updated_at`, uid, s.now()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// genresPut stores the selection: 201.
func (s *Service) genresPut(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	var body struct {
		Genres []GenreChoice `json:"genres"`
	}
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	if body.Genres == nil {
		return httpapi.BadRequest("관심 장르(genres)를 선택해 주세요.")
	}
	known := map[string]bool{}
	for _, g := range contract.Genres {
		known[g.ID] = true
	}
	selected := []string{}
	seen := map[string]bool{}
	for _, g := range body.Genres {
		if !known[g.ID] {
			return httpapi.BadRequest("알 수 없는 장르입니다. (%q)", g.ID)
		}
		if seen[g.ID] {
			return httpapi.BadRequest("같은 장르가 두 번 들어 있습니다. (%s)", g.ID)
		}
		seen[g.ID] = true
		if g.IsSelected {
			selected = append(selected, g.ID)
		}
	}
	if _, err := s.pool.Exec(r.Context(), `INSERT INTO interest_genres (uid, genres, configured, updated_at) VALUES ($1, $2, true, $3)
		ON CONFLICT (uid) DO UPDATE SET genres = EXCLUDED.genres, configured = true, updated_at = EXCLUDED.updated_at`, uid, selected, s.now()); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, contract.Envelope{Header: contract.Header{Code: 201}})
}

// QnA is one customer-service question.
type QnA struct {
	ID         int64      `json:"id"`
	Category   string     `json:"category"`
	Title      string     `json:"title"`
	Body       string     `json:"body"`
	Answer     string     `json:"answer"`
	IsAnswered bool       `json:"isAnswered"`
	AnsweredAt *time.Time `json:"answeredAt,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
}

// qnaAdd writes a question to customer service. Answer 201: header, id.
func (s *Service) qnaAdd(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	var q struct {
		Category string `json:"category"`
		Title    string `json:"title"`
		Body     string `json:"body"`
	}
	if err := httpapi.DecodeJSON(r, &q); err != nil {
		return err
	}
	if _, ok := contract.FAQCategories[q.Category]; !ok {
		return httpapi.BadRequest("문의 유형(category)은 privacy, payment, comic, novel, etc 중 하나여야 합니다.")
	}
	q.Title, q.Body = strings.TrimSpace(q.Title), strings.TrimSpace(q.Body)
	if q.Title == "" || len([]rune(q.Title)) > 100 {
		return httpapi.BadRequest("제목은 1자 이상 100자 이하로 입력해 주세요.")
	}
	if q.Body == "" || len([]rune(q.Body)) > 5000 {
		return httpapi.BadRequest("내용은 1자 이상 5000자 이하로 입력해 주세요.")
	}
	var id int64
	if err := s.pool.QueryRow(r.Context(), `INSERT INTO qna (uid, category, title, body, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		uid, q.Category, q.Title, q.Body, s.now()).Scan(&id); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, struct {
		httpapi.Header200
		ID int64 `json:"id"`
	}{ok(), id})
}

const qnaPageSize = 10

// qnaList pages the member's questions (seed helpdesk qna_list: uid, page).
func (s *Service) qnaList(w http.ResponseWriter, r *http.Request) error {
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	uid, err := s.auth.CheckUID(r, p["uid"])
	if err != nil {
		return err
	}
	page, err := p.Int("page", 1)
	if err != nil || page < 1 || page > 10000 {
		return httpapi.BadRequest("페이지(page)는 양의 정수여야 합니다.")
	}
	ctx := r.Context()
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM qna WHERE uid = $1`, uid).Scan(&total); err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, category, title, body, answer, answered_at, created_at FROM qna WHERE uid = $1
		ORDER BY id DESC LIMIT $2 OFFSET $3`, uid, qnaPageSize, (page-1)*qnaPageSize)
	if err != nil {
		return err
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (QnA, error) {
		var q QnA
		err := row.Scan(&q.ID, &q.Category, &q.Title, &q.Body, &q.Answer, &q.AnsweredAt, &q.CreatedAt)
		q.IsAnswered = q.AnsweredAt != nil
		return q, err
	})
	if err != nil {
		return err
	}
	if list == nil {
		list = []QnA{}
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		List       []QnA `json:"list"`
		CurPage    int64 `json:"curPage"`
		PageCount  int   `json:"pageCount"`
		TotalCount int   `json:"totalCount"`
	}{ok(), list, page, (total + qnaPageSize - 1) / qnaPageSize, total})
}

// awardVote casts the member's vote in one section of an award (one vote per
// section); the award document with its counts goes out through the outbox.
func (s *Service) awardVote(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	eid, err := strconv.ParseInt(r.PathValue("eid"), 10, 64)
	if err != nil || eid <= 0 {
		return httpapi.BadRequest("이벤트 ID(eid)는 양의 정수여야 합니다.")
	}
	p, err := httpapi.ReadParams(r)
	if err != nil {
		return err
	}
	section, err := p.Require("section")
	if err != nil {
		return err
	}
	pid, err := p.Require("pid")
	if err != nil {
		return err
	}
	ctx := r.Context()
	now := s.now()
	var votes int64
	err = s.tx(ctx, func(tx pgx.Tx) error {
		var start, end time.Time
		var result string
		err := tx.QueryRow(ctx, `SELECT start_at, end_at, result_type FROM awards WHERE eid = $1`, eid).Scan(&start, &end, &result)
		if errors.Is(err, pgx.ErrNoRows) {
			return httpapi.Errorf(http.StatusNotFound, "어워드를 찾을 수 없습니다.")
		}
		if err != nil {
			return err
		}
		if result != "VOTING" || now.Before(start) || !now.Before(end) {
			return httpapi.Errorf(http.StatusConflict, "투표 기간이 아닙니다.")
		}
		tag, err := tx.Exec(ctx, `INSERT INTO award_votes (eid, key, uid, pid, created_at)
			SELECT eid, key, $3, pid, $5 FROM award_candidates WHERE eid = $1 AND key = $2 AND pid = $4
			ON CONFLICT (eid, key, uid) DO NOTHING`, eid, section, uid, pid, now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM award_candidates WHERE eid = $1 AND key = $2 AND pid = $3`, eid, section, pid).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return httpapi.Errorf(http.StatusNotFound, "후보 작품을 찾을 수 없습니다.")
			}
			return httpapi.Errorf(http.StatusConflict, "이미 투표한 부문입니다.")
		}
		if err := tx.QueryRow(ctx, `UPDATE award_candidates SET votes = votes + 1 WHERE eid = $1 AND key = $2 AND pid = $3 RETURNING votes`,
			eid, section, pid).Scan(&votes); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE awards SET version = nextval('catalog_version') WHERE eid = $1`, eid); err != nil {
			return err
		}
		return outbox.Doc(ctx, tx, contract.KeyAward+strconv.FormatInt(eid, 10))
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Votes int64 `json:"votes"`
	}{ok(), votes})
}

// awardMyVotes answers the member's votes in an award: section -> pid.
func (s *Service) awardMyVotes(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	eid, err := strconv.ParseInt(r.PathValue("eid"), 10, 64)
	if err != nil || eid <= 0 {
		return httpapi.BadRequest("이벤트 ID(eid)는 양의 정수여야 합니다.")
	}
	rows, err := s.pool.Query(r.Context(), `SELECT key, pid FROM award_votes WHERE eid = $1 AND uid = $2`, eid, uid)
	if err != nil {
		return err
	}
	votes := map[string]string{}
	for rows.Next() {
		var k, p string
		if err := rows.Scan(&k, &p); err != nil {
			rows.Close()
			return err
		}
		votes[k] = p
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Votes map[string]string `json:"votes"`
	}{ok(), votes})
}
