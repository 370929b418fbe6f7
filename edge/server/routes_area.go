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
