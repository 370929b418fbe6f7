package catalogimport_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"storefront/contract"
	"storefront/demo"
	"storefront/writer/catalog"
	"storefront/writer/catalogimport"
	"storefront/writer/internal/writertest"
	"storefront/writer/outbox"
)

// synth builds a catalog of works × vols without the demo generator, so this
// package tests the import alone.
func synth(works, vols int) *demo.Catalog {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cat := &demo.Catalog{Seed: 1}
	secs := []string{"WT", "CM", "EB"}
	for i := 0; i < works; i++ {
		p := contract.Product{
			PID: fmt.Sprintf("%d", 100000+i), Section: secs[i%3], Title: fmt.Sprintf("작품 %d", i),
			GenreID: contract.Genres[i%len(contract.Genres)].ID, Age: []int{0, 12, 15, 19}[i%4],
			Authors:  []contract.Author{{AuthorID: int64(1 + i%500), AuthorName: fmt.Sprintf("작가%d", i%500), IsWriter: true}},
			Weekdays: []int{i % 7}, Keywords: []string{"회귀"}, WaitForFree: i%2 == 0, WaitRecycle: 1440,
			Related: map[string][]string{"TC0001": {"100001"}}, Notices: []contract.ProductNotice{{ID: 1, Title: "n"}},
			Trailers: []contract.Trailer{{Title: "t", ImageURL: "/x"}}, EventDeadline: now, RegisteredAt: now,
		}
		for v := 1; v <= vols; v++ {
			p.Volumes = append(p.Volumes, contract.Volume{No: v, Title: fmt.Sprintf("%d화", v), ReleaseAt: now.Add(time.Duration(v) * time.Hour),
				IsFree: v <= 3, BuyPrice: 100, RentPrice: 50, Pages: 10, PreviewPages: 2})
		}
		cat.Products = append(cat.Products, p)
	}
	cat.Events = []contract.Event{{EID: 1, Kind: contract.EventBluerun, Title: "e", PIDs: []string{"100000"}, StartAt: now, EndAt: now.Add(time.Hour)}}
	cat.Awards = []contract.Award{{EID: 2, Title: "a", StartAt: now, EndAt: now.Add(time.Hour),
		Sections: []contract.AwardSection{{Key: "wt", Title: "웹툰", List: []contract.AwardCandidate{{PID: "100000", Votes: 5}}}}}}
	cat.FAQs = []contract.FAQ{{ID: 1, CID: "01000", Question: "q", Answer: "a"}}
	cat.Notices = []contract.Notice{{ID: 1, Kind: "notice", Title: "n", PostedAt: now}}
	cat.Banners = []contract.Banner{{ID: 1, Place: "home", StartAt: now, EndAt: now.Add(time.Hour)}}
	cat.Keywords = []contract.Keyword{{ID: 1, Name: "회귀"}}
	cat.QuickLinks = contract.QuickLinks{Links: []contract.QuickLink{{Title: "q", LinkURL: "/"}}}
	cat.JumpingPass = contract.JumpingPass{Title: "jp", Price: 1000, Days: 7}
	return cat
}

func TestImportIdempotentAndPublished(t *testing.T) {
	t.Parallel()
	pool, _ := writertest.Pool(t)
	_, js, kv := writertest.JS(t)
	ctx := context.Background()
	cat := synth(300, 20)
	for range 2 {
		if err := catalogimport.Import(ctx, pool, cat); err != nil {
			t.Fatal(err)
		}
	}
	var works, vols, authors int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM works), (SELECT count(*) FROM volumes), (SELECT count(*) FROM work_authors)`).Scan(&works, &vols, &authors); err != nil {
		t.Fatal(err)
	}
	if works != 300 || vols != 6000 || authors != 300 {
		t.Fatalf("after two imports: %d works, %d volumes, %d work authors", works, vols, authors)
	}
	// The imported document round-trips field for field.
	got, err := catalog.LoadProduct(ctx, pool, "100007", false)
	if err != nil {
		t.Fatal(err)
	}
	want := cat.Products[7]
	if got.Title != want.Title || got.Age != want.Age || got.GenreID != want.GenreID || len(got.Volumes) != 20 ||
		got.Related["TC0001"][0] != "100001" || len(got.Notices) != 1 || len(got.Trailers) != 1 ||
		!got.EventDeadline.Equal(want.EventDeadline) || !got.Volumes[4].ReleaseAt.Equal(want.Volumes[4].ReleaseAt) ||
		got.Authors[0].AuthorName != want.Authors[0].AuthorName || got.Weekdays[0] != want.Weekdays[0] {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
	}

	relay := outbox.New(pool, js, outbox.Route(catalog.Builders()), outbox.Config{Batch: 200}, writertest.Log(), nil)
	for {
		n, err := relay.Once(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	keys, err := kv.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 300 works + event, award, faq, notice, banner, keyword, quicklinks, jumpingpass.
	if len(keys) != 308 {
		t.Fatalf("kv holds %d keys, want 308", len(keys))
	}
	// Each work's 20 volumes: one page in the volumes bucket, which its head names.
	pages, err := writertest.VolumesKV(t, kv).Keys(ctx)
	if err != nil || len(pages) != 300 {
		t.Fatalf("volumes bucket holds %d keys (%v), want 300", len(pages), err)
	}
	e, err := kv.Get(ctx, contract.ProductKey("100007"))
	if err != nil {
		t.Fatal(err)
	}
	if p := writertest.MustWork(t, kv, e.Value()); len(p.Volumes) != 20 || !p.Volumes[4].ReleaseAt.Equal(want.Volumes[4].ReleaseAt) {
		t.Fatalf("published work 100007: %d volumes", len(p.Volumes))
	}
}

func benchImport(b *testing.B, works, vols int) {
	pool, _ := writertest.Pool(b)
	_, js, _ := writertest.JS(b)
	cat := synth(works, vols)
	relay := outbox.New(pool, js, outbox.Route(catalog.Builders()), outbox.Config{Batch: 1000}, writertest.Log(), nil)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if err := catalogimport.Import(ctx, pool, cat); err != nil {
			b.Fatal(err)
		}
		imported := time.Since(t0)
		for {
			n, err := relay.Once(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
		b.ReportMetric(imported.Seconds(), "import-s")
		b.ReportMetric(time.Since(t0).Seconds(), "import+publish-s")
	}
}

// BenchmarkImport3000 is the default demo size: 3,000 works, ~100,000 volumes.
func BenchmarkImport3000(b *testing.B) { benchImport(b, 3000, 33) }

// BenchmarkImport100k is the large catalog: 100,000 works.
func BenchmarkImport100k(b *testing.B) { benchImport(b, 100000, 3) }

// The real demo generator's catalog imports, twice, and round-trips.
func TestImportDemoCatalog(t *testing.T) {
	t.Parallel()
	pool, _ := writertest.Pool(t)
	ctx := context.Background()
	cat := demo.Generate(demo.Options{Seed: 7, Works: 300, Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)})
	for range 2 {
		if err := catalogimport.Import(ctx, pool, cat); err != nil {
			t.Fatal(err)
		}
	}
	var works, vols int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM works), (SELECT count(*) FROM volumes)`).Scan(&works, &vols); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, p := range cat.Products {
		want += len(p.Volumes)
	}
	if works != len(cat.Products) || vols != want {
		t.Fatalf("imported %d works, %d volumes; want %d, %d", works, vols, len(cat.Products), want)
	}
	p := cat.Products[len(cat.Products)/2]
	got, err := catalog.LoadProduct(ctx, pool, p.PID, false)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != p.Title || len(got.Volumes) != len(p.Volumes) || len(got.Authors) != len(p.Authors) || got.Age != p.Age ||
		got.FlagEnd != p.FlagEnd || got.WaitForFree != p.WaitForFree || len(got.Related) != len(p.Related) {
		t.Fatalf("round trip of %s differs", p.PID)
	}
}

// The import runs outside any writer, so it notifies the running relays
// instead of relying on their poll.
func TestImportWakesRelays(t *testing.T) {
	t.Parallel()
	pool, _ := writertest.Pool(t)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+outbox.Channel); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "UNLISTEN "+outbox.Channel) //nolint:errcheck
	if err := catalogimport.Import(ctx, pool, synth(3, 2)); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := conn.Conn().WaitForNotification(wctx); err != nil {
		t.Fatalf("import sent no notification: %v", err)
	}
}
