package server_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"storefront/contract"
)

// TestAdultOnlyPicturesByAudience (issue 30): a picture only adult works show
// (cover, wide cover) is refused to every audience that may not see adult
// works, in every width and format and under If-None-Match, and served to an
// adult privately, varying by the cookie and the channel; a picture a
// non-adult work shares stays public and immutable; a work's rating change
// moves its pictures.
func TestAdultOnlyPicturesByAudience(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	cover, wide, shared := mediaImage(o, "adult cover", 1500), mediaImage(o, "adult wide", 600), mediaImage(o, "shared cover", 1500)
	for _, img := range []contract.MediaImage{cover, wide, shared} {
		e.put(contract.MediaImageKey(img.ID), img)
	}
	e.putProduct(product("ad1", contract.SectionWebtoon, "성인 웹툰", func(p *contract.Product) {
		p.Age = 19
		p.ThumbURL, p.ThumbWideURL = contract.MediaURL(cover.ID), contract.MediaURL(wide.ID)
	}))
	e.putProduct(product("ad2", contract.SectionWebtoon, "성인 웹툰 2", func(p *contract.Product) {
		p.Age = 19
		p.ThumbURL = contract.MediaURL(shared.ID)
	}))
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", func(p *contract.Product) { p.ThumbURL = contract.MediaURL(shared.ID) }))
	g := startEdge(t, e, withObjects(o))
	g.waitReady()
	exp := time.Now().Add(time.Hour)
	refused := []struct {
		who string
		hs  []string
	}{
		{"visitor", nil},
		{"member never verified", []string{audCookie(0, exp)}},
		{"minor", []string{audCookie(1, exp)}},
		{"adult, 19 toggle off", []string{audCookie(3, exp)}},
		{"adult in the Google Play app", []string{audCookie(2, exp), "X-Channel: AA"}},
		{"adult in the App Store app", []string{audCookie(2, exp), "X-Channel: IA"}},
		{"expired adult token", []string{audCookie(2, time.Now().Add(-time.Minute))}},
		{"forged adult token", []string{"Cookie: " + contract.AudienceCookie + "=" + contract.SignAudience([]byte("other"), contract.Audience{AdultLevel: 2, Expires: exp})}},
	}
	urls := func(img contract.MediaImage) []string {
		u := contract.MediaURL(img.ID)
		us := []string{u, u + "?w=360", u + "?w=720"}
		for _, v := range img.Variants {
			us = append(us, fmt.Sprintf("%s/%d.%s", u, v.Width, contract.MediaExt(v.Format)))
		}
		return us
	}
	for _, img := range []contract.MediaImage{cover, wide} {
		for _, u := range urls(img) {
			for _, a := range refused {
				for _, accept := range []string{"Accept: image/avif,image/webp,*/*", "Accept: image/jpeg"} {
					resp, b := g.get(u, append(a.hs, accept, `If-None-Match: "`+img.Variants[0].Key+`", *`)...)
					if resp.StatusCode != 404 {
						t.Errorf("%s for %s: %d, want 404", u, a.who, resp.StatusCode)
						continue
					}
					envelopeMsg(t, u+" for "+a.who, b, 404)
					if cc, vary := resp.Header.Get("Cache-Control"), resp.Header.Get("Vary"); cc != "no-store" || !strings.Contains(vary, "Cookie") || !strings.Contains(vary, "X-Channel") {
						t.Errorf("%s refused to %s: Cache-Control %q, Vary %q", u, a.who, cc, vary)
					}
				}
			}
			resp, b := g.get(u, audCookie(2, exp), "Accept: image/webp")
			if resp.StatusCode != 200 || len(b) == 0 {
				t.Errorf("%s for an adult: %d", u, resp.StatusCode)
				continue
			}
			cc, vary := resp.Header.Get("Cache-Control"), resp.Header.Get("Vary")
			if !strings.HasPrefix(cc, "private") || strings.Contains(cc, "public") || strings.Contains(cc, "immutable") ||
				!strings.Contains(vary, "Cookie") || !strings.Contains(vary, "X-Channel") {
				t.Errorf("%s for an adult: Cache-Control %q, Vary %q: a shared cache could hand it on", u, cc, vary)
			}
			// The browser's revalidation is checked against the audience first.
			if resp, _ := g.get(u, audCookie(2, exp), "Accept: image/webp", "If-None-Match: "+resp.Header.Get("ETag")); resp.StatusCode != 304 {
				t.Errorf("%s revalidated by an adult: %d, want 304", u, resp.StatusCode)
			}
		}
	}
	// Shared with a non-adult work: public and immutable for everyone.
	for _, u := range urls(shared) {
		resp, _ := g.get(u)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("shared %s for a visitor: %d %q", u, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	status := func(u string, hs ...string) int { resp, _ := g.get(u, hs...); return resp.StatusCode }
	// The non-adult work drops the shared cover: it is an adult's alone now.
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰", func(p *contract.Product) { p.Version = 2 }))
	eventually(t, "a cover no longer shared", func() bool { return status(contract.MediaURL(shared.ID)) == 404 })
	// The adult work is re-rated 15: its pictures are public.
	e.putProduct(product("ad1", contract.SectionWebtoon, "웹툰", func(p *contract.Product) {
		p.Age, p.Version = 15, 2
		p.ThumbURL, p.ThumbWideURL = contract.MediaURL(cover.ID), contract.MediaURL(wide.ID)
	}))
	eventually(t, "a re-rated work's cover public", func() bool { return status(contract.MediaURL(cover.ID)) == 200 })
	if st := status(contract.MediaURL(wide.ID)); st != 200 {
		t.Errorf("re-rated work's wide cover: %d", st)
	}
}
