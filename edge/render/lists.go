package render

import (
	"slices"
	"strconv"
	"time"

	"storefront/contract"
	"storefront/edge/catalog"
)

// List is the answer of every product list.
type List struct {
	Header Header `json:"header"`
	Title  string `json:"title,omitempty"`
	contract.PagedList[Item]
}

// NotFound is a 404 answer.
func NotFound(msg string) (int, any) {
	return 404, contract.Envelope{Header: Header{Code: 404, Message: msg}}
}

// ProductList renders page of ps.
func ProductList(v *catalog.View, title string, ps []*catalog.Prod, page, size int) (int, any) {
	lo, hi, pg := Page(len(ps), page, size)
	return 200, List{Header: OK, Title: title, PagedList: contract.PagedList[Item]{List: Items(v, ps[lo:hi]), Paging: pg}}
}

// Ranked is a ranking entry.
type Ranked struct {
	Rank  int  `json:"rank"`
	Delta int  `json:"delta"`
	Item  Item `json:"item"`
}

// Ranking is the ranking answer.
type Ranking struct {
	Header   Header `json:"header"`
	Category string `json:"category"`
	Tab      string `json:"tab"`
	Source   string `json:"source"` // analytics or viewcount (before analytics ranked)
	contract.PagedList[Ranked]
}

// RankingPage renders a ranking of scope (all, wt, cm, eb, genre-<id>) and tab.
func RankingPage(v *catalog.View, category, scope, tab string, page, size int) (int, any) {
	items, computed := v.Ranking(scope, tab)
	lo, hi, pg := Page(len(items), page, size)
	r := Ranking{Header: OK, Category: category, Tab: tab, Source: "viewcount",
		PagedList: contract.PagedList[Ranked]{List: make([]Ranked, 0, hi-lo), Paging: pg}}
	if computed {
		r.Source = "analytics"
	}
	for _, it := range items[lo:hi] {
		r.List = append(r.List, Ranked{Rank: it.Rank, Delta: it.Delta, Item: NewItem(v, it.P)})
	}
	return 200, r
}

// GenreRanking is one genre's top works.
type GenreRanking struct {
	GenreID string   `json:"integratedGenreId"`
	Name    string   `json:"name"`
	List    []Ranked `json:"list"`
}

// GenreRankings renders the top works of every genre.
func GenreRankings(v *catalog.View, tab string, per int) (int, any) {
	out := struct {
		Header Header         `json:"header"`
		Tab    string         `json:"tab"`
		Genres []GenreRanking `json:"genres"`
	}{Header: OK, Tab: tab, Genres: []GenreRanking{}}
	for _, g := range contract.Genres {
		items, _ := v.Ranking("genre-"+g.ID, tab)
		if len(items) == 0 {
			continue
		}
		gr := GenreRanking{GenreID: g.ID, Name: g.Name, List: []Ranked{}}
		for _, it := range items[:min(per, len(items))] {
			gr.List = append(gr.List, Ranked{Rank: it.Rank, Delta: it.Delta, Item: NewItem(v, it.P)})
		}
		out.Genres = append(out.Genres, gr)
	}
	return 200, out
}

// SearchPage renders search results: one page, sorted from the search
// index without sorting every hit.
func SearchPage(v *catalog.View, q, section string, page, size int) (int, any) {
	lo := max(page-1, 0) * size
	ms, total := v.SearchPage(q, section, lo, lo+size)
	ps := make([]*catalog.Prod, len(ms))
	for i, m := range ms {
		ps[i] = m.P
	}
	_, _, pg := Page(total, page, size)
	return 200, struct {
		Header  Header `json:"header"`
		Keyword string `json:"keyword"`
		contract.PagedList[Item]
	}{OK, q, contract.PagedList[Item]{List: Items(v, ps), Paging: pg}}
}

// ReviewOut is one review in a list; per-user flags are the writer's.
type ReviewOut struct {
	ID            int64     `json:"id"`
	UserName      string    `json:"userName"`
	Body          string    `json:"body"`
	Point         int       `json:"point"`
	Vol           int       `json:"vol,omitempty"`
	IsBuyerReview bool      `json:"isBuyerReview"`
	LikeCnt       int       `json:"likeCnt"`
	IsMyLike      bool      `json:"isMyLike"`
	IsBlock       bool      `json:"isBlock"`
	IsReport      bool      `json:"isReport"`
	IsSpoiler     bool      `json:"isSpoiler"`
	CreatedAt     time.Time `json:"createdAt"`
}

// Review sorts.
const (
	ReviewSortLike   = "like"
	ReviewSortRecent = "recent"
)

// Reviews renders a work's review list: buyer-only filter, sort by likes
// (default) or recency, paging; version 1 or 2 shape.
func Reviews(v *catalog.View, pid string, buyerOnly bool, sortBy string, page, size, version int) (int, any) {
	p := v.Lookup(pid)
	if p == nil {
		return NotFound("작품을 찾을 수 없습니다.")
	}
	if !v.Visible(p) {
		return 403, contract.Envelope{Header: Header{Code: 403, Message: "성인 인증이 필요합니다."}}
	}
	var rs []ReviewOut
	if rl := v.Reviews(pid); rl != nil {
		for _, r := range rl.Reviews {
			if buyerOnly && !r.IsBuyerReview {
				continue
			}
			rs = append(rs, ReviewOut{ID: r.ID, UserName: r.UserName, Body: r.Body, Point: r.Point, Vol: r.Vol,
				IsBuyerReview: r.IsBuyerReview, LikeCnt: r.LikeCnt, IsSpoiler: r.IsSpoiler, CreatedAt: r.CreatedAt})
		}
	}
	slices.SortStableFunc(rs, func(a, b ReviewOut) int {
		if sortBy == ReviewSortLike && a.LikeCnt != b.LikeCnt {
			return b.LikeCnt - a.LikeCnt
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return int(b.ID - a.ID)
	})
	lo, hi, pg := Page(len(rs), page, size)
	list := rs[lo:hi]
	if list == nil {
		list = []ReviewOut{}
	}
	if version == 2 {
		return 200, struct {
			Header Header `json:"header"`
			Data   struct {
				PID        string      `json:"pid"`
				BuyerOnly  bool        `json:"buyerOnly"`
				Sort       string      `json:"sort"`
				Reviews    []ReviewOut `json:"reviews"`
				CurPage    int         `json:"curPage"`
				PageCount  int         `json:"pageCount"`
				TotalCount int         `json:"totalCount"`
			} `json:"data"`
		}{Header: OK, Data: struct {
			PID        string      `json:"pid"`
			BuyerOnly  bool        `json:"buyerOnly"`
			Sort       string      `json:"sort"`
			Reviews    []ReviewOut `json:"reviews"`
			CurPage    int         `json:"curPage"`
			PageCount  int         `json:"pageCount"`
			TotalCount int         `json:"totalCount"`
		}{pid, buyerOnly, sortBy, list, pg.CurPage, pg.PageCount, pg.TotalCount}}
	}
	return 200, struct {
		Header     Header      `json:"header"`
		ReviewList []ReviewOut `json:"reviewList"`
		Paging     Paging      `json:"paging"`
	}{OK, list, pg}
}

// EventOut is an event with its works.
type EventOut struct {
	EID       int64     `json:"eid"`
	Kind      string    `json:"kind"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	BannerURL string    `json:"bannerUrl"`
	Section   string    `json:"section,omitempty"`
	Writer    string    `json:"writer,omitempty"`
	Coupons   int       `json:"coupons"`
	StartAt   time.Time `json:"startAt"`
	EndAt     time.Time `json:"endAt"`
	IsPreview bool      `json:"isPreview"`
	List      []Item    `json:"list"`
}

// NewEventOut renders e with its visible works.
func NewEventOut(v *catalog.View, e *contract.Event) EventOut {
	out := EventOut{EID: e.EID, Kind: e.Kind, Title: e.Title, Body: e.Body, BannerURL: e.BannerURL, Section: e.Section,
		Writer: e.Writer, Coupons: e.Coupons, StartAt: e.StartAt, EndAt: e.EndAt, IsPreview: !v.Started(e), List: []Item{}}
	for _, pid := range e.PIDs {
		if p := v.Product(pid); p != nil {
			out.List = append(out.List, NewItem(v, p))
		}
	}
	return out
}

// EventList renders the live events of kind.
func EventList(v *catalog.View, kind string) (int, any) {
	out := struct {
		Header Header     `json:"header"`
		Kind   string     `json:"kind"`
		Events []EventOut `json:"events"`
	}{Header: OK, Kind: kind, Events: []EventOut{}}
	for _, e := range v.Events(kind, false) {
		out.Events = append(out.Events, NewEventOut(v, e))
	}
	return 200, out
}

// EventPage renders one event; preview allows an event that has not started.
func EventPage(v *catalog.View, kind string, eid int64, preview bool) (int, any) {
	e := v.Event(eid)
	if e == nil || (kind != "" && e.Kind != kind) {
		return NotFound("이벤트를 찾을 수 없습니다.")
	}
	if !preview && !v.Started(e) {
		return NotFound("이벤트를 찾을 수 없습니다.")
	}
	if !e.EndAt.IsZero() && !e.EndAt.After(v.Now) {
		return NotFound("종료된 이벤트입니다.")
	}
	return 200, struct {
		Header Header   `json:"header"`
		Event  EventOut `json:"event"`
	}{OK, NewEventOut(v, e)}
}

// AwardCandidateOut is a work in an award section.
type AwardCandidateOut struct {
	Rank  int   `json:"rank"`
	Votes int64 `json:"votes"`
	Item  Item  `json:"item"`
}

// AwardSectionOut is one award section.
type AwardSectionOut struct {
	Key   string              `json:"key"`
	Title string              `json:"title"`
	List  []AwardCandidateOut `json:"list"`
}

// AwardOut is an award.
type AwardOut struct {
	EID        int64             `json:"eid"`
	Title      string            `json:"title"`
	ResultType string            `json:"resultType"`
	StartAt    time.Time         `json:"startAt"`
	EndAt      time.Time         `json:"endAt"`
	Sections   []AwardSectionOut `json:"sections"`
}

// Awards renders the awards (newest first); section "" gives every section.
func Awards(v *catalog.View, section string) (int, any) {
	out := struct {
		Header Header     `json:"header"`
		Awards []AwardOut `json:"awards"`
	}{Header: OK, Awards: []AwardOut{}}
	found := section == ""
	for _, a := range v.Awards() {
		ao := AwardOut{EID: a.EID, Title: a.Title, ResultType: a.ResultType, StartAt: a.StartAt, EndAt: a.EndAt, Sections: []AwardSectionOut{}}
		for _, s := range a.Sections {
			if section != "" && s.Key != section {
				continue
			}
			found = true
			so := AwardSectionOut{Key: s.Key, Title: s.Title, List: []AwardCandidateOut{}}
			cands := slices.Clone(s.List)
			if a.ResultType == "RESULT" {
				slices.SortStableFunc(cands, func(x, y contract.AwardCandidate) int { return int(y.Votes - x.Votes) })
			}
			for _, c := range cands {
				if p := v.Product(c.PID); p != nil {
					so.List = append(so.List, AwardCandidateOut{Rank: len(so.List) + 1, Votes: c.Votes, Item: NewItem(v, p)})
				}
			}
			ao.Sections = append(ao.Sections, so)
		}
		out.Awards = append(out.Awards, ao)
	}
	if !found {
		return NotFound("어워드 부문을 찾을 수 없습니다.")
	}
	return 200, out
}

// JumpingPassPage renders the jumping pass offer; section "" gives every group.
func JumpingPassPage(v *catalog.View, section string) (int, any) {
	jp := v.JumpingPass()
	if jp == nil {
		return NotFound("점핑패스 정보가 없습니다.")
	}
	type group struct {
		Key   string `json:"key"`
		Title string `json:"title"`
		List  []Item `json:"list"`
	}
	out := struct {
		Header   Header  `json:"header"`
		Title    string  `json:"title"`
		Price    int     `json:"price"`
		Days     int     `json:"days"`
		Sections []group `json:"sections"`
	}{Header: OK, Title: jp.Title, Price: jp.Price, Days: jp.Days, Sections: []group{}}
	for _, g := range jp.Sections {
		if section != "" && g.Key != section {
			continue
		}
		gr := group{Key: g.Key, Title: g.Title, List: []Item{}}
		for _, pid := range g.PIDs {
			if p := v.Product(pid); p != nil {
				gr.List = append(gr.List, NewItem(v, p))
			}
		}
		out.Sections = append(out.Sections, gr)
	}
	if section != "" && len(out.Sections) == 0 {
		return NotFound("점핑패스 섹션을 찾을 수 없습니다.")
	}
	return 200, out
}

// FAQPage renders FAQ entries of cid.
func FAQPage(v *catalog.View, cid, keyword string, page, size int) (int, any) {
	fs := v.FAQs(cid, keyword)
	lo, hi, pg := Page(len(fs), page, size)
	list := make([]contract.FAQ, 0, hi-lo)
	for _, f := range fs[lo:hi] {
		list = append(list, *f)
	}
	return 200, struct {
		Header Header `json:"header"`
		CID    string `json:"cid"`
		contract.PagedList[contract.FAQ]
	}{OK, cid, contract.PagedList[contract.FAQ]{List: list, Paging: pg}}
}

// NoticeOut is a notice in a list.
type NoticeOut struct {
	ID       int64     `json:"id"`
	Kind     string    `json:"kind"`
	Title    string    `json:"title"`
	Body     string    `json:"body"`
	PostedAt time.Time `json:"postedAt"`
	List     []Item    `json:"list,omitempty"`
}

// Notices renders notices of kind; closing-products notices carry their works.
func Notices(v *catalog.View, kind string, page, size int) (int, any) {
	ns := v.Notices(kind)
	lo, hi, pg := Page(len(ns), page, size)
	list := make([]NoticeOut, 0, hi-lo)
	for _, n := range ns[lo:hi] {
		list = append(list, noticeOut(v, n))
	}
	return 200, struct {
		Header Header `json:"header"`
		Kind   string `json:"kind"`
		contract.PagedList[NoticeOut]
	}{OK, kind, contract.PagedList[NoticeOut]{List: list, Paging: pg}}
}

func noticeOut(v *catalog.View, n *contract.Notice) NoticeOut {
	o := NoticeOut{ID: n.ID, Kind: n.Kind, Title: n.Title, Body: n.Body, PostedAt: n.PostedAt}
	for _, pid := range n.PIDs {
		if p := v.Product(pid); p != nil {
			o.List = append(o.List, NewItem(v, p))
		}
	}
	return o
}

// NoticeDetail renders one notice.
func NoticeDetail(v *catalog.View, id int64) (int, any) {
	n := v.Notice(id)
	if n == nil {
		return NotFound("공지사항을 찾을 수 없습니다.")
	}
	return 200, struct {
		Header Header    `json:"header"`
		Notice NoticeOut `json:"notice"`
	}{OK, noticeOut(v, n)}
}

// QuickLinks renders the quick links.
func QuickLinks(v *catalog.View) (int, any) {
	links := []contract.QuickLink{}
	if ql := v.QuickLinks(); ql != nil && ql.Links != nil {
		links = ql.Links
	}
	return 200, struct {
		Header Header               `json:"header"`
		Links  []contract.QuickLink `json:"links"`
	}{OK, links}
}

// KeywordOut is a curated keyword.
type KeywordOut struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// KeywordsPage renders the curated keywords with how many visible works each has.
func KeywordsPage(v *catalog.View) (int, any) {
	out := struct {
		Header   Header       `json:"header"`
		Keywords []KeywordOut `json:"keywords"`
	}{Header: OK, Keywords: []KeywordOut{}}
	for _, k := range v.Keywords() {
		n := len(v.List(catalog.Filter{Keyword: k.Name, Weekday: -1}, catalog.SortTitle))
		out.Keywords = append(out.Keywords, KeywordOut{ID: k.ID, Name: k.Name, Count: n})
	}
	return 200, out
}

// KeywordWorks renders the works of keyword id.
func KeywordWorks(v *catalog.View, id int64, section, sortBy string, page, size int) (int, any) {
	k := v.Keyword(id)
	if k == nil {
		return NotFound("키워드를 찾을 수 없습니다.")
	}
	return ProductList(v, k.Name, v.List(catalog.Filter{Keyword: k.Name, Section: section, Weekday: -1}, sortBy), page, size)
}

// Genres renders the integrated genres.
func Genres() (int, any) {
	return 200, struct {
		Header Header           `json:"header"`
		Genres []contract.Genre `json:"genres"`
		Tabs   []Tab            `json:"tabs"`
	}{OK, contract.Genres, NovelTabs}
}

// GenreName returns the name of genre id.
func GenreName(id string) string {
	for _, g := range contract.Genres {
		if g.ID == id {
			return g.Name
		}
	}
	return ""
}

// ValidGenre reports whether id is a genre id.
func ValidGenre(id string) bool { return GenreName(id) != "" }

// Weekdays maps day names to weekday numbers (0 = Sunday).
var Weekdays = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

// WeekdayOf parses a day name or number.
func WeekdayOf(s string) (int, bool) {
	if d, ok := Weekdays[s]; ok {
		return d, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && n <= 6
}

// PopularSearchOut is one popular keyword as the search screen shows it.
type PopularSearchOut struct {
	Rank    int    `json:"rank"`
	Keyword string `json:"keyword"`
}

// PopularSearches renders the popular search keywords for v's audience: an
// empty list until analytics has computed them.
func PopularSearches(v *catalog.View) (int, any) {
	items, at := v.PopularSearches()
	out := struct {
		Header     Header             `json:"header"`
		List       []PopularSearchOut `json:"list"`
		ComputedAt *time.Time         `json:"computedAt"`
	}{Header: OK, List: make([]PopularSearchOut, 0, len(items))}
	for _, it := range items {
		out.List = append(out.List, PopularSearchOut{Rank: it.Rank, Keyword: it.Keyword})
	}
	if !at.IsZero() {
		out.ComputedAt = &at
	}
	return 200, out
}
