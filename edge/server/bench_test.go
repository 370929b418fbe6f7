package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/demo"
	"storefront/devstack/testenv"
	"storefront/edge/catalog"
)

var benchNow = time.Date(2026, 3, 2, 12, 0, 0, 0, contract.KST)

// benchServer is an edge whose store is filled directly from a demo catalog
// (no HTTP listener is used: requests go straight to the handler).
func benchServer(b testing.TB, works int) *Server { return benchServerStatic(b, works, b.TempDir()) }

// benchServerStatic is benchServer serving the SPA build in static.
func benchServerStatic(b testing.TB, works int, static string) *Server {
	b.Helper()
	n := testenv.NATS(b)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	s, err := New(ctx, Config{Addr: "127.0.0.1:0", NATSURL: n.URL, StaticDir: static, Now: func() time.Time { return benchNow }},
		slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.close)
	cat := demo.Generate(demo.Options{Seed: 1, Works: works, Now: benchNow})
	var ups []catalog.Update
	for i := range cat.Products {
		v, _ := json.Marshal(&cat.Products[i])
		ups = append(ups, catalog.Update{Key: contract.ProductKey(cat.Products[i].PID), Value: v})
	}
	if errs := s.store.Apply(benchNow, ups...); len(errs) > 0 {
		b.Fatal(errs[0])
	}
	return s
}

func benchRequest(uri string, headers ...string) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.SetRequestURI(uri)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	ctx := &fasthttp.RequestCtx{}
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5555}, nil)
	return ctx
}

func benchHit(b *testing.B, s *Server, uri string, headers ...string) {
	ctx := benchRequest(uri, headers...)
	// Warm: render once and wait until ristretto applied the Set.
	for i := 0; i < 100; i++ {
		s.handle(ctx)
		s.cache.Wait()
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("%s: %d %s", uri, ctx.Response.StatusCode(), ctx.Response.Body())
		}
		h := s.cache.Hits.Load()
		ctx.Response.Reset()
		s.handle(ctx)
		if s.cache.Hits.Load() > h {
			break
		}
	}
	misses := s.cache.Misses.Load()
	b.ReportAllocs()
	b.ResetTimer()
	// CPU time of this thread per request: on a machine shared with other
	// work, wall time per op also counts the time it waited for a core.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU()
	for b.Loop() {
		ctx.Response.Reset()
		s.handle(ctx)
	}
	cpu := threadCPU() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if s.cache.Misses.Load() != misses {
		b.Fatalf("%s: %d cache misses during the benchmark", uri, s.cache.Misses.Load()-misses)
	}
	b.ReportMetric(float64(len(ctx.Response.Body())), "bytes/answer")
}

// threadCPU is the user and system CPU time the calling OS thread used so far.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkCachedHit(b *testing.B) {
	s := benchServer(b, 3000)
	aud := contract.SignAudience([]byte("dev-audience-secret"), contract.Audience{AdultLevel: 2, Expires: benchNow.Add(time.Hour)})
	b.Run("list", func(b *testing.B) { benchHit(b, s, "/home/api/v1/webtoon/genre/21?sort=popular") })
	b.Run("list-token", func(b *testing.B) {
		benchHit(b, s, "/home/api/v1/webtoon/genre/21?sort=popular", contract.HeaderRequestToken, "0123456789abcdef")
	})
	b.Run("list-gzip", func(b *testing.B) {
		benchHit(b, s, "/home/api/v1/webtoon/genre/21?sort=popular", "Accept-Encoding", "gzip, deflate")
	})
	b.Run("list-br-adult-signed", func(b *testing.B) {
		benchHit(b, s, "/home/api/v1/webtoon/genre/21?sort=popular", "Accept-Encoding", "gzip, br", "Cookie", contract.AudienceCookie+"="+aud,
			contract.HeaderRequestToken, "0123456789abcdef", contract.HeaderChannel, "AW")
	})
	b.Run("home-token", func(b *testing.B) {
		benchHit(b, s, "/home/api/v1/home", contract.HeaderRequestToken, "0123456789abcdef")
	})
	b.Run("detail", func(b *testing.B) { benchHit(b, s, "/home/api/v1/products/"+demo.PID(contract.SectionWebtoon, 1)) })
	b.Run("ranking", func(b *testing.B) { benchHit(b, s, "/home/api/v1/rankings?category=wt") })
	b.Run("search", func(b *testing.B) { benchHit(b, s, "/home/api/v1/search?q=%E3%84%B1%E3%85%81") })
	// The request as the store's pages send it from a browser or an app web
	// view (frontend/app/utils/http.ts): each page once signed as they ask
	// (SFS2), once as an old client asks (SFS1, the body hashed per request),
	// and once without a token (unsigned: the signature kept with the body).
	for _, pg := range realPages {
		for _, sig := range []struct{ name, version, token string }{
			{"sfs2", "2", realToken}, {"sfs1", "", realToken}, {"unsigned", "", ""},
		} {
			b.Run("real/"+pg.name+"/"+sig.name, func(b *testing.B) {
				benchHit(b, s, pg.uri, realHeaders(aud, sig.token, sig.version)...)
			})
		}
	}
}

// realPages are the answers of the release minute's most-read pages.
var realPages = []struct{ name, uri string }{
	{"home", "/home/api/v1/home"},
	{"genre-list", "/home/api/v1/webtoon/genre/21?sort=popular&page=1&size=24"},
	{"detail", "/home/api/v1/products/" + demo.PID(contract.SectionWebtoon, 1)},
	{"ranking", "/home/api/v1/rankings?category=wt&tab=daily"},
}

// realToken is a request token as the page makes it (32 hex characters).
const realToken = "9f86d081884c7d659a2feaa0c55ad015"

// realHeaders are the headers of a logged-in reader's call from the store's
// page in Chrome on Android: the HTTP helper's own (channel, token, signature
// version, cache-disabling), the browser's, and the cookies the writer sets
// at login (session, browser id, member, adult mode, audience).
func realHeaders(aud, token, version string) []string {
	h := []string{
		"Accept", "application/json",
		"Accept-Encoding", "br, gzip",
		"Accept-Language", "ko-KR,ko;q=0.9,en-US;q=0.8",
		"Cache-Control", "no-cache, no-store, must-revalidate",
		"Pragma", "no-cache",
		"Expires", "0",
		"User-Agent", "Mozilla/5.0 (Linux; Android 14; SM-S921N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Referer", "https://store.example/webtoon",
		contract.HeaderChannel, "AW",
		"Cookie", "sf_session=Jd9qk3VbX0uLr2mYtP8wNcE5hA1sGz7oKfQiUy4TvWe; sf_bid=b-6f1c2e9a4d; " +
			"sf_member=uid%3D41%26loginType%3Demail%2619Toggle%3DOFF; sf_adult=Y; " + contract.AudienceCookie + "=" + aud,
	}
	if token != "" {
		h = append(h, contract.HeaderRequestToken, token)
	}
	if version != "" {
		h = append(h, contract.HeaderSignatureVersion, version)
	}
	return h
}

// BenchmarkPageHit: a page the edge draws (first screen) served from the
// cache, as a phone asks it (brotli).
func BenchmarkPageHit(b *testing.B) {
	dir := b.TempDir()
	WriteSPABuild(b, dir)
	s := benchServerStatic(b, 3000, dir)
	pid := demo.PID(contract.SectionWebtoon, 1)
	for _, uri := range []string{"/", "/webtoon/genre", "/webtoon/detail/" + pid, "/viewer?pid=" + pid + "&no=1"} {
		b.Run(uri, func(b *testing.B) { benchHit(b, s, uri, "Accept-Encoding", "gzip, deflate, br") })
	}
}

// BenchmarkRender measures answers rendered from the read models (cache misses).
func BenchmarkRender(b *testing.B) {
	s := benchServer(b, 3000)
	for _, uri := range []string{
		"/home/api/v1/webtoon/genre/21?sort=popular", "/home/api/v1/home", "/home/api/v1/products/" + demo.PID(contract.SectionWebtoon, 1),
		"/home/api/v1/search?q=%E3%84%B1%E3%85%81",
	} {
		b.Run(uri, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				ctx := benchRequest(uri + fmt.Sprintf("&n=%d", i))
				s.handle(ctx)
			}
		})
	}
}

// BenchmarkStartup100k measures an edge start against a bucket holding a
// 100,000-work demo catalog: from New to ready (initial sync done).
func BenchmarkStartup100k(b *testing.B) {
	n := testenv.NATS(b)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: contract.CatalogBucket, History: 1, MaxValueSize: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	total := put100kWorks(b, js)
	st, _ := kv.Status(ctx)
	b.Logf("bucket: %d values, %d MB of product JSON", st.Values(), total>>20)
	b.ResetTimer()
	for b.Loop() {
		wall, cpu := startOnce(b, n.URL, true)
		b.ReportMetric(wall.Seconds(), "s-to-ready")
		// CPU of this process (edge and the in-process NATS server): a figure
		// the shared machine's load does not distort.
		b.ReportMetric(cpu.Seconds(), "cpu-s")
	}
}

// put100kWorks fills the catalog bucket with a 100,000-work demo catalog
// (5 volumes each, no media), the start-up benchmarks' bucket, and returns
// the bytes of product JSON it put.
func put100kWorks(b *testing.B, js jetstream.JetStream) int {
	cat := demo.Generate(demo.Options{Seed: 1, Works: 100000, VolumesPerWork: 5, Now: benchNow})
	var total int
	for i := range cat.Products {
		v, _ := json.Marshal(&cat.Products[i])
		total += len(v)
		if i%2000 == 0 {
			<-js.PublishAsyncComplete()
		}
		if _, err := js.PublishAsync("$KV."+contract.CatalogBucket+"."+contract.ProductKey(cat.Products[i].PID), v); err != nil {
			b.Fatal(err)
		}
	}
	<-js.PublishAsyncComplete()
	return total
}
