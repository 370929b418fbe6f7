package member

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
	"storefront/writer/staff"
)

// Moderation of episode comments (and of reviews, reviewsadmin.go), behind the staff moderation permission
// (moderators and content managers, writer/staff roles.go): the queue of reported comments, hiding (and showing
// again) a comment, and per episode the creator's note and one pinned
// comment. Each change writes its staff audit row (comment.hide|show|note|pin)
// in its own transaction, as every staff change does (staff.Audit).

// AdminRoutes registers the moderation routes under prefix (admin.Prefix),
// each behind guard.
func (s *Service) AdminRoutes(mux httpapi.Mux, prefix string, guard func(http.Handler) http.Handler) {
	h := func(method, path string, f httpapi.HandlerFunc) {
		mux.Handle(method+" "+prefix+path, httpapi.Limit(1<<20, guard(httpapi.Wrap(s.log, f))))
	}
	h("GET", "comments/reports", s.adminReports)
	h("PUT", "comments/{id}/hidden", s.adminHide)
	h("PUT", "products/{pid}/episodes/{vol}/comments/note", s.adminNote)
	h("PUT", "products/{pid}/episodes/{vol}/comments/pin", s.adminPin)
	// Reported reviews (reviewsadmin.go).
	h("GET", "reviews/reports", s.adminReviewReports)
	h("POST", "reviews/{id}/decision", s.adminReviewDecision)
}

// ReportedComment is one entry of the moderation queue.
type ReportedComment struct {
	ID        int64     `json:"id"`
	PID       string    `json:"pid"`
	Vol       int       `json:"vol"`
	UserName  string    `json:"userName"`
	Body      string    `json:"body"`
	Hidden    bool      `json:"hidden"`
	Reports   int       `json:"reports"`
	Reasons   []string  `json:"reasons"`
	CreatedAt time.Time `json:"createdAt"`
	// FirstReport is when its oldest undecided report came in.
	FirstReport time.Time `json:"firstReport"`
}

// adminReports lists comments with undecided reports, oldest report first
// (at most 200).
func (s *Service) adminReports(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	rows, err := s.pool.Query(ctx, `SELECT c.id, c.pid, c.vol, u.login_id, c.body, c.hidden, count(*), array_agg(p.reason ORDER BY p.created_at),
			c.created_at, min(p.created_at)
		FROM episode_comment_reports p JOIN episode_comments c ON c.id = p.comment_id JOIN users u ON u.uid = c.uid
		WHERE p.decided_at IS NULL AND NOT c.deleted
		GROUP BY c.id, u.login_id ORDER BY min(p.created_at) LIMIT 200`)
	if err != nil {
		return fmt.Errorf("load reports: %w", err)
	}
	list := []ReportedComment{}
	for rows.Next() {
		var c ReportedComment
		var login string
		if err := rows.Scan(&c.ID, &c.PID, &c.Vol, &login, &c.Body, &c.Hidden, &c.Reports, &c.Reasons, &c.CreatedAt, &c.FirstReport); err != nil {
			rows.Close()
			return fmt.Errorf("scan report: %w", err)
		}
		c.UserName = maskName(login)
		list = append(list, c)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load reports: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Comments []ReportedComment `json:"comments"`
	}{ok(), list})
}

// adminHide hides ({"hidden":true}) or shows again a comment, deciding its
// open reports; readers of every edge see the change with the next head.
func (s *Service) adminHide(w http.ResponseWriter, r *http.Request) error {
	id, err := commentID(r)
	if err != nil {
		return err
	}
	var req struct {
		Hidden *bool `json:"hidden"`
	}
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Hidden == nil {
		return httpapi.BadRequest("숨김 여부(hidden)를 보내 주세요.")
	}
	ctx := r.Context()
	err = s.auditedTx(ctx, func(tx pgx.Tx, write func(staff.Entry) error) error {
		c, err := lockComment(ctx, tx, id)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE episode_comment_reports SET decided_at = $2 WHERE comment_id = $1 AND decided_at IS NULL`, id, s.now())
		if err != nil {
			return err
		}
		open := int(tag.RowsAffected())
		if c.hidden == *req.Hidden && open == 0 {
			return nil // nothing changed, nothing to record
		}
		// The trail: who decided, the comment's state and its open reports.
		type state struct {
			Hidden  bool `json:"hidden"`
			Reports int  `json:"reports"`
		}
		action := "comment.show"
		if *req.Hidden {
			action = "comment.hide"
		}
		if err := write(staff.Entry{Action: action, Target: "comment:" + strconv.FormatInt(id, 10),
			Before: state{c.hidden, open}, After: state{*req.Hidden, 0}}); err != nil {
			return err
		}
		if c.hidden == *req.Hidden {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE episode_comments SET hidden = $2 WHERE id = $1`, id, *req.Hidden); err != nil {
			return err
		}
		if *req.Hidden {
			if err := removeVisible(ctx, tx, c); err != nil {
				return err
			}
		} else {
			// Shown again: back into the counts it left.
			n := 1
			if c.parent == 0 {
				n += c.replies
			} else if _, err := tx.Exec(ctx, `UPDATE episode_comments SET reply_cnt = reply_cnt + 1 WHERE id = $1`, c.parent); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE episode_comment_meta SET comment_cnt = comment_cnt + $3 WHERE pid = $1 AND vol = $2`, c.pid, c.vol, n); err != nil {
				return err
			}
		}
		return touched(ctx, tx, c)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		Hidden bool `json:"hidden"`
	}{ok(), *req.Hidden})
}

// episodeTarget names an episode in the audit trail.
func episodeTarget(pid string, vol int) string { return "episode:" + pid + "/" + strconv.Itoa(vol) }

// adminNote sets the creator's note of an episode ("" removes it).
func (s *Service) adminNote(w http.ResponseWriter, r *http.Request) error {
	pid, vol, err := episodePath(r)
	if err != nil {
		return err
	}
	var req struct {
		Note *string `json:"note"`
	}
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Note == nil {
		return httpapi.BadRequest("작가의 말(note)을 보내 주세요.")
	}
	if n := len([]rune(*req.Note)); n > 2000 {
		return httpapi.BadRequest("작가의 말은 2000자까지 쓸 수 있습니다. (%d자)", n)
	}
	ctx := r.Context()
	if _, err := loadWork(ctx, s.pool, pid); err != nil {
		return err
	}
	err = s.auditedTx(ctx, func(tx pgx.Tx, write func(staff.Entry) error) error {
		var before string
		if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT note FROM episode_comment_meta WHERE pid = $1 AND vol = $2 FOR UPDATE), '')`,
			pid, vol).Scan(&before); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO episode_comment_meta AS m (pid, vol, note) VALUES ($1, $2, $3)
			ON CONFLICT (pid, vol) DO UPDATE SET note = EXCLUDED.note`, pid, vol, *req.Note); err != nil {
			return err
		}
		if err := outbox.Doc(ctx, tx, contract.CommentHeadKey(pid, vol)); err != nil {
			return err
		}
		type note struct {
			Note string `json:"note"`
		}
		return write(staff.Entry{Action: "comment.note", Target: episodeTarget(pid, vol), Before: note{before}, After: note{*req.Note}})
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}

// adminPin pins one top-level comment of the episode ({"id":0} unpins).
func (s *Service) adminPin(w http.ResponseWriter, r *http.Request) error {
	pid, vol, err := episodePath(r)
	if err != nil {
		return err
	}
	var req struct {
		ID *int64 `json:"id"`
	}
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.ID == nil || *req.ID < 0 {
		return httpapi.BadRequest("고정할 댓글 번호(id)를 보내 주세요. (0: 고정 해제)")
	}
	ctx := r.Context()
	if _, err := loadWork(ctx, s.pool, pid); err != nil {
		return err
	}
	err = s.auditedTx(ctx, func(tx pgx.Tx, write func(staff.Entry) error) error {
		var pin *int64
		if *req.ID > 0 {
			c, err := lockComment(ctx, tx, *req.ID)
			if err != nil {
				return err
			}
			if c.pid != pid || c.vol != vol || c.parent != 0 || c.gone {
				return httpapi.Errorf(http.StatusNotFound, "이 회차에 고정할 수 있는 댓글이 아닙니다.")
			}
			pin = req.ID
		}
		var before *int64
		if err := tx.QueryRow(ctx, `SELECT (SELECT pinned_id FROM episode_comment_meta WHERE pid = $1 AND vol = $2 FOR UPDATE)`,
			pid, vol).Scan(&before); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO episode_comment_meta AS m (pid, vol, pinned_id) VALUES ($1, $2, $3)
			ON CONFLICT (pid, vol) DO UPDATE SET pinned_id = EXCLUDED.pinned_id`, pid, vol, pin)
		if err != nil {
			return err
		}
		if err := outbox.Doc(ctx, tx, contract.CommentHeadKey(pid, vol)); err != nil {
			return err
		}
		type pinned struct {
			ID *int64 `json:"pinnedId"`
		}
		return write(staff.Entry{Action: "comment.pin", Target: episodeTarget(pid, vol), Before: pinned{before}, After: pinned{pin}})
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return httpapi.Errorf(http.StatusNotFound, msgCommentNotFound)
	}
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.OK)
}
