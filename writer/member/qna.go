package member

import (
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

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
	return httpapi.JSON(w, http.StatusOK, contract.NewInlinePagedList(list, page, qnaPageSize, total))
}
