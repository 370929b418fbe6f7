package render

import (
	"storefront/contract"
	"storefront/edge/catalog"
)

// BannerOut is a banner in an answer.
type BannerOut struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	ImageURL string `json:"imageUrl"`
	LinkURL  string `json:"linkUrl"`
}

// HomeSection is one shelf of a home page.
type HomeSection struct {
	Key     string `json:"key"`
	Title   string `json:"title"`
	MoreURL string `json:"moreUrl"`
	List    []Item `json:"list"`
}

// Home is the answer of the home and area pages.
type Home struct {
	Header   Header        `json:"header"`
	Area     string        `json:"area"`
	Banners  []BannerOut   `json:"banners"`
	Sections []HomeSection `json:"sections"`
}

// HomeAreas are the areas of GET /home/api/v1/home?section=.
var HomeAreas = map[string]string{"all": "", "wt": contract.SectionWebtoon, "cm": contract.SectionComic, "eb": contract.SectionNovel}

var areaPath = map[string]string{contract.SectionWebtoon: "/webtoon", contract.SectionComic: "/comic", contract.SectionNovel: "/novel"}

const shelf = 12

// HomePage renders the home (area "all") or an area home (wt, cm, eb).
func HomePage(v *catalog.View, area string) (int, any) {
	section := HomeAreas[area]
	place := "home"
	if area != "all" {
		place = area
	}
	h := Home{Header: OK, Area: area, Banners: []BannerOut{}, Sections: []HomeSection{}}
	for _, b := range v.Banners(place) {
		h.Banners = append(h.Banners, BannerOut{ID: b.ID, Title: b.Title, ImageURL: b.ImageURL, LinkURL: b.LinkURL})
	}
	add := func(key, title, more string, ps []*catalog.Prod) {
		if len(ps) > shelf {
			ps = ps[:shelf]
		}
		if len(ps) > 0 {
			h.Sections = append(h.Sections, HomeSection{Key: key, Title: title, MoreURL: more, List: Items(v, ps)})
		}
	}
	any := catalog.Filter{Section: section, Weekday: -1}
	with := func(mod func(f *catalog.Filter)) catalog.Filter {
		f := any
		mod(&f)
		return f
	}
	if section == "" {
		ranked, _ := v.Ranking("all", contract.RankReal)
		ps := make([]*catalog.Prod, 0, shelf)
		for _, r := range ranked {
			ps = append(ps, r.P)
		}
		add("ranking", "실시간 랭킹", "/ranking", ps)
		add("todayup", "오늘 업데이트", "/webtoon/todayup", v.List(with(func(f *catalog.Filter) { f.TodayUp = true }), catalog.SortPopular))
		add("webtoon-best", "웹툰 베스트", "/webtoon/best", v.List(catalog.Filter{Section: contract.SectionWebtoon, Weekday: -1}, catalog.SortPopular))
		add("comic-best", "만화 베스트", "/comic/best", v.List(catalog.Filter{Section: contract.SectionComic, Weekday: -1}, catalog.SortPopular))
		add("novel-best", "소설 베스트", "/novel/best", v.List(catalog.Filter{Section: contract.SectionNovel, Weekday: -1}, catalog.SortPopular))
		add("new", "신작", "/webtoon/genre", v.List(any, catalog.SortNew))
		add("wait-for-free", "기다리면 무료", "/webtoon/genre", v.List(with(func(f *catalog.Filter) { f.Free = "wff" }), catalog.SortPopular))
		add("completed", "완결 작품", "/webtoon/genre", v.List(with(func(f *catalog.Filter) { f.End = "Y" }), catalog.SortPopular))
		return 200, h
	}
	base := areaPath[section]
	switch section {
	case contract.SectionWebtoon:
		wd := int(contract.ReleaseWeekday(v.Now))
		v.Until(contract.NextReleaseDay(v.Now))
		add("weekday", "요일 연재", base+"/weekday", v.List(with(func(f *catalog.Filter) { f.Weekday = wd; f.End = "N" }), catalog.SortPopular))
		add("todayup", "오늘 업데이트", base+"/todayup", v.List(with(func(f *catalog.Filter) { f.TodayUp = true }), catalog.SortRecent))
		add("best", "베스트", base+"/best", v.List(any, catalog.SortPopular))
		add("original", "오리지널", base+"/original", v.List(with(func(f *catalog.Filter) { f.Original = true }), catalog.SortPopular))
		add("shortstory", "단편", base+"/shortstory", v.List(with(func(f *catalog.Filter) { f.ShortStory = true }), catalog.SortPopular))
	case contract.SectionComic:
		add("best", "베스트", base+"/best", v.List(any, catalog.SortPopular))
		add("benefit", "혜택 작품", base+"/benefit", v.List(with(func(f *catalog.Filter) { f.Discount = true }), catalog.SortPopular))
		add("hq", "패키지", base+"/hq", v.List(with(func(f *catalog.Filter) { f.Package = true }), catalog.SortPopular))
	case contract.SectionNovel:
		add("best", "베스트", base+"/best", v.List(any, catalog.SortPopular))
		for _, tab := range NovelTabs {
			add("tab-"+tab.Key, tab.Name, base+"/"+tab.Key, v.List(with(func(f *catalog.Filter) { f.Category = tab.Key }), catalog.SortPopular))
		}
	}
	add("new", "신작", base+"/genre", v.List(any, catalog.SortNew))
	add("recent", "최신 업데이트", base+"/genre", v.List(any, catalog.SortRecent))
	add("completed", "완결", base+"/genre", v.List(with(func(f *catalog.Filter) { f.End = "Y" }), catalog.SortPopular))
	return 200, h
}

// Tab is a top-level tab (seed §2).
type Tab struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// NovelTabs are the seed's top-level tabs.
var NovelTabs = []Tab{{"series", "시리즈"}, {"romance", "로맨스"}, {"fanmu", "판타지/무협"}, {"bl", "BL"}, {"others", "일반"}}
