// Package catalog holds the edge's authoritative read models: plain in-memory
// maps of the contract documents found in the `catalog` KV bucket, and the
// queries every public read is answered from (lists, detail, rankings, search).
//
// A Store is fed by one KV watcher (Apply) and read by many request goroutines
// (Read). Apply bumps the cache tags a change touches while it holds the write
// lock, so a body rendered under Read carries versions that agree with the data
// it was rendered from.
package catalog

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/go-json-experiment/json"

	"storefront/contract"
	"storefront/edge/cache"
	"storefront/edge/search"
)

// Tag names bumped by updates. Renderers depend on them through Deps.
const (
	TagAllProducts = "prods"   // any product list, search or ranking over every section
	TagEvents      = "events"  // events, benefit and heroism pages
	TagAwards      = "awards"  //
	TagFAQ         = "faq"     //
	TagNotices     = "notices" //
	TagBanners     = "banners" //
	TagQuickLinks  = "quick"   //
	TagKeywords    = "keywords"
	TagJumping     = "jumping"
	TagSite        = "site"
	TagRankings    = "rankings"
	TagPopular     = "popular" // popular search keywords
)

// TagProduct is the tag of one product's own document.
func TagProduct(pid string) string { return "p:" + pid }

// TagSection is the tag of every list over one section.
func TagSection(section string) string { return "s:" + section }

// TagReviews is the tag of one product's review list.
func TagReviews(pid string) string { return "r:" + pid }

// TagAuthor is the tag of an author's works list.
func TagAuthor(id int64) string { return "a:" + strconv.FormatInt(id, 10) }

// Prod is a product document with what the edge derives from it once.
type Prod struct {
	contract.Product
	titleKey    []rune   // search.Key(title)
	altKeys     [][]rune // search.Key of each alternative title
	authorKeys  [][]rune
	releases    []time.Time // volume release instants, ascending
	volsByNo    []contract.Volume
	lastRelease time.Time
	// paged: the volumes are in pages (paged.go); volsByNo is empty.
	paged bool
	// memBytes estimates what this product holds in memory (see Bytes).
	memBytes int64
	// ctr: the counters once a counters document changed them (nil: the
	// document's). Read through ViewCnt, ZzimCount, ReviewCount, PointSum.
	ctr atomic.Pointer[Counters]
	// searchSlot is the work's slot in the search index plus one (0: none).
	searchSlot int32
}

// Store is the set of read models. The zero value is not usable; use New.
type Store struct {
	mu   sync.RWMutex
	tags *cache.Tags

	products   map[string]*Prod
	events     map[int64]*contract.Event
	awards     map[int64]*contract.Award
	faqs       map[int64]*contract.FAQ
	notices    map[int64]*contract.Notice
	banners    map[int64]*contract.Banner
	keywords   map[int64]*contract.Keyword
	rankings   map[string]*contract.Ranking // "<scope>.<tab>"
	reviews    map[string]*reviewDoc
	quickLinks *contract.QuickLinks
	jumping    *contract.JumpingPass
	site       *contract.SiteConfig
	popular    *contract.PopularSearches

	// Public images (contract/media.go) by id, so a request finds them from
	// the bytes of its path without building a key. A volume's content has
	// no document: its version is a field of the volume.
	images map[string]*contract.MediaImage
	// imageUse counts, per picture id, the documents naming it
	// (imageaudience.go): adult-only pictures are served by audience.
	imageUse map[string]imageUse

	// modelBytes estimates the bytes each kind of read model holds (see
	// Bytes); sizes is the estimate of each document other than products
	// (which keep theirs) and media documents (not counted), so a
	// replacement subtracts what the old one held.
	modelBytes map[string]int64
	sizes      map[string]int64

	// CountersRefresh bounds how stale lists' counters get (see
	// FlushCounters); set before the first Apply. Zero: DefaultCountersRefresh.
	CountersRefresh time.Duration
	// countersDirtySince: when (unix ns) a counters document first changed
	// a work after the last bump of TagCounters, 0 = none since.
	countersDirtySince atomic.Int64
	// ctrChanged: the works whose counters changed since the last flush
	// (rebuildCounterLists moves only them); flushMu makes one flush at a
	// time take and use them.
	ctrChanged struct {
		sync.Mutex
		m map[*Prod]struct{}
	}
	flushMu sync.Mutex

	// pages caches paged works' volume pages (paged.go); pagedChanged is
	// signalled when a paged head comes or goes.
	pages        *VolumePages
	pagedChanged chan struct{}

	// loading: the initial state is loading (SetLoading). Changed under
	// mu's write lock, so a reader holding mu sees it steady.
	loading atomic.Bool

	// meta guards revision, updatedAt and applied: a batch of counters
	// documents applies under mu's read lock.
	meta sync.Mutex
	// applyNow is the instant of the Apply under way (under mu's write lock).
	applyNow time.Time

	// lists: each section's works in each list order, kept in order by
	// Apply (listindex.go); authors: each author's works by pid.
	lists   listIndex
	authors map[int64]map[string]*Prod
	// soon: works applied with a release within soonWindow (releasing.go).
	soon soonIndex
	// search: works by the runes of their titles and authors (searchindex.go).
	search searchIndex
	// pins: paged works by the hour of their next release (pinindex.go).
	pins pinIndex

	// revision of the last applied KV entry, and when.
	revision  uint64
	updatedAt time.Time
	applied   uint64
}

// New returns an empty store bumping tags in t.
func New(t *cache.Tags) *Store {
	// Lists show counters up to CountersRefresh late by design: an answer
	// stale by them alone may be served while it re-renders.
	t.Soften(TagCounters)
	return &Store{
		tags:     t,
		products: make(map[string]*Prod),
		events:   make(map[int64]*contract.Event),
		awards:   make(map[int64]*contract.Award),
		faqs:     make(map[int64]*contract.FAQ),
		notices:  make(map[int64]*contract.Notice),
		banners:  make(map[int64]*contract.Banner),
		keywords: make(map[int64]*contract.Keyword),
		rankings: make(map[string]*contract.Ranking),
		reviews:  make(map[string]*reviewDoc),
		images:   make(map[string]*contract.MediaImage),
		imageUse: make(map[string]imageUse),
		authors:  make(map[int64]map[string]*Prod),
		search:   newSearchIndex(),

		modelBytes: make(map[string]int64),
		sizes:      make(map[string]int64),

		pagedChanged: make(chan struct{}, 1),
	}
}

// Tags returns the tag table bodies depend on.
func (s *Store) Tags() *cache.Tags { return s.tags }

// Update is one KV change.
type Update struct {
	Key      string
	Value    []byte
	Delete   bool
	Revision uint64
}

// Apply applies updates in order under one lock. Bad documents are skipped and
// reported; the rest still apply.
func (s *Store) Apply(now time.Time, ups ...Update) []error {
	// Decode outside the lock and on every core: that is where the time
	// goes (a 100,000-work initial sync is ~250 MB of JSON).
	lazy := s.loading.Load()
	docs := make([]any, len(ups))
	derrs := make([]error, len(ups))
	workers := 1
	if len(ups) >= 64 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(ups); i += workers {
				if ups[i].Delete {
					continue
				}
				d, err := decode(ups[i].Key, ups[i].Value, lazy)
				if err != nil {
					derrs[i] = fmt.Errorf("decode %s: %w", ups[i].Key, err)
					continue
				}
				docs[i] = d
			}
		}()
	}
	wg.Wait()
	var errs []error
	for _, err := range derrs {
		if err != nil {
			errs = append(errs, err)
		}
	}
	stats := isStat(ups)
	if stats {
		s.mu.RLock()
		defer s.mu.RUnlock()
	} else {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.applyNow = now
	}
	var rev uint64
	var applied uint64
	counters := false
	for i, u := range ups {
		if !u.Delete && docs[i] == nil {
			continue
		}
		if stats {
			counters = s.applyStat(u.Key[len(contract.KeyStat):], docs[i], u.Delete) || counters
		} else {
			s.apply(u, docs[i])
		}
		rev = max(rev, u.Revision)
		applied++
	}
	if counters {
		s.countersDirtySince.CompareAndSwap(0, max(now.UnixNano(), 1))
	}
	s.meta.Lock()
	s.revision = max(s.revision, rev)
	s.applied += applied
	s.updatedAt = now
	s.meta.Unlock()
	return errs
}

// Stats reports the last applied revision, when it was applied and how many
// entries were applied in total.
func (s *Store) Stats() (revision uint64, at time.Time, applied uint64, products int) {
	s.mu.RLock()
	n := len(s.products)
	s.mu.RUnlock()
	s.meta.Lock()
	defer s.meta.Unlock()
	return s.revision, s.updatedAt, s.applied, n
}

// decode reads a KV value with encoding/json v2 (the Go team's
// go-json-experiment module): 17 against 31 µs per product in v1, and
// decoding is most of the start-up's work (100,000 products to ready). The
// values are written by Go from the same contract types, so v2's stricter
// reading (exact member names, valid UTF-8, no duplicate names) accepts all
// of them.
func decode(key string, v []byte, lazy bool) (any, error) {
	switch {
	case strings.HasPrefix(key, contract.KeyProduct):
		// Decoded in place: a copy of the document into its Prod was 5% of
		// a start at 150,000 works.
		d := new(Prod)
		if err := json.Unmarshal(v, &d.Product); err != nil {
			return nil, err
		}
		if d.PID == "" {
			d.PID = key[len(contract.KeyProduct):]
		}
		derive(d)
		d.memBytes = productBytes(len(v), len(d.Volumes))
		if d.paged {
			d.memBytes += pagedHeadBytes(d.VolumeIndex)
		}
		return d, nil
	case strings.HasPrefix(key, contract.KeyReviews):
		d, err := decodeReviews(key[len(contract.KeyReviews):], v, lazy)
		if err != nil {
			return nil, err
		}
		return d, nil
	case strings.HasPrefix(key, contract.KeyStat):
		return decodeAs[contract.ProductStat](v)
	case strings.HasPrefix(key, contract.KeyEvent):
		return decodeAs[contract.Event](v)
	case strings.HasPrefix(key, contract.KeyAward):
		return decodeAs[contract.Award](v)
	case strings.HasPrefix(key, contract.KeyFAQ):
		return decodeAs[contract.FAQ](v)
	case strings.HasPrefix(key, contract.KeyNotice):
		return decodeAs[contract.Notice](v)
	case strings.HasPrefix(key, contract.KeyBanner):
		return decodeAs[contract.Banner](v)
	case strings.HasPrefix(key, contract.KeyKeyword):
		return decodeAs[contract.Keyword](v)
	case strings.HasPrefix(key, contract.KeyRanking):
		return decodeAs[contract.Ranking](v)
	case key == contract.KeyQuickLinks:
		return decodeAs[contract.QuickLinks](v)
	case key == contract.KeyJumpPass:
		return decodeAs[contract.JumpingPass](v)
	case key == contract.KeySiteConfig:
		return decodeAs[contract.SiteConfig](v)
	case key == contract.KeyPopularSearches:
		return decodeAs[contract.PopularSearches](v)
	case strings.HasPrefix(key, contract.MediaImageKeyPrefix):
		return decodeAs[contract.MediaImage](v)
	default:
		// Keys of later read models this edge does not know yet are ignored,
		// so writers can add models before edges serve them.
		return struct{}{}, nil
	}
}

// decodeAs reads a document that the store keeps as it is, as a *T; on an
// error the value is a plain nil, not a nil *T inside the interface.
func decodeAs[T any](v []byte) (any, error) {
	d := new(T)
	if err := json.Unmarshal(v, d); err != nil {
		return nil, err
	}
	return d, nil
}

// derive fills what the edge derives from d's document.
func derive(d *Prod) {
	p := &d.Product
	d.titleKey = search.Key(p.Title)
	for _, t := range p.AltTitles {
		d.altKeys = append(d.altKeys, search.Key(t))
	}
	for _, a := range p.Authors {
		d.authorKeys = append(d.authorKeys, search.Key(a.AuthorName))
	}
	if isPaged(p) {
		d.paged = true
		d.releases = pagedReleases(p.VolumeIndex)
		return
	}
	d.volsByNo = slices.Clone(p.Volumes)
	sort.SliceStable(d.volsByNo, func(i, j int) bool { return d.volsByNo[i].No < d.volsByNo[j].No })
	for _, v := range p.Volumes {
		d.releases = append(d.releases, v.ReleaseAt)
	}
	slices.SortFunc(d.releases, func(a, b time.Time) int { return a.Compare(b) })
}

func idOf(key, prefix string) (int64, bool) {
	n, err := strconv.ParseInt(key[len(prefix):], 10, 64)
	return n, err == nil
}

// apply changes one model and bumps the tags it touches. Caller holds s.mu.
func (s *Store) apply(u Update, doc any) {
	key := u.Key
	if !strings.HasPrefix(key, contract.KeyProduct) {
		s.account(key, len(u.Value), u.Delete)
	}
	switch {
	case strings.HasPrefix(key, contract.KeyProduct):
		pid := key[len(contract.KeyProduct):]
		old := s.products[pid]
		var nw *Prod
		if !u.Delete {
			nw = doc.(*Prod)
			if old != nil && nw.Version != 0 && nw.Version < old.Version {
				return // an older document arriving late
			}
			s.products[pid] = nw
			s.modelBytes[modelProducts] += nw.memBytes
		} else {
			delete(s.products, pid)
		}
		if old != nil {
			s.countImages(old, -1)
			s.modelBytes[modelProducts] -= old.memBytes
		}
		if nw != nil {
			s.countImages(nw, 1)
		}
		s.indexProduct(old, nw)
		s.indexAuthors(old, nw)
		s.noteRelease(nw, s.applyNow)
		if !s.loading.Load() {
			s.search.update(old, nw)
			s.pins.mu.Lock()
			s.pins.file(pid, nw, s.pinFrom())
			s.pins.mu.Unlock()
		}
		if old != nil && old.paged || nw != nil && nw.paged {
			select {
			case s.pagedChanged <- struct{}{}:
			default:
			}
		}
		s.tags.Bump(TagProduct(pid))
		s.tags.Bump(TagAllProducts)
		for _, p := range []*Prod{old, nw} {
			if p == nil {
				continue
			}
			s.tags.Bump(TagSection(p.Section))
			for _, a := range p.Authors {
				s.tags.Bump(TagAuthor(a.AuthorID))
			}
		}
	case strings.HasPrefix(key, contract.KeyStat):
		if s.applyStat(key[len(contract.KeyStat):], doc, u.Delete) {
			s.countersDirtySince.CompareAndSwap(0, max(s.applyNow.UnixNano(), 1))
		}
	case strings.HasPrefix(key, contract.KeyEvent):
		if id, ok := idOf(key, contract.KeyEvent); ok {
			s.replaceImages(s.events[id], doc, u.Delete)
			setOrDelete(s.events, id, doc, u.Delete)
		}
		s.tags.Bump(TagEvents)
	case strings.HasPrefix(key, contract.KeyAward):
		if id, ok := idOf(key, contract.KeyAward); ok {
			setOrDelete(s.awards, id, doc, u.Delete)
		}
		s.tags.Bump(TagAwards)
	case strings.HasPrefix(key, contract.KeyFAQ):
		if id, ok := idOf(key, contract.KeyFAQ); ok {
			setOrDelete(s.faqs, id, doc, u.Delete)
		}
		s.tags.Bump(TagFAQ)
	case strings.HasPrefix(key, contract.KeyNotice):
		if id, ok := idOf(key, contract.KeyNotice); ok {
			setOrDelete(s.notices, id, doc, u.Delete)
		}
		s.tags.Bump(TagNotices)
	case strings.HasPrefix(key, contract.KeyBanner):
		if id, ok := idOf(key, contract.KeyBanner); ok {
			s.replaceImages(s.banners[id], doc, u.Delete)
			setOrDelete(s.banners, id, doc, u.Delete)
		}
		s.tags.Bump(TagBanners)
	case strings.HasPrefix(key, contract.KeyKeyword):
		if id, ok := idOf(key, contract.KeyKeyword); ok {
			setOrDelete(s.keywords, id, doc, u.Delete)
		}
		s.tags.Bump(TagKeywords)
	case strings.HasPrefix(key, contract.KeyRanking):
		setOrDelete(s.rankings, key[len(contract.KeyRanking):], doc, u.Delete)
		s.tags.Bump(TagRankings)
	case strings.HasPrefix(key, contract.KeyReviews):
		pid := key[len(contract.KeyReviews):]
		setOrDelete(s.reviews, pid, doc, u.Delete)
		s.tags.Bump(TagReviews(pid))
	case key == contract.KeyQuickLinks:
		s.replaceImages(s.quickLinks, doc, u.Delete)
		s.quickLinks, _ = doc.(*contract.QuickLinks)
		s.tags.Bump(TagQuickLinks)
	case key == contract.KeyJumpPass:
		s.jumping, _ = doc.(*contract.JumpingPass)
		s.tags.Bump(TagJumping)
	case key == contract.KeySiteConfig:
		s.site, _ = doc.(*contract.SiteConfig)
		s.tags.Bump(TagSite)
	case key == contract.KeyPopularSearches:
		s.popular, _ = doc.(*contract.PopularSearches)
		s.tags.Bump(TagPopular)
	case strings.HasPrefix(key, contract.MediaImageKeyPrefix):
		setOrDelete(s.images, key[len(contract.MediaImageKeyPrefix):], doc, u.Delete)
	}
}

func setOrDelete[K comparable, V any](m map[K]*V, k K, doc any, del bool) {
	if del {
		delete(m, k)
		return
	}
	if v, ok := doc.(*V); ok {
		m[k] = v
	}
}

// SetLoading says whether the store is loading its initial state: review
// lists arriving meanwhile are kept as JSON until first read (reviewDoc),
// and the search and pin indexes are left alone (searches and pins scan the
// works instead) until the load ends, when they are built once from every
// work (searchIndex.build, pinIndex.build). The edge sets it until its
// initial sync ends, before it reports ready.
func (s *Store) SetLoading(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.loading.Store(true)
		return
	}
	if s.loading.Swap(false) {
		// Answers do not change (searches scanned meanwhile), so no tag is bumped.
		s.search.build(s.products)
		s.pins.build(s.products, s.pinFrom())
	}
}
