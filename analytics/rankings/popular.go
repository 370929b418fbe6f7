package rankings

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"storefront/contract"
	"storefront/natsutil"
)

// PopularConfig says how popular search keywords are counted; zero values get
// the defaults noted.
type PopularConfig struct {
	// Window is how far back searches count (24 h).
	Window time.Duration
	// MinSearchers is the floor of distinct searchers (members, or devices
	// for visitors) a keyword needs (5): one person, however often they
	// search, cannot put a keyword on every reader's screen.
	MinSearchers int
	// Limit is how many keywords the document holds (30). The edge shows 10
	// (catalog.PopularSearchesShown); the rest stand in for adult keywords
	// the teen version leaves out.
	Limit int
}

func (c PopularConfig) withDefaults() PopularConfig {
	if c.Window <= 0 {
		c.Window = 24 * time.Hour
	}
	if c.MinSearchers <= 0 {
		c.MinSearchers = 5
	}
	if c.Limit <= 0 {
		c.Limit = 30
	}
	return c
}

// popularQuery counts, per keyword (spaces ignored: "나 혼자" and "나혼자" are
// one), the distinct searchers in the window: a member by uid, a visitor by
// the edge's session cookie. The keyword shown is the form searched most; the
// top hit is the one the edge found most often (contract.PropSearchTop).
// Raw events, not FINAL: a copy of an event changes neither a distinct count
// nor, in practice, a most-frequent value.
const popularQuery = `SELECT k, topK(1)(shown), uniqExact(who) AS searchers, topKIf(1)(top, top != '')
 FROM (
   SELECT replaceAll(props_values[indexOf(props_keys, 'q')], ' ', '') AS k,
          props_values[indexOf(props_keys, 'q')] AS shown,
          if(uid != '', uid, session_id) AS who,
          props_values[indexOf(props_keys, 'top')] AS top
   FROM events
   WHERE type = 'search' AND kst_date >= toDate(?) AND ts >= ? AND ts <= ?
 )
 WHERE k != '' AND who != ''
 GROUP BY k
 HAVING searchers >= ?
 ORDER BY searchers DESC, k ASC
 LIMIT ?`

// ComputePopular returns the popular search keywords of the window ending
// now, most searchers first (ties by keyword, so the order is stable). A
// keyword whose top hit is an adult work in the catalog is marked Adult.
func (c *Computer) ComputePopular(ctx context.Context) (contract.PopularSearches, error) {
	pc := c.cfg.Popular
	now := c.cfg.Now().UTC()
	from := now.Add(-pc.Window)
	rows, err := c.ch.Query(ctx, popularQuery, from.Add(-24*time.Hour), from, now, uint64(pc.MinSearchers), uint64(pc.Limit))
	if err != nil {
		return contract.PopularSearches{}, fmt.Errorf("popular searches: %w", err)
	}
	defer rows.Close()
	out := contract.PopularSearches{Items: []contract.PopularSearch{}, Window: int64(pc.Window / time.Second), ComputedAt: now}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for rows.Next() {
		var (
			key         string
			shown, tops []string
			searchers   uint64
		)
		if err := rows.Scan(&key, &shown, &searchers, &tops); err != nil {
			return contract.PopularSearches{}, fmt.Errorf("popular searches: %w", err)
		}
		it := contract.PopularSearch{Keyword: key, Rank: len(out.Items) + 1, Searchers: int(searchers)}
		if len(shown) > 0 && shown[0] != "" {
			it.Keyword = shown[0]
		}
		if len(tops) > 0 {
			if w, ok := c.works[tops[0]]; ok && contract.AdultAge(w.Age) {
				it.Adult = true
			}
		}
		out.Items = append(out.Items, it)
	}
	return out, rows.Err()
}

// PublishPopular writes the keywords unless the stored document lists the
// same keywords in the same order with the same marks: counts alone moving
// would make every edge drop its cached answer each minute for nothing shown.
func (c *Computer) PublishPopular(ctx context.Context, p contract.PopularSearches) error {
	e, err := c.kv.Get(ctx, contract.KeyPopularSearches)
	switch {
	case err == nil:
		var prev contract.PopularSearches
		if json.Unmarshal(e.Value(), &prev) == nil && samePopular(prev.Items, p.Items) {
			return nil
		}
	case !natsutil.IsNotFound(err):
		return fmt.Errorf("read popular searches: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := c.kv.Put(ctx, contract.KeyPopularSearches, b); err != nil {
		return fmt.Errorf("put popular searches: %w", err)
	}
	return nil
}

func samePopular(a, b []contract.PopularSearch) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Keyword != b[i].Keyword || a[i].Adult != b[i].Adult {
			return false
		}
	}
	return true
}
