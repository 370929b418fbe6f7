package originals_test

import (
	"testing"

	"storefront/contract"
	"storefront/demo"
	"storefront/demo/originals"
	"storefront/media/process"
)

// The pool is what processing accepts and makes the page counts the
// generator gave the volumes (demo.PoolPages), and it is the same bytes on
// every run (a second run finds them stored).
func TestPoolIsAcceptedAndMakesThePagesTheCatalogCounts(t *testing.T) {
	pool, err := originals.MakePool()
	if err != nil {
		t.Fatal(err)
	}
	again, err := originals.MakePool()
	if err != nil {
		t.Fatal(err)
	}
	if len(pool.Covers) != demo.PoolCovers() || len(pool.Wides) != demo.PoolWides {
		t.Fatalf("%d covers, %d wides", len(pool.Covers), len(pool.Wides))
	}
	for i := range pool.Covers {
		if string(pool.Covers[i]) != string(again.Covers[i]) {
			t.Fatalf("cover %d differs between runs", i)
		}
		if kind, err := process.Sniff(pool.Covers[i]); err != nil || kind != process.KindJPEG {
			t.Fatalf("cover %d: %q %v", i, kind, err)
		}
	}
	seen := map[string]bool{}
	for _, sec := range []string{contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel} {
		for e, files := range pool.Episodes[sec] {
			for k, f := range files {
				if string(f) != string(again.Episodes[sec][e][k]) {
					t.Fatalf("%s episode %d file %d differs between runs", sec, e, k)
				}
				if seen[string(f)] {
					t.Fatalf("%s episode %d file %d is a copy of another", sec, e, k)
				}
				seen[string(f)] = true
			}
			pages := 0
			if sec == contract.SectionNovel {
				book, err := process.EPUB(files[0], process.DefaultLimits, func(int) string { return "" })
				if err != nil {
					t.Fatalf("novel episode %d: %v", e, err)
				}
				pages = len(book.Chunks)
			} else {
				opt := process.ContentOptions
				if sec == contract.SectionWebtoon {
					opt = process.StripOptions
				}
				for _, f := range files {
					pics, err := process.Image(f, opt)
					if err != nil {
						t.Fatalf("%s episode %d: %v", sec, e, err)
					}
					pages += len(pics)
				}
			}
			if pages != demo.PoolPages(sec) {
				t.Fatalf("%s episode %d makes %d pages, the catalog counts %d", sec, e, pages, demo.PoolPages(sec))
			}
		}
	}
	b, err := originals.EventBanner(7, contract.EventBluerun, "블루런")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := process.Image(b, process.CoverOptions); err != nil {
		t.Fatal(err)
	}
}
