package catalog

import (
	"strings"

	"storefront/contract"
)

// Which pictures are adults only (issue 30). A picture under /media/ is
// named by the documents that show it: a work's cover, wide cover and
// trailers, a banner, an event, a quick link. One that only adult works
// show must reach only an audience allowed to see them; one that any other
// document shows (a non-adult work sharing the cover, a banner everyone
// sees) is public. A picture no document names stays public: nothing says
// it is an adult's.

// imageUse counts the documents naming a picture, by whether they are
// adult works.
type imageUse struct{ adult, public int32 }

// AdultOnlyImage reports whether the picture id (a path's bytes) is shown
// only by adult works. It takes the read lock and allocates nothing: it is
// on every cover request.
func (s *Store) AdultOnlyImage(id []byte) bool {
	s.mu.RLock()
	u := s.imageUse[string(id)]
	s.mu.RUnlock()
	return u.adult > 0 && u.public == 0
}

// countImages adds delta (+1 or -1) to the use of every picture doc names.
// Caller holds s.mu.
func (s *Store) countImages(doc any, delta int32) {
	switch d := doc.(type) {
	case *Prod:
		if d == nil {
			return
		}
		adult := d.IsAdult()
		s.countImage(d.ThumbURL, adult, delta)
		s.countImage(d.ThumbWideURL, adult, delta)
		for _, t := range d.Trailers {
			s.countImage(t.ImageURL, adult, delta)
		}
	case *contract.Banner:
		if d != nil {
			s.countImage(d.ImageURL, false, delta)
		}
	case *contract.Event:
		if d != nil {
			s.countImage(d.BannerURL, false, delta)
		}
	case *contract.QuickLinks:
		if d != nil {
			for _, l := range d.Links {
				s.countImage(l.IconURL, false, delta)
			}
		}
	}
}

func (s *Store) countImage(url string, adult bool, delta int32) {
	id := MediaID(url)
	if id == "" {
		return
	}
	u := s.imageUse[id]
	if adult {
		u.adult += delta
	} else {
		u.public += delta
	}
	if u.adult <= 0 && u.public <= 0 {
		delete(s.imageUse, id)
		return
	}
	s.imageUse[id] = u
}

// MediaID is the picture id of a /media/ URL ("/media/<id>", with a variant
// or a query), or "" for any other address (the SPA's placeholders, an
// outside picture).
func MediaID(url string) string {
	rest, ok := strings.CutPrefix(url, contract.MediaPrefix)
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// replaceImages moves the picture counts from old (a typed pointer, maybe
// nil) to doc, unless the update deletes. Caller holds s.mu.
func (s *Store) replaceImages(old, doc any, del bool) {
	s.countImages(old, -1)
	if !del {
		s.countImages(doc, 1)
	}
}
