package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"storefront/contract"
)

// splitVolumes builds a work's VolumeIndex and its page documents from its
// volumes, following contract/volumes.go: volumes sorted by number, page i
// the i-th run of VolumePageSize, each reference summing its page, Recent
// every volume released after now-RecentWindow or later, at least the
// RecentMin newest, ascending by release time then number.
//
// TODO(issue 35): switch to contract.SplitVolumes (contract/volumepages.go,
// the writer's) once it is merged; this copy exists only because the
// benchmark was written before it.
func splitVolumes(pid string, vols []contract.Volume, now time.Time) (contract.VolumeIndex, []contract.VolumePage) {
	vols = slices.Clone(vols)
	slices.SortFunc(vols, func(a, b contract.Volume) int { return cmp.Compare(a.No, b.No) })
	idx := contract.VolumeIndex{Count: len(vols), Pages: []contract.VolumePageRef{}, Recent: []contract.VolumeRelease{}}
	var pages []contract.VolumePage
	for start := 0; start < len(vols); start += contract.VolumePageSize {
		run := vols[start:min(start+contract.VolumePageSize, len(vols))]
		page := contract.VolumePage{PID: pid, Index: len(pages), Volumes: run}
		page.Hash = pageHash(run)
		ref := contract.VolumePageRef{Index: page.Index, Hash: page.Hash, First: run[0].No, Last: run[len(run)-1].No, Count: len(run)}
		for i, v := range run {
			if i == 0 || v.ReleaseAt.Before(ref.FirstRelease) {
				ref.FirstRelease = v.ReleaseAt
			}
			if v.ReleaseAt.After(ref.LastRelease) {
				ref.LastRelease = v.ReleaseAt
			}
			if v.IsFree {
				ref.Free++
				continue
			}
			ref.Buy.Add(v.BuyPrice)
			ref.Rent.Add(v.RentPrice)
		}
		idx.Free += ref.Free
		idx.Pages = append(idx.Pages, ref)
		pages = append(pages, page)
	}
	idx.Recent = recentOf(vols, now)
	return idx, pages
}

// recentOf lists the volumes a head names in VolumeIndex.Recent.
func recentOf(vols []contract.Volume, now time.Time) []contract.VolumeRelease {
	byTime := slices.Clone(vols)
	slices.SortFunc(byTime, func(a, b contract.Volume) int {
		if c := a.ReleaseAt.Compare(b.ReleaseAt); c != 0 {
			return c
		}
		return cmp.Compare(a.No, b.No)
	})
	from := now.Add(-contract.RecentWindow)
	first := len(byTime)
	for first > 0 && (byTime[first-1].ReleaseAt.After(from) || len(byTime)-first < contract.RecentMin) {
		first--
	}
	out := make([]contract.VolumeRelease, 0, len(byTime)-first)
	for _, v := range byTime[first:] {
		out = append(out, contract.VolumeRelease{No: v.No, At: v.ReleaseAt, Free: v.IsFree})
	}
	return out
}

// pageHash names a page's content: the short hex SHA-256 of its volumes'
// JSON, so a changed volume makes a new cache entry on every edge.
func pageHash(vols []contract.Volume) string {
	b, err := json.Marshal(vols)
	if err != nil {
		panic(err) // a []contract.Volume always encodes
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
