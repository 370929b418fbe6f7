package server

import (
	"slices"
	"strconv"

	"storefront/contract"
	"storefront/edge/catalog"
	"storefront/edge/render"
)

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
		if len(seg) == 2 && seg[1] == "popular" {
			return render.PopularSearches, true
		}
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
