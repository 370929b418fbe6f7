// Package rankings computes the rankings readers see from ClickHouse and puts
// them into the catalog KV bucket as contract.Ranking documents under
// ranking.<scope>.<tab>, where the edges serve them.
//
// Tabs (contract.RankReal, RankDaily, RankWeekly, RankNew):
//
//	real    the last RealWindow (3 h) of raw events
//	daily   the last 24 hourly buckets of work_hourly (the current hour included)
//	weekly  the last 7×24 hourly buckets of work_hourly
//	new     weekly scores of the works registered within NewWindow (30 days),
//	        registration dates taken from the catalog's prod.<pid> documents
//
// Score = ViewWeight × views + PurchaseWeight × (purchases + rentals), views being
// view_content events. Ties go to the smaller pid so the order is stable. Scopes:
// all, wt, cm, eb and genre-<integratedGenreId>. Hidden works are left out.
//
// The same computation publishes the popular search keywords (popular.go).
//
// Any number of analytics processes may compute at once: they compute the same
// answer from the same data, and a ranking whose items did not change is not
// written again (edges then keep their cached pages).
package rankings

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/natsutil"
)

// Config of a Computer; zero values get the defaults noted.
type Config struct {
	Interval       time.Duration // between computations (1 min)
	RealWindow     time.Duration // real-time window (3 h)
	NewWindow      time.Duration // how recent a registration counts as new (30 days)
	Limit          int           // items per ranking (100)
	ViewWeight     float64       // (1)
	PurchaseWeight float64       // (10)
	Now            func() time.Time
	// Popular configures the popular search keywords (popular.go).
	Popular PopularConfig
	// Leader, when set, lets only the node holding it compute (one analytics
	// node at a time: N nodes would make N times the ClickHouse load for
	// the same answer); nil = always compute.
	Leader Leader
}

// Leader is single-leader work's gate (natsutil.Lease).
type Leader interface {
	Held() bool
	// Gained receives when this node becomes the leader.
	Gained() <-chan struct{}
}

func (c Config) withDefaults() Config {
	if c.Interval <= 0 {
		c.Interval = time.Minute
	}
	if c.RealWindow <= 0 {
		c.RealWindow = 3 * time.Hour
	}
	if c.NewWindow <= 0 {
		c.NewWindow = 30 * 24 * time.Hour
	}
	if c.Limit <= 0 {
		c.Limit = 100
	}
	if c.ViewWeight == 0 {
		c.ViewWeight = 1
	}
	if c.PurchaseWeight == 0 {
		c.PurchaseWeight = 10
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	c.Popular = c.Popular.withDefaults()
	return c
}

// Work is what rankings need of a catalog product (a subset of contract.Product).
type Work struct {
	Section      string    `json:"section"`
	GenreID      string    `json:"genreId"`
	Hidden       bool      `json:"hidden"`
	RegisteredAt time.Time `json:"registeredAt"`
	Age          int       `json:"age"`
}

// Computer computes and publishes rankings. It is safe for concurrent use.
type Computer struct {
	ch  driver.Conn
	kv  jetstream.KeyValue
	cfg Config
	log *slog.Logger

	mu    sync.RWMutex
	works map[string]Work

	computed atomic.Int64
}

// Computed is how many computations this node has published.
func (c *Computer) Computed() int64 { return c.computed.Load() }

// New makes a Computer.
func New(ch driver.Conn, kv jetstream.KeyValue, cfg Config, log *slog.Logger) *Computer {
	return &Computer{ch: ch, kv: kv, cfg: cfg.withDefaults(), log: log, works: map[string]Work{}}
}

// SetWork records a catalog product (the watcher calls it; tests may too).
func (c *Computer) SetWork(pid string, w Work) {
	c.mu.Lock()
	c.works[pid] = w
	c.mu.Unlock()
}

// LoadCatalog reads every prod.<pid> document once. Run keeps the view current.
func (c *Computer) LoadCatalog(ctx context.Context) error {
	w, err := c.kv.Watch(ctx, contract.KeyProduct+">", jetstream.IgnoreDeletes())
	if err != nil {
		return fmt.Errorf("watch products: %w", err)
	}
	defer w.Stop()
	for e := range w.Updates() {
		if e == nil {
			return nil
		}
		c.apply(e)
	}
	return ctx.Err()
}

func (c *Computer) apply(e jetstream.KeyValueEntry) {
	pid := strings.TrimPrefix(e.Key(), contract.KeyProduct)
	if e.Operation() != jetstream.KeyValuePut {
		c.mu.Lock()
		delete(c.works, pid)
		c.mu.Unlock()
		return
	}
	var w Work
	if err := json.Unmarshal(e.Value(), &w); err != nil {
		c.log.Warn("rankings: bad product document", "key", e.Key(), "err", err)
		return
	}
	c.SetWork(pid, w)
}

func (c *Computer) watch(ctx context.Context) {
	for ctx.Err() == nil {
		w, err := c.kv.Watch(ctx, contract.KeyProduct+">")
		if err != nil {
			c.log.Warn("rankings: watch products", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for e := range w.Updates() {
			if e != nil {
				c.apply(e)
			}
		}
		_ = w.Stop()
	}
}

// Run watches the catalog and computes rankings every Interval until ctx is done.
func (c *Computer) Run(ctx context.Context) error {
	go c.watch(ctx)
	t := time.NewTicker(c.cfg.Interval)
	defer t.Stop()
	var gained <-chan struct{}
	if c.cfg.Leader != nil {
		gained = c.cfg.Leader.Gained()
	}
	for {
		if c.cfg.Leader == nil || c.cfg.Leader.Held() {
			if err := c.ComputeAndPublish(ctx); err != nil && ctx.Err() == nil {
				c.log.Warn("rankings not updated", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-gained:
		}
	}
}

// ComputeAndPublish computes every ranking and writes the changed ones.
func (c *Computer) ComputeAndPublish(ctx context.Context) error {
	rs, err := c.Compute(ctx)
	if err != nil {
		return err
	}
	if err := c.Publish(ctx, rs); err != nil {
		return err
	}
	ps, err := c.ComputePopular(ctx)
	if err != nil {
		return err
	}
	if err := c.PublishPopular(ctx, ps); err != nil {
		return err
	}
	c.computed.Add(1)
	return nil
}

type score struct {
	pid, section, genre string
	views, purchases    uint64
}

// Compute returns every ranking, keyed by its KV key.
func (c *Computer) Compute(ctx context.Context) (map[string]contract.Ranking, error) {
	now := c.cfg.Now().UTC()
	hour := now.Truncate(time.Hour)
	real, err := c.query(ctx, `SELECT pid, any(section), any(genre_id),
 countIf(type = 'view_content'), countIf(type IN ('purchase', 'rental'))
 FROM events
 WHERE type IN ('view_content', 'purchase', 'rental') AND pid != ''
   AND kst_date >= toDate(?) AND ts >= ? AND ts <= ?
 GROUP BY pid`, now.Add(-c.cfg.RealWindow-24*time.Hour), now.Add(-c.cfg.RealWindow), now)
	if err != nil {
		return nil, fmt.Errorf("real-time scores: %w", err)
	}
	hourly := `SELECT pid, any(section), any(genre_id), sum(views), sum(purchases) + sum(rentals)
 FROM work_hourly WHERE hour >= ? AND hour <= ? GROUP BY pid`
	daily, err := c.query(ctx, hourly, hour.Add(-23*time.Hour), now)
	if err != nil {
		return nil, fmt.Errorf("daily scores: %w", err)
	}
	weekly, err := c.query(ctx, hourly, hour.Add(-(7*24-1)*time.Hour), now)
	if err != nil {
		return nil, fmt.Errorf("weekly scores: %w", err)
	}
	c.mu.RLock()
	var fresh []score
	for _, s := range weekly {
		if w, ok := c.works[s.pid]; ok && !w.RegisteredAt.IsZero() && now.Sub(w.RegisteredAt) <= c.cfg.NewWindow {
			fresh = append(fresh, s)
		}
	}
	out := map[string]contract.Ranking{}
	for tab, scores := range map[string][]score{contract.RankReal: real, contract.RankDaily: daily, contract.RankWeekly: weekly, contract.RankNew: fresh} {
		for scope, items := range c.rank(scores) {
			out[contract.KeyRanking+scope+"."+tab] = contract.Ranking{Scope: scope, Tab: tab, Items: items, ComputedAt: now}
		}
	}
	c.mu.RUnlock()
	return out, nil
}

// rank splits scores into scopes and orders each; callers hold c.mu.
func (c *Computer) rank(scores []score) map[string][]contract.RankingItem {
	type scored struct {
		pid string
		v   float64
	}
	by := map[string][]scored{"all": nil, "wt": nil, "cm": nil, "eb": nil}
	for _, g := range contract.Genres {
		by["genre-"+g.ID] = nil
	}
	for _, s := range scores {
		section, genre := s.section, s.genre
		if w, ok := c.works[s.pid]; ok {
			if w.Hidden {
				continue
			}
			section, genre = w.Section, w.GenreID
		}
		v := c.cfg.ViewWeight*float64(s.views) + c.cfg.PurchaseWeight*float64(s.purchases)
		if v <= 0 {
			continue
		}
		it := scored{s.pid, v}
		by["all"] = append(by["all"], it)
		if sec := strings.ToLower(section); sec == "wt" || sec == "cm" || sec == "eb" {
			by[sec] = append(by[sec], it)
		}
		if genre != "" && contract.ValidKeyID(genre) {
			by["genre-"+genre] = append(by["genre-"+genre], it)
		}
	}
	out := make(map[string][]contract.RankingItem, len(by))
	for scope, list := range by {
		sort.Slice(list, func(i, j int) bool {
			if list[i].v != list[j].v {
				return list[i].v > list[j].v
			}
			return list[i].pid < list[j].pid
		})
		if len(list) > c.cfg.Limit {
			list = list[:c.cfg.Limit]
		}
		items := make([]contract.RankingItem, len(list))
		for i, s := range list {
			items[i] = contract.RankingItem{PID: s.pid, Rank: i + 1, Score: s.v}
		}
		out[scope] = items
	}
	return out
}

func (c *Computer) query(ctx context.Context, q string, args ...any) ([]score, error) {
	rows, err := c.ch.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []score
	for rows.Next() {
		var s score
		if err := rows.Scan(&s.pid, &s.section, &s.genre, &s.views, &s.purchases); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Publish writes each ranking whose items differ from the stored one, filling
// Delta (previous rank − new rank; 0 for an entry that was not ranked before).
func (c *Computer) Publish(ctx context.Context, rs map[string]contract.Ranking) error {
	keys := make([]string, 0, len(rs))
	for k := range rs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		r := rs[key]
		prevRank := map[string]int{}
		var prev contract.Ranking
		e, err := c.kv.Get(ctx, key)
		switch {
		case err == nil:
			if json.Unmarshal(e.Value(), &prev) == nil {
				for _, it := range prev.Items {
					prevRank[it.PID] = it.Rank
				}
			}
		case !natsutil.IsNotFound(err):
			return fmt.Errorf("read ranking %s: %w", key, err)
		}
		if err == nil && sameOrder(prev.Items, r.Items) {
			continue // unchanged: keep the stored deltas and the edges' caches
		}
		for i := range r.Items {
			if p, ok := prevRank[r.Items[i].PID]; ok {
				r.Items[i].Delta = p - r.Items[i].Rank
			}
		}
		if r.Items == nil {
			r.Items = []contract.RankingItem{}
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := c.kv.Put(ctx, key, b); err != nil {
			return fmt.Errorf("put ranking %s: %w", key, err)
		}
	}
	return nil
}

func sameOrder(a, b []contract.RankingItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].PID != b[i].PID || a[i].Score != b[i].Score {
			return false
		}
	}
	return true
}
