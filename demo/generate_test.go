package demo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/demo"
)

// anchor is a fixed Now: 17:00 KST, so today's 23:00 slot is still ahead.
var anchor = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

var kst = time.FixedZone("KST", 9*3600)

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	opt := demo.Options{Seed: 42, Works: 600, Now: anchor}
	a := mustJSON(t, demo.Generate(opt))
	b := mustJSON(t, demo.Generate(opt))
	if !bytes.Equal(a, b) {
		t.Fatal("same options gave different catalogs")
	}
	// Now's location must not matter, only the instant.
	opt.Now = anchor.In(kst)
	if c := mustJSON(t, demo.Generate(opt)); !bytes.Equal(a, c) {
		t.Fatal("the same instant in another zone gave a different catalog")
	}
	opt.Now = anchor
	opt.Seed = 43
	if d := mustJSON(t, demo.Generate(opt)); bytes.Equal(a, d) {
		t.Fatal("another seed gave the same catalog")
	}
}

func TestProgressReachesTotal(t *testing.T) {
	t.Parallel()
	var calls [][2]int
	demo.Generate(demo.Options{Seed: 1, Works: 2000, Now: anchor, Progress: func(done, total int) {
		calls = append(calls, [2]int{done, total})
	}})
	if len(calls) < 2 {
		t.Fatalf("progress called %d times", len(calls))
	}
	for k, c := range calls {
		if c[1] != 2000 || c[0] < 0 || c[0] > c[1] || k > 0 && c[0] < calls[k-1][0] {
			t.Fatalf("bad progress call %d: %v", k, c)
		}
	}
	if last := calls[len(calls)-1]; last[0] != last[1] {
		t.Fatalf("last progress %v, want done == total", last)
	}
}

// counts tallies what the catalog checks below expect to find.
type counts struct {
	products, volumes, adult, ended, ongoing, future, free          int
	wait, gift, jump, original, monopoly, short, set, pkg, discount int
	cashback, trailers, notices, withEvents, weekdays, subGenre     int
	sections, tabs                                                  map[string]int
	initials, views                                                 map[string]int
}

// checkCatalog checks every product and the rest of the catalog against the
// contract and returns the tallies.
func checkCatalog(t *testing.T, cat *demo.Catalog, now time.Time) counts {
	t.Helper()
	c := counts{sections: map[string]int{}, tabs: map[string]int{}, initials: map[string]int{}, views: map[string]int{}}
	pids := make(map[string]*contract.Product, len(cat.Products))
	for i := range cat.Products {
		p := &cat.Products[i]
		if !contract.ValidKeyID(p.PID) {
			t.Fatalf("invalid pid %q", p.PID)
		}
		if pids[p.PID] != nil {
			t.Fatalf("duplicate pid %s", p.PID)
		}
		pids[p.PID] = p
	}
	genres := map[string]bool{}
	for _, g := range contract.Genres {
		genres[g.ID] = true
	}
	subs := map[string]bool{}
	for _, s := range demo.NovelSubGenres {
		subs[s.Key] = true
	}
	errorf := func(p *contract.Product, f string, a ...any) {
		t.Helper()
		t.Fatalf("%s (%s): %s", p.PID, p.Title, fmt.Sprintf(f, a...))
	}
	for i := range cat.Products {
		p := &cat.Products[i]
		c.products++
		c.sections[p.Section]++
		c.tabs[p.Category1]++
		if r := []rune(demo.Choseong(p.Title)); len(r) >= 2 {
			c.initials[string(r[:2])]++
		}
		if contract.GenreCodeOf(p.Section) == "" {
			errorf(p, "section %q", p.Section)
		}
		if !strings.HasPrefix(p.PID, strings.ToLower(map[string]string{"WT": "wt", "CM": "cm", "EB": "eb"}[p.Section])) {
			errorf(p, "pid does not show section %s", p.Section)
		}
		if !genres[p.GenreID] {
			errorf(p, "genre %q not in contract.Genres", p.GenreID)
		}
		if !slices.Contains([]string{"series", "romance", "fanmu", "bl", "others"}, p.Category1) {
			errorf(p, "category1 %q", p.Category1)
		}
		if p.SubGenre != "" {
			c.subGenre++
			if !subs[p.SubGenre] || p.Section != contract.SectionNovel {
				errorf(p, "sub-genre %q", p.SubGenre)
			}
		}
		if p.Title == "" || p.Summary == "" || p.Provider == "" || strings.Contains(p.Summary, "%") {
			errorf(p, "title/summary/provider missing or broken: %q", p.Summary)
		}
		if p.ThumbURL != "/img/cover/"+p.PID+".svg" || p.ThumbWideURL != "/img/wide/"+p.PID+".svg" {
			errorf(p, "thumb urls %s %s", p.ThumbURL, p.ThumbWideURL)
		}
		if len(p.Authors) == 0 {
			errorf(p, "no authors")
		}
		for k, a := range p.Authors {
			for _, b := range p.Authors[:k] {
				if a.AuthorID == b.AuthorID {
					errorf(p, "author %d credited twice", a.AuthorID)
				}
			}
			if a.AuthorID <= 0 || a.AuthorName == "" || !(a.IsWriter || a.IsPainter || a.IsOriginalWriter) {
				errorf(p, "bad author %+v", a)
			}
		}
		switch p.Age {
		case 19:
			c.adult++
		case 0, 12, 15:
		default:
			errorf(p, "age %d", p.Age)
		}
		if p.FlagEnd {
			c.ended++
			if len(p.Weekdays) > 0 {
				errorf(p, "finished work with weekdays")
			}
		} else {
			c.ongoing++
		}
		if len(p.Weekdays) > 0 {
			c.weekdays++
		}
		if p.Section == contract.SectionWebtoon && !p.FlagEnd && len(p.Weekdays) == 0 {
			errorf(p, "ongoing webtoon without weekdays")
		}
		for _, d := range p.Weekdays {
			if d < 0 || d > 6 {
				errorf(p, "weekday %d", d)
			}
		}
		if p.WaitForFree {
			c.wait++
			if p.WaitRecycle <= 0 || p.WaitExcludeNewest < 0 || p.WaitExcludeNewest >= len(p.Volumes) {
				errorf(p, "wait-for-free recycle %d exclude %d of %d", p.WaitRecycle, p.WaitExcludeNewest, len(p.Volumes))
			}
		}
		if p.Gift {
			c.gift++
		}
		if p.JumpingPass {
			c.jump++
		}
		if p.IsOriginal {
			c.original++
		}
		if p.IsMonopoly {
			c.monopoly++
		}
		if p.IsOriginal && p.IsMonopoly {
			errorf(p, "both original and monopoly")
		}
		if p.IsShortStory {
			c.short++
		}
		if p.DiscountRate > 0 {
			c.discount++
		}
		if p.CashbackRate > 0 {
			c.cashback++
		}
		if len(p.Trailers) > 0 {
			c.trailers++
		}
		if len(p.Notices) > 0 {
			c.notices++
		}
		if len(p.EventIDs) > 0 {
			c.withEvents++
			if p.EventDeadline.IsZero() {
				errorf(p, "in events without deadline")
			}
		}
		if p.IsSpecialPriceSet || p.IsPackage {
			if p.IsSpecialPriceSet {
				c.set++
			} else {
				c.pkg++
			}
			main := pids[p.SpecialPriceSetMainSubdir]
			if main == nil || main == p || p.SpecialPriceSetProdCnt != len(p.Volumes) || len(main.Volumes) != len(p.Volumes) {
				errorf(p, "set of %q with count %d", p.SpecialPriceSetMainSubdir, p.SpecialPriceSetProdCnt)
			}
		}
		for code, list := range p.Related {
			var n int
			if _, err := fmt.Sscanf(code, "TC%04d", &n); err != nil || n < 1 || n > 122 || len(code) != 6 {
				errorf(p, "related code %q", code)
			}
			if len(list) == 0 {
				errorf(p, "empty related list %s", code)
			}
			for _, r := range list {
				if pids[r] == nil || r == p.PID {
					errorf(p, "related %s lists %q", code, r)
				}
			}
		}
		checkVolumes(t, p, now, &c)
		checkCoherence(t, p)
		checkViews(t, p, pids)
		for _, code := range []string{"TC0008", "TC0009", "TC0010"} {
			if len(p.Related[code]) > 0 {
				c.views[code]++
			}
		}
		var main *contract.Product
		if p.IsSpecialPriceSet || p.IsPackage {
			main = pids[p.SpecialPriceSetMainSubdir]
		}
		checkPlausible(t, p, main, now)
	}
	checkExtras(t, cat, pids, now)
	return c
}

func checkVolumes(t *testing.T, p *contract.Product, now time.Time, c *counts) {
	t.Helper()
	if len(p.Volumes) == 0 {
		t.Fatalf("%s: no volumes", p.PID)
	}
	var prev time.Time
	paidSeen := false
	for k, v := range p.Volumes {
		c.volumes++
		fail := func(f string, a ...any) { t.Helper(); t.Fatalf("%s vol %d: %s", p.PID, v.No, fmt.Sprintf(f, a...)) }
		if v.No != k+1 || v.Title == "" {
			fail("no %d title %q", v.No, v.Title)
		}
		if v.ContentBase != contract.ContentBase(p.PID, v.No) {
			fail("content base %q", v.ContentBase)
		}
		if v.Pages != demo.PoolPages(p.Section) || v.PreviewPages < 1 || v.PreviewPages > v.Pages {
			fail("pages %d preview %d", v.Pages, v.PreviewPages)
		}
		if v.ReleaseAt.Before(prev) {
			fail("released before the previous volume")
		}
		prev = v.ReleaseAt
		if v.ReleaseAt.After(now) {
			c.future++
			if v.ReleaseAt.Sub(now) > 48*time.Hour || v.ReleaseAt.In(kst).Hour() != 23 || k != len(p.Volumes)-1 {
				fail("future release %s is not the last volume at 23:00 KST within two days", v.ReleaseAt)
			}
		}
		if len(p.Weekdays) > 0 && !slices.Contains(p.Weekdays, int(contract.ReleaseWeekday(v.ReleaseAt))) {
			fail("released for %s, schedule %v", contract.ReleaseWeekday(v.ReleaseAt), p.Weekdays)
		}
		if v.BuyPriceOrg <= 0 || v.RentPriceOrg < 0 || v.RentPriceOrg >= v.BuyPriceOrg {
			fail("original prices buy %d rent %d", v.BuyPriceOrg, v.RentPriceOrg)
		}
		if v.IsFree {
			c.free++
			if paidSeen || v.BuyPrice != 0 || v.RentPrice != 0 {
				fail("free volume after a paid one or with a price")
			}
			continue
		}
		paidSeen = true
		if v.BuyPrice <= 0 || v.BuyPrice > v.BuyPriceOrg || v.RentPrice < 0 || v.RentPrice > v.RentPriceOrg || (v.RentPriceOrg > 0) != (v.RentPrice > 0) {
			fail("prices buy %d/%d rent %d/%d", v.BuyPrice, v.BuyPriceOrg, v.RentPrice, v.RentPriceOrg)
		}
		unit := map[string][2]int{"화": {100, 500}, "권": {3000, 5000}}[p.Unit]
		if v.BuyPriceOrg < unit[0] || v.BuyPriceOrg > unit[1] {
			fail("price %d not in %v for unit %q", v.BuyPriceOrg, unit, p.Unit)
		}
	}
	if !p.RegisteredAt.Equal(p.Volumes[0].ReleaseAt) || p.UpdatedAt.After(now) {
		t.Fatalf("%s: registered %s updated %s", p.PID, p.RegisteredAt, p.UpdatedAt)
	}
}

func checkExtras(t *testing.T, cat *demo.Catalog, pids map[string]*contract.Product, now time.Time) {
	t.Helper()
	kinds := map[string]int{}
	eids := map[int64]bool{}
	preview := false
	for _, e := range cat.Events {
		kinds[e.Kind]++
		if eids[e.EID] {
			t.Fatalf("duplicate event %d", e.EID)
		}
		eids[e.EID] = true
		if !e.EndAt.After(e.StartAt) || e.Title == "" || e.BannerURL == "" {
			t.Fatalf("event %d: %+v", e.EID, e)
		}
		for _, pid := range e.PIDs {
			if pids[pid] == nil {
				t.Fatalf("event %d lists unknown %s", e.EID, pid)
			}
		}
		if e.Kind == contract.EventDoubleCoupon && e.StartAt.After(now) {
			preview = true
		}
		if e.Kind == contract.EventHeroism && e.Writer == "" {
			t.Fatalf("heroism event %d without writer", e.EID)
		}
	}
	for _, k := range []string{contract.EventBluerun, contract.EventDoubleCoupon, contract.EventHoneyBenefit, contract.EventHeroism, contract.EventTicket, contract.EventJoin, contract.EventFirstCharge} {
		if kinds[k] == 0 {
			t.Fatalf("no %s event", k)
		}
	}
	if !eids[contract.ComicTicketEventID] || !preview {
		t.Fatalf("ticket event %v, doublecoupon preview %v", eids[contract.ComicTicketEventID], preview)
	}
	for i := range cat.Products {
		for _, id := range cat.Products[i].EventIDs {
			if !eids[id] {
				t.Fatalf("%s in unknown event %d", cat.Products[i].PID, id)
			}
		}
	}
	voting := false
	for _, a := range cat.Awards {
		voting = voting || a.ResultType == "VOTING" && a.StartAt.Before(now) && a.EndAt.After(now)
		if len(a.Sections) == 0 {
			t.Fatalf("award %d without sections", a.EID)
		}
		for _, s := range a.Sections {
			if s.Key == "" || len(s.List) == 0 {
				t.Fatalf("award %d section %q empty", a.EID, s.Key)
			}
			for _, cnd := range s.List {
				if pids[cnd.PID] == nil || pids[cnd.PID].IsAdult() {
					t.Fatalf("award candidate %s unknown or adult", cnd.PID)
				}
			}
		}
	}
	if !voting {
		t.Fatal("no award open for voting")
	}
	cids := map[string]int{}
	for _, f := range cat.FAQs {
		cids[f.CID]++
		if f.Question == "" || f.Answer == "" {
			t.Fatalf("empty FAQ %d", f.ID)
		}
	}
	for name, cid := range contract.FAQCategories {
		if cids[cid] < 3 {
			t.Fatalf("FAQ category %s (%s) has %d entries", name, cid, cids[cid])
		}
	}
	closing := 0
	for _, n := range cat.Notices {
		if n.Kind == contract.NoticeClosingProd {
			closing++
			for _, pid := range n.PIDs {
				if pids[pid] == nil {
					t.Fatalf("closing notice %d lists unknown %s", n.ID, pid)
				}
			}
		}
	}
	if closing == 0 || len(cat.Notices) < 10 {
		t.Fatalf("%d notices, %d closing", len(cat.Notices), closing)
	}
	places := map[string]int{}
	for _, b := range cat.Banners {
		places[b.Place]++
		if b.ImageURL != fmt.Sprintf("/img/banner/%d.svg", b.ID) || b.LinkURL == "" || !b.StartAt.Before(now) || !b.EndAt.After(now) {
			t.Fatalf("banner %+v", b)
		}
	}
	for _, pl := range []string{"home", "wt", "cm", "eb", "topapp"} {
		if places[pl] == 0 {
			t.Fatalf("no %s banner", pl)
		}
	}
	if len(cat.QuickLinks.Links) == 0 || len(cat.Keywords) == 0 || cat.JumpingPass.Price <= 0 {
		t.Fatal("quick links, keywords or jumping pass missing")
	}
	for _, g := range cat.JumpingPass.Sections {
		for _, pid := range g.PIDs {
			if p := pids[pid]; p == nil || !p.JumpingPass {
				t.Fatalf("jumping pass lists %s, not a jumping-pass work", pid)
			}
		}
	}
	kw := map[string]bool{}
	for _, k := range cat.Keywords {
		kw[k.Name] = true
	}
	matched := 0
	for i := range cat.Products {
		for _, k := range cat.Products[i].Keywords {
			if kw[k] {
				matched++
			}
		}
	}
	if matched == 0 {
		t.Fatal("no work matches a curated keyword")
	}
}

func TestDefaultCatalog(t *testing.T) {
	t.Parallel()
	cat := demo.Generate(demo.Options{Seed: 7, Now: anchor})
	c := checkCatalog(t, cat, anchor)
	t.Logf("%+v", c)
	if c.products != demo.DefaultWorks {
		t.Fatalf("%d works, want %d", c.products, demo.DefaultWorks)
	}
	if c.volumes < 95000 || c.volumes > 105000 {
		t.Fatalf("%d volumes, want about 100,000", c.volumes)
	}
	share := func(n int) float64 { return float64(n) / float64(c.products) }
	if s := share(c.adult); s < 0.07 || s > 0.13 {
		t.Fatalf("adult share %.3f, want about 10%%", s)
	}
	if s := share(c.sections["WT"]); s < 0.35 || s > 0.55 || c.sections["CM"] < 400 || c.sections["EB"] < 400 {
		t.Fatalf("sections %v", c.sections)
	}
	for _, tab := range []string{"series", "romance", "fanmu", "bl", "others"} {
		if c.tabs[tab] < 50 {
			t.Fatalf("tab %s has %d works", tab, c.tabs[tab])
		}
	}
	if c.future < 50 || c.future > c.volumes/20 {
		t.Fatalf("%d volumes scheduled ahead", c.future)
	}
	for name, n := range map[string]int{
		"finished": c.ended, "ongoing": c.ongoing, "free volumes": c.free, "wait-for-free": c.wait, "gift": c.gift,
		"jumping pass": c.jump, "original": c.original, "monopoly": c.monopoly, "short story": c.short,
		"special-price set": c.set, "package": c.pkg, "discount": c.discount, "cashback": c.cashback,
		"trailer": c.trailers, "notice": c.notices, "in an event": c.withEvents, "weekday schedule": c.weekdays, "novel sub-genre": c.subGenre,
	} {
		if n == 0 {
			t.Errorf("no %s works", name)
		}
	}
	for _, code := range []string{"TC0008", "TC0009", "TC0010"} {
		if c.views[code] < 10 {
			t.Errorf("%d works have the %s list", c.views[code], code)
		}
	}
	if c.initials["ㄱㅁ"] < 3 {
		t.Errorf("%d titles start with ㄱㅁ", c.initials["ㄱㅁ"])
	}
}

func TestSmallCatalogs(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 10, 49, 50, 120} {
		cat := demo.Generate(demo.Options{Seed: int64(n), Works: n, Now: anchor})
		if len(cat.Products) != n {
			t.Fatalf("%d works, want %d", len(cat.Products), n)
		}
		checkVolumesOnly(t, cat)
	}
}

func checkVolumesOnly(t *testing.T, cat *demo.Catalog) {
	t.Helper()
	c := counts{}
	for i := range cat.Products {
		checkVolumes(t, &cat.Products[i], anchor, &c)
	}
}

func TestReleaseSlotsFollowNow(t *testing.T) {
	t.Parallel()
	// At 23:30 KST today's slot has passed: scheduled volumes are tomorrow's.
	late := time.Date(2026, 11, 22, 23, 30, 0, 0, kst)
	cat := demo.Generate(demo.Options{Seed: 3, Works: 1500, Now: late})
	tomorrow := time.Date(2026, 11, 23, 23, 0, 0, 0, kst)
	n := 0
	for i := range cat.Products {
		for _, v := range cat.Products[i].Volumes {
			if v.ReleaseAt.After(late) {
				n++
				if !v.ReleaseAt.Equal(tomorrow) && !v.ReleaseAt.Equal(tomorrow.AddDate(0, 0, 1)) {
					t.Fatalf("%s: scheduled for %s", cat.Products[i].PID, v.ReleaseAt.In(kst))
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("nothing scheduled for tomorrow")
	}
}

func TestHundredThousandWorks(t *testing.T) {
	if testing.Short() {
		t.Skip("large catalog")
	}
	t.Parallel()
	cat := demo.Generate(demo.Options{Seed: 1, Works: 100000, VolumesPerWork: 5, Now: anchor})
	c := checkCatalog(t, cat, anchor)
	if c.products != 100000 || c.volumes < 450000 || c.volumes > 550000 {
		t.Fatalf("%d works, %d volumes", c.products, c.volumes)
	}
}

func TestChoseong(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"검은 마법사": "ㄱㅇㅁㅂㅅ", "SSS급 헌터": "SSSㄱㅎㅌ", "귀멸의 검사": "ㄱㅁㅇㄱㅅ", "": ""} {
		if got := demo.Choseong(in); got != want {
			t.Errorf("Choseong(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkGenerateDefault(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		demo.Generate(demo.Options{Seed: 1, Now: anchor})
	}
}

func BenchmarkGenerate100kWorks(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		demo.Generate(demo.Options{Seed: 1, Works: 100000, Now: anchor})
	}
}
