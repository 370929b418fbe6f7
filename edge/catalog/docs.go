package catalog

import (
	"slices"
	"strings"

	"storefront/contract"
)

// Banners returns the banners of place live at Now, in order.
func (v *View) Banners(place string) []*contract.Banner {
	v.Depend(TagBanners)
	var out []*contract.Banner
	for _, b := range v.s.banners {
		if b.Place != place {
			continue
		}
		v.Until(b.StartAt)
		v.Until(b.EndAt)
		if b.StartAt.After(v.Now) || !b.EndAt.IsZero() && !b.EndAt.After(v.Now) {
			continue
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *contract.Banner) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return compareInt(a.ID, b.ID)
	})
	return out
}

// Events returns the events of kind ("" = every kind) that have started and not
// ended at Now, newest first; with previews, events not started yet too.
func (v *View) Events(kind string, previews bool) []*contract.Event {
	v.Depend(TagEvents)
	var out []*contract.Event
	for _, e := range v.s.events {
		if kind != "" && e.Kind != kind {
			continue
		}
		v.Until(e.StartAt)
		v.Until(e.EndAt)
		if !previews && e.StartAt.After(v.Now) || !e.EndAt.IsZero() && !e.EndAt.After(v.Now) {
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *contract.Event) int {
		if c := b.StartAt.Compare(a.StartAt); c != 0 {
			return c
		}
		return compareInt(b.EID, a.EID)
	})
	return out
}

// Event returns one event by id (started or not), or nil.
func (v *View) Event(eid int64) *contract.Event {
	v.Depend(TagEvents)
	e := v.s.events[eid]
	if e != nil {
		v.Until(e.StartAt)
		v.Until(e.EndAt)
	}
	return e
}

// Started reports whether e has started by Now.
func (v *View) Started(e *contract.Event) bool { return !e.StartAt.After(v.Now) }

// Awards returns every award, newest first.
func (v *View) Awards() []*contract.Award {
	v.Depend(TagAwards)
	out := make([]*contract.Award, 0, len(v.s.awards))
	for _, a := range v.s.awards {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b *contract.Award) int { return compareInt(b.EID, a.EID) })
	return out
}

// FAQs returns the FAQ entries of cid ("" = all) whose question or answer
// contains keyword, in order.
func (v *View) FAQs(cid, keyword string) []*contract.FAQ {
	v.Depend(TagFAQ)
	var out []*contract.FAQ
	for _, f := range v.s.faqs {
		if cid != "" && f.CID != cid {
			continue
		}
		if keyword != "" && !strings.Contains(f.Question, keyword) && !strings.Contains(f.Answer, keyword) {
			continue
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *contract.FAQ) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return compareInt(a.ID, b.ID)
	})
	return out
}

// Notices returns notices of kind posted by Now, newest first.
func (v *View) Notices(kind string) []*contract.Notice {
	v.Depend(TagNotices)
	var out []*contract.Notice
	for _, n := range v.s.notices {
		if n.Kind != kind {
			continue
		}
		v.Until(n.PostedAt)
		if n.PostedAt.After(v.Now) {
			continue
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *contract.Notice) int {
		if c := b.PostedAt.Compare(a.PostedAt); c != 0 {
			return c
		}
		return compareInt(b.ID, a.ID)
	})
	return out
}

// Notice returns one notice, or nil.
func (v *View) Notice(id int64) *contract.Notice {
	v.Depend(TagNotices)
	n := v.s.notices[id]
	if n == nil || n.PostedAt.After(v.Now) {
		return nil
	}
	return n
}

// Keywords returns the curated keywords in order.
func (v *View) Keywords() []*contract.Keyword {
	v.Depend(TagKeywords)
	out := make([]*contract.Keyword, 0, len(v.s.keywords))
	for _, k := range v.s.keywords {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b *contract.Keyword) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return compareInt(a.ID, b.ID)
	})
	return out
}

// Keyword returns a keyword by id, or nil.
func (v *View) Keyword(id int64) *contract.Keyword {
	v.Depend(TagKeywords)
	return v.s.keywords[id]
}

// Reviews returns p's review list document (nil when none).
func (v *View) Reviews(pid string) *contract.ReviewList {
	v.Depend(TagReviews(pid))
	if r := v.s.reviews[pid]; r != nil {
		return r.get()
	}
	return nil
}

// QuickLinks returns the quick links document (nil when none).
func (v *View) QuickLinks() *contract.QuickLinks {
	v.Depend(TagQuickLinks)
	return v.s.quickLinks
}

// JumpingPass returns the jumping pass document (nil when none).
func (v *View) JumpingPass() *contract.JumpingPass {
	v.Depend(TagJumping)
	return v.s.jumping
}

// SiteConfig returns the site configuration (nil when none).
func (v *View) SiteConfig() *contract.SiteConfig {
	v.Depend(TagSite)
	return v.s.site
}

// AuthorWorks returns the other visible works of p's authors, most viewed first.
func (v *View) AuthorWorks(p *Prod, limit int) []*Prod {
	seen := map[string]bool{p.PID: true}
	var out []*Prod
	for _, a := range p.Authors {
		v.Depend(TagAuthor(a.AuthorID))
	}
	for _, a := range p.Authors {
		for _, q := range v.s.authors[a.AuthorID] {
			if seen[q.PID] || !v.Visible(q) {
				continue
			}
			seen[q.PID] = true
			out = append(out, q)
		}
	}
	v.SortProds(out, SortPopular)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// indexAuthors moves a work from old's authors to nw's (either may be nil),
// so an author's works are found without a walk of every work. Caller holds
// the write lock.
func (s *Store) indexAuthors(old, nw *Prod) {
	if old != nil {
		for _, a := range old.Authors {
			if m := s.authors[a.AuthorID]; m != nil && m[old.PID] == old {
				delete(m, old.PID)
				if len(m) == 0 {
					delete(s.authors, a.AuthorID)
				}
			}
		}
	}
	if nw != nil {
		for _, a := range nw.Authors {
			m := s.authors[a.AuthorID]
			if m == nil {
				m = make(map[string]*Prod)
				s.authors[a.AuthorID] = m
			}
			m[nw.PID] = nw
		}
	}
}

// Banner returns one banner by id (live or not), or nil.
func (v *View) Banner(id int64) *contract.Banner {
	v.Depend(TagBanners)
	return v.s.banners[id]
}
