package demo

import (
	"math"
	"math/rand/v2"

	"storefront/contract"
)

func roundTo(x, unit int) int { return max(unit, (x+unit/2)/unit*unit) }

func (g *gen) commerce(r *rand.Rand, p *contract.Product, m *meta) {
	switch {
	case p.Unit == "화":
		m.price = []int{100, 200, 300, 400, 500}[weighted(r, []int{45, 25, 20, 5, 5})]
		if p.Section == contract.SectionNovel {
			m.price = 100
		}
		if m.price >= 200 {
			m.rent = roundTo(m.price/2, 10)
		}
		p.RentDays = 3
		m.free = 1 + r.IntN(5)
	default:
		m.price = 3000 + 500*r.IntN(5)
		m.rent = roundTo(m.price*(30+r.IntN(11))/100, 100)
		p.RentDays = 7
		if r.IntN(100) < 40 {
			m.free = 1
		}
	}
	if r.IntN(100) < 8 {
		p.DiscountRate = pick(r, []int{10, 20, 30, 50})
	}
	if r.IntN(100) < 5 {
		p.CashbackRate = pick(r, []int{10, 20, 30})
	}
	waitShare := 10
	if p.Unit == "화" {
		waitShare = 40
	}
	if r.IntN(100) < waitShare && m.kind != kindShort {
		p.WaitForFree = true
		p.WaitRecycle = []int{1440, 720, 4320, 2880, 180}[weighted(r, []int{50, 15, 15, 15, 5})]
		if !p.FlagEnd {
			p.WaitExcludeNewest = 3 + r.IntN(8)
		}
	}
	p.Gift = r.IntN(100) < 15
	jp := 15
	if p.Section == contract.SectionWebtoon {
		jp = 5
	}
	p.JumpingPass = r.IntN(100) < jp
	switch {
	case p.Section != contract.SectionComic && r.IntN(100) < 15:
		p.IsOriginal = true
		p.OriginalLabel = Brand + " 오리지널"
	case r.IntN(100) < 20:
		p.IsMonopoly = true
		p.OriginalLabel = "독점"
	}
}

// Readers plausible for a work: a median work has a few thousand, a hit a
// few hundred thousand to a couple of million. Caps tie them to what the work
// could have gathered: per released volume (a 3-volume comic is no
// million-reader hit) and per day since its first volume.
const (
	maxReaders          = 2_000_000
	maxReadersPerVolume = 60_000
	maxReadersPerDay    = 20_000
	maxViewsPerDay      = 1_000_000
)

var medianReaders = map[string]float64{contract.SectionWebtoon: 5000, contract.SectionComic: 1500, contract.SectionNovel: 2500}

// metrics sets views, reviews, points and zzims from the work's audience,
// its released volumes and its age, so they agree with each other: every
// review and zzim comes from a reader, every reader views at least once and
// reads part of the volumes.
func (g *gen) metrics(r *rand.Rand, p *contract.Product, released int) {
	ageDays := max(0, (g.now-p.RegisteredAt.Unix())/secondsPerDay)
	readers := medianReaders[p.Section] * math.Exp(1.4*r.NormFloat64())
	if p.IsOriginal {
		readers *= 2.5
	}
	readers = min(readers, maxReaders, float64(maxReadersPerVolume*released), float64(maxReadersPerDay*(ageDays+1)))
	n := max(1, int64(readers))
	// Readers drop off: on average a reader reads 20-60% of a long work.
	depth := max(1, float64(released)*(0.2+0.4*r.Float64()))
	p.ViewCnt = min(int64(float64(n)*depth), maxViewsPerDay*(ageDays+1))
	p.ReviewCount = int(float64(n) * (0.002 + 0.028*r.Float64()))
	// Review points are 1..5; a work's average lies between 3.2 and 5.
	avg := 3.2 + 1.8*r.Float64()
	p.PointSum = int64(float64(p.ReviewCount) * avg)
	p.ZzimCount = int64(float64(n) * (0.05 + 0.25*r.Float64()))
}

// pickMain chooses the finished comic or novel a set or package bundles.
func (g *gen) pickMain(r *rand.Rand, i int) int {
	for range 20 {
		j := r.IntN(i)
		p := &g.cat.Products[j]
		if g.meta[j].main < 0 && p.FlagEnd && p.Unit == "권" && !p.IsSpecialPriceSet && !p.IsPackage && g.meta[j].rawVols > 1 {
			return j
		}
	}
	return -1
}

func (g *gen) setOf(r *rand.Rand, i, j int) {
	main := &g.cat.Products[j]
	p := &g.cat.Products[i]
	m := &g.meta[i]
	*m = g.meta[j]
	m.main = int32(j)
	m.free = 0
	*p = contract.Product{
		Section: main.Section, Summary: main.Summary, Provider: main.Provider,
		GenreID: main.GenreID, SubGenre: main.SubGenre, Category1: main.Category1, Category2: main.Category2,
		Authors: main.Authors, Age: main.Age, FlagEnd: true, UpdateCycle: "완결", Unit: main.Unit,
		Keywords: main.Keywords, ServiceCode: 200, Version: 1, RentDays: main.RentDays,
	}
	p.PID = PID(p.Section, i)
	p.ThumbURL = "/img/cover/" + p.PID + ".svg"
	p.ThumbWideURL = "/img/wide/" + p.PID + ".svg"
	p.SpecialPriceSetMainSubdir = main.PID
	if r.IntN(4) == 0 {
		m.kind = kindPackage
		p.IsPackage = true
		p.Title = main.Title + " 완결 패키지"
		p.DiscountRate = 20
	} else {
		m.kind = kindSet
		p.IsSpecialPriceSet = true
		p.Title = main.Title + " 특가세트"
		p.DiscountRate = pick(r, []int{30, 40, 50})
	}
	m.rent = 0
}
