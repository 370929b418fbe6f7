package demo_test

import (
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/demo"
)

// signature words name one kind of story: a title, summary or keyword that
// carries one belongs to one of the listed genre keys. A 화산파 story filed
// under 판타지, or an 육아일기 with a murder case, fails here.
var signatureWords = map[string][]string{
	"무림": {"martial"}, "화산": {"martial"}, "마교": {"martial"}, "천마": {"martial"}, "강호": {"martial"},
	"무당": {"martial"}, "소림": {"martial"}, "객잔": {"martial"}, "문파": {"martial"}, "정파": {"martial"},
	"검객": {"martial"}, "세가": {"martial"}, "점소이": {"martial"}, "무협": {"martial"},
	"게이트": {"fantasy"}, "던전": {"fantasy"}, "마탑": {"fantasy"}, "튜토리얼": {"fantasy"}, "소환사": {"fantasy"},
	"마법사": {"fantasy"}, "헌터": {"fantasy", "action"},
	"형사": {"thriller"}, "살인": {"thriller"}, "실종": {"thriller"}, "목격자": {"thriller"}, "범인": {"thriller"},
	"프로파일러": {"thriller"}, "미제": {"thriller"}, "미스터리": {"thriller"},
	"대공": {"romancefantasy"}, "공녀": {"romancefantasy"}, "악녀": {"romancefantasy"}, "황후": {"romancefantasy"},
	"황녀": {"romancefantasy", "gl"}, "영애": {"romancefantasy", "gl"}, "황궁": {"romancefantasy", "bl"},
	"궁중암투": {"romancefantasy"}, "정략결혼": {"romancefantasy"},
	"육아": {"romancefantasy", "daily"},
	"야구": {"sports"}, "배구": {"sports"}, "농구": {"sports"}, "투수": {"sports"}, "복서": {"sports"},
	"골키퍼": {"sports"}, "마운드": {"sports"}, "스포츠": {"sports"},
	"전학": {"school"}, "반장": {"school"}, "학생회장": {"school"}, "교실": {"school"}, "담임": {"school"}, "학원물": {"school"},
	"전남편": {"romance", "erotic"}, "이혼": {"romance", "romancefantasy"},
	"좀비": {"action", "thriller"}, "아포칼립스": {"action", "thriller"}, "용병": {"action"},
	"편의점": {"comedy", "daily"}, "아이돌": {"romance", "daily"},
}

// Novel sub-genres and the genre each belongs to.
var subGenreOf = map[string]string{
	"modern-romance": "romance", "historical-romance": "romance", "romance-fantasy": "romancefantasy",
	"modern-fantasy": "fantasy", "fusion-fantasy": "fantasy", "classic-martial": "martial", "new-martial": "martial",
	"modern-bl": "bl", "fantasy-bl": "bl", "mystery": "thriller",
}

func genreKeyOf(id string) string {
	for _, g := range contract.Genres {
		if g.ID == id {
			return g.Key
		}
	}
	return ""
}

// checkCoherence fails a work whose title, summary, keywords or sub-genre
// belong to another genre than the one it is filed under.
func checkCoherence(t *testing.T, p *contract.Product) {
	t.Helper()
	key := genreKeyOf(p.GenreID)
	texts := append([]string{p.Title, p.Summary}, p.Keywords...)
	for word, genres := range signatureWords {
		for _, s := range texts {
			if strings.Contains(s, word) && !contains(genres, key) {
				t.Fatalf("%s %q (genre %s): %q names a %v story", p.PID, p.Title, key, s, genres)
			}
		}
	}
	if p.SubGenre != "" && subGenreOf[p.SubGenre] != key {
		t.Fatalf("%s %q: sub-genre %s under genre %s", p.PID, p.Title, p.SubGenre, key)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Bounds a real store's numbers stay within. Readers of a work view it at
// least once and read part of its volumes; reviews and zzims come from
// readers; nothing gathers a million views a day.
const (
	maxViewsPerVolume   = 3_000_000
	maxViewsPerDay      = 1_000_000
	maxReviewsPerVolume = 2_000
)

// checkPlausible fails a work whose views, reviews, points or zzims could
// not come from its released volumes and its age.
func checkPlausible(t *testing.T, p *contract.Product, main *contract.Product, now time.Time) {
	t.Helper()
	released := 0
	for _, v := range p.Volumes {
		if !v.ReleaseAt.After(now) {
			released++
		}
	}
	ageDays := int64(now.Sub(p.RegisteredAt) / (24 * time.Hour))
	fail := func(why string) {
		t.Helper()
		t.Fatalf("%s %q (%d volumes released, %d days old): %s: views %d reviews %d points %d zzims %d",
			p.PID, p.Title, released, ageDays, why, p.ViewCnt, p.ReviewCount, p.PointSum, p.ZzimCount)
	}
	switch {
	case p.ViewCnt < 1:
		fail("no views")
	case p.ViewCnt > int64(released)*maxViewsPerVolume:
		fail("more views than its volumes could have")
	case p.ViewCnt > (ageDays+1)*maxViewsPerDay:
		fail("more views than its age allows")
	case int64(p.ReviewCount)*20 > p.ViewCnt:
		fail("more than one review per 20 views")
	case p.ReviewCount > released*maxReviewsPerVolume:
		fail("more reviews than its volumes could gather")
	case p.ZzimCount*3 > p.ViewCnt:
		fail("more than one zzim per 3 views")
	case p.ReviewCount == 0 && p.PointSum != 0,
		p.ReviewCount > 0 && (p.PointSum < int64(p.ReviewCount) || p.PointSum > 5*int64(p.ReviewCount)):
		fail("review points outside 1..5 on average")
	case main != nil && (p.ViewCnt > main.ViewCnt || p.ReviewCount > main.ReviewCount):
		fail("a set has more readers than the work it sells")
	}
}

// checkViews fails a work whose view lists (TC0008 BL, TC0009 adult, TC0010
// Harlequin) hold works of another kind, or that has one it is not of.
func checkViews(t *testing.T, p *contract.Product, pids map[string]*contract.Product) {
	t.Helper()
	kinds := map[string]func(q *contract.Product) bool{
		"TC0008": func(q *contract.Product) bool { return q.GenreID == "22" && !q.IsAdult() },
		"TC0009": func(q *contract.Product) bool { return q.IsAdult() },
		"TC0010": func(q *contract.Product) bool {
			return q.Section == contract.SectionComic && q.GenreID == "21" && q.FlagEnd && !q.IsAdult()
		},
	}
	for code, kind := range kinds {
		list, has := p.Related[code]
		if has && !kind(p) {
			t.Fatalf("%s %q has the %s list but is not of its kind", p.PID, p.Title, code)
		}
		for _, pid := range list {
			if q := pids[pid]; q == nil || !kind(q) {
				t.Fatalf("%s %q: %s lists %s, not of its kind", p.PID, p.Title, code, pid)
			}
		}
	}
}

// The store's name in demo texts is the brand (issue 24), never a placeholder.
func TestDemoTextsNameTheBrand(t *testing.T) {
	t.Parallel()
	cat := demo.Generate(demo.Options{Seed: 5, Works: 400, Now: anchor})
	if demo.Brand != "블루페이지" {
		t.Fatalf("brand %q", demo.Brand)
	}
	originals := 0
	for i := range cat.Products {
		p := &cat.Products[i]
		if p.IsOriginal {
			originals++
			if p.OriginalLabel != demo.Brand+" 오리지널" {
				t.Fatalf("%s: original label %q", p.PID, p.OriginalLabel)
			}
		}
	}
	if originals == 0 || len(cat.Awards) == 0 {
		t.Fatal("no originals or awards")
	}
	for _, a := range cat.Awards {
		if !strings.Contains(a.Title, demo.Brand) {
			t.Fatalf("award %q does not name the store", a.Title)
		}
	}
	named := 0
	for _, n := range cat.Notices {
		if strings.Contains(n.Title, demo.Brand) {
			named++
		}
	}
	if named == 0 {
		t.Fatal("no notice names the store")
	}
	if b := mustJSON(t, cat); strings.Contains(string(b), "스토어프론트") {
		t.Fatal("the catalog says 스토어프론트")
	}
}
