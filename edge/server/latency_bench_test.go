package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"storefront/contract"
	"storefront/demo"
)

// BenchmarkWriteToEveryEdge measures, over 1,000 catalog updates with two
// edges running, the time from the KV put (what the writer's relay does) until
// both edges serve the new document over HTTP. Run with -benchtime 1x.
func BenchmarkWriteToEveryEdge(b *testing.B) {
	e := newEnvB(b)
	cat := demo.Generate(demo.Options{Seed: 1, Works: 3000, Now: t0})
	for i := range cat.Products {
		v, _ := json.Marshal(&cat.Products[i])
		if _, err := e.kv.Put(b.Context(), contract.ProductKey(cat.Products[i].PID), v); err != nil {
			b.Fatal(err)
		}
	}
	edges := []*edge{startEdgeB(b, e), startEdgeB(b, e)}
	for _, g := range edges {
		g.waitReady()
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	p := cat.Products[0]
	const updates = 1000
	for b.Loop() {
		lat := make([]time.Duration, 0, updates)
		for i := 1; i <= updates; i++ {
			p.Title = fmt.Sprintf("갱신 %d", i)
			p.Version = int64(1000 + i)
			v, _ := json.Marshal(&p)
			want := []byte(`"title":"` + p.Title + `"`)
			start := time.Now()
			if _, err := e.kv.Put(b.Context(), contract.ProductKey(p.PID), v); err != nil {
				b.Fatal(err)
			}
			var wg sync.WaitGroup
			for _, g := range edges {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						resp, err := client.Get(g.url + "/home/api/v1/products/" + p.PID)
						if err != nil {
							panic(err)
						}
						body, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if bytes.Contains(body, want) {
							return
						}
						if time.Since(start) > 10*time.Second {
							panic("update not served in 10s")
						}
						// Polling flat out would take the CPU the edges need
						// (two cores for everything here).
						time.Sleep(200 * time.Microsecond)
					}
				}()
			}
			wg.Wait()
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	}
}
