package staff

import (
	"context"
	"errors"
	"strconv"

	"storefront/writer/httpapi"
)

// Analyst reports whether the staff session token tok is, now, a live
// session of an analyst account, and names it for the report audit
// ("staff:<id>"). Analytics asks it before every report (over NATS,
// contract.AnalystCheckSubject): logout, a role change and a removal
// delete the session rows, so the next report is refused at once.
func (s *Service) Analyst(ctx context.Context, tok string) (who string, ok bool, err error) {
	p, err := s.Session(ctx, tok)
	var he *httpapi.Error
	if errors.As(err, &he) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if p.Role != RoleAnalyst {
		return "", false, nil
	}
	return "staff:" + strconv.FormatInt(p.StaffID, 10), true, nil
}
