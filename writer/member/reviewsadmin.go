package member

import (
	"context"
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

// Moderation of reported reviews (issue 31 item 4), behind the same
// moderation permission as the episode comments' queue. CS Q&A has no
// reports (a question is private to its member and customer service), so
// reviews are the queue's only other kind.
//
// A decision is one of:
//
//	hide     the review leaves the public list until a restore
//	restore  a hidden review (by a moderator or by HideReports reports) is shown again
//	dismiss  the reports were unfounded: they leave the queue and the review
//	         stays (or, auto-hidden by reports, becomes) visible; a
//	         moderator's earlier hide stands
//
// Each decides the review's open reports, sets report_cnt (the undecided
// reports) to 0, enqueues reviews.<pid> for the edges and writes its audit
// row, in one transaction.

// Review decisions.
const (
	DecisionHide    = "hide"
	DecisionRestore = "restore"
	DecisionDismiss = "dismiss"
)

// Moderation states of a review, as the queue and the audit trail show them.
const (
	ReviewVisible    = "visible"
	ReviewAutoHidden = "auto-hidden" // HideReports undecided reports
	ReviewHidden     = "hidden"      // a moderator's hide
)

// reviewQueuePage is the queue's page size.
const reviewQueuePage = 20

// ReviewReport is one member's report of a review.
type ReviewReport struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// ReportedReview is one entry of the reviews' moderation queue.
type ReportedReview struct {
	ID        int64     `json:"id"`
	PID       string    `json:"pid"`
	Title     string    `json:"title"`
	Vol       int       `json:"vol"`
	UserName  string    `json:"userName"`
	Body      string    `json:"body"`
	Point     int       `json:"point"`
	IsSpoiler bool      `json:"isSpoiler"`
	CreatedAt time.Time `json:"createdAt"`
	State     string    `json:"state"`
	// Reports counts the undecided reports (status=open) or, for a hidden
	// review (status=hidden), every report it had.
	Reports int `json:"reports"`
	// ReportList is the counted reports, oldest first (at most 50).
	ReportList []ReviewReport `json:"reportList"`
	// FirstReport is when the oldest counted report came in (null: none).
	FirstReport *time.Time `json:"firstReport"`
}

// reviewModState is the audit row's before and after.
type reviewModState struct {
	State   string `json:"state"`
	Reports int    `json:"reports"`
}

func modState(hidden bool, reports int) string {
	switch {
	case hidden:
		return ReviewHidden
	case reports >= HideReports:
		return ReviewAutoHidden
	}
	return ReviewVisible
}

// adminReviewReports pages the queue: status=open (default) lists reviews
// with undecided reports, status=hidden the reviews a moderator hid (to
// restore one); order=oldest (default) by the oldest open report, order=most
// by the number of reports (oldest first among equals); page from 1.
func (s *Service) adminReviewReports(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	status := q.Get("status")
	if status == "" {
		status = "open"
	}
	if status != "open" && status != "hidden" {
		return httpapi.BadRequest("상태(status)는 open 또는 hidden이어야 합니다.")
	}
	order := q.Get("order")
	if order == "" {
		order = "oldest"
	}
	if order != "oldest" && order != "most" {
		return httpapi.BadRequest("정렬(order)은 oldest 또는 most여야 합니다.")
	}
	page := int64(1)
	if v := q.Get("page"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > 10000 {
			return httpapi.BadRequest("페이지(page)는 1부터 10000까지의 정수여야 합니다.")
		}
		page = n
	}
	// open: the undecided reports count; hidden: every report (all were
	// decided by the hide, or came after it).
	reportFilter, reviewFilter := `p.decided_at IS NULL`, `TRUE`
	if status == "hidden" {
		reportFilter, reviewFilter = `TRUE`, `v.hidden`
	}
	inner, outer := `first_at NULLS LAST, v.id`, `q.first_at NULLS LAST, q.id`
	if order == "most" {
		inner, outer = `cnt DESC, `+inner, `q.cnt DESC, `+outer
	}
	join := `JOIN`
	if status == "hidden" {
		join = `LEFT JOIN` // a hidden review may have no reports at all
	}
	from := fmt.Sprintf(`FROM reviews v %s review_reports p ON p.review_id = v.id AND %s
		WHERE NOT v.deleted AND %s GROUP BY v.id`, join, reportFilter, reviewFilter)
	ctx := r.Context()
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT v.id `+from+`) t`).Scan(&total); err != nil {
		return fmt.Errorf("count review reports: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT v.id, v.pid, w.title, v.vol, u.login_id, v.body, v.point, v.is_spoiler, v.created_at, v.hidden,
			q.cnt, q.first_at, q.reasons, q.ats
		FROM (SELECT v.id, count(p.review_id) AS cnt, min(p.created_at) AS first_at,
				(array_agg(p.reason ORDER BY p.created_at) FILTER (WHERE p.review_id IS NOT NULL))[1:50] AS reasons,
				(array_agg(p.created_at ORDER BY p.created_at) FILTER (WHERE p.review_id IS NOT NULL))[1:50] AS ats
			`+from+` ORDER BY `+inner+` LIMIT $1 OFFSET $2) q
		JOIN reviews v ON v.id = q.id JOIN works w ON w.pid = v.pid JOIN users u ON u.uid = v.uid
		ORDER BY `+outer,
		reviewQueuePage, (page-1)*reviewQueuePage)
	if err != nil {
		return fmt.Errorf("load review reports: %w", err)
	}
	list := []ReportedReview{}
	for rows.Next() {
		var v ReportedReview
		var login string
		var hidden bool
		var reasons []string
		var ats []time.Time
		if err := rows.Scan(&v.ID, &v.PID, &v.Title, &v.Vol, &login, &v.Body, &v.Point, &v.IsSpoiler, &v.CreatedAt, &hidden,
			&v.Reports, &v.FirstReport, &reasons, &ats); err != nil {
			rows.Close()
			return fmt.Errorf("scan review report: %w", err)
		}
		v.UserName = maskName(login)
		open := v.Reports
		if status == "hidden" {
			open = 0
		}
		v.State = modState(hidden, open)
		v.ReportList = make([]ReviewReport, len(reasons))
		for i := range reasons {
			v.ReportList[i] = ReviewReport{Reason: reasons[i], At: ats[i]}
		}
		list = append(list, v)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load review reports: %w", err)
	}
	return httpapi.JSON(w, http.StatusOK, contract.NewInlinePagedList(list, page, reviewQueuePage, total))
}

// adminReviewDecision is POST reviews/{id}/decision {"decision", "note"}:
// hide, restore or dismiss (see the top of this file). A decision that
// changes nothing (restoring a visible review without reports) is a 409.
func (s *Service) adminReviewDecision(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return httpapi.BadRequest("리뷰 번호는 양의 정수여야 합니다.")
	}
	var req struct {
		Decision *string `json:"decision"`
		Note     string  `json:"note"`
	}
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Decision == nil {
		return httpapi.BadRequest("결정(decision)을 보내 주세요. (hide, restore, dismiss)")
	}
	d := *req.Decision
	if d != DecisionHide && d != DecisionRestore && d != DecisionDismiss {
		return httpapi.BadRequest("결정(decision)은 hide, restore, dismiss 중 하나여야 합니다.")
	}
	if n := len([]rune(req.Note)); n > 500 {
		return httpapi.BadRequest("메모(note)는 500자까지 쓸 수 있습니다. (%d자)", n)
	}
	ctx := r.Context()
	var after reviewModState
	err = s.auditedTx(ctx, func(tx pgx.Tx, write func(staff.Entry) error) error {
		var pid string
		var hidden, deleted bool
		var reports int
		err := tx.QueryRow(ctx, `SELECT pid, hidden, deleted, report_cnt FROM reviews WHERE id = $1 FOR UPDATE`, id).Scan(&pid, &hidden, &deleted, &reports)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && deleted) {
			return httpapi.Errorf(http.StatusNotFound, "리뷰를 찾을 수 없습니다.")
		}
		if err != nil {
			return fmt.Errorf("load review %d: %w", id, err)
		}
		var open int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM review_reports WHERE review_id = $1 AND decided_at IS NULL`, id).Scan(&open); err != nil {
			return fmt.Errorf("count open reports of review %d: %w", id, err)
		}
		before := reviewModState{State: modState(hidden, reports), Reports: open}
		switch d {
		case DecisionHide:
			if hidden && open == 0 {
				return httpapi.Errorf(http.StatusConflict, "이미 숨긴 리뷰입니다.")
			}
			hidden = true
		case DecisionRestore:
			if before.State == ReviewVisible {
				return httpapi.Errorf(http.StatusConflict, "숨겨진 리뷰가 아닙니다. 신고를 기각하려면 dismiss를 보내 주세요.")
			}
			hidden = false
		case DecisionDismiss:
			if open == 0 {
				return httpapi.Errorf(http.StatusConflict, "처리할 신고가 없습니다.")
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE review_reports SET decided_at = $2 WHERE review_id = $1 AND decided_at IS NULL`, id, s.now()); err != nil {
			return fmt.Errorf("decide reports of review %d: %w", id, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE reviews SET hidden = $2, report_cnt = 0 WHERE id = $1`, id, hidden); err != nil {
			return fmt.Errorf("decide review %d: %w", id, err)
		}
		after = reviewModState{State: modState(hidden, 0), Reports: 0}
		// The public list changes with the state; it is republished on
		// every decision anyway, which costs one document.
		if err := s.publishReviews(ctx, tx, pid, false); err != nil {
			return err
		}
		e := staff.Entry{Action: "review." + d, Target: "review:" + strconv.FormatInt(id, 10), Before: before, After: after}
		if req.Note != "" {
			e.After = struct {
				reviewModState
				Note string `json:"note"`
			}{after, req.Note}
		}
		return write(e)
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		State string `json:"state"`
	}{ok(), after.State})
}

// auditedTx runs a staff change in one transaction with its audit row
// (writer/staff.Audit: the outbox rows it enqueues carry the row's id), wakes
// the other nodes' relays at commit and this node's after.
func (s *Service) auditedTx(ctx context.Context, f func(tx pgx.Tx, write func(staff.Entry) error) error) error {
	err := staff.AuditedTx(ctx, s.pool, func(tx pgx.Tx, write func(staff.Entry) error) error {
		if err := f(tx, write); err != nil {
			return err
		}
		return outbox.Notify(ctx, tx)
	})
	if err != nil {
		return err
	}
	s.Changed()
	return nil
}
