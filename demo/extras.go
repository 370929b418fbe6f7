package demo

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"storefront/contract"
)

// extras makes everything around the works: events, awards, FAQ, notices,
// banners, quick links, keywords and the jumping pass.
func (g *gen) extras() {
	r := g.reseed(streamExtras)
	g.events(r)
	g.awards(r)
	g.cat.FAQs = faqs()
	g.notices(r)
	g.banners()
	g.quickLinks()
	for i, k := range keywordPool[:20] {
		g.cat.Keywords = append(g.cat.Keywords, contract.Keyword{ID: int64(i + 1), Name: k, Order: i + 1, Version: 1})
	}
	g.jumpingPass()
}

// day returns 00:00 KST of today plus d days.
func (g *gen) day(d int) time.Time {
	return time.Unix((kstDay(g.now)+int64(d))*secondsPerDay-kstOffset, 0).UTC()
}

// dayEnd returns 23:59:59 KST of today plus d days.
func (g *gen) dayEnd(d int) time.Time { return g.day(d + 1).Add(-time.Second) }

// popular lists the works of a section (all when "") that may be promoted to
// everyone: not adult, on sale, not a set. Most viewed first.
func (g *gen) popular(section string, n int, keep func(p *contract.Product) bool) []int32 {
	var idx []int32
	for i := range g.cat.Products {
		p := &g.cat.Products[i]
		if (section == "" || p.Section == section) && !p.IsAdult() && p.ServiceCode == 200 &&
			g.meta[i].main < 0 && (keep == nil || keep(p)) {
			idx = append(idx, int32(i))
		}
	}
	return topBy(idx, n, func(a, b int32) int {
		return cmp.Or(cmp.Compare(g.cat.Products[b].ViewCnt, g.cat.Products[a].ViewCnt), cmp.Compare(a, b))
	})
}

// sample picks up to n distinct works of idx at random, in idx order.
func sample(r *rand.Rand, idx []int32, n int) []int32 {
	if len(idx) <= n {
		return idx
	}
	perm := r.Perm(len(idx))[:n]
	slices.Sort(perm)
	out := make([]int32, n)
	for k, j := range perm {
		out[k] = idx[j]
	}
	return out
}

func (g *gen) events(r *rand.Rand) {
	type ev struct {
		kind, title, body, section, writer string
		eid                                int64
		from, to                           int // days from today; to is the last day
		pool                               []int32
		n, coupons                         int
	}
	waiting := func(p *contract.Product) bool { return p.WaitForFree }
	comics := g.popular(contract.SectionComic, 400, nil)
	mixed := append(g.popular(contract.SectionComic, 200, nil), g.popular(contract.SectionNovel, 200, nil)...)
	waitPool := g.popular("", 400, waiting)
	evs := []ev{
		{kind: contract.EventBluerun, eid: 1001, title: "블루런 : 기다리면 무료 정주행", body: "기다리면 무료 작품을 지금 정주행하세요. 매일 이용권이 충전됩니다.", from: -5, to: 2, pool: waitPool, n: 20},
		{kind: contract.EventBluerun, eid: 1002, title: "블루런 시즌2 미리보기", body: "다음 주에 시작하는 블루런 작품을 미리 만나보세요.", from: 3, to: 16, pool: waitPool, n: 20},
		{kind: contract.EventBluerun, eid: 1003, title: "블루런 시즌1", body: "종료된 이벤트입니다.", from: -40, to: -10, pool: waitPool, n: 15},
		{kind: contract.EventDoubleCoupon, eid: 1011, title: "더블쿠폰 : 구매하면 쿠폰 두 배", body: "이벤트 작품을 구매하면 대여 쿠폰을 두 배로 드립니다.", from: -3, to: 10, pool: mixed, n: 15, coupons: 2},
		{kind: contract.EventDoubleCoupon, eid: 1012, title: "더블쿠폰 미리보기 : 주말 특집", body: "이번 주말 시작! 미리 찜해 두세요.", from: 1, to: 4, pool: mixed, n: 12, coupons: 2},
		{kind: contract.EventDoubleCoupon, eid: 1013, title: "더블쿠폰 : 다음 달 예고", body: "다음 달 더블쿠폰 작품을 공개합니다.", from: 10, to: 24, pool: mixed, n: 12, coupons: 2},
		{kind: contract.EventHoneyBenefit, eid: 1021, title: "만화 꿀혜택 : 오늘 마감", body: "오늘 자정까지 1권 무료 + 전권 할인.", section: contract.SectionComic, from: -6, to: 0, pool: comics, n: 20, coupons: 1},
		{kind: contract.EventHoneyBenefit, eid: 1022, title: "만화 꿀혜택 : 이번 주 특가", body: "이번 주 만화 특가와 쿠폰 혜택.", section: contract.SectionComic, from: -1, to: 5, pool: comics, n: 20, coupons: 3},
		{kind: contract.EventTicket, eid: contract.ComicTicketEventID, title: "만화 이용권 이벤트", body: "이벤트 기간 동안 만화 이용권으로 대상 작품을 감상하세요.", section: contract.SectionComic, from: -10, to: 20, pool: comics, n: 30},
		{kind: contract.EventJoin, eid: 1050, title: "신규 가입 혜택", body: "지금 가입하면 마일리지 " + won(contract.JoinBonusMileage) + "을 드립니다.", from: -365, to: 365},
		{kind: contract.EventFirstCharge, eid: 1051, title: "첫 충전 보너스", body: "첫 충전 시 충전 금액의 " + strconv.Itoa(contract.FirstChargeBonusPct) + "%를 보너스로 드립니다.", from: -365, to: 365},
	}
	// Heroism: coupon events per comic writer with several works.
	var writers []int32
	byAuthor := map[int32][]int32{}
	for _, i := range comics {
		a := g.meta[i].author
		if len(byAuthor[a]) == 0 {
			writers = append(writers, a)
		}
		byAuthor[a] = append(byAuthor[a], i)
	}
	slices.SortStableFunc(writers, func(a, b int32) int { return cmp.Compare(len(byAuthor[b]), len(byAuthor[a])) })
	for k, a := range writers[:min(4, len(writers))] {
		au := g.auth[a]
		evs = append(evs, ev{
			kind: contract.EventHeroism, eid: 1031 + int64(k), section: contract.SectionComic,
			title: au.name + " 작가 기획전", body: au.name + " 작가의 작품을 쿠폰과 함께 만나보세요.",
			writer: strconv.FormatInt(au.id, 10), from: -7 + k, to: 14 + k, pool: byAuthor[a], n: 20, coupons: 3,
		})
	}

	deadline := map[int32]time.Time{}
	eventIDs := map[int32][]int64{}
	for _, e := range evs {
		out := contract.Event{
			EID: e.eid, Kind: e.kind, Title: e.title, Body: e.body, Section: e.section,
			BannerURL: "/img/banner/" + strconv.FormatInt(e.eid, 10) + ".svg",
			Writer:    e.writer, Coupons: e.coupons,
			StartAt: g.day(e.from), EndAt: g.dayEnd(e.to), Version: 1, PIDs: []string{},
		}
		live := e.from <= 0 && e.to >= 0
		for _, i := range sample(r, e.pool, e.n) {
			out.PIDs = append(out.PIDs, g.cat.Products[i].PID)
			if live {
				eventIDs[i] = append(eventIDs[i], e.eid)
				if d, ok := deadline[i]; !ok || out.EndAt.Before(d) {
					deadline[i] = out.EndAt
				}
			}
		}
		g.cat.Events = append(g.cat.Events, out)
	}
	slices.SortFunc(g.cat.Events, func(a, b contract.Event) int { return cmp.Compare(a.EID, b.EID) })
	for i, ids := range eventIDs {
		p := &g.cat.Products[i]
		slices.Sort(ids)
		p.EventIDs = slices.Compact(ids)
		p.EventDeadline = deadline[i]
	}
}

func (g *gen) awards(r *rand.Rand) {
	year := time.Unix(g.now, 0).In(kst).Year()
	section := func(key, title string, idx []int32) contract.AwardSection {
		s := contract.AwardSection{Key: key, Title: title}
		votes := int64(50000 + r.IntN(50000))
		for _, i := range sample(r, idx, 8) {
			s.List = append(s.List, contract.AwardCandidate{PID: g.cat.Products[i].PID, Votes: votes})
			votes = votes * int64(60+r.IntN(35)) / 100
		}
		slices.SortStableFunc(s.List, func(a, b contract.AwardCandidate) int { return cmp.Compare(b.Votes, a.Votes) })
		return s
	}
	recent := func(p *contract.Product) bool { return p.RegisteredAt.Unix() > g.now-365*secondsPerDay }
	mk := func(eid int64, y int, rt string, from, to int) contract.Award {
		return contract.Award{
			EID: eid, Title: strconv.Itoa(y) + " " + Brand + " 어워즈", ResultType: rt,
			StartAt: g.day(from), EndAt: g.dayEnd(to), Version: 1,
			Sections: []contract.AwardSection{
				section("webtoon", "올해의 웹툰", g.popular(contract.SectionWebtoon, 40, nil)),
				section("comic", "올해의 만화", g.popular(contract.SectionComic, 40, nil)),
				section("novel", "올해의 웹소설", g.popular(contract.SectionNovel, 40, nil)),
				section("rookie", "올해의 신작", g.popular("", 40, recent)),
			},
		}
	}
	g.cat.Awards = []contract.Award{
		mk(2001, year-1, "RESULT", -400, -330),
		mk(2002, year, "VOTING", -7, 14),
	}
}

func (g *gen) notices(r *rand.Rand) {
	general := []struct{ title, body string }{
		{"[점검] " + Brand + " 정기 점검 안내", "보다 안정적인 " + Brand + " 서비스를 위해 정기 점검을 진행합니다. 점검 시간 동안 결제와 감상이 일시 중단됩니다."},
		{"[안내] 개인정보 처리방침 개정 안내", "개인정보 처리방침이 일부 개정되어 안내드립니다. 개정된 방침은 공지일로부터 7일 후 시행됩니다."},
		{"[이벤트] 블루런 이벤트 당첨자 발표", "블루런 이벤트에 참여해 주신 모든 분께 감사드립니다. 당첨자는 마이페이지 선물함에서 확인하실 수 있습니다."},
		{"[안내] 블루머니 유효기간 안내", "충전한 블루머니의 유효기간은 충전일로부터 5년입니다. 이벤트로 받은 보너스 머니는 기간이 다를 수 있습니다."},
		{"[안내] " + Brand + " 앱 최신 버전 업데이트 안내", "안정적인 감상을 위해 " + Brand + " 앱을 최신 버전으로 업데이트해 주세요. 이전 버전에서는 일부 기능이 제한됩니다."},
		{"[안내] 기다리면 무료 이용 방법 변경", "기다리면 무료 작품의 최신화 일부는 기다리면 무료로 감상할 수 없습니다. 작품 상세에서 대상 회차를 확인하세요."},
		{"[안내] 점핑패스 출시 안내", "점핑패스로 대상 작품을 원하는 회차까지 바로 감상하세요."},
		{"[안내] 고객센터 운영 시간 변경", "고객센터 운영 시간이 평일 10시부터 18시까지로 변경됩니다."},
		{"[이벤트] 첫 충전 보너스 이벤트", "첫 충전 시 충전 금액의 " + strconv.Itoa(contract.FirstChargeBonusPct) + "%를 보너스로 드립니다."},
		{"[안내] 청소년 보호 정책 안내", "19세 이용가 작품은 성인 인증을 완료한 회원만 이용하실 수 있습니다."},
	}
	id := int64(1)
	for k := range 24 {
		n := general[k%len(general)]
		g.cat.Notices = append(g.cat.Notices, contract.Notice{
			ID: id, Kind: contract.NoticeGeneral, Title: n.title, Body: n.body,
			PostedAt: g.day(-k * 9).Add(10 * time.Hour), Version: 1,
		})
		id++
	}
	var ended []int32
	for i := range g.cat.Products {
		if g.cat.Products[i].FlagEnd && g.meta[i].main < 0 {
			ended = append(ended, int32(i))
		}
	}
	for k := range 6 {
		posted := g.day(-k * 30).Add(11 * time.Hour)
		when := posted.AddDate(0, 0, 30).In(kst).Format("2006년 1월 2일")
		n := contract.Notice{
			ID: id, Kind: contract.NoticeClosingProd, Title: "[판매종료] " + when + " 판매 종료 작품 안내",
			Body:     "출판사 및 저작권자의 요청으로 아래 작품의 판매가 " + when + "에 종료됩니다. 이미 구매하신 작품은 종료 후에도 계속 감상하실 수 있습니다.",
			PostedAt: posted, Version: 1,
		}
		for _, i := range sample(r, ended, 3+r.IntN(6)) {
			n.PIDs = append(n.PIDs, g.cat.Products[i].PID)
		}
		g.cat.Notices = append(g.cat.Notices, n)
		id++
	}
}

// DetailPath is the product detail route of a work.
func DetailPath(p *contract.Product) string {
	switch p.Section {
	case contract.SectionWebtoon:
		return "/webtoon/detail/" + p.PID
	case contract.SectionComic:
		return "/comic/detail/" + p.PID
	}
	return "/novel/detail/" + p.PID
}

func (g *gen) banners() {
	id := int64(1)
	add := func(place, title, link string, order int) {
		g.cat.Banners = append(g.cat.Banners, contract.Banner{
			ID: id, Place: place, Title: title, ImageURL: "/img/banner/" + strconv.FormatInt(id, 10) + ".svg",
			LinkURL: link, Order: order, StartAt: g.day(-3), EndAt: g.dayEnd(30), Version: 1,
		})
		id++
	}
	home := g.popular("", 4, nil)
	for k, i := range home {
		p := &g.cat.Products[i]
		add("home", p.Title, DetailPath(p), k+1)
	}
	add("home", "블루런 : 기다리면 무료 정주행", "/bluerun/1001", len(home)+1)
	add("home", "더블쿠폰 : 구매하면 쿠폰 두 배", "/doublecoupon/1011", len(home)+2)
	for _, sec := range sections {
		for k, i := range g.popular(sec, 4, nil) {
			p := &g.cat.Products[i]
			add(pidPrefix(sec), p.Title, DetailPath(p), k+1)
		}
	}
	add("topapp", "앱에서 더 편하게! 지금 설치하세요", "/", 1)
}

func (g *gen) quickLinks() {
	links := []struct{ title, icon, link string }{
		{"오늘 업데이트", "todayup", "/webtoon/todayup"},
		{"요일 웹툰", "weekday", "/webtoon/weekday"},
		{"오리지널", "original", "/webtoon/original"},
		{"만화 혜택", "benefit", "/comic/benefit"},
		{"소설 베스트", "best", "/novel/best"},
		{"어워즈", "awards", "/awards"},
		{"점핑패스", "jumpingpass", "/jumpingpass"},
		{"키워드", "keyword", "/keyword"},
		{"블루런", "bluerun", "/bluerun"},
		{"고객센터", "cs", "/cs"},
	}
	g.cat.QuickLinks = contract.QuickLinks{Version: 1}
	for _, l := range links {
		g.cat.QuickLinks.Links = append(g.cat.QuickLinks.Links, contract.QuickLink{Title: l.title, IconURL: "/icons/" + l.icon + ".svg", LinkURL: l.link})
	}
}

func (g *gen) jumpingPass() {
	jp := contract.JumpingPass{Title: "점핑패스", Price: 9900, Days: 30, Version: 1}
	titles := map[string]string{contract.SectionWebtoon: "웹툰", contract.SectionComic: "만화", contract.SectionNovel: "소설"}
	for _, sec := range sections {
		grp := contract.JumpingPassGroup{Key: pidPrefix(sec), Title: "점핑패스 " + titles[sec], PIDs: []string{}}
		for _, i := range g.popular(sec, 30, func(p *contract.Product) bool { return p.JumpingPass }) {
			grp.PIDs = append(grp.PIDs, g.cat.Products[i].PID)
		}
		jp.Sections = append(jp.Sections, grp)
	}
	g.cat.JumpingPass = jp
}

// won writes an amount the way the store's texts do: "3,000원".
func won(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + "원"
}
