package staff

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"storefront/writer/httpapi"
)

// Failure limits: the two doors a guesser can knock on, staff sign-in and
// the ADMIN_TOKEN bearer, share one ledger (staff_login_failures, in
// PostgreSQL so that every node sees them) and one window. A login with
// LoginFailures failures, or a client address with IPFailures failures of
// either kind, in Window is refused with 429 and Retry-After until they age
// out, whether or not the next password or token is right: otherwise the
// guessing goes on, only with the right guess told apart by its status.
// A refused attempt is not written, so a flood adds no rows.

// bearerLogin is the login column of a wrong bearer's failure row. No
// account can have it (loginRE), and the bearer is counted by address only:
// counting it by this login would let anyone lock the machine principal out
// for everyone.
const bearerLogin = "(bearer)"

// lockedUntil is when login (skipped if "") and client address ip may try
// again, or the zero time if they may now. A key is locked while its
// limit-th newest failure is inside the window, that is until that failure
// is Window old; refused attempts add no failures, so the moment is exact.
func (s *Service) lockedUntil(ctx context.Context, login, ip string, now time.Time) (time.Time, error) {
	var byLogin, byIP *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT
		(SELECT at FROM staff_login_failures WHERE $1 <> '' AND login = $1 AND at > $3
			ORDER BY at DESC OFFSET $4 LIMIT 1),
		(SELECT at FROM staff_login_failures WHERE ip = $2 AND at > $3
			ORDER BY at DESC OFFSET $5 LIMIT 1)`,
		login, ip, now.Add(-s.cfg.Window), s.cfg.LoginFailures-1, s.cfg.IPFailures-1).Scan(&byLogin, &byIP); err != nil {
		return time.Time{}, fmt.Errorf("cannot count sign-in failures: %w", err)
	}
	var until time.Time
	for _, at := range []*time.Time{byLogin, byIP} {
		if at != nil && at.Add(s.cfg.Window).After(until) {
			until = at.Add(s.cfg.Window)
		}
	}
	return until, nil
}

// recordFailure writes one failure of login (bearerLogin for the bearer)
// from ip.
func (s *Service) recordFailure(ctx context.Context, login, ip string, now time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO staff_login_failures (at, login, ip) VALUES ($1, $2, $3)`, now, login, ip); err != nil {
		return fmt.Errorf("cannot count a sign-in failure: %w", err)
	}
	return nil
}

// tooMany is the 429 of a locked caller, what naming the door ("로그인",
// "관리 토큰"), with Retry-After in whole seconds (rounded up, so that a
// client retrying then is let in) and the wait in minutes in the message.
func tooMany(w http.ResponseWriter, what string, until, now time.Time) error {
	secs := int64((until.Sub(now) + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	return httpapi.Errorf(http.StatusTooManyRequests, "%s 시도가 너무 많습니다. %d분 뒤에 다시 시도해 주세요.", what, (secs+59)/60)
}
