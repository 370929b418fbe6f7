package catalog

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/cache"
)

// BenchmarkZzimStorm is a zzim storm on one work of a 3,000-work section:
// per zzim, the edge applies the update and re-renders every cached answer
// it made invalid (the hot work's detail, the section's popular, newest and
// weekday lists, a search). "stat" is the counters document (stat.<pid>)
// with lists catching up once per CountersRefresh (100 zzims/s against 30 s);
// "fulldoc" is the work's whole document republished per zzim, as before.
// ns/op is the edge's CPU per zzim; renders/op the answers re-rendered.
//
//	go test -run XXX -bench ZzimStorm -benchtime 2000x ./edge/catalog/
func BenchmarkZzimStorm(b *testing.B) {
	const works = 3000
	for _, mode := range []string{"stat", "fulldoc"} {
		b.Run(mode, func(b *testing.B) {
			now := time.Date(2026, 3, 2, 12, 0, 0, 0, contract.KST)
			s := New(cache.NewTags())
			var ups []Update
			for i := range works {
				ups = append(ups, Update{Key: contract.ProductKey(fmt.Sprintf("P%06d", i)), Value: sampleProduct(i, 20), Revision: uint64(i + 1)})
			}
			if errs := s.Apply(now, ups...); len(errs) > 0 {
				b.Fatal(errs)
			}
			hot := s.products["P000000"].Product
			shapes := []func(v *View){
				func(v *View) { v.Product(hot.PID) },
				func(v *View) { v.List(Filter{Section: contract.SectionNovel, Weekday: -1}, SortPopular) },
				func(v *View) { v.List(Filter{Section: contract.SectionNovel, Weekday: -1}, SortNew) },
				func(v *View) { v.List(Filter{Section: contract.SectionNovel, Weekday: 1}, "") },
				func(v *View) { v.Search("회귀", "") },
			}
			answers := make([]answer, len(shapes))
			render := func(i int, at time.Time) {
				refs, until := s.Read(at, false, shapes[i])
				answers[i] = answer{refs, until}
			}
			for i := range shapes {
				render(i, now)
			}
			renders := 0
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				at := now.Add(time.Duration(n) * 10 * time.Millisecond) // 100 zzims a second
				rev := uint64(works + 1 + n)
				var u Update
				if mode == "stat" {
					u = statUpdate(hot.PID, hot.ZzimCount+int64(n)+1, rev)
				} else {
					b.StopTimer()
					p := hot
					p.ZzimCount += int64(n) + 1
					p.Version += int64(n) + 1
					v, _ := json.Marshal(p)
					u = Update{Key: contract.ProductKey(hot.PID), Value: v, Revision: rev}
					b.StartTimer()
				}
				s.Apply(at, u)
				s.FlushCounters(at)
				for i := range answers {
					if !answers[i].valid(at) {
						render(i, at)
						renders++
					}
				}
			}
			b.ReportMetric(float64(renders)/float64(b.N), "renders/op")
		})
	}
}
