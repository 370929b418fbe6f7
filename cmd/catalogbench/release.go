package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"storefront/contract"
)

// releaseReport is the replayed 23:00 release.
type releaseReport struct {
	Works        int                    `json:"works"`
	LeadSeconds  float64                `json:"leadSeconds"` // releases published this long before T0
	T0           time.Time              `json:"t0"`
	PublishDocs  int                    `json:"publishDocs"`
	Requests     latencies              `json:"requests"`
	ByKind       map[string]latencies   `json:"byKind"`
	Statuses     map[string]map[int]int `json:"statuses"`
	NewListed    int                    `json:"newVolumeListed"` // works whose volume list shows the new volume at T0
	Fetches      *float64               `json:"originFetches"`   // nil: the edge exposes no such metric
	FetchMetrics []string               `json:"fetchMetrics,omitempty"`
	Seconds      float64                `json:"seconds"`
}

const releaseWorkers = 50

// replayRelease publishes every releasing work's new volume with ReleaseAt
// T0 = now + lead (the writer delivers a scheduled episode ahead of time),
// waits for T0 and then asks, as readers opening the store at 23:00 do,
// each work's detail, its volume list (newest first), the new volume's
// viewer answer and its preview pages, and every ranking's top. Problems
// are functional failures (wrong statuses), never durations.
func replayRelease(ctx context.Context, log *slog.Logger, nc *nats.Conn, c *catalog, e *edgeProc, lead time.Duration) (releaseReport, []string, error) {
	rep := releaseReport{Works: len(c.releasing), LeadSeconds: lead.Seconds(), ByKind: map[string]latencies{}, Statuses: map[string]map[int]int{}}
	pub, err := newPublisher(nc)
	if err != nil {
		return rep, nil, err
	}
	rep.T0 = time.Now().Add(lead).Truncate(time.Second).Add(time.Second)
	version := time.Now().UnixMilli()
	newVol := make(map[int]contract.Volume, len(c.releasing))
	for _, i := range c.releasing {
		nv := c.releaseVolume(i, rep.T0)
		newVol[i] = nv
		docs, err := c.workDocs(i, append(c.volumesOf(i), nv), time.Now(), version)
		if err != nil {
			return rep, nil, err
		}
		for _, d := range docs {
			if err := pub.put(d); err != nil {
				return rep, nil, err
			}
			rep.PublishDocs++
		}
	}
	if err := pub.flush(ctx); err != nil {
		return rep, nil, err
	}
	if time.Now().After(rep.T0) {
		log.Warn("releases published after T0: raise -release-lead", "late", time.Since(rep.T0))
	}
	// Before 23:00 readers already have the home and ranking pages open: the
	// store is not cold at its release. Each ranking is asked once after
	// the releases arrive (not measured), as the minute before T0 would.
	warm := newClient(e.URL, 8)
	for _, path := range rankingPaths() {
		if r := warm.get(ctx, "warm", path, "", false); r.err != nil || r.status != 200 {
			log.Warn("ranking before T0", "path", path, "status", r.status, "err", r.err)
		}
	}
	log.Info("releases published", "works", len(c.releasing), "docs", rep.PublishDocs, "t0", rep.T0)
	select {
	case <-time.After(time.Until(rep.T0)):
	case <-ctx.Done():
		return rep, nil, ctx.Err()
	}
	// Counted from T0: the pages an edge pins between the publication and
	// T0 are the fetches made ahead, not the release minute's.
	before, names, found, err := e.pageFetches()
	if err != nil {
		return rep, nil, err
	}
	start := time.Now()
	cl := newClient(e.URL, releaseWorkers)
	col := &collector{}
	probs := &problemLog{}
	problem := probs.add
	jobs := make(chan func(), releaseWorkers)
	var wg sync.WaitGroup
	for range releaseWorkers {
		wg.Go(func() {
			for j := range jobs {
				j()
			}
		})
	}
	expect200 := func(r result) {
		col.add(r)
		if r.err != nil || r.status != 200 {
			problem("%s %s: status %d, %v", r.kind, r.path, r.status, r.err)
		}
	}
	// Ranking tops first: the home and ranking pages are what a reader
	// opens before a work.
	for _, path := range rankingPaths() {
		jobs <- func() { expect200(cl.get(ctx, "ranking", path, "", false)) }
	}
	var listed sync.Map
	for _, i := range c.releasing {
		pid, nv, sec := c.prods[i].PID, newVol[i], c.prods[i].Section
		jobs <- func() {
			expect200(cl.get(ctx, "detail", "/home/api/v1/products/"+pid, "", false))
			r := cl.get(ctx, "volumes", "/home/api/v1/products/"+pid+"/volumes?order=latest", "", true)
			expect200(r)
			shown := false
			if r.status == 200 {
				var vl struct {
					VolList []struct {
						No int `json:"no"`
					} `json:"volList"`
				}
				if err := json.Unmarshal(r.body, &vl); err != nil {
					problem("volumes %s: %v", pid, err)
				}
				for _, v := range vl.VolList {
					shown = shown || v.No == nv.No
				}
			}
			if shown {
				listed.Store(pid, true)
			}
			// The viewer's answer and its preview pages exist only on an
			// edge that shows the volume: on an edge that does not read
			// paged volumes yet, they are asked and counted, not required.
			check := col.add
			if shown {
				check = expect200
			}
			check(cl.get(ctx, "viewer", "/home/api/v1/products/"+pid+"/volumes/"+strconv.Itoa(nv.No)+"/media", "", false))
			for n := 1; n <= min(nv.PreviewPages, previewObjects); n++ {
				path := contract.ContentPrefix + pid + "/" + strconv.Itoa(nv.No) + "/" + nv.ContentVer + "/" + strconv.Itoa(n)
				accept := "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"
				if sec == contract.SectionNovel {
					path += ".html"
					accept = "text/html"
				}
				check(cl.get(ctx, "content", path, accept, false))
			}
		}
	}
	close(jobs)
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	listed.Range(func(any, any) bool { rep.NewListed++; return true })
	after, names2, found2, err := e.pageFetches()
	if err != nil {
		return rep, probs.list(), err
	}
	if found || found2 {
		d := after - before
		rep.Fetches, rep.FetchMetrics = &d, append(names, names2...)
		rep.FetchMetrics = dedupe(rep.FetchMetrics)
	}
	rep.Requests = summarize(col.rs)
	byKind := map[string][]result{}
	for _, r := range col.rs {
		byKind[r.kind] = append(byKind[r.kind], r)
		if rep.Statuses[r.kind] == nil {
			rep.Statuses[r.kind] = map[int]int{}
		}
		rep.Statuses[r.kind][r.status]++
	}
	for k, rs := range byKind {
		rep.ByKind[k] = summarize(rs)
	}
	return rep, probs.list(), nil
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// rankingPaths are every ranking's top page: each section's and each
// genre's, every tab.
func rankingPaths() []string {
	var out []string
	for _, cat := range []string{"all", "wt", "cm", "eb"} {
		for _, tab := range rankingTabs {
			out = append(out, "/home/api/v1/rankings?category="+cat+"&tab="+tab+"&page=1&size=30")
		}
	}
	for _, g := range contract.Genres {
		for _, tab := range rankingTabs {
			out = append(out, "/home/api/v1/rankings/genres/"+g.ID+"?tab="+tab+"&page=1&size=30")
		}
	}
	return out
}
