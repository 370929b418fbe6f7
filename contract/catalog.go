package contract

import "time"

// Section codes of the seed (§3): webtoon, comic, novel/ebook.
const (
	SectionWebtoon = "WT"
	SectionComic   = "CM"
	SectionNovel   = "EB"
)

// GenreCodeOf maps a section to the seed's genre code (wt, cm, nv).
func GenreCodeOf(section string) string {
	switch section {
	case SectionWebtoon:
		return "wt"
	case SectionComic:
		return "cm"
	case SectionNovel:
		return "nv"
	}
	return ""
}

// Genres are the seed's genre ids (§5). Others are ours and keep the two-digit form.
var Genres = []Genre{
	{ID: "21", Key: "romance", Name: "로맨스"},
	{ID: "22", Key: "bl", Name: "BL"},
	{ID: "12", Key: "erotic", Name: "성인"},
	{ID: "07", Key: "drama", Name: "드라마"},
	{ID: "27", Key: "gl", Name: "GL"},
	{ID: "24", Key: "action", Name: "액션"},
	{ID: "05", Key: "fantasy", Name: "판타지"},
	{ID: "23", Key: "thriller", Name: "스릴러"},
	{ID: "31", Key: "martial", Name: "무협"},
	{ID: "32", Key: "romancefantasy", Name: "로맨스판타지"},
	{ID: "33", Key: "comedy", Name: "코믹"},
	{ID: "34", Key: "daily", Name: "일상"},
	{ID: "35", Key: "school", Name: "학원"},
	{ID: "36", Key: "sports", Name: "스포츠"},
}

// Genre is one integrated genre.
type Genre struct {
	ID   string `json:"integratedGenreId"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

// Author of a work, as in the seed's product list item.
type Author struct {
	AuthorID         int64  `json:"authorId"`
	AuthorName       string `json:"authorName"`
	IsWriter         bool   `json:"isWriter"`
	IsPainter        bool   `json:"isPainter"`
	IsOriginalWriter bool   `json:"isOriginalWriter"`
}

// Product is the read model of one work (pid = the seed's subdir). The writer
// publishes it under ProductKey(pid) on every change, as a head whose volumes
// are in pages (contract/volumes.go); the edge derives every list, index and
// detail answer from the heads and, for volumes, the pages.
//
// Volumes carry their release time: a volume whose ReleaseAt lies in the future
// is delivered ahead of time and becomes visible by the edge's own clock.
type Product struct {
	PID      string `json:"pid"`
	Section  string `json:"section"` // WT, CM, EB
	Title    string `json:"title"`
	SubTitle string `json:"subTitle,omitempty"`
	// AltTitles are other names readers search the work by (an original
	// title, a translation, a common short name); search matches them as
	// it matches Title. Optional; at most MaxAltTitles.
	AltTitles    []string `json:"altTitles,omitempty"`
	Summary      string   `json:"summary"`
	Provider     string   `json:"provider"`
	ThumbURL     string   `json:"thumbUrl"`
	ThumbWideURL string   `json:"thumbWideUrl"`
	GenreID      string   `json:"genreId"`             // integratedGenreId, see Genres
	SubGenre     string   `json:"subGenre,omitempty"`  // novel sub-genre key
	Category1    string   `json:"category1,omitempty"` // tab: series, romance, fanmu, bl, others
	Category2    string   `json:"category2,omitempty"`
	Authors      []Author `json:"authors"`
	// Age is the content rating: 0 (all), 12, 15 or 19. 19 means adult.
	Age           int      `json:"age"`
	FlagEnd       bool     `json:"flagEnd"`
	Weekdays      []int    `json:"weekdays,omitempty"` // 0=Sunday .. 6=Saturday, KST
	UpdateCycle   string   `json:"updateCycle,omitempty"`
	IsOriginal    bool     `json:"isOriginal"`
	IsMonopoly    bool     `json:"isMonopoly"`
	IsShortStory  bool     `json:"isShortStory"`
	RightToLeft   bool     `json:"rightToLeft,omitempty"` // a comic read right to left (RightToLeft below)
	OriginalLabel string   `json:"originalLabel,omitempty"`
	Unit          string   `json:"unit"` // 화 or 권
	Keywords      []string `json:"keywords,omitempty"`
	// Coupon flags.
	WaitForFree bool `json:"waitForFree"`
	Gift        bool `json:"gift"`
	JumpingPass bool `json:"jumpingPass"`
	// WaitRecycle is the wait-for-free recycle time in minutes (wait = recycle × 60 seconds).
	WaitRecycle int `json:"waitRecycle,omitempty"`
	// WaitExcludeNewest is how many of the newest volumes wait-for-free cannot unlock.
	WaitExcludeNewest int `json:"waitExcludeNewest,omitempty"`
	// Special-price sets and packages.
	IsSpecialPriceSet         bool   `json:"isSpecialPriceSet"`
	IsPackage                 bool   `json:"isPackage"`
	SpecialPriceSetMainSubdir string `json:"specialPriceSetMainSubdir,omitempty"`
	SpecialPriceSetProdCnt    int    `json:"specialPriceSetProdCnt,omitempty"`
	// Commerce.
	CashbackRate  int       `json:"cashbackRate,omitempty"` // percent
	DiscountRate  int       `json:"discountRate,omitempty"` // percent
	EventDeadline time.Time `json:"eventDeadline,omitzero"`
	RentDays      int       `json:"rentDays,omitempty"` // rental term
	// Early access (issue 32, KakaoPage's 미리보기): the first EarlyCount
	// volumes still to be released, in release order, are sold (bought,
	// never rented) at EarlyPrice each before their release; EarlyEpisodes
	// picks them by a clock, so the next one takes the place of one that
	// came out without the document changing.
	EarlyCount int `json:"earlyCount,omitempty"`
	EarlyPrice int `json:"earlyPrice,omitempty"`
	// ServiceCode is the seed's detail header code: 200 ok, 201/203 service off, 202 payment off.
	ServiceCode int `json:"serviceCode"`
	// Metrics maintained by writer and analytics.
	ViewCnt     int64 `json:"viewCnt"`
	ReviewCount int   `json:"reviewCount"`
	PointSum    int64 `json:"pointSum"`
	ZzimCount   int64 `json:"zzimCount"`
	// Related lists by TC section code (TC0001..TC0122) -> pids.
	Related  map[string][]string `json:"related,omitempty"`
	Notices  []ProductNotice     `json:"notices,omitempty"`
	EventIDs []int64             `json:"eventIds,omitempty"`
	Trailers []Trailer           `json:"trailers,omitempty"`
	// Volumes inline is CatalogSchema 1 (contract/volumes.go): a head of
	// schema 2 leaves it empty and has VolumeIndex, its volumes in pages.
	Volumes     []Volume     `json:"volumes,omitempty"`
	VolumeIndex *VolumeIndex `json:"volumeIndex,omitempty"`
	// Hidden works are kept in the bucket (so an edge drops them) but never shown.
	Hidden       bool      `json:"hidden,omitempty"`
	RegisteredAt time.Time `json:"registeredAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	// Version grows with every change; an edge ignores an older document.
	Version int64 `json:"version"`
}

// Product.RightToLeft: a comic whose pages read right to left (most licensed
// manga in Korea); the viewer turns its pages and pairs its spreads that
// way. Comics only (the writer refuses it on a webtoon or a novel). It sits
// beside the other flags, in what was padding: the head grows by no word
// (edge/catalog's TestRightToLeftTakesNoWordOfTheHead).

// IsAdult reports whether the work is for adults only (age rating 19).
// MaxAltTitles bounds a work's AltTitles (each 1-200 characters).
const MaxAltTitles = 10

func (p *Product) IsAdult() bool { return AdultAge(p.Age) }

// AdultAge reports whether an age rating (0, 12, 15, 19) makes a work adults
// only, for services that hold the rating without the document.
func AdultAge(age int) bool { return age >= 19 }

// ProductStat is a work's counters (stat.<pid>), published on their own so
// that a zzim, a review or a view does not republish the whole work (issue
// 35: a work is one KV value with every volume inline). The counters are
// also in the work's document (prod.<pid>), as of when it was built: an edge
// applies whichever of the two comes later in the bucket, so an edge that
// does not know this key (a rolling upgrade) still shows the counters of
// each full document, and one that knows it takes old full documents as
// before. The writer builds both of one work under one lock, so the later
// in the bucket is never the older.
type ProductStat struct {
	PID         string `json:"pid"`
	ViewCnt     int64  `json:"viewCnt"`
	ReviewCount int    `json:"reviewCount"`
	PointSum    int64  `json:"pointSum"`
	ZzimCount   int64  `json:"zzimCount"`
}

// Volume is one episode or book of a work.
type Volume struct {
	No        int       `json:"no"`
	Title     string    `json:"title"`
	ReleaseAt time.Time `json:"releaseAt"`
	IsFree    bool      `json:"isFree"`
	// Prices in blue money (won). Zero rent price means not rentable.
	BuyPrice     int `json:"buyPrice"`
	BuyPriceOrg  int `json:"buyPriceOrg"`
	RentPrice    int `json:"rentPrice"`
	RentPriceOrg int `json:"rentPriceOrg"`
	// Content: for WT image strips, CM pages, EB text chunks. Pages is how many;
	// the viewer builds URLs from ContentBase + "/" + n.
	Pages       int    `json:"pages"`
	ContentBase string `json:"contentBase"`
	// PreviewPages are readable without an entitlement (the preview).
	PreviewPages int `json:"previewPages"`
	// ContentVer is the current version of the volume's processed content
	// (contract/media.go), "" until it has one; every object key and URL of
	// its pages derives from it. ContentRetired are replaced versions still
	// readable by those who opened them.
	ContentVer     string           `json:"contentVer,omitempty"`
	ContentRetired []RetiredContent `json:"contentRetired,omitempty"`
}

// ProductNotice is a notice shown on a work's detail page.
type ProductNotice struct {
	ID       int64     `json:"id"`
	Title    string    `json:"title"`
	Body     string    `json:"body"`
	PostedAt time.Time `json:"postedAt"`
}

// Trailer is a teaser of a work.
type Trailer struct {
	Title    string `json:"title"`
	ImageURL string `json:"imageUrl"`
	VideoURL string `json:"videoUrl,omitempty"`
}

// Event kinds.
const (
	EventBluerun      = "bluerun"
	EventDoubleCoupon = "doublecoupon"
	EventHoneyBenefit = "honeybenefit" // comic honey benefit
	EventHeroism      = "heroism"      // comic heroism coupons
	EventTicket       = "ticket"       // comic ticket event (18322)
	EventJoin         = "join"
	EventFirstCharge  = "firstcharge"
)

// ComicTicketEventID is the seed's comic ticket event id (§9).
const ComicTicketEventID = 18322

// Event is a promotion. Preview pages show it before StartAt.
type Event struct {
	EID       int64     `json:"eid"`
	Kind      string    `json:"kind"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	BannerURL string    `json:"bannerUrl"`
	Section   string    `json:"section,omitempty"`
	PIDs      []string  `json:"pids"`
	Writer    string    `json:"writer,omitempty"` // heroism writer key
	Coupons   int       `json:"coupons,omitempty"`
	StartAt   time.Time `json:"startAt"`
	EndAt     time.Time `json:"endAt"`
	Version   int64     `json:"version"`
}

// Award is an awards event with sections readers vote in.
type Award struct {
	EID        int64          `json:"eid"`
	Title      string         `json:"title"`
	ResultType string         `json:"resultType"` // VOTING, RESULT
	Sections   []AwardSection `json:"sections"`
	StartAt    time.Time      `json:"startAt"`
	EndAt      time.Time      `json:"endAt"`
	Version    int64          `json:"version"`
}

// AwardSection is one category of an award.
type AwardSection struct {
	Key   string           `json:"key"`
	Title string           `json:"title"`
	List  []AwardCandidate `json:"list"`
}

// AwardCandidate is a work in an award section with its vote count.
type AwardCandidate struct {
	PID   string `json:"pid"`
	Votes int64  `json:"votes"`
}

// FAQ categories (seed §5) map to cids.
var FAQCategories = map[string]string{
	"privacy": "01000",
	"payment": "02000",
	"comic":   "03100",
	"novel":   "03300",
	"etc":     "etc",
}

// FAQ is one customer-service question.
type FAQ struct {
	ID       int64  `json:"id"`
	CID      string `json:"cid"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Order    int    `json:"order"`
	Version  int64  `json:"version"`
}

// Notice kinds.
const (
	NoticeGeneral     = "notice"
	NoticeClosingProd = "closingprod"
)

// Notice is a site notice or a closing-products notice.
type Notice struct {
	ID       int64     `json:"id"`
	Kind     string    `json:"kind"`
	Title    string    `json:"title"`
	Body     string    `json:"body"`
	PIDs     []string  `json:"pids,omitempty"` // closing products
	PostedAt time.Time `json:"postedAt"`
	Version  int64     `json:"version"`
}

// Banner is a home or area banner.
type Banner struct {
	ID       int64     `json:"id"`
	Place    string    `json:"place"` // home, wt, cm, eb, topapp
	Title    string    `json:"title"`
	ImageURL string    `json:"imageUrl"`
	LinkURL  string    `json:"linkUrl"`
	Order    int       `json:"order"`
	StartAt  time.Time `json:"startAt"`
	EndAt    time.Time `json:"endAt"`
	Version  int64     `json:"version"`
}

// QuickLinks are the shortcut icons under the home banner.
type QuickLinks struct {
	Links   []QuickLink `json:"links"`
	Version int64       `json:"version"`
}

// QuickLink is one shortcut.
type QuickLink struct {
	Title   string `json:"title"`
	IconURL string `json:"iconUrl"`
	LinkURL string `json:"linkUrl"`
}

// Keyword is a curated keyword page; works match by Product.Keywords.
type Keyword struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Order   int    `json:"order"`
	Version int64  `json:"version"`
}

// Ranking tabs.
const (
	RankReal   = "real"
	RankDaily  = "daily"
	RankWeekly = "weekly"
	RankNew    = "new"
)

// Ranking is computed by analytics and served by the edges.
type Ranking struct {
	Scope      string        `json:"scope"` // all, wt, cm, eb, genre-<id>
	Tab        string        `json:"tab"`
	Items      []RankingItem `json:"items"`
	ComputedAt time.Time     `json:"computedAt"`
}

// RankingItem is one ranked work; Delta is the change against the previous ranking.
type RankingItem struct {
	PID   string  `json:"pid"`
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	Delta int     `json:"delta"`
}

// PopularSearches is the keywords most readers searched recently, computed by
// analytics (analytics/rankings/popular.go) and served by the edges under
// KeyPopularSearches.
type PopularSearches struct {
	Items []PopularSearch `json:"items"`
	// Window is how far back the searches counted (seconds).
	Window     int64     `json:"window"`
	ComputedAt time.Time `json:"computedAt"`
}

// PopularSearch is one keyword. Searchers is how many distinct members or
// devices searched it: one person searching a thousand times counts once.
// Adult: the keyword's top hit is an adult work; audiences that cannot see
// adult works are not shown the keyword.
type PopularSearch struct {
	Keyword   string `json:"keyword"`
	Rank      int    `json:"rank"`
	Searchers int    `json:"searchers"`
	Adult     bool   `json:"adult,omitempty"`
}

// ReviewList is every visible review of a work, newest first, published by the
// writer on each change. Per-user flags (isMyLike, blocked) are the writer's.
type ReviewList struct {
	PID     string   `json:"pid"`
	Reviews []Review `json:"reviews"`
	Version int64    `json:"version"`
}

// Review is one public review.
type Review struct {
	ID            int64     `json:"id"`
	UserName      string    `json:"userName"` // masked
	Body          string    `json:"body"`
	Point         int       `json:"point"`
	Vol           int       `json:"vol,omitempty"`
	IsBuyerReview bool      `json:"isBuyerReview"`
	LikeCnt       int       `json:"likeCnt"`
	IsSpoiler     bool      `json:"isSpoiler,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
}

// JumpingPass describes the jumping pass offer.
type JumpingPass struct {
	Title    string             `json:"title"`
	Price    int                `json:"price"`
	Days     int                `json:"days"`
	Sections []JumpingPassGroup `json:"sections"`
	Version  int64              `json:"version"`
}

// JumpingPassGroup is a section of the jumping pass page.
type JumpingPassGroup struct {
	Key   string   `json:"key"`
	Title string   `json:"title"`
	PIDs  []string `json:"pids"`
}

// SiteConfig holds site-wide values such as the web version code.
type SiteConfig struct {
	WebVersionCode int   `json:"webVersionCode"`
	Version        int64 `json:"version"`
}
