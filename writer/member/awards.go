package member

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
	"storefront/writer/outbox"
)

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
