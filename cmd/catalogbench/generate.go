package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"storefront/contract"
	"storefront/demo"
)

// params are what the generated catalog depends on; their hash names the
// cached NATS store, so a change of any of them regenerates it.
type params struct {
	Works        int       `json:"works"`
	Volumes      int       `json:"volumes"` // target total, before the run's releases
	Seed         int64     `json:"seed"`
	Epoch        time.Time `json:"epoch"` // the writer's clock at generation: release times derive from it
	ReleaseShare float64   `json:"releaseShare"`
	ReviewShare  float64   `json:"reviewShare"`
	// Generator bumps when the generator's output changes for the same
	// parameters, so an old cache is never taken for a new one.
	Generator int `json:"generator"`
}

const generatorVersion = 1

func (p params) hash() string {
	b, _ := json.Marshal(p)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// Caps of a work's volume count by section: comics run to a few hundred
// books, webtoons to about 1,500 episodes, web novels to 10,000.
var volumeCap = map[string]int{contract.SectionWebtoon: 1500, contract.SectionComic: 300, contract.SectionNovel: 10000}

// Before scaling, a work's count is lognormal around a section median with a
// section spread: novels have the long tail.
var volumeShape = map[string]struct{ median, sigma float64 }{
	contract.SectionWebtoon: {60, 1.0},
	contract.SectionComic:   {10, 1.0},
	contract.SectionNovel:   {80, 1.6},
}

// Release intervals by section (weekly webtoons, monthly comic books, daily
// novel episodes), shortened for long works so no work starts before 12
// years ago.
var releaseEvery = map[string]time.Duration{contract.SectionWebtoon: 7 * 24 * time.Hour, contract.SectionComic: 30 * 24 * time.Hour, contract.SectionNovel: 24 * time.Hour}

const maxSpan = 12 * 365 * 24 * time.Hour

// contentVersion is one encoded version shared by many volumes, as the demo
// shares a pool of episodes: every volume carries a real version whose
// manifest and preview pages exist in the content store.
type contentVersion struct {
	Manifest contract.ContentManifest
}

const versionsPerSection = 8

// catalog is the generated store: the demo's works (titles, authors, genres,
// flags, counters) with volumes, reviews and rankings of a real store's size.
// Volumes are built per work on demand (volumesOf), never all at once.
type catalog struct {
	p         params
	prods     []contract.Product // demo metadata; Volumes nil
	counts    []int              // base volume count per work
	releasing []int              // works releasing a new volume at the run's T0
	isRel     []bool
	versions  map[string][]contentVersion
}

func newCatalog(p params) *catalog {
	dc := demo.Generate(demo.Options{Seed: p.Seed, Works: p.Works, VolumesPerWork: 1, Now: p.Epoch})
	c := &catalog{p: p, prods: dc.Products, versions: map[string][]contentVersion{}}
	for i := range c.prods {
		c.prods[i].Volumes = nil
	}
	c.makeCounts()
	c.makeVersions()
	r := rand.New(rand.NewPCG(uint64(p.Seed), 3))
	c.isRel = make([]bool, len(c.prods))
	for i := range c.prods {
		if r.Float64() < p.ReleaseShare && c.canRelease(i) {
			c.releasing = append(c.releasing, i)
			c.isRel[i] = true
		}
	}
	return c
}

// canRelease: an ongoing, visible, all-ages regular work (a new episode of
// an adult work needs a verified reader, sets and packages follow their
// main work).
func (c *catalog) canRelease(i int) bool {
	p := &c.prods[i]
	return !p.FlagEnd && !p.Hidden && !p.IsAdult() && p.ServiceCode == 200 && !p.IsPackage && !p.IsSpecialPriceSet && p.SpecialPriceSetMainSubdir == ""
}

// makeCounts draws every work's volume count and scales them to the target
// total: a few novels at the 10,000 cap and some over 6,000 are forced, so a
// small catalog has its long tail too.
func (c *catalog) makeCounts() {
	n := len(c.prods)
	r := rand.New(rand.NewPCG(uint64(c.p.Seed), 1))
	raw := make([]float64, n)
	for i := range c.prods {
		s := volumeShape[c.prods[i].Section]
		raw[i] = s.median * math.Exp(s.sigma*r.NormFloat64())
	}
	c.counts = make([]int, n)
	forced := make([]bool, n)
	target := c.p.Volumes
	var novels []int
	for i := range c.prods {
		if c.prods[i].Section == contract.SectionNovel {
			novels = append(novels, i)
		}
	}
	r.Shuffle(len(novels), func(a, b int) { novels[a], novels[b] = novels[b], novels[a] })
	huge, big := max(1, n/30000), max(2, n/6000)
	for k, i := range novels {
		switch {
		case k < huge:
			c.counts[i] = volumeCap[contract.SectionNovel]
		case k < huge+big:
			c.counts[i] = 6001 + r.IntN(3999)
		default:
			continue
		}
		forced[i] = true
		target -= c.counts[i]
	}
	sum := func(m float64) int {
		t := 0
		for i, x := range raw {
			if !forced[i] {
				t += min(volumeCap[c.prods[i].Section], max(1, int(math.Round(x*m))))
			}
		}
		return t
	}
	lo, hi := 0.0, 1.0
	for sum(hi) < target && hi < 1e9 {
		hi *= 2
	}
	for range 60 {
		mid := (lo + hi) / 2
		if sum(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	for i, x := range raw {
		if !forced[i] {
			c.counts[i] = min(volumeCap[c.prods[i].Section], max(1, int(math.Round(x*hi))))
		}
	}
}

// makeVersions makes the shared content versions: webtoon strips of 40-80
// segments, comic books of 150-250 pages, novel episodes of 5-20 chunks.
func (c *catalog) makeVersions() {
	r := rand.New(rand.NewPCG(uint64(c.p.Seed), 2))
	for _, sec := range []string{contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel} {
		for j := range versionsPerSection {
			sum := sha256.Sum256([]byte(fmt.Sprintf("catalogbench/%d/%s/%d", c.p.Seed, sec, j)))
			m := contract.ContentManifest{Ver: hex.EncodeToString(sum[:8]), Formats: []string{contract.FormatWebP}}
			switch sec {
			case contract.SectionNovel:
				m.Kind, m.Chunks = contract.MediaKindText, 5+r.IntN(16)
			default:
				m.Kind = contract.MediaKindImages
				pages, h := 40+r.IntN(41), 1600
				if sec == contract.SectionComic {
					pages, h = 150+r.IntN(101), 1024
				}
				for range pages {
					m.Pages = append(m.Pages, contract.ManifestPage{W: 720, H: h, Widths: []int{720}})
				}
			}
			c.versions[sec] = append(c.versions[sec], contentVersion{Manifest: m})
		}
	}
}

// workRand is work i's own stream: a work's documents do not depend on
// which other works were generated before it.
func (c *catalog) workRand(i int, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(c.p.Seed)^(stream<<40), uint64(i)))
}

// volumesOf is work i's base volumes (numbers 1..counts[i]), all released
// before the epoch.
func (c *catalog) volumesOf(i int) []contract.Volume {
	p := &c.prods[i]
	n := c.counts[i]
	r := c.workRand(i, 10)
	every := releaseEvery[p.Section]
	if n > 1 {
		every = min(every, maxSpan/time.Duration(n-1))
	}
	last := c.p.Epoch.Add(-time.Duration(r.Int64N(int64(20 * 24 * time.Hour))))
	if p.FlagEnd {
		last = c.p.Epoch.Add(-30*24*time.Hour - time.Duration(r.Int64N(int64(3*365*24*time.Hour))))
	}
	if c.isRel[i] {
		// The episode before the new one came out one interval before T0;
		// the run does not know T0 yet, so the epoch stands in.
		last = c.p.Epoch.Add(-min(every, 7*24*time.Hour))
	}
	last = last.Truncate(time.Second)
	vols := make([]contract.Volume, n)
	for k := range vols {
		vols[k] = c.volume(p, r, k+1, last.Add(-time.Duration(n-1-k)*every))
	}
	return vols
}

// Prices and free counts by section, as the demo's (won).
var (
	buyPrice  = map[string]int{contract.SectionWebtoon: 300, contract.SectionComic: 3500, contract.SectionNovel: 100}
	rentPrice = map[string]int{contract.SectionWebtoon: 0, contract.SectionComic: 1000, contract.SectionNovel: 0}
	freeFirst = map[string]int{contract.SectionWebtoon: 3, contract.SectionComic: 1, contract.SectionNovel: 5}
)

func (c *catalog) volume(p *contract.Product, r *rand.Rand, no int, at time.Time) contract.Volume {
	ver := c.versions[p.Section][r.IntN(versionsPerSection)].Manifest
	v := contract.Volume{
		No:          no,
		Title:       strconv.Itoa(no) + p.Unit,
		ReleaseAt:   at.UTC(),
		Pages:       ver.Count(),
		ContentBase: contract.ContentPrefix + p.PID + "/" + strconv.Itoa(no),
		ContentVer:  ver.Ver,
	}
	v.PreviewPages = min(2, v.Pages)
	v.BuyPriceOrg, v.RentPriceOrg = buyPrice[p.Section], rentPrice[p.Section]
	if no <= freeFirst[p.Section] {
		v.IsFree = true
		return v
	}
	disc := func(price int) int {
		if p.DiscountRate == 0 || price == 0 {
			return price
		}
		return price * (100 - p.DiscountRate) / 100 / 10 * 10
	}
	v.BuyPrice, v.RentPrice = disc(v.BuyPriceOrg), disc(v.RentPriceOrg)
	return v
}

// releaseVolume is the new volume a releasing work gets at t0.
func (c *catalog) releaseVolume(i int, t0 time.Time) contract.Volume {
	r := c.workRand(i, 11)
	return c.volume(&c.prods[i], r, c.counts[i]+1, t0)
}

// doc is one KV value to publish.
type doc struct {
	bucket, key string
	val         []byte
}

// workDocs are work i's head and pages with vols as its volumes, the head
// at version and its Recent list as of now.
func (c *catalog) workDocs(i int, vols []contract.Volume, now time.Time, version int64) ([]doc, error) {
	p := c.prods[i] // a copy: the head differs per run
	st := c.stat(i)
	p.ViewCnt, p.ZzimCount, p.ReviewCount, p.PointSum = st.ViewCnt, st.ZzimCount, st.ReviewCount, st.PointSum
	p.Volumes = vols
	p.RegisteredAt = vols[0].ReleaseAt
	p.UpdatedAt = vols[len(vols)-1].ReleaseAt
	p.Version = version
	// The writer's own split, so the benchmark serves what the relay publishes.
	p, pages := contract.SplitVolumes(&p, now)
	out := make([]doc, 0, len(pages)+1)
	// Pages before the head, as the writer publishes them: an edge never
	// holds a head whose pages are not there yet.
	for _, pg := range pages {
		b, err := json.Marshal(&pg)
		if err != nil {
			return nil, fmt.Errorf("encode page %s/%d: %w", p.PID, pg.Index, err)
		}
		out = append(out, doc{contract.VolumesBucket, contract.VolumePageKey(p.PID, pg.Index), b})
	}
	b, err := json.Marshal(&p)
	if err != nil {
		return nil, fmt.Errorf("encode head %s: %w", p.PID, err)
	}
	return append(out, doc{contract.CatalogBucket, contract.ProductKey(p.PID), b}), nil
}

// reviews is work i's review list, nil for the works without reviews.
func (c *catalog) reviews(i int) *contract.ReviewList {
	r := c.workRand(i, 12)
	if r.Float64() >= c.p.ReviewShare {
		return nil
	}
	n := min(300, max(1, int(math.Exp(2.3+1.2*r.NormFloat64()))))
	l := &contract.ReviewList{PID: c.prods[i].PID, Reviews: make([]contract.Review, n), Version: 1}
	at := c.p.Epoch.Truncate(time.Second)
	for k := range l.Reviews {
		at = at.Add(-time.Duration(r.Int64N(int64(48 * time.Hour))))
		l.Reviews[k] = contract.Review{
			ID:            int64(i)*1000 + int64(k) + 1,
			UserName:      string(rune('a'+r.IntN(26))) + string(rune('a'+r.IntN(26))) + "***",
			Body:          reviewBodies[r.IntN(len(reviewBodies))],
			Point:         6 + 2*r.IntN(3),
			Vol:           1 + r.IntN(c.counts[i]),
			IsBuyerReview: r.IntN(3) == 0,
			LikeCnt:       int(math.Exp(2 * r.Float64() * r.Float64() * 3)),
			IsSpoiler:     r.IntN(20) == 0,
			CreatedAt:     at,
		}
	}
	return l
}

var reviewBodies = []string{
	"다음 화가 너무 기다려져요. 작가님 건강 챙기시면서 연재해 주세요!",
	"그림체가 정말 예쁘고 스토리 전개도 탄탄해서 정주행했습니다.",
	"초반은 조금 느린데 중반부터 엄청 재밌어져요. 끝까지 보세요.",
	"주인공 성장 서사가 좋아요. 조연들도 다 매력 있음.",
	"이번 화 반전 미쳤다... 소름 돋았어요.",
	"완결까지 달립니다. 외전도 나왔으면 좋겠어요.",
	"번역이 자연스럽고 분량도 넉넉해서 만족합니다.",
	"기다리면 무료로 보다가 결국 다 결제했네요 ㅎㅎ",
}

// stat is work i's counters document.
func (c *catalog) stat(i int) contract.ProductStat {
	p := &c.prods[i]
	st := contract.ProductStat{PID: p.PID, ViewCnt: p.ViewCnt, ZzimCount: p.ZzimCount}
	if l := c.reviews(i); l != nil {
		st.ReviewCount = len(l.Reviews)
		for _, rv := range l.Reviews {
			st.PointSum += int64(rv.Point)
		}
	}
	return st
}

// rankingScopes are the scopes analytics ranks: all, each section, each genre.
func rankingScopes() []string {
	s := []string{"all", "wt", "cm", "eb"}
	for _, g := range contract.Genres {
		s = append(s, "genre-"+g.ID)
	}
	return s
}

var rankingTabs = []string{contract.RankReal, contract.RankDaily, contract.RankWeekly, contract.RankNew}

const rankingSize = 100

// rankings are every scope's and tab's ranking: the top works by views,
// each tab with its own noise; "new" among works registered in the last
// year.
func (c *catalog) rankings() []contract.Ranking {
	r := rand.New(rand.NewPCG(uint64(c.p.Seed), 4))
	secOf := map[string]string{"wt": contract.SectionWebtoon, "cm": contract.SectionComic, "eb": contract.SectionNovel}
	var out []contract.Ranking
	for _, scope := range rankingScopes() {
		for _, tab := range rankingTabs {
			type cand struct {
				i     int
				score float64
			}
			var cands []cand
			for i := range c.prods {
				p := &c.prods[i]
				if p.Hidden {
					continue
				}
				switch {
				case scope == "all":
				case len(scope) > 6 && scope[:6] == "genre-":
					if p.GenreID != scope[6:] {
						continue
					}
				default:
					if p.Section != secOf[scope] {
						continue
					}
				}
				if tab == contract.RankNew && c.counts[i] > 60 {
					continue
				}
				cands = append(cands, cand{i, float64(p.ViewCnt+1) * (0.5 + r.Float64())})
			}
			slices.SortFunc(cands, func(a, b cand) int {
				if a.score != b.score {
					if a.score > b.score {
						return -1
					}
					return 1
				}
				return a.i - b.i
			})
			rk := contract.Ranking{Scope: scope, Tab: tab, ComputedAt: c.p.Epoch, Items: []contract.RankingItem{}}
			for k, cd := range cands[:min(rankingSize, len(cands))] {
				rk.Items = append(rk.Items, contract.RankingItem{PID: c.prods[cd.i].PID, Rank: k + 1, Score: math.Round(cd.score), Delta: r.IntN(11) - 5})
			}
			out = append(out, rk)
		}
	}
	return out
}

// totalVolumes is the catalog's base volume count.
func (c *catalog) totalVolumes() int {
	t := 0
	for _, n := range c.counts {
		t += n
	}
	return t
}

// tail describes the volume counts' long tail.
type tail struct {
	Median   int `json:"median"`
	P90      int `json:"p90"`
	P99      int `json:"p99"`
	Max      int `json:"max"`
	Over1000 int `json:"over1000"`
	Over6000 int `json:"over6000"`
	At10000  int `json:"at10000"`
}

func (c *catalog) tail() tail {
	s := slices.Sorted(slices.Values(c.counts))
	t := tail{Median: s[len(s)/2], P90: s[len(s)*9/10], P99: s[len(s)*99/100], Max: s[len(s)-1]}
	for _, n := range s {
		if n > 1000 {
			t.Over1000++
		}
		if n > 6000 {
			t.Over6000++
		}
		if n >= 10000 {
			t.At10000++
		}
	}
	return t
}
