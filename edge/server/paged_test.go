package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/edge/server"
)

// Paged works (contract/volumes.go, issue 35 item 2): heads in the catalog
// bucket, volumes in pages of catalog-vols, fetched by the edge on demand.
// The documents are made by contract.SplitVolumes, the writer's own split.

// putPaged publishes p as the writer does: its pages, then its head.
func (e *env) putPaged(p contract.Product, writerNow time.Time) contract.Product {
	e.t.Helper()
	head, pages := contract.SplitVolumes(&p, writerNow)
	kv := e.volumesKV()
	for _, pg := range pages {
		b, err := json.Marshal(pg)
		if err != nil {
			e.t.Fatal(err)
		}
		if _, err := kv.Put(context.Background(), contract.VolumePageKey(p.PID, pg.Index), b); err != nil {
			e.t.Fatalf("put page %d of %s: %v", pg.Index, p.PID, err)
		}
	}
	e.putProduct(head)
	return head
}

func (e *env) volumesKV() jetstream.KeyValue {
	e.t.Helper()
	kv, err := e.js.KeyValue(context.Background(), contract.VolumesBucket)
	if err != nil {
		e.t.Fatal(err)
	}
	return kv
}

// longWork is webtoon pid of n volumes, one a day, volume n-1 out an hour
// before t0 (this release day: UP) and volume n an hour after t0; the
// first 20 and volume n are free; buy 100-300, rent 50 every other one;
// every volume's content is version ver.
func longWork(pid string, n int, ver string, mods ...func(*contract.Product)) contract.Product {
	p := product(pid, contract.SectionWebtoon, "긴 연재 "+pid, mods...)
	p.Volumes = make([]contract.Volume, 0, n)
	for i := 1; i <= n; i++ {
		at := t0.Add(-time.Hour - time.Duration(n-1-i)*24*time.Hour)
		if i == n {
			at = t0.Add(time.Hour)
		}
		v := contract.Volume{No: i, Title: fmt.Sprintf("제%d화", i), ReleaseAt: at, IsFree: i <= 20 || i == n,
			BuyPrice: 100 + (i%3)*100, BuyPriceOrg: 300, Pages: 4, PreviewPages: 2, ContentBase: contract.ContentBase(pid, i), ContentVer: ver}
		if i%2 == 0 {
			v.RentPrice, v.RentPriceOrg = 50, 50
		}
		p.Volumes = append(p.Volumes, v)
	}
	return p
}

func fetches(t *testing.T, g *edge) float64 { return metric(t, g, "edge_volume_page_fetches_total") }

// A paged work answers exactly as the same work held inline: detail,
// volume lists in both orders and any page size, manifest, content pages,
// and the lists (newest first, UP badge, free filter), before and after
// its next volume comes out by the edge's clock.
func TestPagedWorkAnswersLikeInline(t *testing.T) {
	o := &memObjects{}
	ver := contentVersion(o, "00ab", 4)
	clk := &clock{t: t0}
	work := longWork("w1", 900, ver)
	other := product("w2", contract.SectionWebtoon, "다른 웹툰")
	inline, paged := newEnv(t), newEnv(t)
	inline.putProduct(work)
	inline.putProduct(other)
	paged.putPaged(work, t0)
	paged.putProduct(other)
	gi := startEdge(t, inline, withObjects(o), func(c *server.Config) { c.Now = clk.Now })
	gp := startEdge(t, paged, withObjects(o), func(c *server.Config) { c.Now = clk.Now })
	gi.waitReady()
	gp.waitReady()
	tok := contract.SignContent([]byte("dev-content-secret"), "w1", 899, time.Now().Add(time.Hour))
	paths := []string{
		"/home/api/v1/products/w1",
		"/home/api/v1/products/w1/volumes",
		"/home/api/v1/products/w1/volumes?order=latest",
		"/home/api/v1/products/w1/volumes?order=latest&page=2&size=100",
		"/home/api/v1/products/w1/volumes?page=5&size=37",
		"/home/api/v1/products/w1/volumes?page=99&size=10",
		"/home/api/v1/products/w1/volumes/5/media",
		"/home/api/v1/products/w1/volumes/899/media",
		"/home/api/v1/products/w1/volumes/900/media",
		"/home/api/v1/webtoon/genre",
		"/home/api/v1/webtoon/genre?filter=free",
		"/home/api/v1/webtoon/todayup",
		contract.VolumeMediaBase("w1", 899, ver) + "/1",
		contract.VolumeMediaBase("w1", 899, ver) + "/3",
		contract.VolumeMediaBase("w1", 899, ver) + "/3?t=" + tok,
		contract.VolumeMediaBase("w1", 900, ver) + "/1",
	}
	for _, at := range []time.Time{t0, t0.Add(time.Hour), t0.Add(12 * time.Hour)} {
		clk.Set(at)
		for _, p := range paths {
			ri, bi := gi.get(p)
			rp, bp := gp.get(p)
			if ri.StatusCode != rp.StatusCode || string(bi) != string(bp) {
				t.Errorf("at %s %s:\ninline %d %.300s\npaged  %d %.300s", at.Format(time.TimeOnly), p, ri.StatusCode, bi, rp.StatusCode, bp)
			}
		}
	}
	var d struct {
		ProdInfo struct {
			VolCnt int `json:"volCnt"`
		} `json:"prodInfo"`
		VolList []struct{} `json:"volList"`
	}
	gp.getJSON("/home/api/v1/products/w1", 200, &d)
	if d.ProdInfo.VolCnt != 900 || len(d.VolList) != 900 {
		t.Errorf("paged detail lists %d of %d volumes, want 900 of 900", len(d.VolList), d.ProdInfo.VolCnt)
	}
	if fetches(t, gp) == 0 || fetches(t, gi) != 0 {
		t.Errorf("page fetches: paged edge %v (want some), inline edge %v (want 0)", fetches(t, gp), fetches(t, gi))
	}
}

// A work of 10,000 episodes: its detail stays small, its volume list pages
// through every episode, its last episodes' pages are read with a token or
// as a preview; concurrent misses of one page are one KV get; the release
// minute costs no KV get; a page gone from the bucket is a clean 503.
func TestPagedTenThousandEpisodes(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	ver := contentVersion(o, "00cd", 4)
	clk := &clock{t: t0}
	work := longWork("w1", 10_000, ver)
	e.putPaged(work, t0)
	g := startEdge(t, e, withObjects(o), func(c *server.Config) { c.Now = clk.Now })
	// The concurrent reads below leave keep-alive connections that
	// fasthttp's shutdown waits for: close them first (cleanups run last
	// registered first).
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	g.waitReady()
	// Pinned ahead: volume 9,999 came out an hour ago and 10,000 comes in
	// an hour: their page (99), the ten before (89-98: the newest 1,000 the
	// frontend's volume list asks) and the first (0).
	eventually(t, "release pages pinned", func() bool {
		return fetches(t, g) == 12 && metric(t, g, "edge_volume_pages_pinned_bytes") > 0
	})
	if b, max := metric(t, g, `edge_cache_bytes{cache="volume_pages"}`), metric(t, g, `edge_cache_max_bytes{cache="volume_pages"}`); b <= 0 || max != 64<<20 {
		t.Errorf("volume_pages cache bytes %v of %v", b, max)
	}

	type vol struct {
		No int `json:"no"`
	}
	var d struct {
		ProdInfo struct {
			VolCnt, StartVolNo, UpdateVolNo, RegularVolCnt int
			UpdateState                                    string
			NextReleaseAt                                  *time.Time
		} `json:"prodInfo"`
		VolList   []vol `json:"volList"`
		SalesInfo struct {
			Buy struct{ TotalCount, TotalPrice, PriceMin, PriceMax, FreeVolCnt int } `json:"buy"`
		} `json:"salesInfo"`
	}
	resp, body := g.get("/home/api/v1/products/w1")
	if err := json.Unmarshal(body, &d); err != nil || resp.StatusCode != 200 {
		t.Fatalf("detail: %d %v", resp.StatusCode, err)
	}
	buyCount, buyTotal := 0, 0
	for _, v := range work.Volumes[:9999] {
		if !v.IsFree {
			buyCount++
			buyTotal += v.BuyPrice
		}
	}
	pi := d.ProdInfo
	if pi.VolCnt != 9999 || pi.StartVolNo != 1 || pi.UpdateVolNo != 9999 || pi.RegularVolCnt != 9999-20 || pi.UpdateState != "UP" ||
		pi.NextReleaseAt == nil || !pi.NextReleaseAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("detail prodInfo %+v", pi)
	}
	if s := d.SalesInfo.Buy; s.TotalCount != buyCount || s.TotalPrice != buyTotal || s.PriceMin != 100 || s.PriceMax != 300 || s.FreeVolCnt != 20 {
		t.Errorf("sales %+v, want %d volumes for %d", s, buyCount, buyTotal)
	}
	if n := len(d.VolList); n != 200 || d.VolList[0].No != 1 || d.VolList[99].No != 100 || d.VolList[100].No != 9900 || d.VolList[199].No != 9999 {
		t.Errorf("detail lists %d volumes (%v ... %v), want 1-100 and 9900-9999", n, d.VolList[:min(n, 1)], d.VolList[max(n-1, 0):])
	}
	t.Logf("detail of a 10,000-episode work: %d bytes", len(body))

	var vl struct {
		VolList []vol `json:"volList"`
		Paging  struct {
			TotalCount int `json:"totalCount"`
		} `json:"paging"`
	}
	g.getJSON("/home/api/v1/products/w1/volumes?order=latest&size=100", 200, &vl)
	if len(vl.VolList) != 100 || vl.VolList[0].No != 9999 || vl.VolList[99].No != 9900 {
		t.Errorf("newest first: %d volumes from %v", len(vl.VolList), vl.VolList[:1])
	}
	g.getJSON("/home/api/v1/products/w1/volumes?page=100&size=100", 200, &vl)
	if len(vl.VolList) != 99 || vl.VolList[0].No != 9901 || vl.VolList[98].No != 9999 {
		t.Errorf("page 100: %d volumes from %v", len(vl.VolList), vl.VolList[:1])
	}
	g.getJSON("/home/api/v1/products/w1/volumes?page=43&size=100", 200, &vl)
	if len(vl.VolList) != 100 || vl.VolList[0].No != 4201 {
		t.Errorf("page 43: %d volumes from %v", len(vl.VolList), vl.VolList[:1])
	}

	// Volume 9,999's pages: the preview for anyone, the rest with its token.
	base := contract.VolumeMediaBase("w1", 9999, ver)
	tok := contract.SignContent([]byte("dev-content-secret"), "w1", 9999, time.Now().Add(time.Hour))
	if resp, b := g.get(base + "/1"); resp.StatusCode != 200 || !strings.HasPrefix(string(b), ver+" page 1 ") {
		t.Errorf("preview of 9,999: %d %q", resp.StatusCode, b)
	}
	if resp, _ := g.get(base + "/3"); resp.StatusCode != 403 {
		t.Errorf("paid page of 9,999 without a token: %d", resp.StatusCode)
	}
	if resp, _ := g.get(base + "/3?t=" + tok); resp.StatusCode != 200 {
		t.Errorf("paid page of 9,999 with its token: %d", resp.StatusCode)
	}
	if resp, _ := g.get(contract.VolumeMediaBase("w1", 10_000, ver) + "/1"); resp.StatusCode != 404 {
		t.Errorf("volume 10,000 before its release: %d, want 404", resp.StatusCode)
	}

	// Forty different requests missing page 49 (volumes 4901-5000) at once:
	// one KV get.
	before := fetches(t, g)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fmt.Sprintf("/home/api/v1/products/w1/volumes?page=%d&size=10", 491+i%10)
			if i >= 10 {
				p = contract.VolumeMediaBase("w1", 4900+i, ver) + "/1"
			}
			if resp, b := g.get(p); resp.StatusCode != 200 {
				t.Errorf("%s: %d %.200s", p, resp.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	if n := fetches(t, g) - before; n != 1 {
		t.Errorf("40 concurrent misses of one page: %v KV gets, want 1", n)
	}

	// The release instant: volume 10,000's detail, lists and first pages
	// come from pinned pages.
	before = fetches(t, g)
	clk.Set(t0.Add(time.Hour))
	g.getJSON("/home/api/v1/products/w1", 200, &d)
	if d.ProdInfo.VolCnt != 10_000 || d.VolList[len(d.VolList)-1].No != 10_000 {
		t.Errorf("after the release: volCnt %d, last listed %v", d.ProdInfo.VolCnt, d.VolList[len(d.VolList)-1])
	}
	g.getJSON("/home/api/v1/products/w1/volumes?order=latest", 200, &vl)
	if len(vl.VolList) != 1000 || vl.VolList[0].No != 10_000 {
		t.Errorf("newest first after the release: %d from %v", len(vl.VolList), vl.VolList[0])
	}
	for _, p := range []string{"/home/api/v1/products/w1/volumes/10000/media", contract.VolumeMediaBase("w1", 10_000, ver) + "/1",
		contract.VolumeMediaBase("w1", 10_000, ver) + "/2", "/home/api/v1/webtoon/todayup"} {
		if resp, b := g.get(p); resp.StatusCode != 200 {
			t.Errorf("%s at the release: %d %.200s", p, resp.StatusCode, b)
		}
	}
	if n := fetches(t, g) - before; n != 0 {
		t.Errorf("release minute: %v KV gets, want 0", n)
	}

	// A page gone from the bucket: a clean 503, not kept, never a panic.
	if err := e.volumesKV().Delete(context.Background(), contract.VolumePageKey("w1", 30)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/home/api/v1/products/w1/volumes?page=31&size=100", contract.VolumeMediaBase("w1", 3001, ver) + "/1"} {
		for range 2 {
			resp, b := g.get(p)
			if resp.StatusCode != 503 || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s with its page gone: %d %s", p, resp.StatusCode, resp.Header.Get("Cache-Control"))
			}
			envelopeMsg(t, p, b, 503)
		}
	}
	if resp, _ := g.get("/home/api/v1/products/w1"); resp.StatusCode != 200 {
		t.Errorf("detail with an unneeded page gone: %d", resp.StatusCode)
	}
}

// An adult paged work: the teen version gets the verification answer, no
// volume list and no page, exactly as for an inline adult work; an adult
// gets them.
func TestPagedAdultWork(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	ver := contentVersion(o, "00ef", 4)
	e.putPaged(longWork("x1", 250, ver, func(p *contract.Product) { p.Age = 19 }), t0)
	g := startEdge(t, e, withObjects(o), func(c *server.Config) { c.Now = func() time.Time { return t0 } })
	g.waitReady()
	exp := t0.Add(time.Hour)
	adult := []string{audCookie(2, exp), "X-Channel: AW"}
	var d struct {
		AdultVerificationNeeded bool       `json:"adultVerificationNeeded"`
		VolList                 []struct{} `json:"volList"`
	}
	for _, hs := range [][]string{nil, {audCookie(1, exp)}, {audCookie(2, exp), "X-Channel: AA"}} {
		g.getJSON("/home/api/v1/products/x1", 200, &d, hs...)
		if !d.AdultVerificationNeeded || len(d.VolList) != 0 {
			t.Errorf("teen %v: detail %+v", hs, d)
		}
		if resp, _ := g.get("/home/api/v1/products/x1/volumes", hs...); resp.StatusCode != 403 {
			t.Errorf("teen %v: volume list %d", hs, resp.StatusCode)
		}
		if resp, _ := g.get(contract.VolumeMediaBase("x1", 249, ver)+"/1", hs...); resp.StatusCode != 404 {
			t.Errorf("teen %v: preview page %d", hs, resp.StatusCode)
		}
	}
	g.getJSON("/home/api/v1/products/x1", 200, &d, adult...)
	if d.AdultVerificationNeeded || len(d.VolList) != 249 {
		t.Errorf("adult: detail verification %v, %d volumes", d.AdultVerificationNeeded, len(d.VolList))
	}
	if resp, _ := g.get("/home/api/v1/products/x1/volumes", adult...); resp.StatusCode != 200 {
		t.Errorf("adult: volume list %d", resp.StatusCode)
	}
	resp, _ := g.get(contract.VolumeMediaBase("x1", 249, ver)+"/1", adult...)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Cache-Control"), "private") {
		t.Errorf("adult: preview page %d %s", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
}

// NATS down: pages already cached still answer; a page the edge has not
// got is a 503 in the envelope, kept by no one, and answers again once
// NATS is back.
func TestPagedWhileNATSIsDown(t *testing.T) {
	e := newEnv(t)
	o := &memObjects{}
	ver := contentVersion(o, "00fa", 4)
	e.putPaged(longWork("w1", 400, ver), t0.Add(-30*24*time.Hour))
	g := startEdge(t, e, withObjects(o), func(c *server.Config) { c.Now = func() time.Time { return t0 } })
	g.waitReady()
	cached, uncached := "/home/api/v1/products/w1/volumes?page=2&size=100", "/home/api/v1/products/w1/volumes?page=3&size=100"
	if resp, _ := g.get(cached); resp.StatusCode != 200 {
		t.Fatalf("before: %d", resp.StatusCode)
	}
	e.nats.Stop()
	eventually(t, "NATS lost", func() bool { return metric(t, g, "edge_nats_connected") == 0 })
	if resp, _ := g.get(contract.VolumeMediaBase("w1", 150, ver) + "/1"); resp.StatusCode != 200 {
		t.Errorf("cached page's volume while NATS is down: %d", resp.StatusCode)
	}
	for _, p := range []string{uncached, contract.VolumeMediaBase("w1", 250, ver) + "/1"} {
		resp, b := g.get(p)
		if resp.StatusCode != 503 || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s while NATS is down: %d %s", p, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		envelopeMsg(t, p, b, 503)
	}
	if err := e.nats.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the page once NATS is back", func() bool { resp, _ := g.get(uncached); return resp.StatusCode == 200 })
}

// The page cache's flags: bytes and a duration, from the command line or
// the environment; anything malformed stops the edge at start.
func TestVolumePageFlags(t *testing.T) {
	cfg, err := parseEdgeFlags("-volume-pages-bytes", "33554432", "-volume-pin-ahead", "90m")
	if err != nil || cfg.VolumePagesBytes != 32<<20 || cfg.VolumePinAhead != 90*time.Minute {
		t.Fatalf("flags: %v %d %s", err, cfg.VolumePagesBytes, cfg.VolumePinAhead)
	}
	for _, bad := range [][]string{{"-volume-pages-bytes", "0"}, {"-volume-pages-bytes", "-1"}, {"-volume-pages-bytes", "64MiB"},
		{"-volume-pages-bytes", ""}, {"-volume-pin-ahead", "0s"}, {"-volume-pin-ahead", "3"}, {"-volume-pin-ahead", "-1h"}} {
		if _, err := parseEdgeFlags(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	t.Setenv("EDGE_VOLUME_PAGES_BYTES", "lots")
	if _, err := parseEdgeFlags(); err == nil || !strings.Contains(err.Error(), "EDGE_VOLUME_PAGES_BYTES") {
		t.Errorf("malformed EDGE_VOLUME_PAGES_BYTES: %v", err)
	}
	t.Setenv("EDGE_VOLUME_PAGES_BYTES", "1048576")
	t.Setenv("EDGE_VOLUME_PIN_AHEAD", "1h")
	if cfg, err := parseEdgeFlags(); err != nil || cfg.VolumePagesBytes != 1<<20 || cfg.VolumePinAhead != time.Hour {
		t.Errorf("from the environment: %v %d %s", err, cfg.VolumePagesBytes, cfg.VolumePinAhead)
	}
}
