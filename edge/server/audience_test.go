package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/server"
)

const audSecret = "dev-audience-secret"

func audCookie(level int, exp time.Time) string {
	return "Cookie: " + contract.AudienceCookie + "=" + contract.SignAudience([]byte(audSecret), contract.Audience{AdultLevel: level, Expires: exp})
}

// leakCatalog fills the bucket with adult works (pids starting "x") that
// qualify for every list, shelf, event, award, ranking and related section,
// next to ordinary works.
func leakCatalog(e *env) {
	today := t0.Add(-time.Hour) // released this morning (KST)
	adult := func(p *contract.Product) {
		p.Age = 19
		p.ViewCnt = 1 << 40
		p.ZzimCount = 1 << 30
		p.PointSum, p.ReviewCount = 50, 10
		p.Keywords = []string{"회귀"}
		p.WaitForFree, p.Gift, p.JumpingPass = true, true, true
		p.DiscountRate, p.CashbackRate = 10, 5
		p.IsOriginal, p.IsShortStory = true, true
		p.RegisteredAt = t0.Add(-time.Hour)
		p.Authors = []contract.Author{{AuthorID: 7, AuthorName: "공동작가", IsWriter: true}}
		p.Volumes = append(p.Volumes, contract.Volume{No: 4, Title: "new", ReleaseAt: today, BuyPrice: 300, Pages: 3, PreviewPages: 1, ContentBase: contract.ContentBase(p.PID, 4)})
	}
	e.putProduct(product("xwt", contract.SectionWebtoon, "성인 웹툰 귀멸", adult))
	e.putProduct(product("xwtend", contract.SectionWebtoon, "성인 완결 귀멸", adult, func(p *contract.Product) { p.FlagEnd = true }))
	e.putProduct(product("xcm", contract.SectionComic, "성인 만화 귀멸", adult, func(p *contract.Product) {
		p.IsPackage, p.IsSpecialPriceSet, p.FlagEnd = true, true, true
	}))
	e.putProduct(product("xeb", contract.SectionNovel, "성인 소설 귀멸", adult, func(p *contract.Product) {
		p.SubGenre, p.FlagEnd = "rofan", true
	}))
	e.putProduct(product("xebing", contract.SectionNovel, "성인 연재 소설 귀멸", adult, func(p *contract.Product) { p.SubGenre = "rofan" }))
	normal := func(p *contract.Product) {
		p.Keywords = []string{"회귀"}
		p.Authors = []contract.Author{{AuthorID: 7, AuthorName: "공동작가", IsWriter: true}}
		p.Related = map[string][]string{"TC0011": {"xwt", "nwt2"}}
	}
	e.putProduct(product("nwt", contract.SectionWebtoon, "보통 웹툰 귀멸", normal))
	e.putProduct(product("nwt2", contract.SectionWebtoon, "보통 웹툰 둘", normal))
	e.putProduct(product("ncm", contract.SectionComic, "보통 만화", normal, func(p *contract.Product) { p.IsPackage = true; p.DiscountRate = 5 }))
	e.putProduct(product("neb", contract.SectionNovel, "보통 소설", normal, func(p *contract.Product) { p.SubGenre = "rofan" }))
	all := []string{"xwt", "xwtend", "xcm", "xeb", "nwt", "ncm"}
	for i, kind := range []string{contract.EventBluerun, contract.EventDoubleCoupon, contract.EventHoneyBenefit, contract.EventHeroism} {
		e.put(fmt.Sprintf("event.%d", i+1), contract.Event{EID: int64(i + 1), Kind: kind, Title: kind, PIDs: all, Writer: "hero",
			StartAt: t0.Add(-24 * time.Hour), EndAt: t0.Add(24 * time.Hour), Coupons: 3})
		e.put(fmt.Sprintf("event.%d", i+11), contract.Event{EID: int64(i + 11), Kind: kind, Title: kind + " 예고", PIDs: all, Writer: "hero",
			StartAt: t0.Add(24 * time.Hour), EndAt: t0.Add(48 * time.Hour)})
	}
	e.put("award.1", contract.Award{EID: 1, Title: "어워드", ResultType: "RESULT", Sections: []contract.AwardSection{
		{Key: "best", Title: "최고", List: []contract.AwardCandidate{{PID: "xwt", Votes: 100}, {PID: "nwt", Votes: 5}}}}})
	e.put(contract.KeyJumpPass, contract.JumpingPass{Title: "점핑패스", Price: 9900, Days: 30, Sections: []contract.JumpingPassGroup{{Key: "hot", Title: "인기", PIDs: all}}})
	e.put("notice.1", contract.Notice{ID: 1, Kind: contract.NoticeClosingProd, Title: "판매 종료", PIDs: all, PostedAt: t0.Add(-time.Hour)})
	e.put("keyword.1", contract.Keyword{ID: 1, Name: "회귀", Order: 1})
	e.put("ranking.genre-21.real", contract.Ranking{Scope: "genre-21", Tab: "real", Items: []contract.RankingItem{{PID: "xwt", Rank: 1}, {PID: "nwt", Rank: 2}}})
	e.put(contract.KeyPopularSearches, contract.PopularSearches{Items: []contract.PopularSearch{
		{Keyword: "성인 웹툰", Rank: 1, Searchers: 9, Adult: true}, {Keyword: "보통 웹툰", Rank: 2, Searchers: 8}}})
}

// listEndpoints is every list-shaped read of the public API.
var listEndpoints = []string{
	"/home/api/v1/home", "/home/api/v1/home?section=wt", "/home/api/v1/home?section=cm", "/home/api/v1/home?section=eb",
	"/home/api/v1/webtoon/best", "/home/api/v1/webtoon/original", "/home/api/v1/webtoon/shortstory",
	"/home/api/v1/webtoon/todayup", "/home/api/v1/webtoon/weekday", "/home/api/v1/webtoon/weekday/mon",
	"/home/api/v1/webtoon/genre", "/home/api/v1/webtoon/genre/21", "/home/api/v1/webtoon/genre/all?filter=wff&sort=popular",
	"/home/api/v1/webtoon/completed", "/home/api/v1/webtoon/new",
	"/home/api/v1/comic/best", "/home/api/v1/comic/genre/21", "/home/api/v1/comic/hq", "/home/api/v1/comic/hq/21", "/home/api/v1/comic/completed",
	"/home/api/v1/comic/benefit", "/home/api/v1/comic/benefit/3", "/home/api/v1/comic/heroism", "/home/api/v1/comic/heroism/hero",
	"/home/api/v1/novel/best", "/home/api/v1/novel/genre/romance", "/home/api/v1/novel/genre/romance/rofan", "/home/api/v1/novel/genre/21/rofan",
	"/home/api/v1/novel/tab/romance", "/home/api/v1/novel/completed",
	"/home/api/v1/keywords/1",
	"/home/api/v1/rankings", "/home/api/v1/rankings?category=wt&tab=daily", "/home/api/v1/rankings?category=cm", "/home/api/v1/rankings?category=eb&tab=new",
	"/home/api/v1/rankings/genres", "/home/api/v1/rankings/genres/21",
	"/home/api/v1/search?q=귀멸", "/home/api/v1/search?q=ㄱㅁ", "/home/api/v1/search?q=공동작가",
	"/home/api/v1/events/bluerun", "/home/api/v1/events/bluerun/1", "/home/api/v1/events/bluerun/11/preview",
	"/home/api/v1/events/doublecoupon", "/home/api/v1/events/doublecoupon/2", "/home/api/v1/events/doublecoupon/12/preview",
	"/home/api/v1/contents/comic/honey-benefit", "/home/api/v1/contents/comic/heroism/coupons",
	"/home/api/v1/awards", "/home/api/v1/awards/best",
	"/home/api/v1/jumpingpass", "/home/api/v1/jumpingpass/hot",
	"/home/api/v1/cs/notices/closingprod",
	"/home/api/v1/products/nwt", "/home/api/v1/products/nwt/related",
	"/home/api/v1/authors/7/works",
}

var adultPIDs = []string{`"xwt"`, `"xwtend"`, `"xcm"`, `"xeb"`, `"xebing"`}

func hasAdult(b []byte) bool {
	for _, p := range adultPIDs {
		if bytes.Contains(b, []byte(`"pid":`+p)) {
			return true
		}
	}
	return false
}

func TestTeenVersionNeverShowsAdultWorks(t *testing.T) {
	e := newEnv(t)
	leakCatalog(e)
	g := startEdge(t, e, func(c *server.Config) { c.Now = func() time.Time { return t0 } })
	g.waitReady()
	exp := t0.Add(time.Hour)
	teens := [][]string{
		nil,                                  // visitor (level 0)
		{audCookie(1, exp)},                  // teen
		{audCookie(3, exp)},                  // adult with the 19 toggle off
		{audCookie(2, exp), "X-Channel: AA"}, // adult in the Play Store app
		{audCookie(2, exp), "X-Channel: IA"}, // adult in the App Store app
		{audCookie(2, t0.Add(-time.Second))}, // expired token
		{"Cookie: " + contract.AudienceCookie + "=" + strings.Repeat("A", 56)}, // forged
	}
	adultHeaders := []string{audCookie(2, exp), "X-Channel: AW"}
	for _, path := range listEndpoints {
		// The adult variant shows adult works here, so the teen check below
		// is not vacuous.
		resp, b := g.get(path, adultHeaders...)
		if resp.StatusCode != 200 {
			t.Fatalf("adult %s: %d %s", path, resp.StatusCode, b)
		}
		if !hasAdult(b) {
			t.Errorf("adult variant of %s shows no adult work (fixture does not exercise it): %.300s", path, b)
		}
		for i, h := range teens {
			resp, b := g.get(path, h...)
			if resp.StatusCode != 200 {
				t.Fatalf("teen %d %s: %d %s", i, path, resp.StatusCode, b)
			}
			if hasAdult(b) {
				t.Errorf("teen variant %d of %s leaks an adult work: %.300s", i, path, b)
			}
		}
	}
	// Detail: the adult-verification-needed state, nothing of the work.
	for _, pid := range []string{"xwt", "xcm", "xeb"} {
		var d struct {
			Header   contract.Header `json:"header"`
			Need     bool            `json:"adultVerificationNeeded"`
			ProdInfo struct {
				Title string `json:"title"`
				Age   int    `json:"age"`
			} `json:"prodInfo"`
			VolList []any `json:"volList"`
		}
		g.getJSON("/home/api/v1/products/"+pid, 200, &d)
		if !d.Need || d.ProdInfo.Title != "" || d.ProdInfo.Age != 19 || len(d.VolList) != 0 {
			t.Errorf("teen detail of %s: %+v", pid, d)
		}
		var a struct {
			Need    bool  `json:"adultVerificationNeeded"`
			VolList []any `json:"volList"`
		}
		g.getJSON("/home/api/v1/products/"+pid, 200, &a, adultHeaders...)
		if a.Need || len(a.VolList) == 0 {
			t.Errorf("adult detail of %s: %+v", pid, a)
		}
		for _, sub := range []string{"/volumes", "/reviews", "/reviews/v2", "/related"} {
			if resp, _ := g.get("/home/api/v1/products/" + pid + sub); resp.StatusCode != 403 {
				t.Errorf("teen %s%s: %d, want 403", pid, sub, resp.StatusCode)
			}
		}
	}
	// The keyword page count does not count adult works for teens.
	_, b := g.get("/home/api/v1/keywords")
	if !bytes.Contains(b, []byte(`"count":4`)) {
		t.Errorf("teen keyword count: %s", b)
	}
}

func TestAudienceCookieNeedsTheSecret(t *testing.T) {
	e := newEnv(t)
	leakCatalog(e)
	g := startEdge(t, e, func(c *server.Config) { c.Now = func() time.Time { return t0 }; c.AudienceSecret = "other" })
	g.waitReady()
	_, b := g.get("/home/api/v1/webtoon/best", audCookie(2, t0.Add(time.Hour)))
	if hasAdult(b) {
		t.Fatal("a token signed with another secret unlocked adult works")
	}
	req, _ := http.NewRequest("GET", g.url+"/home/api/v1/webtoon/best", nil)
	req.AddCookie(&http.Cookie{Name: contract.AudienceCookie, Value: contract.SignAudience([]byte("other"), contract.Audience{AdultLevel: 2, Expires: t0.Add(time.Hour)})})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if !hasAdult(readAll(t, resp)) {
		t.Fatal("the right secret did not unlock adult works")
	}
}
