package process

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/davidbyttow/govips/v2/vips"

	"storefront/contract"
	"storefront/demo/art"
)

// episode makes n webtoon strip originals as a creator would upload them:
// the demo's drawings rasterized at 720 × 2000 (librsvg, through libvips;
// trusted input, so SVG is fine here) with shading and grain added, as JPEG
// at quality 92.
func episode(b *testing.B, n int) [][]byte {
	b.Helper()
	startVips()
	p := &contract.Product{PID: "B1", Section: contract.SectionWebtoon, Title: "측정용 웹툰"}
	out := make([][]byte, n)
	for i := range out {
		var svg bytes.Buffer
		if err := art.Page(&svg, p, 1, i+1); err != nil {
			b.Fatal(err)
		}
		img, err := vips.NewImageFromBuffer(svg.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		if err := img.ToColorSpace(vips.InterpretationSRGB); err != nil {
			b.Fatal(err)
		}
		if img.HasAlpha() {
			_ = img.Flatten(&vips.Color{R: 255, G: 255, B: 255})
		}
		flat, _, err := img.ExportPng(vips.NewPngExportParams())
		img.Close()
		if err != nil {
			b.Fatal(err)
		}
		grained, err := vips.NewImageFromBuffer(grain(b, flat, uint64(i)))
		if err != nil {
			b.Fatal(err)
		}
		jpg, _, err := grained.ExportJpeg(&vips.JpegExportParams{Quality: 92})
		grained.Close()
		if err != nil {
			b.Fatal(err)
		}
		out[i] = jpg
	}
	return out
}

// grain adds what painted strips have and flat vector drawings lack: soft
// shading across the panel and a little noise (σ ≈ 4 levels).
func grain(b *testing.B, pngData []byte, seed uint64) []byte {
	src, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 3))
	bounds := src.Bounds()
	dst := image.NewRGBA(bounds)
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		shade := 12 * math.Sin(float64(y)/180)
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			cr, cg, cb, _ := src.At(x, y).RGBA()
			n := r.NormFloat64()*4 + shade*float64(x)/float64(bounds.Dx())
			clamp := func(v uint32) uint8 { return uint8(max(0, min(255, float64(v>>8)+n))) }
			dst.Set(x, y, color.RGBA{clamp(cr), clamp(cg), clamp(cb), 255})
		}
	}
	var out bytes.Buffer
	if err := png.Encode(&out, dst); err != nil {
		b.Fatal(err)
	}
	return out.Bytes()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEpisode60 processes a 60-strip webtoon episode with StripOptions
// and reports strips per CPU-second (pages/s/core, whatever libvips'
// threading) and the bytes of the episode at 720 wide per format.
//
//	go test -run XXX -bench Episode60 -benchtime 1x ./media/process
func BenchmarkEpisode60(b *testing.B) {
	strips := episode(b, 60)
	var orig int64
	for _, s := range strips {
		orig += int64(len(s))
	}
	b.ResetTimer()
	for range b.N {
		start := cpuTime()
		size := map[string]int64{}
		segments := 0
		for _, s := range strips {
			pics, err := Image(s, StripOptions)
			if err != nil {
				b.Fatal(err)
			}
			segments += len(pics)
			for _, p := range pics {
				for _, v := range p.Variants {
					if v.Width == 720 {
						size[v.Format] += int64(len(v.Data))
					}
				}
			}
		}
		cpu := cpuTime() - start
		b.ReportMetric(float64(len(strips))/cpu.Seconds(), "strips/cpu-s")
		b.ReportMetric(float64(segments), "segments")
		b.ReportMetric(float64(orig)/1e3, "KB-original")
		for _, f := range []string{contract.FormatJPEG, contract.FormatWebP, contract.FormatAVIF} {
			b.ReportMetric(float64(size[f])/1e3, "KB-720-"+f)
		}
	}
}

// BenchmarkQuality compares what each format keeps of the original at 720
// wide (no resize, so the picture is the original's pixels): SSIM on luma
// against the decoded upload, and the bytes, over the first strips of the
// episode, for the qualities StripOptions uses.
//
//	go test -run XXX -bench Quality -benchtime 1x ./media/process
func BenchmarkQuality(b *testing.B) {
	strips := episode(b, 10)
	b.ResetTimer()
	for range b.N {
		ssim := map[string]float64{}
		size := map[string]int64{}
		n := 0
		for _, s := range strips {
			ref := lumaOf(b, s)
			pics, err := Image(s, ContentOptions) // whole strip: compare like for like
			if err != nil {
				b.Fatal(err)
			}
			for _, v := range pics[0].Variants {
				if v.Width != 720 {
					continue
				}
				ssim[v.Format] += SSIM(ref, lumaOf(b, v.Data), 720)
				size[v.Format] += int64(len(v.Data))
			}
			n++
		}
		for _, f := range []string{contract.FormatJPEG, contract.FormatWebP, contract.FormatAVIF} {
			b.ReportMetric(ssim[f]/float64(n), "ssim-"+f)
			b.ReportMetric(float64(size[f])/float64(n)/1e3, "KB-"+f)
		}
	}
}

// lumaOf decodes an image (any format libvips reads) into 8-bit luma.
func lumaOf(b *testing.B, data []byte) []uint8 {
	img, err := vips.NewImageFromBuffer(data)
	if err != nil {
		b.Fatal(err)
	}
	defer img.Close()
	if err := img.ToColorSpace(vips.InterpretationSRGB); err != nil {
		b.Fatal(err)
	}
	raw, err := img.ToBytes()
	if err != nil {
		b.Fatal(err)
	}
	bands := img.Bands()
	out := make([]uint8, img.Width()*img.Height())
	for i := range out {
		p := raw[i*bands:]
		out[i] = uint8((299*int(p[0]) + 587*int(p[1]) + 114*int(p[2]) + 500) / 1000)
	}
	return out
}

// SSIM is the mean structural similarity of two luma pictures of width w,
// over 8 × 8 windows (Wang et al. 2004, constants for 8-bit).
func SSIM(a, b []uint8, w int) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("ssim of %d and %d pixels", len(a), len(b)))
	}
	const c1, c2 = (0.01 * 255) * (0.01 * 255), (0.03 * 255) * (0.03 * 255)
	h := len(a) / w
	var sum float64
	n := 0
	for y := 0; y+8 <= h; y += 8 {
		for x := 0; x+8 <= w; x += 8 {
			var sa, sb, saa, sbb, sab float64
			for dy := 0; dy < 8; dy++ {
				for dx := 0; dx < 8; dx++ {
					i := (y+dy)*w + x + dx
					pa, pb := float64(a[i]), float64(b[i])
					sa, sb = sa+pa, sb+pb
					saa, sbb, sab = saa+pa*pa, sbb+pb*pb, sab+pa*pb
				}
			}
			ma, mb := sa/64, sb/64
			va, vb, cov := saa/64-ma*ma, sbb/64-mb*mb, sab/64-ma*mb
			sum += ((2*ma*mb + c1) * (2*cov + c2)) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			n++
		}
	}
	return sum / math.Max(1, float64(n))
}

func TestSSIMOfAPictureWithItselfIsOne(t *testing.T) {
	a := make([]uint8, 64*64)
	for i := range a {
		a[i] = uint8(i * 7)
	}
	if s := SSIM(a, a, 64); math.Abs(s-1) > 1e-9 {
		t.Fatalf("SSIM(a, a) = %f", s)
	}
	b := make([]uint8, len(a))
	for i := range b {
		b[i] = 255 - a[i]
	}
	if s := SSIM(a, b, 64); s > 0.5 {
		t.Fatalf("SSIM of a picture and its negative = %f", s)
	}
}

// BenchmarkAVIFEffort weighs libaom's effort (through libvips) on the first
// strips of the episode at 720 wide: CPU per strip, bytes and SSIM against
// the decoded upload, at the quality ContentOptions uses; the effort is
// what the demo's first run (and every upload) pays most of its CPU for.
//
//	go test -run XXX -bench AVIFEffort -benchtime 1x ./media/process
func BenchmarkAVIFEffort(b *testing.B) {
	strips := episode(b, 10)
	b.ResetTimer()
	for range b.N {
		for _, effort := range []int{0, 1, 2, 3} {
			opt := ContentOptions
			opt.Formats = []string{contract.FormatAVIF}
			opt.Widths = []int{720}
			opt.AVIFEffort = effort
			var ssim float64
			var size int64
			start := cpuTime()
			for _, s := range strips {
				pics, err := Image(s, opt)
				if err != nil {
					b.Fatal(err)
				}
				v := pics[0].Variants[0]
				size += int64(len(v.Data))
				ssim += SSIM(lumaOf(b, s), lumaOf(b, v.Data), 720)
			}
			cpu := cpuTime() - start // includes the SSIM, the same for every effort
			n := float64(len(strips))
			e := fmt.Sprintf("-e%d", effort)
			b.ReportMetric(cpu.Seconds()/n, "cpu-s/strip"+e)
			b.ReportMetric(float64(size)/n/1e3, "KB"+e)
			b.ReportMetric(ssim/n, "ssim"+e)
		}
	}
}
