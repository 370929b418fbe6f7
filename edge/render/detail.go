package render

import (
	"slices"
	"time"

	"storefront/contract"
	"storefront/edge/catalog"
)

// ProdInfo is the seed's prodInfo (§3). Per-user fields (zzimId, isAlarm) are
// the writer's; the edge answers them empty.
type ProdInfo struct {
	Section                   string            `json:"section"`
	PID                       string            `json:"pid"`
	Title                     string            `json:"title"`
	SubTitle                  string            `json:"subTitle"`
	ThumbURL                  string            `json:"thumbUrl"`
	ThumbWideURL              string            `json:"thumbWideUrl"`
	GenreCode                 string            `json:"genreCode"`
	GenreID                   string            `json:"genreId"`
	SubGenre                  string            `json:"subGenre,omitempty"`
	Category1                 string            `json:"category1"`
	Category2                 string            `json:"category2"`
	Summary                   string            `json:"summary"`
	Provider                  string            `json:"provider"`
	Authors                   []contract.Author `json:"authors"`
	Age                       int               `json:"age"`
	IsAdult                   bool              `json:"isAdult"`
	UpdateState               string            `json:"updateState"` // NONE, UP, NEW
	FlagEnd                   string            `json:"flagEnd"`     // Y or N
	UpdateCycle               string            `json:"updateCycle"`
	Weekdays                  []int             `json:"weekdays"`
	IsOriginal                bool              `json:"isOriginal"`
	IsMonopoly                bool              `json:"isMonopoly"`
	IsShortStory              bool              `json:"isShortStory"`
	RightToLeft               bool              `json:"rightToLeft,omitempty"` // a comic read right to left
	OriginalLabel             string            `json:"originalLabel,omitempty"`
	ViewCnt                   int64             `json:"viewCnt"`
	Unit                      string            `json:"unit"`
	ZzimID                    int64             `json:"zzimId"`
	IsAlarm                   bool              `json:"isAlarm"`
	StartVolNo                int               `json:"startVolNo"`
	UpdateVolNo               int               `json:"updateVolNo"`
	VolCnt                    int               `json:"volCnt"`
	IsSpecialPriceSet         bool              `json:"isSpecialPriceSet"`
	IsPackage                 bool              `json:"isPackage"`
	SpecialPriceSetMainSubdir string            `json:"specialPriceSetMainSubdir"`
	SpecialPriceSetProdCnt    int               `json:"specialPriceSetProdCnt"`
	RegularVolCnt             int               `json:"regularVolCnt"`
	WaitForFree               bool              `json:"waitForFree"`
	Gift                      bool              `json:"gift"`
	JumpingPass               bool              `json:"jumpingPass"`
	WaitRecycle               int               `json:"waitRecycle"`
	LastUpdate                time.Time         `json:"lastUpdate"`
	NextReleaseAt             *time.Time        `json:"nextReleaseAt,omitempty"`
	// The seed's enumerations (§3) by the seed's names, next to the codes and
	// booleans above (contract.ContentType and the others define them).
	ContentType   string `json:"contentType"`   // WEBTOON, COMIC, NOVEL
	ReleaseTiming string `json:"releaseTiming"` // NONE, IMMEDIATE, TODAY
	FreeType      string `json:"freeType"`      // NONE, WAIT_FOR_FREE, GIFT, JUMPING_PASS
	Exclusivity   string `json:"exclusivity"`   // NONE, ORIGINAL, MONOPOLY
	ViewKind      string `json:"viewKind"`      // CONTENT, BLIND
}

// Vol is one entry of volList (§3) with the public parts of rentalInfo and buyInfo.
type Vol struct {
	No           int       `json:"no"`
	Title        string    `json:"title"`
	ReleaseAt    time.Time `json:"releaseAt"`
	IsFree       bool      `json:"isFree"`
	IsPreView    bool      `json:"isPreView"` // has public preview pages
	Pages        int       `json:"pages"`
	PreviewPages int       `json:"previewPages"`
	ContentBase  string    `json:"contentBase"`
	// MediaBase is the base of the processed content's current version
	// (contract.VolumeMediaBase), absent while the volume has none: the
	// viewer asks the manifest only then.
	MediaBase  string     `json:"mediaBase,omitempty"`
	RentalInfo RentalInfo `json:"rentalInfo"`
	BuyInfo    BuyInfo    `json:"buyInfo"`
	// IsEarly: sold early before its release (미리보기, earlyList only):
	// bought at buyInfo.price, never rented.
	IsEarly bool `json:"isEarly,omitempty"`
}

// RentalInfo of a volume; isAuth and authEndDate are per-user (the writer's).
type RentalInfo struct {
	IsAuth      bool   `json:"isAuth"`
	AuthEndDate string `json:"authEndDate"`
	Price       int    `json:"price"`
	PriceOrg    int    `json:"price_org"`
}

// BuyInfo of a volume; isAuth is per-user (the writer's).
type BuyInfo struct {
	IsAuth   bool `json:"isAuth"`
	Price    int  `json:"price"`
	PriceOrg int  `json:"price_org"`
}

// SalesPart is the buy or rental half of salesInfo.
type SalesPart struct {
	// Type is the seed's buy type of the part: B (buy) or R (rental).
	Type string `json:"type"`
	// Date is the last day (KST, 2006-01-02) the part's discount or cashback
	// holds, "" when its prices have no end.
	Date         string `json:"date"`
	Available    bool   `json:"available"`
	PriceMin     int    `json:"priceMin"`
	PriceMax     int    `json:"priceMax"`
	TotalPrice   int    `json:"totalPrice"`
	TotalCount   int    `json:"totalCount"`
	LeftPrice    int    `json:"leftPrice"`
	LeftCount    int    `json:"leftCount"`
	DiscountRate int    `json:"discountRate"`
	CashbackRate int    `json:"cashbackRate"`
	Term         int    `json:"term,omitempty"` // rental days
	FreeVolCnt   int    `json:"freeVolCnt"`
}

// SalesInfo is the public part of the seed's salesInfo.
type SalesInfo struct {
	Buy          SalesPart `json:"buy"`
	Rental       SalesPart `json:"rental"`
	IsBuy        bool      `json:"isBuy"`
	IsRental     bool      `json:"isRental"`
	IsTicket     bool      `json:"isTicket"`
	LastAuthType string    `json:"lastAuthType"`
	TicketExp    string    `json:"ticketExp"`
}

// ReviewInfo is the review summary of a work.
type ReviewInfo struct {
	Count     int     `json:"count"`
	IsDisplay bool    `json:"isDisplay"`
	Point     float64 `json:"point"`
	PointSum  int64   `json:"pointSum"`
}

// KeywordTag is a keyword of a work, with the id of its keyword page when curated.
type KeywordTag struct {
	ID   int64  `json:"id,omitempty"`
	Name string `json:"name"`
}

// Related is a related list by TC section code.
type Related struct {
	Code  string `json:"code"`
	Title string `json:"title"`
	List  []Item `json:"list"`
}

// Metric is the work's public counters.
type Metric struct {
	ViewCnt     int64 `json:"viewCnt"`
	ZzimCount   int64 `json:"zzimCount"`
	ReviewCount int   `json:"reviewCount"`
}

// EventRef is an event a work takes part in.
type EventRef struct {
	EID       int64     `json:"eid"`
	Kind      string    `json:"kind"`
	Title     string    `json:"title"`
	BannerURL string    `json:"bannerUrl"`
	EndAt     time.Time `json:"endAt"`
}

// AuthorZzim is one author a reader can favourite from the detail (seed
// authorZzims). ZzimID is per member, the writer's (zzim-list of type
// author); the edge answers it 0.
type AuthorZzim struct {
	AuthorID   int64  `json:"authorId"`
	AuthorName string `json:"authorName"`
	ZzimID     int64  `json:"zzimId"`
}

// Detail is the product detail answer.
type Detail struct {
	Header Header `json:"header"`
	// AdultVerificationNeeded: the work is for adults and the reader sees the
	// teen version; only pid, section and age are given.
	AdultVerificationNeeded bool     `json:"adultVerificationNeeded"`
	ProdInfo                ProdInfo `json:"prodInfo"`
	VolList                 []Vol    `json:"volList"`
	// EarlyList: volumes sold early (render.EarlyList).
	EarlyList   []Vol                    `json:"earlyList"`
	SalesInfo   *SalesInfo               `json:"salesInfo,omitempty"`
	ReviewInfo  *ReviewInfo              `json:"reviewInfo,omitempty"`
	KeywordTag  []KeywordTag             `json:"keywordTag"`
	Notices     []contract.ProductNotice `json:"notices"`
	Events      []EventRef               `json:"events"`
	Trailers    []contract.Trailer       `json:"trailers"`
	Related     []Related                `json:"related"`
	AuthorWorks []Item                   `json:"authorWorks"`
	AuthorZzims []AuthorZzim             `json:"authorZzims"`
	Metric      *Metric                  `json:"metric,omitempty"`
	// RecentViewVol is what the main button opens for a reader who has not
	// read the work: the first volume. It is the same for everyone, so the
	// cached answer holds no member state; a member's "이어보기" comes with
	// the writer's purchases/status answer, which the detail page asks anyway.
	RecentViewVol *contract.RecentViewVol `json:"recentViewVol"`
}

// TCTitles names the related-content section codes we fill.
var TCTitles = map[string]string{
	"TC0001": "연재", "TC0002": "단행본", "TC0003": "시리즈", "TC0004": "만화 보기", "TC0005": "소설 보기",
	"TC0006": "웹툰 보기", "TC0007": "테마", "TC0008": "BL 보기", "TC0009": "성인 보기", "TC0010": "할리퀸 보기", "TC0011": "같은 장르 베스트", "TC0012": "작가의 다른 작품",
	"TC0013": "이 작품을 본 독자가 좋아한 작품", "TC0014": "관련 이벤트", "TC0015": "같은 장르 신작",
	"TC0016": "완전판", "TC0017": "개정판",
}

// ProductDetail renders the detail of pid. It answers 404 for unknown or
// hidden works and the adult-verification-needed state for adult works in the
// teen version.
func ProductDetail(v *catalog.View, pid string) (int, any) {
	p := v.Lookup(pid)
	if p == nil {
		return 404, contract.Envelope{Header: Header{Code: 404, Message: "작품을 찾을 수 없습니다."}}
	}
	if !v.Visible(p) {
		return 200, Detail{
			Header:                  OK,
			AdultVerificationNeeded: true,
			ProdInfo: ProdInfo{PID: p.PID, Section: p.Section, Age: p.Age, IsAdult: true, UpdateState: "NONE", GenreCode: contract.GenreCodeOf(p.Section), Authors: []contract.Author{}, Weekdays: []int{},
				ContentType: contract.ContentType(p.Section), ReleaseTiming: contract.ReleaseNone, FreeType: "NONE", Exclusivity: "NONE", ViewKind: contract.ViewBlind},
			VolList: []Vol{}, EarlyList: []Vol{}, KeywordTag: []KeywordTag{}, Notices: []contract.ProductNotice{},
			Events: []EventRef{}, Trailers: []contract.Trailer{}, Related: []Related{}, AuthorWorks: []Item{}, AuthorZzims: []AuthorZzim{},
		}
	}
	n := v.VisibleCount(p)
	d := Detail{Header: OK, ProdInfo: prodInfo(v, p, n)}
	if p.ServiceCode != 0 {
		d.Header.Code = p.ServiceCode
	}
	d.VolList = volList(v, p, detailVolumes(v, p, n))
	d.EarlyList = EarlyList(v, p)
	buy, rent, _ := v.Sales(p)
	d.SalesInfo = salesInfo(p, buy, rent, v.FreeVolumes(p))
	avg := 0.0
	c := p.Counters() // one set: a counters update may land while this renders
	if c.ReviewCount > 0 {
		avg = float64(c.PointSum*10/int64(c.ReviewCount)) / 10
	}
	d.ReviewInfo = &ReviewInfo{Count: c.ReviewCount, IsDisplay: c.ReviewCount > 0, Point: avg, PointSum: c.PointSum}
	d.KeywordTag = []KeywordTag{}
	kws := v.Keywords()
	for _, k := range p.Keywords {
		t := KeywordTag{Name: k}
		for _, c := range kws {
			if c.Name == k {
				t.ID = c.ID
			}
		}
		d.KeywordTag = append(d.KeywordTag, t)
	}
	d.Notices = p.Notices
	if d.Notices == nil {
		d.Notices = []contract.ProductNotice{}
	}
	d.Trailers = p.Trailers
	if d.Trailers == nil {
		d.Trailers = []contract.Trailer{}
	}
	d.Events = []EventRef{}
	for _, e := range v.Events("", false) {
		if slices.Contains(e.PIDs, p.PID) || slices.Contains(p.EventIDs, e.EID) {
			d.Events = append(d.Events, EventRef{EID: e.EID, Kind: e.Kind, Title: e.Title, BannerURL: e.BannerURL, EndAt: e.EndAt})
		}
	}
	d.Related = []Related{}
	codes := make([]string, 0, len(p.Related))
	for c := range p.Related {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		var ps []*catalog.Prod
		for _, rp := range p.Related[c] {
			if q := v.Product(rp); q != nil {
				ps = append(ps, q)
			}
		}
		if len(ps) > 0 {
			d.Related = append(d.Related, Related{Code: c, Title: TCTitles[c], List: Items(v, ps)})
		}
	}
	d.AuthorWorks = Items(v, v.AuthorWorks(p, 12))
	d.AuthorZzims = make([]AuthorZzim, 0, len(p.Authors))
	for _, a := range p.Authors {
		d.AuthorZzims = append(d.AuthorZzims, AuthorZzim{AuthorID: a.AuthorID, AuthorName: a.AuthorName})
	}
	d.Metric = &Metric{ViewCnt: c.ViewCnt, ZzimCount: c.ZzimCount, ReviewCount: c.ReviewCount}
	if first, _ := v.VolumesRange(p, 0, 1); len(first) > 0 {
		rv := contract.ViewVol(&first[0], false, false, false)
		d.RecentViewVol = &rv
	}
	return 200, d
}

// A paged work's detail lists every volume up to catalog.DetailVolumesMax,
// as the viewer and the unlock dialog of the frontend expect (they look
// volumes up in the detail's volList); beyond it the first and the newest
// contract.VolumePageSize (volCnt says how many there are), the rest coming
// from /products/{pid}/volumes page by page: a detail of 10,000 episodes
// would be 2.5 MB and read 100 pages. A work held inline lists every volume
// as it always has.
// detailVolumes is the volumes the detail lists: n is how many are out.
func detailVolumes(v *catalog.View, p *catalog.Prod, n int) []contract.Volume {
	if !p.Paged() || n <= catalog.DetailVolumesMax {
		vols, _ := v.VolumesRange(p, 0, n)
		return vols
	}
	first, _ := v.VolumesRange(p, 0, contract.VolumePageSize)
	last, _ := v.VolumesRange(p, n-contract.VolumePageSize, n)
	return append(first, last...)
}

// releaseTiming is the seed's release timing of p at the view's time.
func releaseTiming(v *catalog.View, p *catalog.Prod, next *time.Time) string {
	if v.UpToday(p) {
		return contract.ReleaseImmediate
	}
	if next != nil {
		// Today is the release day, which its own 23:00 release ends
		// (contract.ReleaseDayStart): tonight's 23:00 episode is today's.
		end := contract.NextReleaseDay(v.Now)
		if !next.After(end) {
			return contract.ReleaseToday
		}
		// Tomorrow's release becomes today's when this release day ends.
		v.Until(end)
	}
	return contract.ReleaseNone
}

func prodInfo(v *catalog.View, p *catalog.Prod, n int) ProdInfo {
	pi := ProdInfo{
		Section: p.Section, PID: p.PID, Title: p.Title, SubTitle: p.SubTitle, ThumbURL: p.ThumbURL,
		ThumbWideURL: p.ThumbWideURL, GenreCode: contract.GenreCodeOf(p.Section), GenreID: p.GenreID,
		SubGenre: p.SubGenre, Category1: p.Category1, Category2: p.Category2, Summary: p.Summary,
		Provider: p.Provider, Authors: p.Authors, Age: p.Age, IsAdult: p.IsAdult(), UpdateState: "NONE",
		FlagEnd: yn(p.FlagEnd), UpdateCycle: p.UpdateCycle, Weekdays: p.Weekdays, IsOriginal: p.IsOriginal,
		IsMonopoly: p.IsMonopoly, IsShortStory: p.IsShortStory, RightToLeft: p.RightToLeft, OriginalLabel: p.OriginalLabel, ViewCnt: p.ViewCnt(),
		Unit: p.Unit, VolCnt: n, IsSpecialPriceSet: p.IsSpecialPriceSet, IsPackage: p.IsPackage,
		SpecialPriceSetMainSubdir: p.SpecialPriceSetMainSubdir, SpecialPriceSetProdCnt: p.SpecialPriceSetProdCnt,
		WaitForFree: p.WaitForFree, Gift: p.Gift, JumpingPass: p.JumpingPass, WaitRecycle: p.WaitRecycle,
		LastUpdate: v.LastUpdate(p),
	}
	if pi.Authors == nil {
		pi.Authors = []contract.Author{}
	}
	if pi.Weekdays == nil {
		pi.Weekdays = []int{}
	}
	if v.UpToday(p) {
		pi.UpdateState = "UP"
	} else if v.IsNew(p) {
		pi.UpdateState = "NEW"
	}
	if n > 0 {
		if first, _ := v.VolumesRange(p, 0, 1); len(first) == 1 {
			pi.StartVolNo = first[0].No
		}
		if last, _ := v.VolumesRange(p, n-1, n); len(last) == 1 {
			pi.UpdateVolNo = last[0].No
		}
	}
	pi.RegularVolCnt = n - v.FreeVolumes(p)
	pi.NextReleaseAt = v.NextRelease(p)
	pi.ContentType = contract.ContentType(p.Section)
	pi.ReleaseTiming = releaseTiming(v, p, pi.NextReleaseAt)
	pi.FreeType = contract.FreeType(&p.Product)
	pi.Exclusivity = contract.Exclusivity(&p.Product)
	pi.ViewKind = contract.ViewContent
	return pi
}

func volList(v *catalog.View, p *catalog.Prod, vols []contract.Volume) []Vol {
	out := make([]Vol, 0, len(vols))
	for _, vol := range vols {
		out = append(out, Vol{
			No: vol.No, Title: vol.Title, ReleaseAt: vol.ReleaseAt, IsFree: vol.IsFree,
			IsPreView: vol.PreviewPages > 0, Pages: vol.Pages, PreviewPages: vol.PreviewPages,
			ContentBase: vol.ContentBase, MediaBase: mediaBase(p.PID, &vol),
			RentalInfo: RentalInfo{Price: vol.RentPrice, PriceOrg: vol.RentPriceOrg},
			BuyInfo:    BuyInfo{Price: vol.BuyPrice, PriceOrg: vol.BuyPriceOrg},
		})
	}
	return out
}

// EarlyList is p's volumes sold early by the view's clock (미리보기, issue
// 32), from the head alone: number, title, release and the early price as
// buyInfo.price; rentalInfo stays zero (never rented). Always in release
// order, whatever the list's order: they come after every released one.
func EarlyList(v *catalog.View, p *catalog.Prod) []Vol {
	early := v.EarlyVolumes(p)
	out := make([]Vol, 0, len(early))
	for _, r := range early {
		out = append(out, Vol{No: r.No, Title: r.Title, ReleaseAt: r.At, IsEarly: true,
			ContentBase: contract.ContentBase(p.PID, r.No), BuyInfo: BuyInfo{Price: p.EarlyPrice, PriceOrg: p.EarlyPrice}})
	}
	return out
}

// mediaBase is the base URL of vol's current processed content, "" while
// it has none.
func mediaBase(pid string, vol *contract.Volume) string {
	if vol.ContentVer == "" {
		return ""
	}
	return contract.VolumeMediaBase(pid, vol.No, vol.ContentVer)
}

// salesInfo is the sales summary from the paid offers of the volumes out
// (catalog.View.Sales) and the free ones' count.
func salesInfo(p *catalog.Prod, buy, rent contract.PriceSpan, free int) *SalesInfo {
	si := &SalesInfo{}
	si.Buy.PriceMin, si.Buy.PriceMax, si.Buy.TotalCount, si.Buy.TotalPrice = buy.Min, buy.Max, buy.Count, buy.Total
	si.Rental.PriceMin, si.Rental.PriceMax, si.Rental.TotalCount, si.Rental.TotalPrice = rent.Min, rent.Max, rent.Count, rent.Total
	for _, part := range []*SalesPart{&si.Buy, &si.Rental} {
		part.Available = part.TotalCount > 0
		// Per-user: nothing owned from the edge's point of view.
		part.LeftCount, part.LeftPrice = part.TotalCount, part.TotalPrice
		part.DiscountRate, part.CashbackRate, part.FreeVolCnt = p.DiscountRate, p.CashbackRate, free
	}
	si.Buy.Type, si.Rental.Type = contract.BuyTypeBuy, contract.BuyTypeRental
	if !p.EventDeadline.IsZero() && (p.DiscountRate > 0 || p.CashbackRate > 0) {
		si.Buy.Date = p.EventDeadline.In(contract.KST).Format(time.DateOnly)
		si.Rental.Date = si.Buy.Date
	}
	si.Rental.Term = p.RentDays
	si.IsBuy, si.IsRental = si.Buy.Available, si.Rental.Available
	si.IsTicket = p.Section == contract.SectionComic || p.Section == contract.SectionNovel
	return si
}

// VolumeOrder values.
const (
	OrderOld    = "old"
	OrderLatest = "latest"
)

// VolumeList is the volume list answer.
type VolumeList struct {
	Header  Header `json:"header"`
	PID     string `json:"pid"`
	Order   string `json:"order"`
	VolList []Vol  `json:"volList"`
	// EarlyList is the same on every page (render.EarlyList).
	EarlyList []Vol  `json:"earlyList"`
	Paging    Paging `json:"paging"`
}

// VolumesOf renders pid's visible volumes in order (old or latest); a
// special-price set is always oldest first.
func VolumesOf(v *catalog.View, pid, order string, page, size int) (int, any) {
	p := v.Lookup(pid)
	if p == nil {
		return 404, contract.Envelope{Header: Header{Code: 404, Message: "작품을 찾을 수 없습니다."}}
	}
	if !v.Visible(p) {
		return 403, contract.Envelope{Header: Header{Code: 403, Message: "성인 인증이 필요합니다."}}
	}
	if p.IsSpecialPriceSet {
		order = OrderOld
	}
	n := v.VisibleCount(p)
	lo, hi, pg := Page(n, page, size)
	if order == OrderLatest {
		lo, hi = n-hi, n-lo
	}
	vols, _ := v.VolumesRange(p, lo, hi)
	list := volList(v, p, vols)
	if order == OrderLatest {
		slices.Reverse(list)
	}
	return 200, VolumeList{Header: OK, PID: p.PID, Order: order, VolList: list, EarlyList: EarlyList(v, p), Paging: pg}
}

// RelatedOf renders a work's related lists (one TC code or all).
func RelatedOf(v *catalog.View, pid, code string) (int, any) {
	st, d := ProductDetail(v, pid)
	det, ok := d.(Detail)
	if st != 200 || !ok {
		return st, d
	}
	if det.AdultVerificationNeeded {
		return 403, contract.Envelope{Header: Header{Code: 403, Message: "성인 인증이 필요합니다."}}
	}
	out := []Related{}
	for _, r := range det.Related {
		if code == "" || r.Code == code {
			out = append(out, r)
		}
	}
	if code == "" || code == "TC0012" {
		if len(det.AuthorWorks) > 0 && (code == "TC0012" && len(out) == 0 || code == "") {
			out = append(out, Related{Code: "TC0012", Title: TCTitles["TC0012"], List: det.AuthorWorks})
		}
	}
	return 200, struct {
		Header  Header    `json:"header"`
		Related []Related `json:"related"`
	}{OK, out}
}
