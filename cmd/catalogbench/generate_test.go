package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"storefront/contract"
)

func testParams() params {
	return params{Works: 1000, Volumes: 60_000, Seed: 7, Epoch: time.Date(2026, 11, 1, 14, 0, 0, 0, time.UTC),
		ReleaseShare: 0.05, ReviewShare: 0.3, Generator: generatorVersion}
}

// The same parameters give the same documents, byte for byte: the cached
// store is named by the parameters' hash alone.
func TestGenerateDeterministic(t *testing.T) {
	a, b := newCatalog(testParams()), newCatalog(testParams())
	if !slices.Equal(a.counts, b.counts) || !slices.Equal(a.releasing, b.releasing) {
		t.Fatal("counts or releasing works differ between two generations")
	}
	for _, i := range []int{0, 1, 17, 500, 999, a.releasing[0]} {
		da, err := a.workDocs(i, a.volumesOf(i), a.p.Epoch, 1)
		if err != nil {
			t.Fatal(err)
		}
		db, _ := b.workDocs(i, b.volumesOf(i), b.p.Epoch, 1)
		if len(da) != len(db) {
			t.Fatalf("work %d: %d vs %d documents", i, len(da), len(db))
		}
		for k := range da {
			if da[k].key != db[k].key || !bytes.Equal(da[k].val, db[k].val) {
				t.Fatalf("work %d: document %s differs", i, da[k].key)
			}
		}
		ra, _ := json.Marshal(a.reviews(i))
		rb, _ := json.Marshal(b.reviews(i))
		if !bytes.Equal(ra, rb) {
			t.Fatalf("work %d: reviews differ", i)
		}
	}
	ka, _ := json.Marshal(a.rankings())
	kb, _ := json.Marshal(b.rankings())
	if !bytes.Equal(ka, kb) {
		t.Fatal("rankings differ")
	}
	p := testParams()
	p.Seed++
	if p.hash() == testParams().hash() {
		t.Fatal("a different seed has the same cache hash")
	}
}

// Volume counts have a real store's long tail: the total is the target,
// a few works reach 10,000 and some pass 6,000, while most are short.
func TestGenerateLongTail(t *testing.T) {
	c := newCatalog(testParams())
	total := c.totalVolumes()
	if d := total - c.p.Volumes; d < -c.p.Volumes/100 || d > c.p.Volumes/100 {
		t.Errorf("total %d volumes, want %d ± 1%%", total, c.p.Volumes)
	}
	counts := slices.Sorted(slices.Values(c.counts))
	if counts[len(counts)-1] != 10_000 {
		t.Errorf("largest work has %d volumes, want 10,000", counts[len(counts)-1])
	}
	over6k := 0
	for _, n := range counts {
		if n > 6000 {
			over6k++
		}
		if n < 1 {
			t.Fatalf("a work with %d volumes", n)
		}
	}
	if over6k < 3 {
		t.Errorf("%d works over 6,000 volumes, want at least 3", over6k)
	}
	median, mean := counts[len(counts)/2], total/len(counts)
	if median*2 > mean {
		t.Errorf("median %d, mean %d: no long tail", median, mean)
	}
	for i, n := range c.counts {
		if n > volumeCap[c.prods[i].Section] {
			t.Errorf("work %d (%s) has %d volumes, over its section's cap", i, c.prods[i].Section, n)
		}
	}
	if len(c.releasing) == 0 {
		t.Error("no releasing work")
	}
	for _, i := range c.releasing {
		if !c.canRelease(i) {
			t.Errorf("work %d releases but is ended, adult, hidden or a set", i)
		}
	}
}

// Every document fits NATS's 1 MiB value limit (the buckets' MaxValueSize),
// the 10,000-volume works and the release's heads included.
func TestGenerateDocumentsUnderLimit(t *testing.T) {
	c := newCatalog(testParams())
	check := func(what string, n int) {
		if n >= 1<<20 {
			t.Errorf("%s is %d bytes, over 1 MiB", what, n)
		}
	}
	biggest := 0
	for i := range c.prods {
		vols := c.volumesOf(i)
		if c.isRel[i] {
			vols = append(vols, c.releaseVolume(i, c.p.Epoch.Add(time.Hour)))
		}
		docs, err := c.workDocs(i, vols, c.p.Epoch, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			check(d.key, len(d.val))
			biggest = max(biggest, len(d.val))
		}
		if l := c.reviews(i); l != nil {
			b, _ := json.Marshal(l)
			check("reviews of "+l.PID, len(b))
		}
	}
	for _, rk := range c.rankings() {
		b, _ := json.Marshal(&rk)
		check("ranking "+rk.Scope+"."+rk.Tab, len(b))
	}
	t.Logf("largest work document: %d bytes", biggest)
}

// A head and its pages say the same as contract/volumes.go: pages of
// VolumePageSize in number order, each reference summing its page, the
// totals summing the references, Recent what RecentWindow and RecentMin ask.
func TestHeadAndPagesConsistent(t *testing.T) {
	c := newCatalog(testParams())
	now := c.p.Epoch
	works := []int{c.releasing[0]}
	for i, n := range c.counts {
		if n == 10_000 || n == 1 || n == contract.VolumePageSize || n == contract.VolumePageSize+1 {
			works = append(works, i)
		}
	}
	for _, i := range works {
		vols := c.volumesOf(i)
		if c.isRel[i] {
			vols = append(vols, c.releaseVolume(i, now.Add(90*time.Second)))
		}
		docs, err := c.workDocs(i, vols, now, 3)
		if err != nil {
			t.Fatal(err)
		}
		var head contract.Product
		if err := json.Unmarshal(docs[len(docs)-1].val, &head); err != nil {
			t.Fatal(err)
		}
		if docs[len(docs)-1].key != contract.ProductKey(head.PID) || head.Volumes != nil || head.VolumeIndex == nil {
			t.Fatalf("work %d: head %s has inline volumes or no index", i, docs[len(docs)-1].key)
		}
		idx := head.VolumeIndex
		if idx.Count != len(vols) || len(idx.Pages) != len(docs)-1 {
			t.Fatalf("%s: count %d of %d volumes, %d refs for %d pages", head.PID, idx.Count, len(vols), len(idx.Pages), len(docs)-1)
		}
		var got []contract.Volume
		free := 0
		for k, d := range docs[:len(docs)-1] {
			var pg contract.VolumePage
			if err := json.Unmarshal(d.val, &pg); err != nil {
				t.Fatal(err)
			}
			ref := idx.Pages[k]
			if d.key != contract.VolumePageKey(head.PID, k) || pg.Index != k || ref.Index != k || pg.Hash != ref.Hash || pg.PID != head.PID {
				t.Fatalf("%s page %d: key %s, index %d/%d, hash %s/%s", head.PID, k, d.key, pg.Index, ref.Index, pg.Hash, ref.Hash)
			}
			if k < len(docs)-2 && len(pg.Volumes) != contract.VolumePageSize {
				t.Fatalf("%s page %d holds %d volumes", head.PID, k, len(pg.Volumes))
			}
			var want contract.VolumePageRef
			want.Index, want.Hash, want.Count = k, pg.Hash, len(pg.Volumes)
			want.First, want.Last = pg.Volumes[0].No, pg.Volumes[len(pg.Volumes)-1].No
			want.FirstRelease, want.LastRelease = pg.Volumes[0].ReleaseAt, pg.Volumes[0].ReleaseAt
			for _, v := range pg.Volumes {
				if v.ReleaseAt.Before(want.FirstRelease) {
					want.FirstRelease = v.ReleaseAt
				}
				if v.ReleaseAt.After(want.LastRelease) {
					want.LastRelease = v.ReleaseAt
				}
				if v.IsFree {
					want.Free++
				} else {
					want.Buy.Add(v.BuyPrice)
					want.Rent.Add(v.RentPrice)
				}
			}
			if !refEqual(ref, want) {
				t.Fatalf("%s page %d: reference %+v, page says %+v", head.PID, k, ref, want)
			}
			if contract.PageHash(pg.Volumes) != pg.Hash {
				t.Fatalf("%s page %d: hash is not its volumes'", head.PID, k)
			}
			free += want.Free
			got = append(got, pg.Volumes...)
		}
		if idx.Free != free {
			t.Fatalf("%s: free %d, pages say %d", head.PID, idx.Free, free)
		}
		for k, v := range got {
			if v.No != k+1 {
				t.Fatalf("%s: volume %d at position %d", head.PID, v.No, k)
			}
		}
		checkRecent(t, head.PID, idx.Recent, got, now)
	}
}

func refEqual(a, b contract.VolumePageRef) bool {
	return a.Index == b.Index && a.Hash == b.Hash && a.First == b.First && a.Last == b.Last && a.Count == b.Count &&
		a.Free == b.Free && a.FirstRelease.Equal(b.FirstRelease) && a.LastRelease.Equal(b.LastRelease) && a.Buy == b.Buy && a.Rent == b.Rent
}

func checkRecent(t *testing.T, pid string, recent []contract.VolumeRelease, vols []contract.Volume, now time.Time) {
	t.Helper()
	from := now.Add(-contract.RecentWindow)
	in := map[int]bool{}
	for k, r := range recent {
		in[r.No] = true
		if k > 0 && (r.At.Before(recent[k-1].At) || r.At.Equal(recent[k-1].At) && r.No < recent[k-1].No) {
			t.Fatalf("%s: Recent not ascending at %d", pid, k)
		}
	}
	byTime := slices.Clone(vols)
	slices.SortFunc(byTime, func(a, b contract.Volume) int { return a.ReleaseAt.Compare(b.ReleaseAt) })
	for k, v := range byTime {
		newest := len(byTime)-k <= contract.RecentMin
		if (v.ReleaseAt.After(from) || newest) != in[v.No] {
			t.Fatalf("%s: volume %d (at %s) in Recent: %v", pid, v.No, v.ReleaseAt, in[v.No])
		}
	}
}
