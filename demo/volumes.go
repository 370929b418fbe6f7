package demo

import (
	"math"
	"slices"
	"strconv"
	"time"

	"storefront/contract"
)

// volumes lays out every work's volumes, scaled so the catalog averages
// Options.VolumesPerWork.
func (g *gen) volumes() {
	total := 0
	for i := range g.meta {
		total += g.meta[i].rawVols
	}
	scale := g.opt.VolumesPerWork * float64(len(g.meta)) / float64(max(1, total))
	works := len(g.meta)
	counts := make([]int, works)
	all := 0
	for i := range g.meta {
		m := &g.meta[i]
		r := g.reseed(streamVolumes + uint64(i))
		var n int
		if m.main >= 0 {
			n = counts[m.main]
		} else {
			x := float64(m.rawVols) * scale
			n = int(x)
			if r.Float64() < x-math.Floor(x) {
				n++
			}
			n = max(1, n)
		}
		if m.next != 0 {
			n = max(2, n)
		}
		counts[i] = n
		all += n
	}
	// One slab holds every volume: far fewer allocations than one slice per
	// work. Each work's slice is capacity-limited, so an append copies.
	slab := make([]contract.Volume, all)
	var times []int64
	for i := range g.cat.Products {
		r := g.reseed(streamVolumes + uint64(i))
		r.Float64() // drawn by the counting pass above
		p := &g.cat.Products[i]
		m := &g.meta[i]
		n := counts[i]
		past := n
		if m.next != 0 {
			past = n - 1
		}
		var days uint8
		for _, d := range p.Weekdays {
			days |= 1 << d
		}
		times = slices.Grow(times[:0], n)[:n]
		times[past-1] = m.lastPast
		for k := past - 2; k >= 0; k-- {
			t := times[k+1]
			switch {
			case m.step > 0:
				t -= m.step
			case m.step < 0:
			default:
				t -= secondsPerDay
				for days&(1<<weekdayOf(t)) == 0 {
					t -= secondsPerDay
				}
			}
			times[k] = t
		}
		if m.next != 0 {
			times[n-1] = m.next
		}

		free := min(m.free, n-1)
		if p.WaitForFree {
			p.WaitExcludeNewest = min(p.WaitExcludeNewest, max(0, n-free-1))
		}
		disc := func(price int) int {
			if p.DiscountRate == 0 || price == 0 {
				return price
			}
			return roundTo(price*(100-p.DiscountRate)/100, 10)
		}

		// One backing string holds every ContentBase of the work: one allocation
		// instead of one per volume.
		buf := make([]byte, 0, n*(len(contract.ContentPrefix)+len(p.PID)+1+len(strconv.Itoa(n))))
		for k := range n {
			buf = append(buf, contract.ContentPrefix...)
			buf = append(buf, p.PID...)
			buf = append(buf, '/')
			buf = strconv.AppendInt(buf, int64(k+1), 10)
		}
		bases := string(buf)

		titles := g.volTitles(p.Unit, n)
		p.Volumes = slab[:n:n]
		slab = slab[n:]
		start := 0
		for k := range n {
			v := &p.Volumes[k]
			v.No = k + 1
			v.Title = titles[k]
			v.ReleaseAt = time.Unix(times[k], 0).UTC()
			end := start + len(contract.ContentPrefix) + len(p.PID) + 1 + decimalLen(v.No)
			v.ContentBase = bases[start:end]
			start = end
			// The page count is the pooled episode's (pool.go). The draw
			// stays, so every later field of the catalog is what it was
			// before the pool (e2e tests and saved demo links name works).
			switch p.Section {
			case contract.SectionWebtoon:
				_ = r.IntN(6)
			case contract.SectionComic:
				_ = r.IntN(13)
			default:
				_ = r.IntN(4)
			}
			v.Pages = PoolPages(p.Section)
			v.PreviewPages = min(2, v.Pages)
			v.BuyPriceOrg, v.RentPriceOrg = m.price, m.rent
			if v.No <= free {
				v.IsFree = true
				continue
			}
			v.BuyPrice, v.RentPrice = disc(m.price), disc(m.rent)
		}
		p.RegisteredAt = p.Volumes[0].ReleaseAt
		p.UpdatedAt = p.Volumes[past-1].ReleaseAt
		if m.main >= 0 {
			p.SpecialPriceSetProdCnt = n
			// A set sells the main work again: a tenth of its audience.
			main := &g.cat.Products[m.main]
			p.ViewCnt, p.ZzimCount = main.ViewCnt/10, main.ZzimCount/10
			p.ReviewCount = main.ReviewCount / 10
			if main.ReviewCount > 0 {
				p.PointSum = main.PointSum * int64(p.ReviewCount) / int64(main.ReviewCount)
			}
		} else {
			g.metrics(r, p, past)
		}
		if g.opt.Progress != nil && i%512 == 0 {
			g.opt.Progress(works/2+i/2, works)
		}
	}
}

func decimalLen(n int) int {
	l := 1
	for n >= 10 {
		n /= 10
		l++
	}
	return l
}

// volTitles returns the titles "1화".."n화" (or 권), shared between works.
func (g *gen) volTitles(unit string, n int) []string {
	t := g.units[unit]
	for len(t) < n {
		t = append(t, strconv.Itoa(len(t)+1)+unit)
	}
	g.units[unit] = t
	return t[:n]
}
