package money

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"storefront/writer/httpapi"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/auth"
)

// Teen-version refusals (HTTP 403). They start like the detail page's adult
// gate (frontend routes/detail.tsx) and say what would open the work, since
// the buyer reached a work the edge does not show them.
const (
	msgAdultInApp    = "청소년 이용 불가 작품입니다. 이 앱에서는 성인 작품을 이용할 수 없습니다."
	msgAdultVerify   = "청소년 이용 불가 작품입니다. 19세 이상 성인 인증 후 이용할 수 있습니다."
	msgAdultTeen     = "청소년 이용 불가 작품입니다. 만 19세 미만은 성인 작품을 이용할 수 없습니다."
	msgAdultToggleOn = "청소년 이용 불가 작품입니다. 성인 작품 보기(19)를 켜면 이용할 수 있습니다."
)

// forAudience refuses every unlock of an adult work (buy, rent, ticket,
// coupons, download-auth) when the reader may not see adult content: the same
// contract.AdultContent the edge decides every answer by (through AdultGate), with the
// member's adult level read from the account now (a body or cookie could say
// anything) and the channel from X-Channel. The edge already hides the work's
// pages from the teen version, so without this the member paid for nothing.
// A refusal writes nothing and stores no idempotent answer (a purchase checks
// inside its transaction, through q, and rolls back): the member may verify
// and retry with the same key.
func (s *Service) forAudience(ctx context.Context, uid int64, p *Product, channel string, now time.Time) error {
	return s.forAudienceOn(ctx, s.pool, uid, p, channel, now)
}

// forAudienceOn is forAudience reading the member through q.
func (s *Service) forAudienceOn(ctx context.Context, q auth.Querier, uid int64, p *Product, channel string, now time.Time) error {
	if !p.Adult {
		return nil
	}
	adultCh := contract.AdultChannel(channel)
	level := 0
	if adultCh {
		// Only adult works on adult channels pay this read.
		u, err := auth.ReadUser(ctx, q, uid)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return fmt.Errorf("adult level of %d: %w", uid, err)
		default:
			level = u.AdultLevel(now)
		}
	}
	// A member calls here: the gate of a logged-in reader (contract/cases/audience.json).
	var msg string
	switch contract.AdultGate(adultCh, true, level) {
	case contract.GateNone:
		return nil
	case contract.GateNotInApp:
		msg = msgAdultInApp
	case contract.GateTeen:
		msg = msgAdultTeen
	case contract.GateToggle:
		msg = msgAdultToggleOn
	default:
		msg = msgAdultVerify
	}
	return httpapi.Errorf(http.StatusForbidden, "%s", msg)
}
