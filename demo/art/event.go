package art

import (
	"io"

	"storefront/contract"
)

// eventLabels name each kind of event on its banner.
var eventLabels = map[string]string{
	contract.EventBluerun:      "블루런",
	contract.EventDoubleCoupon: "더블쿠폰",
	contract.EventHoneyBenefit: "꿀혜택",
	contract.EventHeroism:      "작가전",
	contract.EventTicket:       "이용권",
	contract.EventJoin:         "가입 혜택",
	contract.EventFirstCharge:  "첫 충전",
}

// EventBanner writes the banner of event eid: the kind's label, the title and
// a call to action, in colours from a hash of the id and kind. Unknown kinds
// get the plain "이벤트" label.
func EventBanner(w io.Writer, eid int64, kind, title string) error {
	label, ok := eventLabels[kind]
	if !ok {
		label = "이벤트"
	}
	return banner(w, rng(hashString(hashInts(0, int(eid), 0x657674), kind)), label, title, "이벤트 보러 가기 ›")
}
