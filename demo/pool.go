package demo

import (
	"hash/fnv"

	"storefront/contract"
)

// The demo's pictures and texts go through the same upload and processing
// path as a content team's files (issue 16): the launcher rasterizes a small
// pool of originals (package demo/originals) and gives them to the works, so
// 3,000 works cost the encoding of a few dozen pictures, not of 100,000
// volumes. Which original a work or volume gets is a pure function of its
// pid, genre and number, here, so the generator can give each volume the
// page count its episode will have once processed.
const (
	// PoolEpisodes is how many distinct episodes each section's volumes share.
	PoolEpisodes = 3
	// PoolCoversPerGenre covers are drawn for each genre (the title on a
	// pooled cover is its genre's name). Every pooled picture costs about a
	// second of encoding (three widths in AVIF, WebP and JPEG) on the first
	// run: the pool is kept small.
	PoolCoversPerGenre = 1
	// PoolWides wide covers are shared by all works.
	PoolWides = 4
	// PoolStrips is how many strips (720 × 2000) a pooled webtoon episode
	// has; processing cuts each into two segments of 1000 px
	// (media/process.StripOptions: at most twice as tall as wide), so an
	// episode is six pages, long enough to scroll through a few screens.
	PoolStrips = 3
	// PoolComicPages and PoolNovelChapters: a pooled comic volume's pages,
	// a pooled novel volume's chapters (each one chunk of the viewer).
	PoolComicPages    = 4
	PoolNovelChapters = 4
)

// PoolPages is how many pages (webtoon segments, comic pages, novel chunks) a
// volume of section has once its pooled episode is processed.
func PoolPages(section string) int {
	switch section {
	case contract.SectionWebtoon:
		return PoolStrips * 2
	case contract.SectionComic:
		return PoolComicPages
	}
	return PoolNovelChapters
}

// PoolEpisode is the pooled episode (0 to PoolEpisodes-1) volume no of pid
// shows: neighbouring volumes differ, so reading on shows other pages.
func PoolEpisode(pid string, no int) int {
	return int((fnv64(pid) + uint64(no)) % PoolEpisodes)
}

// PoolCover is the pooled cover (index into contract.Genres ×
// PoolCoversPerGenre) of a work of genre genreID.
func PoolCover(pid, genreID string) int {
	g := 0
	for i, x := range contract.Genres {
		if x.ID == genreID {
			g = i
		}
	}
	return g*PoolCoversPerGenre + int(fnv64(pid)%PoolCoversPerGenre)
}

// PoolCovers is how many pooled covers there are.
func PoolCovers() int { return len(contract.Genres) * PoolCoversPerGenre }

// PoolWide is the pooled wide cover of pid.
func PoolWide(pid string) int { return int(fnv64(pid) / 7 % PoolWides) }

// fnv64 is FNV-1a: stable across runs and Go versions.
func fnv64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
