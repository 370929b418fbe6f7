package demo

import (
	"slices"
	"testing"

	"storefront/contract"
)

// Every genre of the contract has a bank, with every part filled, keywords the
// keyword pages know and sub-genres that exist.
func TestEveryGenreHasABank(t *testing.T) {
	for _, g := range contract.Genres {
		w := wordsOf(g.Key)
		if w == nil {
			t.Fatalf("genre %s has no words", g.Key)
		}
		for name, l := range map[string][]string{"roles": w.roles, "places": w.places, "abstracts": w.abstracts, "adjs": w.adjs,
			"chronicle": w.chronicle, "tails": w.tails, "fixed": w.fixed, "opens": w.opens, "turns": w.turns, "hooks": w.hooks, "keywords": w.keywords} {
			if len(l) == 0 {
				t.Errorf("genre %s: no %s", g.Key, name)
			}
		}
		for _, k := range w.keywords {
			if !slices.Contains(keywordPool, k) {
				t.Errorf("genre %s: keyword %s is not in keywordPool", g.Key, k)
			}
		}
		for _, s := range w.subGenres {
			if subGenreByKey(s).Key == "" {
				t.Errorf("genre %s: sub-genre %s does not exist", g.Key, s)
			}
		}
	}
	for _, c := range curatedTitles {
		if genreByKey(c.genre).ID == "" {
			t.Errorf("curated %s: genre %s", c.title, c.genre)
		}
	}
}
