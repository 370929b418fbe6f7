package contract

import (
	"errors"
	"fmt"
	"time"
)

// EventSchemaVersion is the version of TrackedEvent. Consumers accept every
// version up to this one; a new field raises it.
const EventSchemaVersion = 1

// Event types. Tracking events come from browsers through the edge; business
// events come from the writer's outbox.
const (
	EvPageView      = "page_view"
	EvViewContent   = "view_content"
	EvMemberProfile = "member_profile"
	EvSignup        = "signup"
	EvLogin         = "login"
	EvCharge        = "charge"
	EvPurchase      = "purchase"
	EvRental        = "rental"
	EvCouponUse     = "coupon_use"
	// EvZzim is a member's zzim (찜, the seed's word; the code says zzim
	// throughout). Its value stays "dibs": it is the type stored in
	// ClickHouse's events and named by reports, so renaming the value would
	// split one event's history in two.
	EvZzim   = "dibs"
	EvReview = "review"
	// EvSearch is a search the reader settled on (pressed search, or opened
	// a result): Props[PropSearchQuery] is the keyword as the edge normalized
	// it, Props[PropSearchTop] the pid of its top hit for an audience that
	// sees every work (set by the edge, never by the page). Typing is not a
	// search: the page sends none per keystroke.
	EvSearch = "search"
)

// Props of an EvSearch event.
const (
	PropSearchQuery = "q"
	PropSearchTop   = "top"
)

// TrackedEvent is one event in the EVENTS stream. ID is globally unique and is
// the deduplication key end to end (JetStream Nats-Msg-Id and ClickHouse).
type TrackedEvent struct {
	V    int       `json:"v"`
	ID   string    `json:"id"`
	Type string    `json:"type"`
	Time time.Time `json:"ts"` // server time, set by the edge or writer
	// Enrichment from the request (Enrich): by the edge for tracking events,
	// by the writer for the business events a request caused.
	Channel    string `json:"channel,omitempty"` // AO AC AA AW IA IW
	AppVersion string `json:"appVersion,omitempty"`
	IPHash     string `json:"ipHash,omitempty"`
	UAClass    string `json:"uaClass,omitempty"` // android-app, ios-app, android-web, ios-web, desktop, bot
	SessionID  string `json:"sessionId,omitempty"`
	// Who and what.
	UID        string `json:"uid,omitempty"`
	MemberType string `json:"memberType,omitempty"` // visitor, member, guest, adult
	URL        string `json:"url,omitempty"`
	Route      string `json:"route,omitempty"`
	Referrer   string `json:"referrer,omitempty"`
	PID        string `json:"pid,omitempty"`
	Section    string `json:"section,omitempty"`
	GenreID    string `json:"genreId,omitempty"`
	Vol        int    `json:"vol,omitempty"`
	// Money: Amount in won, Money the wallet (blue, android, ios, mileage, pg).
	Amount int64  `json:"amount,omitempty"`
	Money  string `json:"money,omitempty"`
	// Props holds the rest (the member tracking profile's 27 fields in
	// member_profile, coupon kind, ...).
	Props map[string]string `json:"props,omitempty"`
}

// Validate checks what every consumer relies on.
func (e *TrackedEvent) Validate() error {
	switch {
	case e.V < 1 || e.V > EventSchemaVersion:
		return fmt.Errorf("unsupported event schema version %d", e.V)
	case e.ID == "" || len(e.ID) > 64:
		return errors.New("event id must be 1 to 64 characters")
	case e.Type == "" || len(e.Type) > 32:
		return errors.New("event type must be 1 to 32 characters")
	case e.Time.IsZero():
		return errors.New("event time missing")
	}
	return nil
}

// KST is Korean standard time (UTC+9), the zone of release times and reports.
var KST = time.FixedZone("KST", 9*60*60)
