package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"storefront/contract"
	"storefront/demo"
	"storefront/edge/catalog"
)

type mapObjects map[string][]byte

func (m mapObjects) Get(_ context.Context, key string) ([]byte, error) {
	if b, ok := m[key]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("object %s not found", key)
}

// benchMediaServer is benchServer with processed content for volume 3 of
// the first webtoon (paid, past the preview from page 3) and a cover: 150 KB
// objects, the size of a strip segment.
func benchMediaServer(b *testing.B) (s *Server, page, cover string) {
	s, page, cover, _ = benchMediaServerAdult(b)
	return s, page, cover
}

// benchMediaServerAdult is benchMediaServer with a cover only an adult work
// shows (served by audience, issue 30) as well.
func benchMediaServerAdult(b *testing.B) (s *Server, page, cover, adultCover string) {
	s = benchServer(b, 3000)
	objs := mapObjects{}
	mk := func(name string) contract.MediaImage {
		img := contract.MediaImage{Width: 1080, Height: 1600}
		for _, w := range []int{360, 720, 1080} {
			for _, f := range []string{contract.FormatAVIF, contract.FormatWebP, contract.FormatJPEG} {
				data := make([]byte, 150<<10)
				copy(data, fmt.Sprintf("%s %d %s", name, w, f))
				sum := sha256.Sum256(data)
				k := hex.EncodeToString(sum[:])
				objs[k] = data
				img.Variants = append(img.Variants, contract.MediaVariant{Width: w, Height: 1600 * w / 1080, Format: f, Key: k, Size: int64(len(data))})
			}
		}
		sum := sha256.Sum256([]byte(name))
		img.ID = hex.EncodeToString(sum[:])
		return img
	}
	pid := demo.PID(contract.SectionWebtoon, 1)
	ver := "00ab12cd"
	man := contract.ContentManifest{Ver: ver, Kind: contract.MediaKindImages, Formats: []string{contract.FormatAVIF, contract.FormatWebP, contract.FormatJPEG}}
	for i := range 6 {
		man.Pages = append(man.Pages, contract.ManifestPage{W: 1080, H: 1600, Widths: []int{360, 720, 1080}})
		for _, w := range []int{360, 720, 1080} {
			for _, f := range man.Formats {
				data := make([]byte, 150<<10)
				copy(data, fmt.Sprintf("page %d %d %s", i+1, w, f))
				objs[contract.ContentObjectKey(ver, i+1, w, f)] = data
			}
		}
	}
	objs[contract.ContentManifestKey(ver)], _ = json.Marshal(man)
	cat := demo.Generate(demo.Options{Seed: 1, Works: 3000, Now: benchNow})
	var prod contract.Product
	for _, p := range cat.Products {
		if p.PID == pid {
			prod = p
		}
	}
	for i := range prod.Volumes {
		if prod.Volumes[i].No == 3 {
			prod.Volumes[i].ContentVer = ver
		}
	}
	prod.Version++
	pv, _ := json.Marshal(prod)
	cv, av := mk("cover"), mk("adult cover")
	ci, _ := json.Marshal(cv)
	ai, _ := json.Marshal(av)
	ap, _ := json.Marshal(contract.Product{PID: "xbench", Section: contract.SectionWebtoon, Title: "성인 웹툰", Age: 19, ThumbURL: contract.MediaURL(av.ID)})
	if errs := s.store.Apply(benchNow, catalog.Update{Key: contract.ProductKey(pid), Value: pv},
		catalog.Update{Key: contract.MediaImageKey(cv.ID), Value: ci}, catalog.Update{Key: contract.MediaImageKey(av.ID), Value: ai},
		catalog.Update{Key: contract.ProductKey("xbench"), Value: ap}); len(errs) > 0 {
		b.Fatal(errs[0])
	}
	s.objectSrc = objs
	tok := contract.SignContent(s.contentSecret, pid, 3, benchNow.Add(time.Hour))
	return s, contract.VolumeMediaBase(pid, 3, ver) + "/4?w=720&t=" + tok, contract.MediaURL(cv.ID), contract.MediaURL(av.ID)
}

// benchPagedPage publishes a paged copy (contract.SplitVolumes) of s's
// benchmark webtoon under pid pbench, volume 3 with version ver, and
// returns the address of its page 4 with a token: the same page as
// benchMediaServer's, through a volume page instead of an inline volume.
func benchPagedPage(b *testing.B, s *Server, ver string) string {
	prod := contract.Product{PID: "pbench", Section: contract.SectionWebtoon, Title: "긴 연재", Version: 1}
	for no := 1; no <= 300; no++ {
		prod.Volumes = append(prod.Volumes, contract.Volume{No: no, Title: fmt.Sprintf("제%d화", no), ReleaseAt: benchNow.Add(-time.Duration(300-no+1) * time.Hour),
			BuyPrice: 100, PreviewPages: 2, Pages: 6, ContentBase: contract.ContentBase("pbench", no), ContentVer: ver})
	}
	head, pages := contract.SplitVolumes(&prod, benchNow)
	for _, pg := range pages {
		v, _ := json.Marshal(pg)
		if _, err := s.volKV.Put(context.Background(), contract.VolumePageKey("pbench", pg.Index), v); err != nil {
			b.Fatal(err)
		}
	}
	hv, _ := json.Marshal(head)
	if errs := s.store.Apply(benchNow, catalog.Update{Key: contract.ProductKey("pbench"), Value: hv}); len(errs) > 0 {
		b.Fatal(errs[0])
	}
	tok := contract.SignContent(s.contentSecret, "pbench", 3, benchNow.Add(time.Hour))
	return contract.VolumeMediaBase("pbench", 3, ver) + "/4?w=720&t=" + tok
}

func benchMediaHit(b *testing.B, s *Server, uri string, headers ...string) {
	ctx := benchRequest(uri, headers...)
	s.handle(ctx)
	if st := ctx.Response.StatusCode(); st != 200 && st != 206 {
		b.Fatalf("%s: %d %s", uri, st, ctx.Response.Body())
	}
	misses := s.objects.Misses.Load()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ctx.Response.Reset()
		s.handle(ctx)
	}
	b.StopTimer()
	if s.objects.Misses.Load() != misses {
		b.Fatalf("%s: %d object cache misses during the benchmark", uri, s.objects.Misses.Load()-misses)
	}
	b.ReportMetric(float64(ctx.Response.Header.ContentLength()), "bytes/answer")
}

// BenchmarkMediaHit: a cached page past the preview (content token checked,
// Accept negotiated, ?w= picked) and a cover, through the whole handler.
func BenchmarkMediaHit(b *testing.B) {
	s, page, cover, adultCover := benchMediaServerAdult(b)
	exp := time.Now()
	if benchNow.After(exp) {
		exp = benchNow
	}
	adult := contract.AudienceCookie + "=" + contract.SignAudience(s.audSecret, contract.Audience{AdultLevel: 2, Expires: exp.Add(48 * time.Hour)})
	accept := "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"
	b.Run("page-token-avif", func(b *testing.B) { benchMediaHit(b, s, page, "Accept", accept) })
	// The same page of a paged work: its volume page cached, 0 allocations too.
	paged := benchPagedPage(b, s, "00ab12cd")
	b.Run("paged-page-token-avif", func(b *testing.B) {
		fetches := s.volPages.Fetches.Load()
		benchMediaHit(b, s, paged, "Accept", accept)
		if n := s.volPages.Fetches.Load() - fetches; n > 1 {
			b.Fatalf("%d volume page fetches, want at most the first request's", n)
		}
	})
	b.Run("page-range", func(b *testing.B) { benchMediaHit(b, s, page, "Accept", accept, "Range", "bytes=0-65535") })
	b.Run("cover-webp", func(b *testing.B) { benchMediaHit(b, s, cover+"?w=360", "Accept", "image/webp,*/*") })
	b.Run("cover-explicit", func(b *testing.B) { benchMediaHit(b, s, cover+"/720.jpg") })
	// A cover only adult works show, for an adult: the audience cookie checked.
	b.Run("adult-cover-webp", func(b *testing.B) {
		benchMediaHit(b, s, adultCover+"?w=360", "Accept", "image/webp,*/*", "Cookie", adult)
	})
}
