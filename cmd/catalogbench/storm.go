package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// stormReport is the zzim storm and its baseline.
type stormReport struct {
	Seconds       float64   `json:"seconds"`
	WriteRate     int       `json:"writesPerSec"`
	Readers       int       `json:"readers"`
	ReadRate      int       `json:"readsPerSec"` // offered, all readers together
	Writes        int       `json:"writes"`
	BaselineReads latencies `json:"baselineReads"`
	StormReads    latencies `json:"stormReads"`
	BaselineCPU   float64   `json:"baselineCpuSeconds"`
	StormCPU      float64   `json:"stormCpuSeconds"`
	// RenderCPUPerWrite is the storm's edge CPU minus the baseline's (scaled
	// to the storm's read count), divided by the writes: what one counter
	// change costs the edge in applying and re-rendering.
	RenderCPUPerWriteMs float64 `json:"renderCpuPerWriteMs"`
}

// stormLists are the lists readers read during the storm: lists sorted by
// zzims and popularity, which a zzim can reorder.
func stormLists() []string {
	l := []string{
		"/home/api/v1/webtoon/genre/all?sort=zzim",
		"/home/api/v1/webtoon/genre/all?sort=popular",
		"/home/api/v1/comic/genre/all?sort=zzim",
		"/home/api/v1/comic/genre/all?sort=popular",
		"/home/api/v1/novel/genre/all?sort=zzim",
		"/home/api/v1/novel/genre/all?sort=popular",
		"/home/api/v1/webtoon/best",
		"/home/api/v1/comic/best",
		"/home/api/v1/novel/best",
		"/home/api/v1/novel/tab/series?sort=zzim",
		"/home/api/v1/novel/tab/romance?sort=popular",
		"/home/api/v1/webtoon/weekday?sort=zzim",
	}
	for _, g := range contract.Genres {
		l = append(l, "/home/api/v1/webtoon/genre/"+g.ID+"?sort=zzim", "/home/api/v1/novel/genre/"+g.ID+"?sort=popular")
	}
	return l
}

// readLists runs readers, each asking a list every readers/rate seconds
// (open loop: a slow answer does not slow the offered load) until ctx ends.
func readLists(ctx context.Context, cl *client, readers, rate int, seed uint64, col *collector, problem func(string, ...any)) {
	lists := stormLists()
	every := time.Duration(float64(time.Second) * float64(readers) / float64(rate))
	var wg sync.WaitGroup
	for k := range readers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(k)))
			// Readers start spread over one interval, not in lockstep.
			select {
			case <-time.After(time.Duration(r.Int64N(int64(every)))):
			case <-ctx.Done():
				return
			}
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				path := lists[r.IntN(len(lists))]
				sep := "?"
				if strings.Contains(path, "?") {
					sep = "&"
				}
				path += sep + "page=" + strconv.Itoa(1+r.IntN(3))
				res := cl.get(ctx, "list", path, "", false)
				if ctx.Err() != nil {
					return
				}
				col.add(res)
				if res.err != nil || res.status != 200 {
					problem("list %s: status %d, %v", path, res.status, res.err)
				}
				select {
				case <-t.C:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	wg.Wait()
}

// runStorm measures reads alone for d, then the same reads with rate zzim
// writes a second (stat.<pid> documents) for d.
func runStorm(ctx context.Context, nc *nats.Conn, c *catalog, e *edgeProc, d time.Duration, writeRate, readers, readRate int) (stormReport, []string, error) {
	rep := stormReport{Seconds: d.Seconds(), WriteRate: writeRate, Readers: readers, ReadRate: readRate}
	probs := &problemLog{}
	problem := probs.add
	cl := newClient(e.URL, readers)
	phase := func(seed uint64, write func(context.Context)) (latencies, float64, error) {
		cpu0, err := cpuSeconds(e.Pid)
		if err != nil {
			return latencies{}, 0, err
		}
		pctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		col := &collector{}
		var wg sync.WaitGroup
		if write != nil {
			wg.Go(func() { write(pctx) })
		}
		readLists(pctx, cl, readers, readRate, seed, col, problem)
		wg.Wait()
		cpu1, err := cpuSeconds(e.Pid)
		return summarize(col.rs), cpu1 - cpu0, err
	}
	// Warm-up, unmeasured: every list rendered once and the connections
	// open, so the baseline is not charged for first renders.
	wctx, cancel := context.WithTimeout(ctx, min(d/2, 5*time.Second))
	readLists(wctx, cl, readers, readRate, 7, &collector{}, problem)
	cancel()
	var err error
	if rep.BaselineReads, rep.BaselineCPU, err = phase(1, nil); err != nil {
		return rep, probs.list(), err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return rep, probs.list(), fmt.Errorf("jetstream: %w", err)
	}
	// Zzims go to popular works mostly: half to the overall ranking's top.
	var top []int
	byPID := map[string]int{}
	for i := range c.prods {
		byPID[c.prods[i].PID] = i
	}
	for _, rk := range c.rankings() {
		if rk.Scope == "all" && rk.Tab == contract.RankReal {
			for _, it := range rk.Items {
				top = append(top, byPID[it.PID])
			}
		}
	}
	var writes atomic.Int64
	zzims := map[int]int64{}
	write := func(wctx context.Context) {
		r := rand.New(rand.NewPCG(uint64(c.p.Seed), 99))
		t := time.NewTicker(time.Second / time.Duration(writeRate))
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-t.C:
			}
			i := r.IntN(len(c.prods))
			if len(top) > 0 && r.IntN(2) == 0 {
				i = top[r.IntN(len(top))]
			}
			st := c.stat(i)
			zzims[i]++
			st.ZzimCount += zzims[i]
			b, _ := json.Marshal(&st)
			if _, err := js.Publish(wctx, "$KV."+contract.CatalogBucket+"."+contract.StatKey(st.PID), b); err != nil {
				if wctx.Err() == nil {
					problem("zzim write %s: %v", st.PID, err)
				}
				continue
			}
			writes.Add(1)
		}
	}
	if rep.StormReads, rep.StormCPU, err = phase(1, write); err != nil {
		return rep, probs.list(), err
	}
	rep.Writes = int(writes.Load())
	if rep.Writes > 0 && rep.BaselineReads.N > 0 {
		base := rep.BaselineCPU * float64(rep.StormReads.N) / float64(rep.BaselineReads.N)
		rep.RenderCPUPerWriteMs = (rep.StormCPU - base) / float64(rep.Writes) * 1000
	}
	return rep, probs.list(), nil
}
