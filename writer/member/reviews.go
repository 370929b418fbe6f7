package member

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/catalog"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
)

// HideReports is how many undecided reports hide a review from everybody
// (until a moderator decides, reviewsadmin.go).
const HideReports = 5

type reviewRequest struct {
	Body      string `json:"body"`
	Point     int    `json:"point"`
	Vol       int    `json:"vol"`
	IsSpoiler bool   `json:"isSpoiler"`
}

// maxVolNo is the highest volume number the catalog accepts (writer/catalog).
const maxVolNo = 100_000

// reviewAdd writes a review of a work (buyers are flagged). Answer 201: header, id.
func (s *Service) reviewAdd(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	var req reviewRequest
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	req.Body = strings.TrimSpace(req.Body)
	switch n := len([]rune(req.Body)); {
	case n == 0:
		return httpapi.BadRequest("리뷰 내용을 입력해 주세요.")
	case n > 2000:
		return httpapi.BadRequest("리뷰는 2000자까지 쓸 수 있습니다.")
	case req.Point < 1 || req.Point > 10:
		return httpapi.BadRequest("별점(point)은 1부터 10까지입니다.")
	case req.Vol < 0 || req.Vol > maxVolNo:
		return httpapi.BadRequest("회차 번호(vol)는 0부터 %d까지입니다.", maxVolNo)
	}
	ctx := r.Context()
	pid := r.PathValue("pid")
	if _, err := loadWork(ctx, s.pool, pid); err != nil {
		return err
	}
	if req.Vol > 0 {
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM volumes WHERE pid = $1 AND no = $2`, pid, req.Vol).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return httpapi.Errorf(http.StatusNotFound, "회차를 찾을 수 없습니다. (%d화)", req.Vol)
		}
	}
	buyer := false
	if st, err := s.money.Status(ctx, uid, pid); err == nil {
		buyer = st.IsBuy || st.IsRental
	} else {
		s.log.Warn("buyer flag unknown", "pid", pid, "err", err)
	}
	var id int64
	err = s.tx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO reviews (pid, uid, body, point, vol, is_spoiler, is_buyer, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`, pid, uid, req.Body, req.Point, req.Vol, req.IsSpoiler, buyer, s.now()).Scan(&id); err != nil {
			return fmt.Errorf("insert review: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE works SET review_count = review_count + 1, point_sum = point_sum + $2 WHERE pid = $1`, pid, req.Point); err != nil {
			return fmt.Errorf("count review: %w", err)
		}
		if err := s.publishReviews(ctx, tx, pid, true); err != nil {
			return err
		}
		return outbox.Event(ctx, tx, contract.TrackedEvent{Type: contract.EvReview, Time: s.now().UTC(), UID: strconv.FormatInt(uid, 10),
			PID: pid, Vol: req.Vol, Props: map[string]string{"action": "add", "point": strconv.Itoa(req.Point), "buyer": strconv.FormatBool(buyer)}})
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, struct {
		httpapi.Header200
		ID            int64 `json:"id"`
		IsBuyerReview bool  `json:"isBuyerReview"`
	}{ok(), id, buyer})
}

// publishReviews enqueues the work's review list, and the product when its
// summary (count, points) changed.
func (s *Service) publishReviews(ctx context.Context, tx pgx.Tx, pid string, product bool) error {
	if product {
		if err := catalog.TouchStats(ctx, tx, pid); err != nil {
			return err
		}
	}
	return outbox.Doc(ctx, tx, contract.KeyReviews+pid)
}

type reviewRow struct {
	pid     string
	uid     int64
	point   int
	deleted bool
}

func (s *Service) lockReview(ctx context.Context, tx pgx.Tx, r *http.Request) (int64, *reviewRow, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, nil, httpapi.BadRequest("리뷰 번호는 양의 정수여야 합니다.")
	}
	var rv reviewRow
	err = tx.QueryRow(ctx, `SELECT pid, uid, point, deleted FROM reviews WHERE id = $1 FOR UPDATE`, id).Scan(&rv.pid, &rv.uid, &rv.point, &rv.deleted)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && rv.deleted) {
		return 0, nil, httpapi.Errorf(http.StatusNotFound, "리뷰를 찾을 수 없습니다.")
	}
	if err != nil {
		return 0, nil, fmt.Errorf("load review %d: %w", id, err)
	}
	return id, &rv, nil
}

// reviewDelete deletes the member's own review and lowers the work's counts.
func (s *Service) reviewDelete(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.tx(ctx, func(tx pgx.Tx) error {
		id, rv, err := s.lockReview(ctx, tx, r)
		if err != nil {
			return err
		}
		if rv.uid != uid {
			return httpapi.Errorf(http.StatusForbidden, "내가 쓴 리뷰가 아닙니다.")
		}
		if _, err := tx.Exec(ctx, `UPDATE reviews SET deleted = true WHERE id = $1`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE works SET review_count = GREATEST(review_count - 1, 0), point_sum = GREATEST(point_sum - $2, 0)
			WHERE pid = $1`, rv.pid, rv.point); err != nil {
			return err
		}
		if err := s.publishReviews(ctx, tx, rv.pid, true); err != nil {
			return err
		}
		return outbox.Event(ctx, tx, contract.TrackedEvent{Type: contract.EvReview, Time: s.now().UTC(), UID: strconv.FormatInt(uid, 10),
			PID: rv.pid, Props: map[string]string{"action": "delete"}})
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// reviewLike toggles the member's like: likeCnt +1 or -1, never below 0.
func (s *Service) reviewLike(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var liked bool
	var cnt int
	err = s.tx(ctx, func(tx pgx.Tx) error {
		id, rv, err := s.lockReview(ctx, tx, r)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM review_likes WHERE review_id = $1 AND uid = $2`, id, uid)
		if err != nil {
			return err
		}
		delta := -1
		if tag.RowsAffected() == 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO review_likes (review_id, uid) VALUES ($1, $2)`, id, uid); err != nil {
				return err
			}
			delta, liked = 1, true
		}
		if err := tx.QueryRow(ctx, `UPDATE reviews SET like_cnt = GREATEST(like_cnt + $2, 0) WHERE id = $1 RETURNING like_cnt`, id, delta).Scan(&cnt); err != nil {
			return err
		}
		return s.publishReviews(ctx, tx, rv.pid, false)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsMyLike bool `json:"isMyLike"`
		LikeCnt  int  `json:"likeCnt"`
	}{ok(), liked, cnt})
}

// reviewReport reports a review once per member; HideReports reports hide it.
func (s *Service) reviewReport(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if r.ContentLength != 0 {
		if err := httpapi.DecodeJSON(r, &body); err != nil {
			return err
		}
	}
	if len([]rune(body.Reason)) > 500 {
		return httpapi.BadRequest("신고 사유는 500자까지 쓸 수 있습니다.")
	}
	ctx := r.Context()
	err = s.tx(ctx, func(tx pgx.Tx) error {
		id, rv, err := s.lockReview(ctx, tx, r)
		if err != nil {
			return err
		}
		if rv.uid == uid {
			return httpapi.BadRequest("내가 쓴 리뷰는 신고할 수 없습니다.")
		}
		tag, err := tx.Exec(ctx, `INSERT INTO review_reports (review_id, uid, reason, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, id, uid, body.Reason, s.now())
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE reviews SET report_cnt = report_cnt + 1 WHERE id = $1`, id); err != nil {
			return err
		}
		return s.publishReviews(ctx, tx, rv.pid, false)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsReport bool `json:"isReport"`
	}{ok(), true})
}

// reviewBlock hides a review for the member (only for them).
func (s *Service) reviewBlock(w http.ResponseWriter, r *http.Request) error {
	return s.setBlock(w, r, true)
}

func (s *Service) reviewUnblock(w http.ResponseWriter, r *http.Request) error {
	return s.setBlock(w, r, false)
}

func (s *Service) setBlock(w http.ResponseWriter, r *http.Request, on bool) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.tx(ctx, func(tx pgx.Tx) error {
		id, _, err := s.lockReview(ctx, tx, r)
		if err != nil {
			return err
		}
		if on {
			_, err = tx.Exec(ctx, `INSERT INTO review_blocks (uid, review_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, uid, id)
		} else {
			_, err = tx.Exec(ctx, `DELETE FROM review_blocks WHERE uid = $1 AND review_id = $2`, uid, id)
		}
		return err
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		IsBlock bool `json:"isBlock"`
	}{ok(), on})
}

// reviewState answers the member's own flags on a work's reviews (the public
// list comes from the edge): liked, blocked, reported and own review ids, and
// which own ones others do not see.
func (s *Service) reviewState(w http.ResponseWriter, r *http.Request) error {
	uid, err := s.user(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	pid := r.PathValue("pid")
	if _, err := loadWork(ctx, s.pool, pid); err != nil {
		return err
	}
	ids := func(sql string) ([]int64, error) {
		rows, err := s.pool.Query(ctx, sql, pid, uid)
		if err != nil {
			return nil, err
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if out == nil {
			out = []int64{}
		}
		return out, err
	}
	var ans struct {
		httpapi.Header200
		Likes    []int64 `json:"myLikes"`
		Blocks   []int64 `json:"blocked"`
		Reported []int64 `json:"reported"`
		Mine     []int64 `json:"mine"`
		// Hidden is the member's own reviews others do not see (a
		// moderator's hide or HideReports reports): the author's view.
		Hidden []int64 `json:"hidden"`
	}
	ans.Header200 = ok()
	if ans.Likes, err = ids(`SELECT l.review_id FROM review_likes l JOIN reviews v ON v.id = l.review_id WHERE v.pid = $1 AND l.uid = $2`); err != nil {
		return err
	}
	if ans.Blocks, err = ids(`SELECT b.review_id FROM review_blocks b JOIN reviews v ON v.id = b.review_id WHERE v.pid = $1 AND b.uid = $2`); err != nil {
		return err
	}
	if ans.Reported, err = ids(`SELECT p.review_id FROM review_reports p JOIN reviews v ON v.id = p.review_id WHERE v.pid = $1 AND p.uid = $2`); err != nil {
		return err
	}
	if ans.Mine, err = ids(`SELECT id FROM reviews WHERE pid = $1 AND uid = $2 AND NOT deleted`); err != nil {
		return err
	}
	if ans.Hidden, err = ids(fmt.Sprintf(`SELECT id FROM reviews WHERE pid = $1 AND uid = $2 AND NOT deleted AND (hidden OR report_cnt >= %d)`, HideReports)); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, ans)
}

// maskName shows the first two characters of a member's id.
func maskName(s string) string {
	r := []rune(s)
	if i := strings.IndexRune(s, '@'); i > 0 {
		r = []rune(s[:i])
	}
	if len(r) <= 2 {
		return string(r) + "***"
	}
	return string(r[:2]) + "***"
}

// BuildReviews is the outbox builder of reviews.<pid>: the visible reviews of
// a work, newest first (at most 1,000).
func BuildReviews(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, k := range keys {
		pid := strings.TrimPrefix(k, contract.KeyReviews)
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM works WHERE pid = $1)`, pid).Scan(&exists); err != nil {
			return nil, fmt.Errorf("find work %s: %w", pid, err)
		}
		if !exists {
			continue
		}
		rows, err := tx.Query(ctx, `SELECT v.id, u.login_id, u.login_type, v.body, v.point, v.vol, v.is_buyer, v.like_cnt, v.is_spoiler, v.created_at
			FROM reviews v JOIN users u ON u.uid = v.uid
			WHERE v.pid = $1 AND NOT v.deleted AND NOT v.hidden AND v.report_cnt < $2 ORDER BY v.id DESC LIMIT 1000`, pid, HideReports)
		if err != nil {
			return nil, fmt.Errorf("load reviews of %s: %w", pid, err)
		}
		list := contract.ReviewList{PID: pid, Reviews: []contract.Review{}}
		for rows.Next() {
			var rv contract.Review
			var login, lt string
			var at time.Time
			if err := rows.Scan(&rv.ID, &login, &lt, &rv.Body, &rv.Point, &rv.Vol, &rv.IsBuyerReview, &rv.LikeCnt, &rv.IsSpoiler, &at); err != nil {
				rows.Close()
				return nil, fmt.Errorf("scan review: %w", err)
			}
			rv.UserName = maskName(login)
			rv.CreatedAt = at.UTC()
			list.Reviews = append(list.Reviews, rv)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("load reviews of %s: %w", pid, err)
		}
		if err := tx.QueryRow(ctx, `SELECT nextval('catalog_version')`).Scan(&list.Version); err != nil {
			return nil, err
		}
		b, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	return out, nil
}
