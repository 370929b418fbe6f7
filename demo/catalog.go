// Package demo generates the demo catalog: a deterministic, realistic-looking
// store (Korean titles and authors, the three sections, the seed's genres, adult,
// finished and ongoing works, weekday schedules, prices, free volumes, coupon
// flags, events, awards, FAQ and notices) from a seed number.
//
// The writer imports a Catalog into PostgreSQL (writer/catalogimport); from there
// the outbox publishes it to the edges like any other admin change.
package demo

import "storefront/contract"

// Catalog is everything the generator makes. Documents use the contract's
// read-model types so that what is imported is exactly what the edges will serve.
type Catalog struct {
	Seed        int64                `json:"seed"`
	Products    []contract.Product   `json:"products"`
	Events      []contract.Event     `json:"events"`
	Awards      []contract.Award     `json:"awards"`
	FAQs        []contract.FAQ       `json:"faqs"`
	Notices     []contract.Notice    `json:"notices"`
	Banners     []contract.Banner    `json:"banners"`
	QuickLinks  contract.QuickLinks  `json:"quickLinks"`
	Keywords    []contract.Keyword   `json:"keywords"`
	JumpingPass contract.JumpingPass `json:"jumpingPass"`
}
