package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// printReport writes every figure as a table.
func printReport(w io.Writer, r *report) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	row := func(name, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{name}, a...)...) }
	row("catalog", "%d works, %d volumes, seed %d, %d releasing at T0 (hash %s)", r.Params.Works, r.Volumes, r.Params.Seed, r.Releasing, r.Hash)
	row("volumes per work", "median %d, p90 %d, p99 %d, max %d; %d works over 1,000, %d over 6,000, %d at 10,000",
		r.Tail.Median, r.Tail.P90, r.Tail.P99, r.Tail.Max, r.Tail.Over1000, r.Tail.Over6000, r.Tail.At10000)
	if r.Load.Reused {
		row("load", "cached store reused (generated in %.1f s: %d docs, %.1f MB of values)", r.Load.Seconds, r.Load.Docs, mb(r.Load.ValueBytes))
	} else if r.Load.Docs > 0 {
		row("load", "%d docs, %.1f MB of values in %.1f s (%.0f docs/s, %.1f MB/s)", r.Load.Docs, mb(r.Load.ValueBytes), r.Load.Seconds, r.Load.DocsPerSec, r.Load.MBPerSec)
	}
	for _, b := range r.Buckets {
		row("bucket "+b.Bucket, "%d keys, %.1f MB", b.Keys, mb(int64(b.Bytes)))
	}
	pin := "not pinned (no taskset)"
	if r.PinnedCPU != "" {
		pin = "pinned to CPU " + r.PinnedCPU
	}
	row("edge", "%s, GOMAXPROCS=1, %s", r.EdgeBinary, pin)
	row("edge ready", "%.2f s, %.2f CPU-s, peak RSS %.0f MB", r.ReadySeconds, r.ReadyCPU, r.ReadyHWMMB)
	if rr := r.Release; rr != nil {
		row("release", "%d works, published %d docs %.0f s before T0 %s; %d requests in %.2f s", rr.Works, rr.PublishDocs, rr.LeadSeconds, rr.T0.Format("15:04:05Z"), rr.Requests.N, rr.Seconds)
		row("release p50/p99/max", "%.1f / %.1f / %.1f ms, %d errors", rr.Requests.P50, rr.Requests.P99, rr.Requests.Max, rr.Requests.Errs)
		kinds := make([]string, 0, len(rr.ByKind))
		for k := range rr.ByKind {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			l := rr.ByKind[k]
			row("  "+k, "%d requests, p99 %.1f ms, statuses %v", l.N, l.P99, rr.Statuses[k])
		}
		row("release new volume listed", "%d of %d works", rr.NewListed, rr.Works)
		if rr.Fetches != nil {
			row("release origin fetches", "%.0f (%v)", *rr.Fetches, rr.FetchMetrics)
		} else {
			row("release origin fetches", "not exposed by this edge (no metric named *volume_page*fetch*)")
		}
	}
	if s := r.Storm; s != nil {
		row("storm", "%d zzim writes in %.0f s (%d/s asked), %d readers at %d reads/s", s.Writes, s.Seconds, s.WriteRate, s.Readers, s.ReadRate)
		row("storm reads p50/p99/max", "%.1f / %.1f / %.1f ms (%d reads, %d errors)", s.StormReads.P50, s.StormReads.P99, s.StormReads.Max, s.StormReads.N, s.StormReads.Errs)
		row("baseline reads p50/p99/max", "%.1f / %.1f / %.1f ms (%d reads, %d errors)", s.BaselineReads.P50, s.BaselineReads.P99, s.BaselineReads.Max, s.BaselineReads.N, s.BaselineReads.Errs)
		row("edge CPU storm/baseline", "%.2f / %.2f s", s.StormCPU, s.BaselineCPU)
		row("render CPU per write", "%.2f ms", s.RenderCPUPerWriteMs)
	}
	row("edge peak RSS", "%.0f MB (end RSS %.0f MB)", r.PeakRSSMB, r.EndRSSMB)
	row("problems", "%d", len(r.Problems))
	tw.Flush()
	for _, p := range r.Problems {
		fmt.Fprintln(w, "  problem:", p)
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
