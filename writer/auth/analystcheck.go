package auth

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
)

// AnalystSession reports whether the member session token (cookie
// sf_session) is live, belongs to uid, and uid holds the analyst role now.
// Analytics asks it (over NATS, contract.AnalystCheckSubject) before every
// report, so that logout (the session row goes) and a role taken back end
// access at once, whatever the signed analyst cookie still says.
func (a *Auth) AnalystSession(ctx context.Context, token, uid string) (bool, error) {
	want, err := strconv.ParseInt(uid, 10, 64)
	if token == "" || len(token) > 100 || err != nil || want <= 0 {
		return false, nil
	}
	// The query of scs' pgxstore.Find, with ctx (Find has none).
	var b []byte
	err = a.pool.QueryRow(ctx, `SELECT data FROM sessions WHERE token = $1 AND current_timestamp < expiry`, token).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot read member session: %w", err)
	}
	_, values, err := a.sm.Codec.Decode(b)
	if err != nil {
		return false, fmt.Errorf("cannot decode member session: %w", err)
	}
	got, ok := values["uid"].(int64)
	if !ok || got != want {
		return false, nil
	}
	var role string
	err = a.pool.QueryRow(ctx, `SELECT role FROM users WHERE uid = $1 AND login_type <> 'D'`, want).Scan(&role)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot read member role: %w", err)
	}
	return role == contract.RoleAnalyst, nil
}
