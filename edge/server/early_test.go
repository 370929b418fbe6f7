package server_test

import (
	"fmt"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/server"
)

// earlyWork is a paged webtoon of 150 volumes out a day apart until two
// days before t0 and three to come at t0+3d, +4d and +5d (none within the
// pin window, so nothing fetches its pages in the background), its first
// two to come sold early at 500.
func earlyWork(pid string, ver string, mods ...func(*contract.Product)) contract.Product {
	p := product(pid, contract.SectionWebtoon, "미리보기 "+pid, mods...)
	p.EarlyCount, p.EarlyPrice = 2, 500
	p.Volumes = nil
	for i := 1; i <= 153; i++ {
		at := t0.Add(-time.Duration(152-i) * 24 * time.Hour)
		if i > 150 {
			at = t0.Add(time.Duration(i-148) * 24 * time.Hour)
		}
		p.Volumes = append(p.Volumes, contract.Volume{No: i, Title: fmt.Sprintf("제%d화", i), ReleaseAt: at,
			BuyPrice: 200, BuyPriceOrg: 200, RentPrice: 100, RentPriceOrg: 100, Pages: 4, PreviewPages: 2,
			ContentBase: contract.ContentBase(pid, i), ContentVer: ver})
	}
	return p
}

type earlyAnswer struct {
	VolList   []struct{ No int } `json:"volList"`
	EarlyList []struct {
		No        int       `json:"no"`
		Title     string    `json:"title"`
		ReleaseAt time.Time `json:"releaseAt"`
		IsEarly   bool      `json:"isEarly"`
		BuyInfo   struct {
			Price int `json:"price"`
		} `json:"buyInfo"`
		RentalInfo struct {
			Price int `json:"price"`
		} `json:"rentalInfo"`
	} `json:"earlyList"`
}

// The volume list shows a work's early volumes (미리보기) with their early
// price from the head alone: no volume page is fetched for them, before or
// after a release moves the window; the audience rules are those of any
// volume list; the content of an early volume is for token holders only.
func TestEarlyVolumesFromTheHead(t *testing.T) {
	o := &memObjects{}
	ver := contentVersion(o, "00ee", 4)
	clk := &clock{t: t0}
	e := newEnv(t)
	e.putPaged(earlyWork("ew", ver), t0)
	e.putPaged(earlyWork("xe", ver, func(p *contract.Product) { p.Age = 19 }), t0)
	g := startEdge(t, e, withObjects(o), func(c *server.Config) { c.Now = clk.Now })
	g.waitReady()
	before := fetches(t, g)

	want := func(at string, a earlyAnswer, nos ...int) {
		t.Helper()
		if len(a.EarlyList) != len(nos) {
			t.Fatalf("%s: earlyList %+v, want %v", at, a.EarlyList, nos)
		}
		for i, no := range nos {
			x := a.EarlyList[i]
			if x.No != no || !x.IsEarly || x.BuyInfo.Price != 500 || x.RentalInfo.Price != 0 || x.Title != fmt.Sprintf("제%d화", no) {
				t.Fatalf("%s: earlyList[%d] = %+v, want volume %d at 500, never rented", at, i, x, no)
			}
		}
	}
	// A page past the end reads no volume page: all it shows comes from the head.
	const list = "/home/api/v1/products/ew/volumes?page=99&size=10"
	var a earlyAnswer
	g.getJSON(list, 200, &a)
	want("t0", a, 151, 152)
	if len(a.VolList) != 0 {
		t.Fatalf("page 99 lists %d volumes", len(a.VolList))
	}
	// Volume 151 comes out: it leaves the early list, 153 joins it.
	clk.Set(t0.Add(3*24*time.Hour + time.Minute))
	a = earlyAnswer{}
	g.getJSON(list, 200, &a)
	want("after 151's release", a, 152, 153)
	if n := fetches(t, g) - before; n != 0 {
		t.Fatalf("%v volume page fetches for the early lists, want 0", n)
	}
	clk.Set(t0)

	// Audience: the teen version and visitors get the adult work's list
	// refused as before; an adult sees its early volumes.
	exp := t0.Add(time.Hour)
	const adultList = "/home/api/v1/products/xe/volumes?page=99&size=10"
	for _, h := range [][]string{nil, {audCookie(1, exp)}, {audCookie(3, exp)}, {audCookie(2, exp), "X-Channel: IA"}} {
		resp, b := g.get(adultList, h...)
		if resp.StatusCode != 403 {
			t.Fatalf("teen version %v: %d %s", h, resp.StatusCode, b)
		}
	}
	a = earlyAnswer{}
	g.getJSON(adultList, 200, &a, audCookie(2, exp), "X-Channel: AW")
	want("adult", a, 151, 152)
	var d earlyAnswer
	g.getJSON("/home/api/v1/products/xe", 200, &d)
	if len(d.EarlyList) != 0 {
		t.Fatalf("teen version's detail of an adult work lists early volumes: %+v", d.EarlyList)
	}

	// Its manifest, for the viewer of a buyer: no preview pages before the
	// release; a volume to come that is not sold early has none.
	var m struct {
		PreviewPages int        `json:"previewPages"`
		Pages        []struct{} `json:"pages"`
	}
	g.getJSON("/home/api/v1/products/ew/volumes/151/media", 200, &m)
	if m.PreviewPages != 0 || len(m.Pages) != 4 {
		t.Fatalf("early manifest: %+v", m)
	}
	g.getJSON("/home/api/v1/products/ew/volumes/153/media", 404, nil)

	// Content: an early volume's every page needs its token (no public
	// preview before the release); a volume to come that is not sold early
	// does not exist.
	tok := contract.SignContent([]byte("dev-content-secret"), "ew", 151, t0.Add(time.Hour))
	base := contract.VolumeMediaBase("ew", 151, ver)
	for _, c := range []struct {
		path string
		want int
	}{
		{base + "/1", 403},
		{base + "/1?t=" + tok, 200},
		{base + "/3?t=" + tok, 200},
		{contract.VolumeMediaBase("ew", 153, ver) + "/1", 404},
		{contract.VolumeMediaBase("xe", 151, ver) + "/1?t=" + tok, 404}, // teen version
	} {
		if resp, b := g.get(c.path); resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %.200s", c.path, resp.StatusCode, c.want, b)
		}
	}
}
