package demo

import (
	"cmp"
	"slices"

	"storefront/contract"
)

const relatedLen = 10

// related fills every work's related lists from indexes over the whole catalog.
func (g *gen) related() {
	ps := g.cat.Products
	ng := len(contract.Genres)
	group := func(i int) int { return sectionIndex(ps[i].Section)*ng + genreIndex(ps[i].GenreID) }
	groups := make([][]int32, len(sections)*ng)
	bySection := make([][]int32, len(sections))
	byAuthor := make([][]int32, len(g.auth))
	sets := map[int32][]int32{}
	for i := range ps {
		k := group(i)
		groups[k] = append(groups[k], int32(i))
		s := sectionIndex(ps[i].Section)
		bySection[s] = append(bySection[s], int32(i))
		if m := g.meta[i].main; m >= 0 {
			sets[m] = append(sets[m], int32(i))
		} else {
			byAuthor[g.meta[i].author] = append(byAuthor[g.meta[i].author], int32(i))
		}
	}
	// Top lists keep one more than shown, so a work on its own list can be dropped.
	best := make([][]int32, len(groups))
	newest := make([][]int32, len(groups))
	for k, idx := range groups {
		best[k] = topBy(idx, relatedLen+1, func(a, b int32) int {
			return cmp.Or(cmp.Compare(ps[b].ViewCnt, ps[a].ViewCnt), cmp.Compare(a, b))
		})
		newest[k] = topBy(idx, relatedLen+1, func(a, b int32) int {
			return cmp.Or(ps[b].RegisteredAt.Compare(ps[a].RegisteredAt), cmp.Compare(a, b))
		})
	}
	bestPIDs := make([][]string, len(groups))
	newPIDs := make([][]string, len(groups))
	for k := range groups {
		bestPIDs[k] = g.pids(best[k], relatedLen)
		newPIDs[k] = g.pids(newest[k], relatedLen)
	}

	// The view lists (TC0008 BL, TC0009 adult, TC0010 Harlequin: finished
	// romance comics) rank across sections; only works of the kind get them.
	var blIdx, adultIdx, harlequinIdx []int32
	for i := range ps {
		p := &ps[i]
		if g.meta[i].main >= 0 {
			continue
		}
		switch {
		case p.IsAdult():
			adultIdx = append(adultIdx, int32(i))
		case p.GenreID == genreByKey("bl").ID:
			blIdx = append(blIdx, int32(i))
		}
		if p.Section == contract.SectionComic && p.GenreID == genreByKey("romance").ID && p.FlagEnd && !p.IsAdult() {
			harlequinIdx = append(harlequinIdx, int32(i))
		}
	}
	byViews := func(a, b int32) int { return cmp.Or(cmp.Compare(ps[b].ViewCnt, ps[a].ViewCnt), cmp.Compare(a, b)) }
	views := map[string][]int32{
		relBLView:        topBy(blIdx, relatedLen+1, byViews),
		relAdultView:     topBy(adultIdx, relatedLen+1, byViews),
		relHarlequinView: topBy(harlequinIdx, relatedLen+1, byViews),
	}
	kinds := []struct {
		code string
		in   []int32
	}{{relBLView, blIdx}, {relAdultView, adultIdx}, {relHarlequinView, harlequinIdx}}
	viewPIDs := map[string][]string{}
	for code, idx := range views {
		viewPIDs[code] = g.pids(idx, relatedLen)
	}

	for i := range ps {
		p := &ps[i]
		r := g.reseed(streamRelated + uint64(i))
		rel := make(map[string][]string, 5)
		k := group(i)
		rel[relSameGenreBest] = g.without(best[k], bestPIDs[k], int32(i))
		rel[relSameGenreNew] = g.without(newest[k], newPIDs[k], int32(i))
		if g.meta[i].main < 0 {
			if aw := byAuthor[g.meta[i].author]; len(aw) > 1 {
				rel[relAuthorWorks] = g.without(aw, nil, int32(i))
			}
		}
		sec := bySection[sectionIndex(p.Section)]
		liked := make([]string, 0, 6)
		for range 12 {
			if len(liked) == cap(liked) {
				break
			}
			j := sec[r.IntN(len(sec))]
			if j != int32(i) && !slices.Contains(liked, ps[j].PID) {
				liked = append(liked, ps[j].PID)
			}
		}
		if len(liked) > 0 {
			rel[relAlsoLiked] = liked
		}
		if m := g.meta[i].main; m >= 0 {
			rel[relComplete] = []string{ps[m].PID}
		} else if s := sets[int32(i)]; len(s) > 0 {
			rel[relComplete] = g.pids(s, relatedLen)
		}
		if g.meta[i].main < 0 {
			for _, k := range kinds {
				if _, member := slices.BinarySearch(k.in, int32(i)); member {
					rel[k.code] = g.without(views[k.code], viewPIDs[k.code], int32(i))
				}
			}
		}
		for code, l := range rel {
			if len(l) == 0 {
				delete(rel, code)
			}
		}
		p.Related = rel
	}
}

// topBy returns the first n of idx in the order of less, leaving idx alone.
func topBy(idx []int32, n int, less func(a, b int32) int) []int32 {
	c := slices.Clone(idx)
	slices.SortFunc(c, less)
	return c[:min(n, len(c))]
}

func (g *gen) pids(idx []int32, n int) []string {
	out := make([]string, 0, min(n, len(idx)))
	for _, i := range idx[:min(n, len(idx))] {
		out = append(out, g.cat.Products[i].PID)
	}
	return out
}

// without returns the pids of idx except self, at most relatedLen. shared, when
// given, is the answer for works not on the list; it is handed out as is (with
// its capacity cut, so an append copies).
func (g *gen) without(idx []int32, shared []string, self int32) []string {
	if shared != nil && !slices.Contains(idx[:min(relatedLen, len(idx))], self) {
		return shared[:len(shared):len(shared)]
	}
	out := make([]string, 0, relatedLen)
	for _, j := range idx {
		if j != self && len(out) < relatedLen {
			out = append(out, g.cat.Products[j].PID)
		}
	}
	return out
}

func sectionIndex(s string) int { return max(0, slices.Index(sections, s)) }

func genreIndex(id string) int {
	return max(0, slices.IndexFunc(contract.Genres, func(g contract.Genre) bool { return g.ID == id }))
}
