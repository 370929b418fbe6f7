package contract

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// SplitVolumes turns a work with every volume inline (Product.Volumes, as
// the writer loads it) into what is published: the head (Volumes nil,
// VolumeIndex set) under ProductKey and its pages under VolumePageKey in
// VolumesBucket. now is the writer's clock, which places the Recent window.
// p is not changed. Every producer of catalog documents (the writer's relay,
// benchserve, tests) splits with this one function, so an edge sees one
// shape whoever wrote it.
func SplitVolumes(p *Product, now time.Time) (head Product, pages []VolumePage) {
	head = *p
	head.Volumes = nil
	vols := slices.Clone(p.Volumes)
	slices.SortStableFunc(vols, func(a, b Volume) int { return cmp.Compare(a.No, b.No) })
	idx := &VolumeIndex{Count: len(vols), Pages: []VolumePageRef{}, Recent: recentReleases(vols, now, p.EarlyCount > 0)}
	for i := 0; i*VolumePageSize < len(vols); i++ {
		run := vols[i*VolumePageSize : min((i+1)*VolumePageSize, len(vols))]
		page := VolumePage{PID: p.PID, Index: i, Hash: PageHash(run), Volumes: run}
		ref := VolumePageRef{Index: i, Hash: page.Hash, First: run[0].No, Last: run[len(run)-1].No, Count: len(run),
			FirstRelease: run[0].ReleaseAt, LastRelease: run[0].ReleaseAt}
		for _, v := range run {
			if v.ReleaseAt.Before(ref.FirstRelease) {
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
	head.VolumeIndex = idx
	return head, pages
}

// recentReleases is VolumeIndex.Recent of vols (sorted by number): every
// volume released after now-RecentWindow or scheduled later, and at least
// the RecentMin newest, ascending by release time then number. With early
// set (the work is sold early) the volumes still to come carry their titles.
func recentReleases(vols []Volume, now time.Time, early bool) []VolumeRelease {
	byTime := make([]VolumeRelease, len(vols))
	for i, v := range vols {
		byTime[i] = VolumeRelease{No: v.No, At: v.ReleaseAt, Free: v.IsFree}
		if early && v.ReleaseAt.After(now) {
			byTime[i].Title = v.Title
		}
	}
	slices.SortStableFunc(byTime, func(a, b VolumeRelease) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.No, b.No)
	})
	since := now.Add(-RecentWindow)
	from := len(byTime)
	for from > 0 && byTime[from-1].At.After(since) {
		from--
	}
	from = min(from, max(len(byTime)-RecentMin, 0))
	return slices.Clone(byTime[from:])
}

// PageHash is a page's hash (VolumePageRef.Hash, VolumePage.Hash): the
// first 16 hex digits of the SHA-256 of its volumes' JSON. The same volumes
// always give the same hash, so a writer can tell an unchanged page and an
// edge caches a page under it without ever purging.
func PageHash(vols []Volume) string {
	b, err := json.Marshal(vols)
	if err != nil {
		// A Volume always marshals (no maps, channels or NaN); should it
		// not, an empty input's hash still names the page.
		b = nil
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// BucketOf is the KV bucket a catalog document key lives in: volume pages
// (KeyVolumePage) in VolumesBucket, every other key in CatalogBucket.
func BucketOf(key string) string {
	if strings.HasPrefix(key, KeyCommentHead) || strings.HasPrefix(key, KeyCommentPage) {
		return CommentsBucket
	}
	if strings.HasPrefix(key, KeyVolumePage) {
		return VolumesBucket
	}
	return CatalogBucket
}

// KVSubject is the JetStream subject a put or delete of key publishes to
// ($KV.<bucket>.<key>): a producer that publishes documents as messages
// (the writer's relay, benchserve) rather than through a KeyValue.
func KVSubject(key string) string { return "$KV." + BucketOf(key) + "." + key }

// JoinVolumes is SplitVolumes undone: head with its pages' volumes inline
// (Volumes set, VolumeIndex nil), for tools and tests that want a work
// whole. pages are matched to head's references by index and must carry the
// same hash: a page of another version of the work is an error (a reader
// got a page newer than its head and must read the head again).
func JoinVolumes(head *Product, pages []VolumePage) (Product, error) {
	p := *head
	if head.VolumeIndex == nil {
		return p, nil
	}
	byIndex := make(map[int]*VolumePage, len(pages))
	for i := range pages {
		byIndex[pages[i].Index] = &pages[i]
	}
	p.VolumeIndex = nil
	p.Volumes = make([]Volume, 0, head.VolumeIndex.Count)
	for _, ref := range head.VolumeIndex.Pages {
		pg := byIndex[ref.Index]
		switch {
		case pg == nil:
			return p, fmt.Errorf("work %s: volume page %d missing", head.PID, ref.Index)
		case pg.Hash != ref.Hash:
			return p, fmt.Errorf("work %s: volume page %d is %s, the head names %s", head.PID, ref.Index, pg.Hash, ref.Hash)
		}
		p.Volumes = append(p.Volumes, pg.Volumes...)
	}
	return p, nil
}
