package ingest

import (
	"testing"

	"storefront/contract"
)

func TestRouteOf(t *testing.T) {
	for _, c := range []struct{ route, url, want string }{
		{"/webtoon/detail/{pid}", "/anything", "/webtoon/detail/{pid}"}, // the event's own route wins
		{"", "/webtoon/weekday/mon?x=1", "/webtoon/weekday/mon"},
		{"", "https://store.example/comic/detail/cm12?tab=R#top", "/comic/detail/{pid}"},
		{"", "/novel/detail/eb3", "/novel/detail/{pid}"},
		{"", "/viewer/?pid=wt1&no=3&isMobileApp=True", "/viewer/"},
		{"", "https://store.example", "/"},
		{"", "?q=1", "/"},
		{"", "/comic/detail/", "/comic/detail/"},
		{"", "", ""},
	} {
		e := contract.TrackedEvent{Route: c.route, URL: c.url}
		if got := RouteOf(&e); got != c.want {
			t.Errorf("RouteOf(%q, %q) = %q, want %q", c.route, c.url, got, c.want)
		}
	}
}
