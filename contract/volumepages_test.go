package contract_test

import (
	"encoding/json"
	"testing"
	"time"

	"storefront/contract"
)

var splitNow = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// vols makes n volumes numbered 1..n, volume i released i hours before
// splitNow minus 30 days, every 10th free, buy price 100+no, rentable when even.
func vols(n int) []contract.Volume {
	out := make([]contract.Volume, n)
	base := splitNow.Add(-30 * 24 * time.Hour)
	for i := range out {
		no := i + 1
		out[i] = contract.Volume{No: no, Title: "제화", ReleaseAt: base.Add(time.Duration(no-n) * time.Hour),
			IsFree: no%10 == 0, BuyPrice: 100 + no}
		if no%2 == 0 {
			out[i].RentPrice = 50
		}
	}
	return out
}

func TestSplitVolumesPages(t *testing.T) {
	p := contract.Product{PID: "N1", Title: "t", Volumes: vols(250)}
	// Reverse the order: pages follow volume numbers, not input order.
	for i, j := 0, len(p.Volumes)-1; i < j; i, j = i+1, j-1 {
		p.Volumes[i], p.Volumes[j] = p.Volumes[j], p.Volumes[i]
	}
	head, pages := contract.SplitVolumes(&p, splitNow)
	if head.Volumes != nil || len(p.Volumes) != 250 {
		t.Fatalf("head keeps %d volumes inline; input changed to %d", len(head.Volumes), len(p.Volumes))
	}
	b, _ := json.Marshal(head)
	var raw map[string]any
	_ = json.Unmarshal(b, &raw)
	if _, ok := raw["volumes"]; ok {
		t.Fatal("head JSON has a volumes field")
	}
	idx := head.VolumeIndex
	if idx.Count != 250 || idx.Free != 25 || len(idx.Pages) != 3 || len(pages) != 3 {
		t.Fatalf("index %+v, %d pages", idx, len(pages))
	}
	wantRuns := [][3]int{{1, 100, 100}, {101, 200, 100}, {201, 250, 50}}
	for i, r := range idx.Pages {
		pg := pages[i]
		if r.Index != i || pg.Index != i || pg.PID != "N1" || r.First != wantRuns[i][0] || r.Last != wantRuns[i][1] ||
			r.Count != wantRuns[i][2] || len(pg.Volumes) != r.Count || pg.Volumes[0].No != r.First {
			t.Fatalf("page %d: ref %+v, page first %d of %d", i, r, pg.Volumes[0].No, len(pg.Volumes))
		}
		if r.Hash == "" || len(r.Hash) != 16 || r.Hash != pg.Hash || r.Hash != contract.PageHash(pg.Volumes) {
			t.Fatalf("page %d hash %q, page %q", i, r.Hash, pg.Hash)
		}
		if !r.FirstRelease.Equal(pg.Volumes[0].ReleaseAt) || !r.LastRelease.Equal(pg.Volumes[len(pg.Volumes)-1].ReleaseAt) {
			t.Fatalf("page %d releases %v..%v", i, r.FirstRelease, r.LastRelease)
		}
	}
	// Page 0: volumes 1..100, 10 free; paid 90 with buy 100+no, rent on the even ones.
	var buy contract.PriceSpan
	rent := contract.PriceSpan{}
	for no := 1; no <= 100; no++ {
		if no%10 == 0 {
			continue
		}
		buy.Add(100 + no)
		if no%2 == 0 {
			rent.Add(50)
		}
	}
	if r := idx.Pages[0]; r.Free != 10 || r.Buy != buy || r.Rent != rent || r.Buy.Min != 101 || r.Buy.Max != 199 || r.Rent.Count != 40 {
		t.Fatalf("page 0 totals %+v, want buy %+v rent %+v", r, buy, rent)
	}
	if pages[2].Volumes[49].No != 250 {
		t.Fatal("last page does not end at 250")
	}
}

func TestSplitVolumesHashStable(t *testing.T) {
	p := contract.Product{PID: "N1", Volumes: vols(250)}
	_, a := contract.SplitVolumes(&p, splitNow)
	_, b := contract.SplitVolumes(&p, splitNow.Add(time.Hour))
	for i := range a {
		if a[i].Hash != b[i].Hash {
			t.Fatalf("page %d hash changed with the clock", i)
		}
	}
	// A rename of the work changes no page; a volume's price changes its page only.
	p.Title = "renamed"
	p.Volumes[150].BuyPrice++
	_, c := contract.SplitVolumes(&p, splitNow)
	if c[0].Hash != a[0].Hash || c[2].Hash != a[2].Hash || c[1].Hash == a[1].Hash {
		t.Fatalf("hashes %s %s %s, before %s %s %s", c[0].Hash, c[1].Hash, c[2].Hash, a[0].Hash, a[1].Hash, a[2].Hash)
	}
}

func TestSplitVolumesRecent(t *testing.T) {
	// All 250 volumes are older than the window: the RecentMin newest.
	p := contract.Product{PID: "N1", Volumes: vols(250)}
	head, _ := contract.SplitVolumes(&p, splitNow)
	r := head.VolumeIndex.Recent
	if len(r) != contract.RecentMin || r[0].No != 247 || r[3].No != 250 || !r[3].Free {
		t.Fatalf("recent %+v, want 247..250", r)
	}
	// Volumes within the window and scheduled ones are all listed, in time order.
	p.Volumes = append(p.Volumes,
		contract.Volume{No: 253, ReleaseAt: splitNow.Add(48 * time.Hour)},
		contract.Volume{No: 251, ReleaseAt: splitNow.Add(-6 * 24 * time.Hour)},
		contract.Volume{No: 252, ReleaseAt: splitNow.Add(-6 * 24 * time.Hour)},
		contract.Volume{No: 254, ReleaseAt: splitNow.Add(-time.Hour), IsFree: true},
		contract.Volume{No: 255, ReleaseAt: splitNow.Add(-contract.RecentWindow)}, // at the edge: not after it
		contract.Volume{No: 256, ReleaseAt: splitNow.Add(-contract.RecentWindow - 24*time.Hour)},
		contract.Volume{No: 257, ReleaseAt: splitNow.Add(-contract.RecentWindow - 24*time.Hour)},
	)
	head, _ = contract.SplitVolumes(&p, splitNow)
	r = head.VolumeIndex.Recent
	want := []int{251, 252, 254, 253}
	if len(r) != len(want) {
		t.Fatalf("recent %+v, want %v", r, want)
	}
	for i, no := range want {
		if r[i].No != no {
			t.Fatalf("recent %+v, want %v", r, want)
		}
	}
	if !r[2].Free || r[0].Free {
		t.Fatalf("free flags %+v", r)
	}
	// Fewer in the window than RecentMin: the newest fill up to it.
	p.Volumes = p.Volumes[:250]
	p.Volumes = append(p.Volumes, contract.Volume{No: 251, ReleaseAt: splitNow.Add(-time.Hour)})
	head, _ = contract.SplitVolumes(&p, splitNow)
	if r := head.VolumeIndex.Recent; len(r) != contract.RecentMin || r[0].No != 248 || r[3].No != 251 {
		t.Fatalf("recent %+v, want 248..251", r)
	}
}

func TestSplitVolumesEmpty(t *testing.T) {
	head, pages := contract.SplitVolumes(&contract.Product{PID: "N0"}, splitNow)
	if len(pages) != 0 || head.VolumeIndex == nil || head.VolumeIndex.Count != 0 || head.VolumeIndex.Pages == nil || head.VolumeIndex.Recent == nil {
		t.Fatalf("empty work: %+v, %d pages", head.VolumeIndex, len(pages))
	}
	b, _ := json.Marshal(head.VolumeIndex)
	if string(b) != `{"count":0,"free":0,"pages":[],"recent":[]}` {
		t.Fatalf("empty index JSON %s", b)
	}
}
