package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/server"
)

type detailFields struct {
	ProdInfo struct {
		ContentType   string `json:"contentType"`
		ReleaseTiming string `json:"releaseTiming"`
		FreeType      string `json:"freeType"`
		Exclusivity   string `json:"exclusivity"`
		ViewKind      string `json:"viewKind"`
	} `json:"prodInfo"`
	SalesInfo struct {
		Buy    struct{ Type, Date string } `json:"buy"`
		Rental struct {
			Type, Date string
			Term       int `json:"term"`
		} `json:"rental"`
	} `json:"salesInfo"`
	AuthorZzims []struct {
		AuthorID   int64  `json:"authorId"`
		AuthorName string `json:"authorName"`
		ZzimID     int64  `json:"zzimId"`
	} `json:"authorZzims"`
	RecentViewVol *contract.RecentViewVol `json:"recentViewVol"`
	Related       []struct {
		Code  string `json:"code"`
		Title string `json:"title"`
	} `json:"related"`
}

// The detail answers the seed's fields the store lacked (issue 25): the
// enumerations by the seed's names, salesInfo's type and date, authorZzims,
// the related views TC0008 to TC0010, and recentViewVol, which in the cached,
// member-independent answer is the first volume.
func TestDetailHasTheSeedsFields(t *testing.T) {
	e := newEnv(t)
	deadline := t0.Add(3 * 24 * time.Hour)
	e.putProduct(product("cm1", contract.SectionComic, "하늘의 검", func(p *contract.Product) {
		p.IsMonopoly, p.Gift, p.JumpingPass = true, true, true
		p.DiscountRate, p.EventDeadline, p.RentDays = 20, deadline, 7
		p.Unit = "권"
		p.Authors = append(p.Authors, contract.Author{AuthorID: 2, AuthorName: "박그림", IsPainter: true})
		p.Volumes[0].IsFree = false // the first volume is paid: opened as a preview
		p.Related = map[string][]string{"TC0008": {"bl1"}, "TC0010": {"bl1"}}
	}))
	e.putProduct(product("bl1", contract.SectionComic, "룸메이트의 사정", func(p *contract.Product) { p.GenreID = "22" }))
	// Released this morning, and the next one tonight.
	e.putProduct(product("wt1", contract.SectionWebtoon, "오늘의 웹툰", func(p *contract.Product) {
		p.IsOriginal, p.WaitForFree, p.WaitRecycle = true, true, 1440
		p.Volumes[2].ReleaseAt = t0.Add(-time.Hour)
		p.Volumes = append(p.Volumes, contract.Volume{No: 4, Title: "4화", ReleaseAt: t0.Add(11 * time.Hour), BuyPrice: 300, Pages: 5, PreviewPages: 2, ContentBase: contract.ContentBase("wt1", 4)})
	}))
	e.putProduct(product("eb1", contract.SectionNovel, "오늘 밤 연재", func(p *contract.Product) {
		p.Volumes = append(p.Volumes, contract.Volume{No: 4, Title: "4화", ReleaseAt: t0.Add(11 * time.Hour), BuyPrice: 100, Pages: 5, ContentBase: contract.ContentBase("eb1", 4)})
	}))
	e.putProduct(product("ad1", contract.SectionComic, "성인 작품", func(p *contract.Product) { p.Age = 19 }))
	clock := &clock{t: t0}
	g := startEdge(t, e, func(c *server.Config) { c.Now = clock.Now })
	g.waitReady()

	var d detailFields
	g.getJSON("/home/api/v1/products/cm1", 200, &d)
	pi := d.ProdInfo
	if pi.ContentType != "COMIC" || pi.Exclusivity != "MONOPOLY" || pi.FreeType != "GIFT" || pi.ViewKind != "CONTENT" || pi.ReleaseTiming != "NONE" {
		t.Fatalf("cm1 enums: %+v", pi)
	}
	if d.SalesInfo.Buy.Type != "B" || d.SalesInfo.Rental.Type != "R" || d.SalesInfo.Rental.Term != 7 ||
		d.SalesInfo.Buy.Date != deadline.Format(time.DateOnly) || d.SalesInfo.Rental.Date != d.SalesInfo.Buy.Date {
		t.Fatalf("cm1 salesInfo: %+v", d.SalesInfo)
	}
	if len(d.AuthorZzims) != 2 || d.AuthorZzims[1].AuthorID != 2 || d.AuthorZzims[1].AuthorName != "박그림" || d.AuthorZzims[0].ZzimID != 0 {
		t.Fatalf("cm1 authorZzims: %+v", d.AuthorZzims)
	}
	want := contract.RecentViewVol{No: 1, IsPreView: true, NeedLogin: true, Title: "하늘의 검 1화"}
	if d.RecentViewVol == nil || *d.RecentViewVol != want {
		t.Fatalf("cm1 recentViewVol: %+v, want %+v", d.RecentViewVol, want)
	}
	titles := map[string]string{}
	for _, r := range d.Related {
		titles[r.Code] = r.Title
	}
	if titles["TC0008"] != "BL 보기" || titles["TC0010"] != "할리퀸 보기" {
		t.Fatalf("cm1 related: %+v", d.Related)
	}

	d = detailFields{}
	g.getJSON("/home/api/v1/products/wt1", 200, &d)
	if d.ProdInfo.ContentType != "WEBTOON" || d.ProdInfo.Exclusivity != "ORIGINAL" || d.ProdInfo.FreeType != "WAIT_FOR_FREE" || d.ProdInfo.ReleaseTiming != "IMMEDIATE" {
		t.Fatalf("wt1 enums: %+v", d.ProdInfo)
	}
	if d.SalesInfo.Buy.Date != "" || d.RecentViewVol == nil || *d.RecentViewVol != (contract.RecentViewVol{No: 1, Title: "오늘의 웹툰 1화"}) {
		t.Fatalf("wt1: a free first volume opens in full for anyone: %+v %+v", d.RecentViewVol, d.SalesInfo)
	}
	d = detailFields{}
	g.getJSON("/home/api/v1/products/eb1", 200, &d)
	if d.ProdInfo.ContentType != "NOVEL" || d.ProdInfo.FreeType != "NONE" || d.ProdInfo.Exclusivity != "NONE" || d.ProdInfo.ReleaseTiming != "TODAY" {
		t.Fatalf("eb1 enums: %+v", d.ProdInfo)
	}
	// The teen version blinds an adult work: no volume to open.
	d = detailFields{}
	g.getJSON("/home/api/v1/products/ad1", 200, &d)
	if d.ProdInfo.ViewKind != "BLIND" || d.RecentViewVol != nil || len(d.AuthorZzims) != 0 {
		t.Fatalf("ad1 in the teen version: %+v", d)
	}
	// At 23:00 KST tonight's volume opens: the novel is IMMEDIATE for the
	// release day that begins then (contract.ReleaseDayStart), past midnight,
	// until the next 23:00; then it is NONE again.
	clock.Set(t0.Add(11*time.Hour + time.Minute))
	eventually(t, "eb1 released", func() bool {
		_, b := g.get("/home/api/v1/products/eb1")
		var d detailFields
		return json.Unmarshal(b, &d) == nil && d.ProdInfo.ReleaseTiming == "IMMEDIATE"
	})
	clock.Set(t0.Add(12*time.Hour + time.Minute))
	eventually(t, "eb1 after midnight", func() bool {
		_, b := g.get("/home/api/v1/products/eb1")
		var d detailFields
		return json.Unmarshal(b, &d) == nil && d.ProdInfo.ReleaseTiming == "IMMEDIATE"
	})
	clock.Set(t0.Add(35*time.Hour + time.Minute))
	eventually(t, "eb1 a day later", func() bool {
		_, b := g.get("/home/api/v1/products/eb1")
		var d detailFields
		return json.Unmarshal(b, &d) == nil && d.ProdInfo.ReleaseTiming == "NONE"
	})
}
