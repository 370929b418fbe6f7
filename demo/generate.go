package demo

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"storefront/contract"
)

// Defaults of Options.
const (
	DefaultWorks = 3000
	// DefaultVolumesPerWork makes the default catalog about 100,000 volumes.
	DefaultVolumesPerWork = 100000.0 / DefaultWorks
)

// Options size and anchor a generated catalog.
type Options struct {
	// Seed selects the catalog: the same seed, options and Now give a
	// byte-identical catalog.
	Seed int64
	// Works is how many products; 0 means DefaultWorks.
	Works int
	// VolumesPerWork is the average number of volumes per work; 0 means
	// DefaultVolumesPerWork. Single works vary widely around it (a short story
	// has a handful of episodes, a long-running webtoon hundreds).
	VolumesPerWork float64
	// Now anchors release dates and event windows; zero means time.Now().
	// Most volumes lie in the past, a few are scheduled for 23:00 KST today or
	// tomorrow, and event windows are laid around it.
	Now time.Time
	// Progress, when set, is called from the generating goroutine with the
	// number of works done so far and the total.
	Progress func(done, total int)
}

// KST is Korean time (UTC+9, no daylight saving); release slots and event
// windows are laid out in it.
var kst = time.FixedZone("KST", 9*60*60)

const (
	secondsPerDay = 24 * 60 * 60
	kstOffset     = 9 * 60 * 60
	releaseHour   = contract.ReleaseHour
)

// RelatedSections names the related-content section codes (TC0001..TC0122)
// the generator fills. The others of the seed's range exist in the real store
// (theme and view-based recommendations) and stay empty in the demo.
var RelatedSections = map[string]string{
	"TC0008": "BL 보기",
	"TC0009": "성인 보기",
	"TC0010": "할리퀸 보기",
	"TC0011": "같은 장르 베스트",
	"TC0012": "작가의 다른 작품",
	"TC0013": "이 작품을 본 독자들이 본 작품",
	"TC0015": "같은 장르 신작",
	"TC0016": "완전판",
}

// Related-list codes used by the generator.
const (
	relBLView        = "TC0008" // BL works: the most viewed BL works of every section
	relAdultView     = "TC0009" // adult works: the most viewed adult works
	relHarlequinView = "TC0010" // finished romance comics (Harlequin-style)
	relSameGenreBest = "TC0011"
	relAuthorWorks   = "TC0012"
	relAlsoLiked     = "TC0013"
	relSameGenreNew  = "TC0015"
	relComplete      = "TC0016"
)

// work kinds beyond the section.
const (
	kindRegular = iota
	kindShort   // webtoon short story
	kindSerial  // novel published in episodes (화)
	kindSet     // special-price set of another work
	kindPackage // package of another work
)

// meta is what the generator keeps about a work between passes.
type meta struct {
	kind     int
	rawVols  int
	author   int32 // index of the first author in gen.authors
	main     int32 // for sets and packages: index of the main work, else -1
	price    int   // regular buy price of a volume
	rent     int   // regular rent price, 0 = not rentable
	free     int   // first free volumes
	lastPast int64 // unix seconds of the newest released volume
	step     int64 // seconds between volumes (0 = by weekday schedule)
	next     int64 // unix seconds of a volume scheduled ahead, 0 = none
}

type author struct {
	id   int64
	name string
}

type gen struct {
	opt   Options
	seed  uint64
	now   int64 // unix seconds
	pcg   *rand.PCG
	r     *rand.Rand
	cat   *Catalog
	meta  []meta
	auth  []author
	seen  map[string]struct{}
	units map[string][]string // unit -> interned "1화", "2화", ...
}

// Stream numbers keep the random streams of the parts apart, so adding a
// field to one part does not shift the others.
const (
	streamWork    = 0
	streamVolumes = 1 << 40
	streamAuthor  = 2 << 40
	streamRelated = 3 << 40
	streamExtras  = 4 << 40
)

func (g *gen) reseed(stream uint64) *rand.Rand {
	g.pcg.Seed(g.seed, stream*0x9E3779B97F4A7C15+0x632BE59BD9B4E019)
	return g.r
}

// Generate builds a catalog. It is deterministic: the same options (with the
// same Now) give the same catalog, down to the bytes of its JSON. Slices of pids
// in related lists may be shared between products: treat the catalog as read-only.
func Generate(opt Options) *Catalog {
	if opt.Works <= 0 {
		opt.Works = DefaultWorks
	}
	if opt.VolumesPerWork <= 0 {
		opt.VolumesPerWork = DefaultVolumesPerWork
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	pcg := rand.NewPCG(0, 0)
	g := &gen{
		opt:   opt,
		seed:  uint64(opt.Seed),
		now:   opt.Now.Unix(),
		pcg:   pcg,
		r:     rand.New(pcg),
		cat:   &Catalog{Seed: opt.Seed},
		seen:  make(map[string]struct{}, opt.Works),
		units: map[string][]string{},
	}
	g.makeAuthors()
	g.cat.Products = make([]contract.Product, opt.Works)
	g.meta = make([]meta, opt.Works)
	for i := range opt.Works {
		g.work(i)
		// Works and volumes take about the same time: each pass is half the bar.
		if opt.Progress != nil && i%512 == 0 {
			opt.Progress(i/2, opt.Works)
		}
	}
	g.volumes()
	g.related()
	g.extras()
	if opt.Progress != nil {
		opt.Progress(opt.Works, opt.Works)
	}
	return g.cat
}

func (g *gen) makeAuthors() {
	n := max(16, g.opt.Works*2/5)
	g.auth = make([]author, n)
	for i := range g.auth {
		r := g.reseed(streamAuthor + uint64(i))
		var name string
		switch x := r.IntN(100); {
		case x < 55:
			name = pick(r, surnames) + pick(r, givenSyllables)
			if r.IntN(20) != 0 {
				name += pick(r, givenSyllables)
			}
		case x < 95:
			name = pick(r, penPrefixes) + pick(r, penSuffixes)
		default:
			name = pick(r, studioNames)
		}
		g.auth[i] = author{id: 100001 + int64(i), name: name}
	}
}

// pickAuthor favours low indices, so a few authors have many works.
func (g *gen) pickAuthor(r *rand.Rand) int32 {
	u := r.Float64()
	return int32(u * u * u * float64(len(g.auth)))
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// weighted picks an index with probability proportional to w[i].
func weighted(r *rand.Rand, w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	n := r.IntN(total)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

// Genre weights per section, in contract.Genres order:
// romance bl erotic drama gl action fantasy thriller martial romancefantasy comedy daily school sports.
var genreWeights = map[string][]int{
	contract.SectionWebtoon: {18, 6, 0, 10, 1, 12, 12, 7, 5, 10, 6, 6, 5, 2},
	contract.SectionComic:   {12, 8, 0, 12, 1, 15, 12, 8, 8, 3, 10, 5, 5, 5},
	contract.SectionNovel:   {22, 12, 0, 4, 2, 3, 18, 5, 12, 20, 1, 1, 1, 0},
}

// Genres adult works come in (erotic most often).
var adultGenreWeights = []int{20, 15, 40, 8, 3, 3, 2, 6, 0, 3, 0, 0, 0, 0}

// category1Of maps a genre key to the seed's top-level tab.
func category1Of(key string) string {
	switch key {
	case "romance", "romancefantasy":
		return "romance"
	case "fantasy", "martial":
		return "fanmu"
	case "bl", "gl":
		return "bl"
	case "action", "thriller", "drama":
		return "series"
	}
	return "others"
}

// SubGenre is a novel sub-genre under a top-level tab.
type SubGenre struct {
	Key      string `json:"key"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// NovelSubGenres are the sub-genres novels are filed under (Product.SubGenre).
var NovelSubGenres = []SubGenre{
	{"modern-romance", "현대로맨스", "romance"},
	{"historical-romance", "시대로맨스", "romance"},
	{"romance-fantasy", "로맨스판타지", "romance"},
	{"modern-fantasy", "현대판타지", "fanmu"},
	{"fusion-fantasy", "퓨전판타지", "fanmu"},
	{"classic-martial", "정통무협", "fanmu"},
	{"new-martial", "신무협", "fanmu"},
	{"modern-bl", "현대BL", "bl"},
	{"fantasy-bl", "판타지BL", "bl"},
	{"mystery", "미스터리", "series"},
	{"light-novel", "라이트노벨", "others"},
}

var sections = []string{contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel}

func pidPrefix(section string) string {
	switch section {
	case contract.SectionWebtoon:
		return "wt"
	case contract.SectionComic:
		return "cm"
	}
	return "eb"
}

// PID returns the pid of the i-th work (from 0) of a section: "wt000001".
func PID(section string, i int) string {
	b := make([]byte, 0, 8)
	b = append(b, pidPrefix(section)...)
	n := strconv.Itoa(i + 1)
	for range 6 - len(n) {
		b = append(b, '0')
	}
	return string(append(b, n...))
}

func (g *gen) work(i int) {
	r := g.reseed(streamWork + uint64(i))
	p := &g.cat.Products[i]
	m := &g.meta[i]
	m.main = -1
	works := g.opt.Works

	// The last 2% are special-price sets and packages of earlier finished
	// comics and novels.
	if works >= 50 && i >= works-works/50 {
		if j := g.pickMain(r, i); j >= 0 {
			g.setOf(r, i, j)
			return
		}
	}

	p.Section = sections[weighted(r, []int{45, 25, 30})]
	p.PID = PID(p.Section, i)
	p.ThumbURL = "/img/cover/" + p.PID + ".svg"
	p.ThumbWideURL = "/img/wide/" + p.PID + ".svg"
	p.ServiceCode = 200
	p.Version = 1

	if r.IntN(100) < 10 {
		p.Age = 19
		p.GenreID = contract.Genres[weighted(r, adultGenreWeights)].ID
	} else {
		p.Age = []int{0, 12, 15}[weighted(r, []int{35, 30, 35})]
		p.GenreID = contract.Genres[weighted(r, genreWeights[p.Section])].ID
	}
	if i < len(curatedTitles) {
		p.GenreID = genreByKey(curatedTitles[i].genre).ID
	}
	genre := genreByID(p.GenreID)
	words := wordsOf(genre.Key)
	p.Category1 = category1Of(genre.Key)
	p.Category2 = genre.Name
	if p.Section == contract.SectionNovel && len(words.subGenres) > 0 {
		s := subGenreByKey(pick(r, words.subGenres))
		p.SubGenre = s.Key
		p.Category2 = s.Name
	}

	switch p.Section {
	case contract.SectionWebtoon:
		p.Unit = "화"
		if r.IntN(100) < 5 {
			m.kind = kindShort
			p.IsShortStory = true
		}
		p.FlagEnd = r.IntN(100) < 35 || m.kind == kindShort && r.IntN(2) == 0
	case contract.SectionComic:
		p.Unit = "권"
		p.FlagEnd = r.IntN(100) < 55
	default:
		if r.IntN(100) < 60 {
			m.kind = kindSerial
			p.Unit = "화"
		} else {
			p.Unit = "권"
		}
		p.FlagEnd = r.IntN(100) < 50
	}
	m.rawVols = rawVolumes(r, p.Section, m.kind, p.FlagEnd)

	g.authors(r, p, m)
	g.title(r, i, p, words)
	p.Summary = summaryOf(r, words)
	p.Provider = pick(r, providers)
	p.Keywords = keywordsOf(r, words)
	g.schedule(r, p, m)
	g.commerce(r, p, m)

	if r.IntN(100) < 8 {
		p.Trailers = []contract.Trailer{{Title: p.Title + " 티저", ImageURL: p.ThumbWideURL}}
	}
	if r.IntN(100) < 5 {
		p.Notices = []contract.ProductNotice{{
			ID:       int64(i + 1),
			Title:    "[" + p.Title + "] " + pick(r, noticeTitles),
			Body:     "항상 " + josa(p.Title, "을", "를") + " 사랑해 주시는 독자 여러분께 감사드립니다. 자세한 일정은 작품 공지를 통해 다시 안내드리겠습니다.",
			PostedAt: time.Unix(m.lastPast-int64(r.IntN(14)+1)*secondsPerDay, 0).UTC(),
		}}
	}
	if r.IntN(500) == 0 {
		p.ServiceCode = pick(r, []int{201, 202, 203})
	}
}

func genreByID(id string) contract.Genre {
	for _, g := range contract.Genres {
		if g.ID == id {
			return g
		}
	}
	return contract.Genre{}
}

func genreByKey(key string) contract.Genre {
	for _, g := range contract.Genres {
		if g.Key == key {
			return g
		}
	}
	return contract.Genre{}
}

func subGenreByKey(key string) SubGenre {
	for _, s := range NovelSubGenres {
		if s.Key == key {
			return s
		}
	}
	return SubGenre{}
}

// rawVolumes draws a volume count before scaling to Options.VolumesPerWork.
func rawVolumes(r *rand.Rand, section string, kind int, end bool) int {
	logn := func(median, sigma float64) int {
		return max(1, int(median*math.Exp(sigma*r.NormFloat64())))
	}
	switch {
	case kind == kindShort:
		return 1 + r.IntN(10)
	case section == contract.SectionWebtoon:
		if end {
			return min(400, logn(70, 0.6))
		}
		return min(400, logn(45, 0.8))
	case section == contract.SectionComic:
		return min(80, logn(8, 0.7))
	case kind == kindSerial:
		return min(600, logn(90, 0.7))
	}
	return min(30, logn(4, 0.6))
}

func (g *gen) authors(r *rand.Rand, p *contract.Product, m *meta) {
	a := g.pickAuthor(r)
	m.author = a
	mk := func(i int32, w, pt, orig bool) contract.Author {
		return contract.Author{AuthorID: g.auth[i].id, AuthorName: g.auth[i].name, IsWriter: w, IsPainter: pt, IsOriginalWriter: orig}
	}
	if p.Section == contract.SectionNovel {
		p.Authors = []contract.Author{mk(a, true, false, false)}
		return
	}
	// distinct moves i past the authors already credited.
	distinct := func(i int32, taken ...int32) int32 {
		for slices.Contains(taken, i) {
			i = (i + 1) % int32(len(g.auth))
		}
		return i
	}
	switch x := r.IntN(100); {
	case x < 50:
		p.Authors = []contract.Author{mk(a, true, true, false)}
	case x < 88:
		b := distinct(g.pickAuthor(r), a)
		p.Authors = []contract.Author{mk(a, true, false, false), mk(b, false, true, false)}
	default:
		// Adapted from a novel: the painter draws, the original writer is credited.
		b := distinct(g.pickAuthor(r), a)
		c := distinct(g.pickAuthor(r), a, b)
		p.Authors = []contract.Author{mk(a, true, false, false), mk(b, false, true, false), mk(c, false, false, true)}
	}
}

func (g *gen) title(r *rand.Rand, i int, p *contract.Product, w *genreWords) {
	if i < len(curatedTitles) {
		p.Title = curatedTitles[i].title
		g.seen[p.Title] = struct{}{}
		return
	}
	for try := 0; ; try++ {
		t := composeTitle(r, w)
		if try > 4 {
			t += " " + pick(r, subTitles)
		}
		if _, dup := g.seen[t]; !dup || try > 8 {
			g.seen[t] = struct{}{}
			p.Title = t
			break
		}
	}
	if r.IntN(100) < 8 {
		p.SubTitle = pick(r, subTitles)
	}
}

func characterName(r *rand.Rand) string {
	return pick(r, givenSyllables) + pick(r, givenSyllables)
}

// formatNames replaces the first two %s of tmpl with names and fixes the
// particle that follows each name (templates are written for names ending in a
// vowel: "%s는", "%s와", "%s가", "%s를", "%s다").
func formatNames(tmpl, a, b string) string {
	out := make([]byte, 0, len(tmpl)+len(a)+len(b)+3)
	n := 0
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] == '%' && i+1 < len(tmpl) && tmpl[i+1] == 's' {
			name := a
			if n == 1 {
				name = b
			}
			n++
			i++
			out = append(out, name...)
			if !hasBatchim(name) {
				continue
			}
			next, size := utf8.DecodeRuneInString(tmpl[i+1:])
			switch next {
			case '는':
				out, i = append(out, "은"...), i+size
			case '와':
				out, i = append(out, "과"...), i+size
			case '가':
				out, i = append(out, "이"...), i+size
			case '를':
				out, i = append(out, "을"...), i+size
			case '다':
				out = append(out, "이"...)
			}
			continue
		}
		out = append(out, tmpl[i])
	}
	return string(out)
}
