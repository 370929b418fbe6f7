package contract

import (
	"strconv"
	"time"
)

// A work's volumes are paged out of its document (issue 35): the document
// under ProductKey is the work's head, which every edge holds, and its
// volumes live in page documents of VolumesBucket, which an edge fetches on
// demand into a bounded cache. A web novel of 10,000 episodes is one head of
// a few kilobytes and 100 pages of about 15 KB, where it was one value over
// NATS's 1 MiB limit.
//
// CatalogSchema 1 was the inline shape (Product.Volumes, no VolumeIndex);
// an edge still reads it, as one page held in the head, so a store moves to
// the paged shape by republishing its works while edges keep answering.
const CatalogSchema = 2

// VolumesBucket is the KV bucket of volume pages. It is not watched: an edge
// gets a page by key when it needs it. A separate bucket keeps pages out of
// the catalog's watch and its start-up snapshot.
const VolumesBucket = "catalog-vols"

// KeyVolumePage prefixes a page key: vols.<pid>.<index>.
const KeyVolumePage = "vols."

// VolumePageSize is how many volumes one page holds: volumes sorted by
// number, page i holds the i-th run of VolumePageSize. A page of 100 is
// 12-16 KB of JSON, one KV get.
const VolumePageSize = 100

// VolumePageKey is the VolumesBucket key of page index of work pid.
func VolumePageKey(pid string, index int) string {
	return KeyVolumePage + pid + "." + strconv.Itoa(index)
}

// RecentWindow: a head lists in VolumeIndex.Recent every volume released
// after the writer's clock minus this, and every one scheduled later, so an
// edge whose clock is at most this far behind the writer's answers lists
// (newest release, next release, UP badge, free counts) from the head alone.
const RecentWindow = 7 * 24 * time.Hour

// RecentMin is how many of the newest volumes Recent lists at least.
const RecentMin = 4

// VolumeIndex is what a head knows of its volumes: totals, one reference
// per page and the recent releases.
type VolumeIndex struct {
	// Count of volumes and of free ones, whatever their release time.
	Count int `json:"count"`
	Free  int `json:"free"`
	// Pages in order of volume number.
	Pages []VolumePageRef `json:"pages"`
	// Recent: see RecentWindow and RecentMin; ascending by release time,
	// then number.
	Recent []VolumeRelease `json:"recent"`
}

// VolumePageRef describes one page so that a head answers for the page's
// volumes once all of them are out, without the page.
type VolumePageRef struct {
	Index int `json:"index"`
	// Hash of the page document (PageHash); an edge caches a page under
	// (pid, index, hash), so a new page is a new entry and nothing needs
	// purging.
	Hash  string `json:"hash"`
	First int    `json:"first"` // number of its first volume
	Last  int    `json:"last"`  // number of its last volume
	Count int    `json:"count"`
	Free  int    `json:"free"`
	// Earliest and latest release among its volumes.
	FirstRelease time.Time `json:"firstRelease"`
	LastRelease  time.Time `json:"lastRelease"`
	// Paid offers among its non-free volumes (zero price: not offered).
	Buy  PriceSpan `json:"buy"`
	Rent PriceSpan `json:"rent"`
}

// PriceSpan sums prices of one kind of offer.
type PriceSpan struct {
	Count int `json:"count"`
	Total int `json:"total"`
	Min   int `json:"min"`
	Max   int `json:"max"`
}

// Add counts one price (zero: not offered).
func (s *PriceSpan) Add(price int) {
	if price <= 0 {
		return
	}
	if s.Count == 0 || price < s.Min {
		s.Min = price
	}
	s.Max = max(s.Max, price)
	s.Count++
	s.Total += price
}

// Merge adds o's prices to s.
func (s *PriceSpan) Merge(o PriceSpan) {
	if o.Count == 0 {
		return
	}
	if s.Count == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	s.Max = max(s.Max, o.Max)
	s.Count += o.Count
	s.Total += o.Total
}

// VolumeRelease is one volume's release as a head lists it.
type VolumeRelease struct {
	No   int       `json:"no"`
	At   time.Time `json:"at"`
	Free bool      `json:"free,omitempty"`
	// Title of a volume still to be released of a work sold early
	// (Product.EarlyCount > 0): the volume list shows its early ones from
	// the head alone, with no page fetched for them. Absent otherwise (and
	// in heads written before early access), so other heads stay as small.
	Title string `json:"title,omitempty"`
}

// EarlyEpisodes is the part of recent (VolumeIndex.Recent, ascending by
// release) sold early at now: the first count volumes not released by now.
// It returns a subslice and allocates nothing.
func EarlyEpisodes(recent []VolumeRelease, count int, now time.Time) []VolumeRelease {
	if count <= 0 {
		return nil
	}
	i := 0
	for i < len(recent) && !recent[i].At.After(now) {
		i++
	}
	return recent[i:min(i+count, len(recent))]
}

// IsEarly reports whether volume no is among EarlyEpisodes(recent, count, now).
func IsEarly(recent []VolumeRelease, count int, now time.Time, no int) bool {
	for _, r := range EarlyEpisodes(recent, count, now) {
		if r.No == no {
			return true
		}
	}
	return false
}

// VolumePage is the document under VolumePageKey.
type VolumePage struct {
	PID   string `json:"pid"`
	Index int    `json:"index"`
	// Hash is the same as its reference's: an edge that got a page newer
	// than its head (the writer publishes pages before heads) caches it
	// under its own hash.
	Hash    string   `json:"hash"`
	Volumes []Volume `json:"volumes"`
}
