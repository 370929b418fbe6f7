package server

import (
	"slices"
	"strconv"

	"storefront/contract"
	"storefront/edge/catalog"
	"storefront/edge/render"
)

var areas = map[string]string{"webtoon": contract.SectionWebtoon, "comic": contract.SectionComic, "novel": contract.SectionNovel}

var sectionParam = map[string]string{"all": "", "wt": contract.SectionWebtoon, "cm": contract.SectionComic, "eb": contract.SectionNovel,
	"WT": contract.SectionWebtoon, "CM": contract.SectionComic, "EB": contract.SectionNovel}

const defaultPageSize = 24

var sorts = []string{catalog.SortRecent, catalog.SortPopular, catalog.SortNew, catalog.SortTitle, catalog.SortRating, catalog.SortZzim}

// listFilter reads the list options every genre-style list shares: filter
// (all, free, wff, gift, jumping, end, ing), sort (default recent) and list
// style (grid or list, the client's choice, validated and echoed).
func listFilter(q *query, f *catalog.Filter) (order string) {
	switch q.oneOf("filter", "all", "all", "free", "wff", "gift", "jumping", "end", "ing", "discount") {
	case "free":
		f.Free = "freevol"
	case "wff":
		f.Free = "wff"
	case "gift":
		f.Free = "gift"
	case "jumping":
		f.Free = "jumping"
	case "end":
		f.End = "Y"
	case "ing":
		f.End = "N"
	case "discount":
		f.Discount = true
	}
	q.oneOf("style", "grid", "grid", "list")
	return q.oneOf("sort", catalog.SortRecent, sorts...)
}

func list(title string, f catalog.Filter, order string, page, size int) renderFunc {
	return func(v *catalog.View) (int, any) {
		return render.ProductList(v, title, v.List(f, order), page, size)
	}
}

func (s *Server) routeMore(seg []string, q *query) (renderFunc, bool) {
	if sec, ok := areas[seg[0]]; ok && len(seg) >= 2 {
		return s.routeArea(seg[0], sec, seg[1:], q)
	}
	page, size := q.paging(defaultPageSize)
	switch seg[0] {
	case "quick-links":
		return render.QuickLinks, len(seg) == 1
	case "genres":
		return func(*catalog.View) (int, any) { return render.Genres() }, len(seg) == 1
	case "rankings":
		tab := q.oneOf("tab", contract.RankReal, contract.RankReal, contract.RankDaily, contract.RankWeekly, contract.RankNew)
		switch {
		case len(seg) == 1:
			cat := q.oneOf("category", "all", "all", "wt", "cm", "eb")
			return func(v *catalog.View) (int, any) { return render.RankingPage(v, cat, cat, tab, page, size) }, true
		case len(seg) == 2 && seg[1] == "genres":
			per := q.intIn("size", 10, 1, 50)
			return func(v *catalog.View) (int, any) { return render.GenreRankings(v, tab, per) }, true
		case len(seg) == 3 && seg[1] == "genres":
			if !render.ValidGenre(seg[2]) {
				return notFound("장르를 찾을 수 없습니다."), true
			}
			scope := "genre-" + seg[2]
			return func(v *catalog.View) (int, any) { return render.RankingPage(v, scope, scope, tab, page, size) }, true
		}
	case "search":
		if len(seg) != 1 {
			return nil, false
		}
		kw := q.str("q", q.str("keyword", ""))
		if kw == "" || len([]rune(kw)) > 50 {
			return bad("검색어는 1~50자로 입력해 주세요."), true
		}
		sec := sectionParam[q.oneOf("section", "all", "all", "wt", "cm", "eb")]
		return func(v *catalog.View) (int, any) { return render.SearchPage(v, kw, sec, page, size) }, true
	case "keywords":
		switch len(seg) {
		case 1:
			return render.KeywordsPage, true
		case 2:
			id, err := strconv.ParseInt(seg[1], 10, 64)
			if err != nil {
				return notFound("키워드를 찾을 수 없습니다."), true
			}
			sec := sectionParam[q.oneOf("section", "all", "all", "wt", "cm", "eb")]
			order := q.oneOf("sort", catalog.SortPopular, sorts...)
			return func(v *catalog.View) (int, any) { return render.KeywordWorks(v, id, sec, order, page, size) }, true
		}
	case "events":
		// events/{kind}, events/{kind}/{eid}, events/{kind}/{eid}/preview
		if len(seg) < 2 || !slices.Contains([]string{contract.EventBluerun, contract.EventDoubleCoupon, contract.EventHoneyBenefit,
			contract.EventHeroism, contract.EventTicket, contract.EventJoin, contract.EventFirstCharge}, seg[1]) {
			return nil, false
		}
		kind := seg[1]
		if len(seg) == 2 {
			return func(v *catalog.View) (int, any) { return render.EventList(v, kind) }, true
		}
		eid, err := strconv.ParseInt(seg[2], 10, 64)
		if err != nil {
			return notFound("이벤트를 찾을 수 없습니다."), true
		}
		preview := len(seg) == 4 && seg[3] == "preview"
		if len(seg) > 4 || len(seg) == 4 && !preview {
			return nil, false
		}
		return func(v *catalog.View) (int, any) { return render.EventPage(v, kind, eid, preview) }, true
	case "awards":
		switch len(seg) {
		case 1:
			return func(v *catalog.View) (int, any) { return render.Awards(v, "") }, true
		case 2:
			sec := seg[1]
			return func(v *catalog.View) (int, any) { return render.Awards(v, sec) }, true
		}
	case "jumpingpass":
		switch len(seg) {
		case 1:
			return func(v *catalog.View) (int, any) { return render.JumpingPassPage(v, "") }, true
		case 2:
			sec := seg[1]
			return func(v *catalog.View) (int, any) { return render.JumpingPassPage(v, sec) }, true
		}
	case "cs":
		return s.routeCS(seg[1:], q, page, size)
	case "contents":
		switch {
		case len(seg) == 3 && seg[1] == "comic" && seg[2] == "honey-benefit":
			return func(v *catalog.View) (int, any) { return render.EventList(v, contract.EventHoneyBenefit) }, true
		case len(seg) == 4 && seg[1] == "comic" && seg[2] == "heroism" && seg[3] == "coupons":
			return func(v *catalog.View) (int, any) { return render.EventList(v, contract.EventHeroism) }, true
		}
	case "authors":
		if len(seg) == 3 && seg[2] == "works" {
			id, err := strconv.ParseInt(seg[1], 10, 64)
			if err != nil {
				return notFound("작가를 찾을 수 없습니다."), true
			}
			return list("", catalog.Filter{AuthorID: id, Weekday: -1}, catalog.SortPopular, page, size), true
		}
	}
	return nil, false
}

func (s *Server) routeCS(seg []string, q *query, page, size int) (renderFunc, bool) {
	if len(seg) == 0 {
		return nil, false
	}
	switch seg[0] {
	case "faq":
		if len(seg) != 1 {
			return nil, false
		}
		// cid directly, or the seed's category name (privacy, payment, comic, novel, etc).
		cid := q.str("cid", "")
		if c, ok := contract.FAQCategories[q.str("category", "")]; ok {
			cid = c
		}
		if cid != "" && !slices.Contains([]string{"01000", "02000", "03100", "03300", "etc"}, cid) {
			return bad("항목(cid)의 값은 01000, 02000, 03100, 03300, etc 중 하나로 입력해 주세요."), true
		}
		kw := q.str("keyword", "")
		return func(v *catalog.View) (int, any) { return render.FAQPage(v, cid, kw, page, size) }, true
	case "notices":
		switch {
		case len(seg) == 1:
			return func(v *catalog.View) (int, any) { return render.Notices(v, contract.NoticeGeneral, page, size) }, true
		case len(seg) == 2 && seg[1] == "closingprod":
			return func(v *catalog.View) (int, any) { return render.Notices(v, contract.NoticeClosingProd, page, size) }, true
		case len(seg) == 2:
			id, err := strconv.ParseInt(seg[1], 10, 64)
			if err != nil {
				return notFound("공지사항을 찾을 수 없습니다."), true
			}
			return func(v *catalog.View) (int, any) { return render.NoticeDetail(v, id) }, true
		}
	}
	return nil, false
}

// routeArea serves /{webtoon|comic|novel}/... lists.
func (s *Server) routeArea(area, sec string, seg []string, q *query) (renderFunc, bool) {
	page, size := q.paging(defaultPageSize)
	f := catalog.Filter{Section: sec, Weekday: -1}
	switch seg[0] {
	case "best":
		if len(seg) != 1 {
			return nil, false
		}
		if g := q.str("genre", ""); g != "" {
			if !render.ValidGenre(g) {
				return bad("장르(genre)를 찾을 수 없습니다."), true
			}
			f.GenreID = g
		}
		return list("베스트", f, catalog.SortPopular, page, size), true
	case "completed":
		if len(seg) != 1 {
			return nil, false
		}
		f.End = "Y"
		return list("완결", f, q.oneOf("sort", catalog.SortPopular, sorts...), page, size), true
	case "new":
		if len(seg) != 1 {
			return nil, false
		}
		return list("신작", f, catalog.SortNew, page, size), true
	case "genre":
		// genre/{category?}[/{subgenre}]: category is a genre id, a top-level
		// tab key (series, romance, fanmu, bl, others) or "all".
		if len(seg) > 3 || len(seg) == 3 && sec != contract.SectionNovel {
			return nil, false
		}
		title := "전체"
		if len(seg) >= 2 && seg[1] != "all" {
			switch {
			case render.ValidGenre(seg[1]):
				f.GenreID, title = seg[1], render.GenreName(seg[1])
			case isTab(seg[1]):
				f.Category, title = seg[1], tabName(seg[1])
			default:
				return notFound("장르를 찾을 수 없습니다."), true
			}
		}
		if len(seg) == 3 {
			f.SubGenre = seg[2]
		}
		order := listFilter(q, &f)
		return list(title, f, order, page, size), true
	}
	switch {
	case area == "webtoon" && len(seg) == 1 && seg[0] == "original":
		f.Original = true
		return list("오리지널", f, q.oneOf("sort", catalog.SortPopular, sorts...), page, size), true
	case area == "webtoon" && len(seg) == 1 && seg[0] == "shortstory":
		f.ShortStory = true
		return list("단편", f, q.oneOf("sort", catalog.SortPopular, sorts...), page, size), true
	case area == "webtoon" && len(seg) == 1 && seg[0] == "todayup":
		f.TodayUp = true
		return list("오늘 업데이트", f, catalog.SortRecent, page, size), true
	case area == "webtoon" && seg[0] == "weekday" && len(seg) <= 2:
		day := "today"
		if len(seg) == 2 {
			day = seg[1]
		}
		wd, ok := render.WeekdayOf(day)
		if day != "today" && !ok {
			return bad("요일은 sun~sat 또는 0~6으로 입력해 주세요."), true
		}
		order := q.oneOf("sort", catalog.SortPopular, sorts...)
		f.End = "N"
		return func(v *catalog.View) (int, any) {
			f := f
			f.Weekday = wd
			if day == "today" {
				// Today's weekday is the release day's: from 23:00 KST the next day's episodes are out.
				f.Weekday = int(contract.ReleaseWeekday(v.Now))
				v.Until(contract.NextReleaseDay(v.Now))
			}
			return render.ProductList(v, "요일 연재", v.List(f, order), page, size)
		}, true
	case area == "comic" && seg[0] == "benefit" && len(seg) <= 2:
		if len(seg) == 1 {
			return func(v *catalog.View) (int, any) { return render.EventList(v, contract.EventHoneyBenefit) }, true
		}
		eid, err := strconv.ParseInt(seg[1], 10, 64)
		if err != nil {
			return notFound("이벤트를 찾을 수 없습니다."), true
		}
		return func(v *catalog.View) (int, any) { return render.EventPage(v, contract.EventHoneyBenefit, eid, false) }, true
	case area == "comic" && seg[0] == "heroism" && len(seg) <= 2:
		if len(seg) == 1 {
			return func(v *catalog.View) (int, any) { return render.EventList(v, contract.EventHeroism) }, true
		}
		writer := seg[1]
		return func(v *catalog.View) (int, any) {
			var ps []*catalog.Prod
			title := ""
			for _, e := range v.Events(contract.EventHeroism, false) {
				if e.Writer != writer {
					continue
				}
				title = e.Title
				for _, pid := range e.PIDs {
					if p := v.Product(pid); p != nil && !slices.Contains(ps, p) {
						ps = append(ps, p)
					}
				}
			}
			if title == "" {
				return render.NotFound("작가를 찾을 수 없습니다.")
			}
			v.SortProds(ps, catalog.SortPopular)
			return render.ProductList(v, title, ps, page, size)
		}, true
	case area == "comic" && seg[0] == "hq" && len(seg) <= 2:
		f.Package = true
		if len(seg) == 2 && seg[1] != "all" {
			switch {
			case render.ValidGenre(seg[1]):
				f.GenreID = seg[1]
			default:
				// A package's own works: the set's main pid.
				main := seg[1]
				order := q.oneOf("sort", catalog.SortPopular, sorts...)
				return func(v *catalog.View) (int, any) {
					var ps []*catalog.Prod
					for _, p := range v.List(catalog.Filter{Section: sec, Weekday: -1}, order) {
						if p.PID == main || p.SpecialPriceSetMainSubdir == main {
							ps = append(ps, p)
						}
					}
					if len(ps) == 0 {
						return render.NotFound("패키지를 찾을 수 없습니다.")
					}
					return render.ProductList(v, "패키지", ps, page, size)
				}, true
			}
		}
		return list("패키지", f, q.oneOf("sort", catalog.SortPopular, sorts...), page, size), true
	case area == "novel" && seg[0] == "tab" && len(seg) == 2:
		if !isTab(seg[1]) {
			return notFound("탭을 찾을 수 없습니다."), true
		}
		f.Category = seg[1]
		order := listFilter(q, &f)
		return list(tabName(seg[1]), f, order, page, size), true
	}
	return nil, false
}

func isTab(k string) bool { return tabName(k) != "" }

func tabName(k string) string {
	for _, t := range render.NovelTabs {
		if t.Key == k {
			return t.Name
		}
	}
	return ""
}
