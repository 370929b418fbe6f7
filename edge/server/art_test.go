package server_test

import (
	"strings"
	"testing"
	"time"

	"storefront/contract"
)

// TestBannersOfSlotsEventsAndPromos: every banner address a screen shows is
// drawn, the one whose document names it, and other ids are 404.
func TestBannersOfSlotsEventsAndPromos(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	e.put(contract.KeyBanner+"7", contract.Banner{ID: 7, Place: "home", Title: "슬롯 배너", ImageURL: "/img/banner/7.svg", LinkURL: "/webtoon",
		StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour)})
	e.put(contract.KeyEvent+"1001", contract.Event{EID: 1001, Kind: contract.EventBluerun, Title: "블루런 정주행", BannerURL: "/img/banner/1001.svg",
		PIDs: []string{}, StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour)})
	// an event not started yet (preview pages show it) still has its banner
	e.put(contract.KeyEvent+"1002", contract.Event{EID: 1002, Kind: contract.EventDoubleCoupon, Title: "더블쿠폰 예고", BannerURL: "/img/banner/1002.svg",
		PIDs: []string{}, StartAt: now.Add(24 * time.Hour), EndAt: now.Add(48 * time.Hour)})
	// an event whose banner lives elsewhere does not take over banner 7's address
	e.put(contract.KeyEvent+"7", contract.Event{EID: 7, Kind: contract.EventBluerun, Title: "남의 주소", BannerURL: "https://cdn.example/7.png",
		PIDs: []string{}, StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Hour)})
	g := startEdge(t, e)
	g.waitReady()
	for path, want := range map[string]string{
		"/img/banner/7.svg":            "슬롯 배너",
		"/img/banner/1001.svg":         "블루런 정주행",
		"/img/banner/1002.svg":         "더블쿠폰 예고",
		"/img/banner/join-bonus.svg":   "신규 가입 혜택",
		"/img/banner/first-charge.svg": "첫 충전 보너스",
	} {
		resp, b := g.get(path)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "image/svg+xml") || !strings.Contains(string(b), want) {
			t.Errorf("%s: %d %s %.200s", path, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
	}
	if _, b := g.get("/img/banner/1001.svg"); !strings.Contains(string(b), "블루런</text>") {
		t.Errorf("event banner lacks its kind label: %.300s", b)
	}
	for _, path := range []string{"/img/banner/9.svg", "/img/banner/nope.svg", "/img/banner/1003.svg"} {
		if resp, _ := g.get(path); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestAdultPagesOnlyForAdults: the teen version (no or a teen audience
// cookie, or a store app channel) reads no page of an adult work, not even
// the preview; an adult reads it. Covers stay public.
func TestAdultPagesOnlyForAdults(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("ad1", contract.SectionWebtoon, "성인 웹툰", func(p *contract.Product) { p.Age = 19 }))
	e.putProduct(product("w1", contract.SectionWebtoon, "웹툰"))
	g := startEdge(t, e)
	g.waitReady()
	exp := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		path    string
		headers []string
		want    int
	}{
		{"/content/ad1/1/1.svg", nil, 404},
		{"/content/ad1/1/1.svg", []string{audCookie(1, exp)}, 404},
		{"/content/ad1/1/1.svg", []string{audCookie(2, exp), "X-Channel: AA"}, 404},
		{"/content/ad1/1/1.svg", []string{audCookie(2, exp)}, 200},
		// the adult's cached page is not handed to the next teen
		{"/content/ad1/1/1.svg", nil, 404},
		{"/content/w1/1/1.svg", nil, 200},
		{"/img/cover/ad1.svg", nil, 200},
	} {
		if resp, b := g.get(tc.path, tc.headers...); resp.StatusCode != tc.want {
			t.Errorf("%s %v: %d want %d %.100s", tc.path, tc.headers, resp.StatusCode, tc.want, b)
		}
	}
}
