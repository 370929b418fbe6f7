// Package render turns catalog views into the JSON answers of the public read
// API. Every function reads only through a *catalog.View, so each answer
// records exactly the tags and clock instants it depends on.
//
// Functions return the HTTP status and a value to marshal; bad input is the
// caller's business (package server validates before rendering).
package render

import (
	"time"

	"storefront/contract"
	"storefront/edge/catalog"
)

// Header is the seed's answer header.
type Header = contract.Header

// OK is the header of every successful answer.
var OK = Header{Code: 200, Message: ""}

// Item is the seed's product list item (§3).
type Item struct {
	PID               string            `json:"pid"`
	Section           string            `json:"section"`
	Thumbnail         string            `json:"thumbnail"`
	Title             string            `json:"title"`
	Authors           []contract.Author `json:"authors"`
	IsAdult           bool              `json:"isAdult"`
	WaitForFree       bool              `json:"waitForFree"`
	Gift              bool              `json:"gift"`
	JumpingPass       bool              `json:"jumpingPass"`
	IsSpecialPriceSet bool              `json:"isSpecialPriceSet"`
	LastUpdate        time.Time         `json:"lastUpdate"`
	Genre             string            `json:"genre"` // wt, cm, nv
	GenreID           string            `json:"genreId"`
	SubGenre          string            `json:"subGenre,omitempty"`
	Category1         string            `json:"category1,omitempty"`
	Summary           string            `json:"summary"`
	OriginalLabel     string            `json:"originalLabel,omitempty"`
	EndFlag           string            `json:"endFlag"` // Y or N
	FreeVolCnt        int               `json:"freeVolCnt"`
	Cashback          int               `json:"cashback"`
	Discount          int               `json:"discount"`
	EventDeadline     *time.Time        `json:"eventDeadline,omitempty"`
	DeadlineToday     bool              `json:"deadlineToday"`
	DeadlineSoon      bool              `json:"deadlineSoon"`
	Badge             string            `json:"badge"` // NONE, UP, NEW
	ViewCnt           int64             `json:"viewCnt"`
	Weekdays          []int             `json:"weekdays,omitempty"`
}

// NewItem renders p as a list item at the view's instant.
func NewItem(v *catalog.View, p *catalog.Prod) Item {
	v.Depend(catalog.TagCounters) // ViewCnt
	it := Item{
		PID: p.PID, Section: p.Section, Thumbnail: p.ThumbURL, Title: p.Title, Authors: p.Authors,
		IsAdult: p.IsAdult(), WaitForFree: p.WaitForFree, Gift: p.Gift, JumpingPass: p.JumpingPass,
		IsSpecialPriceSet: p.IsSpecialPriceSet, LastUpdate: v.LastUpdate(p),
		Genre: contract.GenreCodeOf(p.Section), GenreID: p.GenreID, SubGenre: p.SubGenre, Category1: p.Category1,
		Summary: p.Summary, OriginalLabel: p.OriginalLabel, EndFlag: yn(p.FlagEnd),
		FreeVolCnt: v.FreeVolumes(p), Cashback: p.CashbackRate, Discount: p.DiscountRate,
		Badge: "NONE", ViewCnt: p.ViewCnt(), Weekdays: p.Weekdays,
	}
	if it.Authors == nil {
		it.Authors = []contract.Author{}
	}
	switch {
	case v.UpToday(p):
		it.Badge = "UP"
	case v.IsNew(p):
		it.Badge = "NEW"
	}
	if !p.EventDeadline.IsZero() && p.EventDeadline.After(v.Now) {
		d := p.EventDeadline
		it.EventDeadline = &d
		left := d.Sub(v.Now)
		// The badges flip by the clock.
		v.Until(d.Add(-72 * time.Hour))
		v.Until(d.Add(-24 * time.Hour))
		v.Until(d)
		it.DeadlineToday = left <= 24*time.Hour
		it.DeadlineSoon = !it.DeadlineToday && left <= 72*time.Hour
	}
	if it.Badge == "NEW" {
		v.Until(p.RegisteredAt.Add(7 * 24 * time.Hour))
	}
	return it
}

// Items renders a slice of products.
func Items(v *catalog.View, ps []*catalog.Prod) []Item {
	out := make([]Item, 0, len(ps))
	for _, p := range ps {
		out = append(out, NewItem(v, p))
	}
	return out
}

func yn(b bool) string {
	if b {
		return "Y"
	}
	return "N"
}

// Paging is the seed's paging block.
type Paging = contract.Paging

// Page cuts page (from 1) of size out of n items and returns the bounds.
func Page(n, page, size int) (lo, hi int, pg Paging) {
	pg = contract.NewPaging(page, size, n)
	lo = (page - 1) * size
	if lo > n {
		lo = n
	}
	hi = min(lo+size, n)
	return lo, hi, pg
}
