package contract

import "strings"

// JetStream names. Every service creates what it needs idempotently at start
// (see EnsureJetStream in package jsutil), so start order does not matter.
const (
	// CatalogBucket is the KV bucket holding every read model the edges serve.
	CatalogBucket = "catalog"
	// EventsStream holds tracking events from the edges and business events
	// from the writer; analytics consumes it.
	EventsStream = "EVENTS"
	// EventsSubjectPrefix prefixes every subject of EventsStream:
	// events.<kind>.<type>, kind being "track" or "biz".
	EventsSubjectPrefix = "events."
	// LeaseBucket holds the leases of single-leader work (one analytics node
	// computes rankings); its TTL is the lease's.
	LeaseBucket = "leases"
	// AnalyticsConsumer is the durable pull consumer shared by every analytics process.
	AnalyticsConsumer = "analytics"
	// DefaultNATSURL is the embedded NATS that `storefront up` starts, which
	// every service run alone connects to unless given NATS_URL. Its port is
	// below Linux's ephemeral range (32768-60999), where any outgoing
	// connection could hold it.
	DefaultNATSURL = "nats://127.0.0.1:24222"
)

// Catalog KV key prefixes. A key is prefix + id; ids use only [A-Za-z0-9_-].
const (
	KeyProduct    = "prod."    // prod.<pid>        -> Product
	KeyEvent      = "event."   // event.<eid>       -> Event
	KeyAward      = "award."   // award.<eid>       -> Award
	KeyFAQ        = "faq."     // faq.<id>          -> FAQ
	KeyNotice     = "notice."  // notice.<id>       -> Notice
	KeyBanner     = "banner."  // banner.<id>       -> Banner
	KeyKeyword    = "keyword." // keyword.<id>      -> Keyword
	KeyRanking    = "ranking." // ranking.<scope>.<tab> -> Ranking (scope: all|wt|cm|eb|genre-<id>)
	KeyReviews    = "reviews." // reviews.<pid>     -> ReviewList
	KeyStat       = "stat."    // stat.<pid>        -> ProductStat (a work's counters)
	KeyQuickLinks = "quicklinks"
	KeyJumpPass   = "jumpingpass"
	KeySiteConfig = "siteconfig"
	// KeyPopularSearches holds the popular search keywords (PopularSearches),
	// one small document analytics rewrites when the list changes.
	KeyPopularSearches = "popularsearches"
)

// ProductKey returns the catalog key of a product.
func ProductKey(pid string) string { return KeyProduct + pid }

// StatKey returns the catalog key of a product's counters.
func StatKey(pid string) string { return KeyStat + pid }

// TrackSubject is the subject a tracking event of type t is published on.
func TrackSubject(t string) string { return EventsSubjectPrefix + "track." + t }

// BizSubject is the subject a business event of type t is published on.
func BizSubject(t string) string { return EventsSubjectPrefix + "biz." + t }

// ValidKeyID reports whether id may be used as the id part of a catalog key.
func ValidKeyID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	return strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0
}
