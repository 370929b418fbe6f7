package catalog

import (
	"strings"

	"storefront/contract"
)

// Read-model kinds of Bytes.
const (
	modelProducts = "products"
	modelReviews  = "reviews"
	modelRankings = "rankings"
	modelOther    = "other"  // events, awards, FAQ, notices, banners, keywords, site documents
	modelLists    = "lists"  // the list indexes (listindex.go)
	modelSearch   = "search" // the search index (searchindex.go)
	modelPins     = "pins"   // the pin index (pinindex.go)
)

// Per-document estimates of what a decoded read model holds, from its JSON.
// Measured by TestReadModelBytesEstimate (decoded products on the heap after
// a collection): a work's head (no volumes, 917 bytes of JSON) holds 1,188
// bytes; each volume (212 bytes of JSON) holds 347: its decoded struct, a
// second sorted copy (volsByNo) and its release instant. A small document
// holds about its JSON plus the map entry and struct headers.
const (
	productBytesPerJSONByte = 1.0
	productBytesPerVolume   = 150 // beyond its JSON: volsByNo's copy (contract.Volume, 120 B) and releases (24 B)
	productBytesFixed       = 300
	docBytesPerJSONByte     = 1.2
	docBytesFixed           = 160
)

// A paged head (paged.go) holds no volume: its JSON plus, beyond it, each
// page reference's decoded struct and release instants and each recent
// release's (TestPagedHeadBytesEstimate: a head of 10,000 volumes, 100 page
// references and 168 recent releases, 27 KB of JSON, holds 33 KB).
const (
	pagedBytesPerPageRef = 40
	pagedBytesPerRecent  = 10
)

func pagedHeadBytes(ix *contract.VolumeIndex) int64 {
	return int64(len(ix.Pages))*pagedBytesPerPageRef + int64(len(ix.Recent))*pagedBytesPerRecent
}

func productBytes(jsonBytes, volumes int) int64 {
	return int64(float64(jsonBytes)*productBytesPerJSONByte) + int64(volumes)*productBytesPerVolume + productBytesFixed
}

func docBytes(jsonBytes int) int64 {
	return int64(float64(jsonBytes)*docBytesPerJSONByte) + docBytesFixed
}

func modelOf(key string) string {
	switch {
	case strings.HasPrefix(key, contract.KeyProduct):
		return modelProducts
	case strings.HasPrefix(key, contract.KeyReviews):
		return modelReviews
	case strings.HasPrefix(key, contract.KeyRanking):
		return modelRankings
	case strings.HasPrefix(key, contract.KeyStat):
		return "" // held in the work itself (its counters)
	case strings.HasPrefix(key, contract.MediaImageKeyPrefix), strings.HasPrefix(key, contract.VolumeMediaKeyPrefix):
		return "" // not counted: per-volume media documents are on their way out (issue 35, item 1)
	}
	return modelOther
}

// account replaces the estimate of a document other than a product. Caller
// holds s.mu.
func (s *Store) account(key string, jsonBytes int, del bool) {
	m := modelOf(key)
	if m == "" {
		return
	}
	s.modelBytes[m] -= s.sizes[key]
	if del {
		delete(s.sizes, key)
		return
	}
	n := docBytes(jsonBytes)
	s.sizes[key] = n
	s.modelBytes[m] += n
}

// Bytes estimates the bytes the read models hold, by kind (products,
// reviews, rankings, other): for /metrics and the memory budget of
// edge/README.md. It is an estimate from each document's JSON size, kept up
// to date as documents change, never a walk of the heap.
func (s *Store) Bytes() map[string]int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]int64, 4)
	for _, m := range []string{modelProducts, modelReviews, modelRankings, modelOther} {
		out[m] = s.modelBytes[m]
	}
	out[modelLists] = s.lists.bytes()
	out[modelSearch] = s.search.bytes()
	out[modelPins] = s.pins.bytes()
	return out
}
