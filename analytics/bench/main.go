// Command bench measures analytics ingestion end to end on one machine: events
// published to the EVENTS stream (as the edge does, with Nats-Msg-Id) until they
// are queryable in ClickHouse. It reports the sustained rate and the latency from
// publish to queryable (p50, p99) of probe events sent along the load.
//
// It starts its own embedded NATS and ClickHouse (devstack) unless NATS_URL /
// CLICKHOUSE_URL are given, and runs the analytics server in-process.
//
//	go run ./analytics/bench -events 1000000 -rate 60000
//
// It is a benchmark, not a test: it asserts nothing and prints figures.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/analytics/server"
	"storefront/contract"
	"storefront/devstack"
	"storefront/svc"
	"storefront/trackbundle"
)

func main() {
	var (
		total      = flag.Int("events", 500000, "events to publish")
		rate       = flag.Int("rate", 60000, "target events/s (0: as fast as possible)")
		publishers = flag.Int("publishers", 256, "concurrent tracking calls (each waits for its ack, as a page's call to the edge does)")
		perCall    = flag.Int("events-per-call", 1, "events in one tracking call")
		single     = flag.Bool("single", false, "publish one message per event with Nats-Msg-Id (before bundles), not through the edge's Bundler")
		probeEvery = flag.Duration("probe-every", 20*time.Millisecond, "interval between latency probes")
		natsURL    = flag.String("nats-url", os.Getenv("NATS_URL"), "NATS to use (default: embedded)")
		chURL      = flag.String("clickhouse-url", os.Getenv("CLICKHOUSE_URL"), "ClickHouse to use (default: own server)")
		prefill    = flag.Bool("prefill", false, "publish everything first, then start analytics and time the drain alone (no probes)")
		cfg        server.Config
	)
	flag.IntVar(&cfg.Ingest.BatchSize, "batch-size", 20000, "events per ClickHouse insert at most")
	flag.DurationVar(&cfg.Ingest.FlushInterval, "flush-interval", 200*time.Millisecond, "age at which a partial batch is inserted")
	flag.IntVar(&cfg.Ingest.Workers, "insert-workers", 2, "concurrent ClickHouse inserts")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole process to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	log := svc.NewLogger("text", "warn")
	if err := run(log, cfg, *total, *rate, *publishers, *perCall, *single, *probeEvery, *natsURL, *chURL, *prefill); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(log *slog.Logger, cfg server.Config, total, rate, publishers, perCall int, single bool, probeEvery time.Duration, natsURL, chURL string, prefill bool) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "sf-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if natsURL == "" {
		port, err := devstack.FreePort()
		if err != nil {
			return err
		}
		n, err := devstack.StartNATS(filepath.Join(dir, "nats"), port)
		if err != nil {
			return err
		}
		defer n.Stop()
		natsURL = n.URL
	}
	if chURL == "" {
		tcp, _ := devstack.FreePort()
		hp, _ := devstack.FreePort()
		ch, err := devstack.StartClickHouse(ctx, filepath.Join(dir, "ch"), tcp, hp, log)
		if err != nil {
			return err
		}
		defer ch.Stop()
		chURL = ch.URL
	}
	cfg.Addr, cfg.NATSURL, cfg.ClickHouseURL = "127.0.0.1:0", natsURL, chURL
	cfg.Rankings.Interval = time.Hour
	srv, err := server.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	if !prefill {
		go func() { done <- srv.Run(ctx) }()
	}
	ch, err := server.OpenClickHouse(chURL)
	if err != nil {
		return err
	}
	defer ch.Close()
	var base uint64
	// Counted as the wait below counts: an earlier run's probes in the same
	// database would otherwise raise the goal past what can arrive.
	if err := ch.QueryRow(ctx, "SELECT count() FROM events WHERE type != 'bench_probe'").Scan(&base); err != nil {
		return err
	}

	nc, err := nats.Connect(natsURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(8192))
	if err != nil {
		return err
	}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	// The edge's publisher: calls in flight together leave in one message.
	bundler := trackbundle.New(js, trackbundle.Options{})
	defer bundler.Close()

	// Probes: published alone at a steady pace; the poller notes when each is queryable.
	var probeMu sync.Mutex
	probeSent := map[string]time.Time{}
	var latencies []time.Duration
	probeStop := make(chan struct{})
	var probeWG sync.WaitGroup
	probeWG.Add(2)
	go func() {
		defer probeWG.Done()
		if prefill {
			return
		}
		t := time.NewTicker(probeEvery)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-probeStop:
				return
			case <-t.C:
			}
			id := fmt.Sprintf("probe-%s-%d", run, i)
			b, _ := json.Marshal(contract.TrackedEvent{V: 1, ID: id, Type: "bench_probe", Time: time.Now()})
			probeMu.Lock()
			probeSent[id] = time.Now()
			probeMu.Unlock()
			var err error
			if single {
				_, err = js.Publish(ctx, contract.TrackSubject("bench_probe"), b, jetstream.WithMsgID(id))
			} else {
				err = bundler.Publish(ctx, b)
			}
			if err != nil {
				log.Warn("probe publish", "err", err)
			}
		}
	}()
	go func() {
		defer probeWG.Done()
		if prefill {
			return
		}
		seen := map[string]bool{}
		for {
			select {
			case <-probeStop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			rows, err := ch.Query(ctx, "SELECT id FROM events WHERE type = 'bench_probe' AND kst_date >= today() - 1 AND startsWith(id, ?)", "probe-"+run+"-")
			if err != nil {
				continue
			}
			now := time.Now()
			for rows.Next() {
				var id string
				if rows.Scan(&id) == nil && !seen[id] {
					seen[id] = true
					probeMu.Lock()
					if t0, ok := probeSent[id]; ok {
						latencies = append(latencies, now.Sub(t0))
					}
					probeMu.Unlock()
				}
			}
			rows.Close()
		}
	}()

	// Load: publishers share the target rate.
	types := []string{contract.EvPageView, contract.EvPageView, contract.EvPageView, contract.EvViewContent, contract.EvPurchase}
	routes := []string{"/", "/webtoon", "/comic/genre/21", "/novel/best", "/webtoon/weekday/1"}
	var published atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	per := total / publishers
	for p := range publishers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var call []byte
			for i := range per {
				if rate > 0 {
					due := start.Add(time.Duration(float64(published.Load()) / float64(rate) * float64(time.Second)))
					if d := time.Until(due); d > 0 {
						time.Sleep(d)
					}
				}
				n := p*per + i
				typ := types[n%len(types)]
				ev := contract.TrackedEvent{V: 1, ID: fmt.Sprintf("b-%s-%d", run, n), Type: typ, Time: time.Now(),
					Channel: "AW", SessionID: "s" + strconv.Itoa(n%5000), Route: routes[n%len(routes)],
					PID: "P" + strconv.Itoa(n%3000), Section: "WT", GenreID: "21", MemberType: "visitor", UAClass: "android-web"}
				if typ == contract.EvPurchase {
					ev.Amount, ev.UID = 300, "u"+strconv.Itoa(n%2000)
				}
				if single {
					b, _ := ev.AppendJSON(make([]byte, 0, 512))
					for {
						_, err := js.PublishAsync(contract.TrackSubject(typ), b, jetstream.WithMsgID(ev.ID))
						if err == nil {
							break
						}
						if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
							return
						}
						time.Sleep(time.Millisecond) // the stream is the bottleneck: wait, do not spin
					}
					published.Add(1)
					continue
				}
				// As the edge's Tracker.Publish: the call's events, one per
				// line, sent when the call is complete; the call waits for its ack.
				call, _ = contract.AppendEventLine(call, &ev)
				if (i+1)%perCall != 0 && i+1 < per {
					continue
				}
				events := int64(bytes.Count(call, []byte{'\n'}) + 1)
				if err := bundler.Publish(ctx, call); err != nil {
					log.Warn("publish", "err", err)
					return
				}
				call = call[:0] // the bundle copied it
				published.Add(events)
			}
		}()
	}
	wg.Wait()
	<-js.PublishAsyncComplete()
	pubDone := time.Since(start)
	if prefill {
		// Measure the drain of a full stream by analytics alone.
		start = time.Now()
		go func() { done <- srv.Run(ctx) }()
	}
	want := base + uint64(published.Load())
	var got uint64
	for {
		if err := ch.QueryRow(ctx, "SELECT count() FROM events WHERE type != 'bench_probe'").Scan(&got); err != nil {
			return err
		}
		if got >= want {
			break
		}
		if time.Since(start) > 10*time.Minute {
			return fmt.Errorf("only %d of %d events arrived", got-base, want-base)
		}
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := time.Since(start)
	close(probeStop)
	probeWG.Wait()
	metrics := scrape("http://" + srv.Addr() + "/metrics")
	cancel()
	<-done

	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	n := float64(published.Load())
	fmt.Printf("events            %d\n", published.Load())
	fmt.Printf("publish rate      %.0f events/s (%v)\n", n/pubDone.Seconds(), pubDone.Round(time.Millisecond))
	fmt.Printf("inserts           %s batches, %s s inserting in total, %s failed attempts\n",
		metrics["analytics_insert_batches_total"], metrics["analytics_insert_seconds_sum"], metrics["analytics_insert_errors_total"])
	if prefill {
		fmt.Printf("drain rate        %.0f events/s (analytics alone, %v)\n", n/elapsed.Seconds(), elapsed.Round(time.Millisecond))
		return nil
	}
	fmt.Printf("end-to-end rate   %.0f events/s (all queryable after %v)\n", n/elapsed.Seconds(), elapsed.Round(time.Millisecond))
	fmt.Printf("probe latency     p50 %v  p99 %v  max %v  (%d probes)\n", pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond), len(latencies))
	return nil
}

// scrape reads the plain samples (no labels) of a Prometheus text page.
func scrape(url string) map[string]string {
	out := map[string]string{}
	resp, err := http.Get(url)
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if name, v, ok := strings.Cut(line, " "); ok && !strings.HasPrefix(line, "#") && !strings.Contains(name, "{") {
			out[name] = v
		}
	}
	return out
}
