package staff

import (
	"context"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"storefront/writer/httpapi"
)

// ErrOtherWork refuses a provider a work that is not its own (or no work):
// the same answer either way, so a provider learns nothing of the others.
var ErrOtherWork = httpapi.Errorf(http.StatusForbidden, "다른 제공사의 작품은 보거나 바꿀 수 없습니다.")

// Provider is the provider id the caller acts for: "" unless the principal in
// ctx is a provider account. A provider account without a provider id acts
// for none (every scope check refuses it).
func Provider(ctx context.Context) (id string, isProvider bool) {
	p := From(ctx)
	if p == nil || p.Role != RoleProvider {
		return "", false
	}
	return p.ProviderID, true
}

// OwnWork checks that the caller may touch work pid: anyone but a provider
// may (the guard already checked the route's permission); a provider only a
// work assigned to its provider (writer/settlement's work_providers). It
// takes the work's row FOR SHARE: called inside a change's transaction, the
// answer holds to commit, since reassigning a work locks the same row FOR
// UPDATE.
func OwnWork(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, pid string) error {
	id, isProvider := Provider(ctx)
	if !isProvider {
		return nil
	}
	if id == "" {
		return ErrOtherWork
	}
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM works w JOIN work_providers wp ON wp.pid = w.pid
		WHERE w.pid = $1 AND wp.provider_id = $2 FOR SHARE OF w) x`, pid, id).Scan(&n); err != nil {
		return fmt.Errorf("cannot read the owner of %s: %w", pid, err)
	}
	if n == 0 {
		return ErrOtherWork
	}
	return nil
}
