package admin

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

type roleBody struct {
	Role string `json:"role"`
}

// setRole is PUT users/{uid}/role {"role": "analyst"|"member"}: the catalog
// admin makes a member an analyst (the reports) or takes the role back. The
// member's analyst cookie follows at their next login or /me; one already
// handed out is refused by the next report, which asks the writer whether
// the role is still held (writer/server/analystcheck.go).
func (a *API) setRole(w http.ResponseWriter, r *http.Request) error {
	uid, err := strconv.ParseInt(r.PathValue("uid"), 10, 64)
	if err != nil || uid <= 0 {
		return httpapi.BadRequest("회원 번호(uid)는 양의 정수여야 합니다.")
	}
	var b roleBody
	if err := httpapi.DecodeJSONRequired(r, &b, "role"); err != nil {
		return err
	}
	if b.Role != contract.RoleMember && b.Role != contract.RoleAnalyst {
		return httpapi.BadRequest("역할(role)은 member 또는 analyst여야 합니다.")
	}
	e := entry(r, "member:"+strconv.FormatInt(uid, 10))
	e.After = b
	err = a.tx(r.Context(), e, func(tx pgx.Tx) error {
		var old string
		err := tx.QueryRow(r.Context(), `SELECT role FROM users WHERE uid = $1 AND login_type <> 'D' FOR UPDATE`, uid).Scan(&old)
		if errors.Is(err, pgx.ErrNoRows) {
			return httpapi.Errorf(http.StatusNotFound, "회원 %d을(를) 찾을 수 없습니다.", uid)
		}
		if err != nil {
			return err
		}
		e.Before = roleBody{Role: old}
		_, err = tx.Exec(r.Context(), `UPDATE users SET role = $2 WHERE uid = $1`, uid, b.Role)
		return err
	})
	if err != nil {
		return err
	}
	a.log.Info("member role set", "uid", uid, "role", b.Role)
	return httpapi.JSON(w, http.StatusOK, struct {
		httpapi.Header200
		UID  string `json:"uid"`
		Role string `json:"role"`
	}{httpapi.H200(), strconv.FormatInt(uid, 10), b.Role})
}
