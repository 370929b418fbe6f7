package process

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"testing"

	"storefront/contract"
)

// testPicture draws a w×h picture with gradients and noise, so encoders have
// real work and resizing shows.
func testPicture(w, h int, seed uint64) *image.RGBA {
	r := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := uint8(r.IntN(24))
			img.Set(x, y, color.RGBA{uint8(x*255/w) + n, uint8(y*255/h) + n, uint8((x+y)%256) / 2, 255})
		}
	}
	return img
}

func jpegBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withSegment inserts a JPEG marker segment right after SOI.
func withSegment(jpg []byte, marker byte, payload []byte) []byte {
	seg := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, jpg[2:]...)
}

// exifOrientation is a minimal EXIF block with one tag: Orientation = o.
func exifOrientation(o uint16) []byte {
	b := []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08")
	b = append(b, 0, 1)                         // one entry
	b = append(b, 0x01, 0x12, 0, 3, 0, 0, 0, 1) // Orientation, SHORT, count 1
	b = append(b, byte(o>>8), byte(o), 0, 0)
	return append(b, 0, 0, 0, 0) // no next IFD
}

func formatOf(b []byte) string {
	switch {
	case len(b) > 12 && string(b[4:12]) == "ftypavif":
		return contract.FormatAVIF
	case len(b) > 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return contract.FormatWebP
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return contract.FormatJPEG
	}
	return "?"
}

func TestStripIsSlicedIntoBoundedSegmentsInEveryWidthAndFormat(t *testing.T) {
	src := jpegBytes(t, testPicture(720, 5000, 1))
	pics, err := Image(src, StripOptions)
	if err != nil {
		t.Fatal(err)
	}
	// 2 × 720 = 1440 at most: 5000 needs four segments of 1250.
	if len(pics) != 4 {
		t.Fatalf("%d segments, want 4", len(pics))
	}
	total := 0
	for i, p := range pics {
		if p.Width != 720 || p.Height > 1440 || p.Height < 1249 {
			t.Fatalf("segment %d is %dx%d", i, p.Width, p.Height)
		}
		total += p.Height
		seen := map[string]bool{}
		for _, v := range p.Variants {
			if got := formatOf(v.Data); got != v.Format {
				t.Fatalf("segment %d variant %d %s holds %s", i, v.Width, v.Format, got)
			}
			if v.Width != 360 && v.Width != 720 {
				t.Fatalf("segment %d has width %d", i, v.Width)
			}
			// Heights scale with widths, so the viewer's reservation holds.
			if want := p.Height * v.Width / 720; v.Height < want-1 || v.Height > want+1 {
				t.Fatalf("segment %d at %d wide is %d tall, want %d", i, v.Width, v.Height, want)
			}
			cfgW, cfgH := decodedSize(t, v)
			if cfgW != v.Width || cfgH != v.Height {
				t.Fatalf("segment %d %s says %dx%d, file is %dx%d", i, v.Format, v.Width, v.Height, cfgW, cfgH)
			}
			seen[v.Format+string(rune('0'+v.Width/360))] = true
		}
		if len(seen) != 6 || len(p.Variants) != 6 {
			t.Fatalf("segment %d has %d variants (%v), want 2 widths × 3 formats", i, len(p.Variants), seen)
		}
	}
	if total != 5000 {
		t.Fatalf("segments add up to %d, want 5000", total)
	}
}

// decodedSize reads the dimensions back from the encoded file (JPEG and WebP
// with Go's decoders, AVIF through libvips).
func decodedSize(t *testing.T, v Variant) (int, int) {
	t.Helper()
	if v.Format == contract.FormatAVIF {
		return avifSize(t, v.Data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(v.Data))
	if err != nil {
		t.Fatalf("decode %s: %v", v.Format, err)
	}
	return cfg.Width, cfg.Height
}

func TestWidthsAreCappedAtTheOriginalAndNeverEnlarged(t *testing.T) {
	for _, c := range []struct {
		w    int
		want []int
	}{{300, []int{300}}, {360, []int{360}}, {800, []int{360, 720, 800}}, {1600, []int{360, 720, 1080}}} {
		got := Widths(c.w, ContentOptions.Widths)
		if len(got) != len(c.want) {
			t.Fatalf("Widths(%d) = %v, want %v", c.w, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("Widths(%d) = %v, want %v", c.w, got, c.want)
			}
		}
	}
	pics, err := Image(pngBytes(t, testPicture(300, 420, 2)), ContentOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(pics) != 1 || pics[0].Width != 300 || pics[0].Height != 420 || len(pics[0].Variants) != 3 {
		t.Fatalf("a 300-wide page became %+v", pics)
	}
}

func TestMetadataIsStrippedAndOrientationApplied(t *testing.T) {
	secret := []byte("GPS 37.5665N 126.9780E camera serial SECRET-1234")
	src := jpegBytes(t, testPicture(400, 200, 3))
	src = withSegment(src, 0xFE, secret)             // COM
	src = withSegment(src, 0xE1, exifOrientation(6)) // APP1 EXIF: rotate 90° clockwise
	pics, err := Image(src, ContentOptions)
	if err != nil {
		t.Fatal(err)
	}
	if pics[0].Width != 200 || pics[0].Height != 400 {
		t.Fatalf("orientation 6 of 400x200 gave %dx%d, want 200x400", pics[0].Width, pics[0].Height)
	}
	for _, v := range pics[0].Variants {
		if bytes.Contains(v.Data, []byte("SECRET-1234")) || bytes.Contains(v.Data, []byte("Exif\x00\x00")) {
			t.Fatalf("%s %d keeps the original's metadata", v.Format, v.Width)
		}
	}
}

func TestTransparentPNGIsFlattenedOnWhite(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64)) // fully transparent
	pics, err := Image(pngBytes(t, img), ContentOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range pics[0].Variants {
		if v.Format != contract.FormatJPEG {
			continue
		}
		dec, err := jpeg.Decode(bytes.NewReader(v.Data))
		if err != nil {
			t.Fatal(err)
		}
		r, g, b, _ := dec.At(32, 32).RGBA()
		if r>>8 < 250 || g>>8 < 250 || b>>8 < 250 {
			t.Fatalf("transparent became %d,%d,%d, want white", r>>8, g>>8, b>>8)
		}
	}
}

// pngHeader is a PNG signature and a valid IHDR declaring w×h: all a
// decompression bomb needs to claim its size.
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	chunk := append([]byte("IHDR"), ihdr...)
	out := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0d")
	out = append(out, chunk...)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
	return out
}

func TestBadPicturesAreRefusedWithAReason(t *testing.T) {
	good := jpegBytes(t, testPicture(64, 64, 4))
	cases := []struct {
		name string
		data []byte
		code string
	}{
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), CodeType},
		{"svg with xml prolog", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>`), CodeType},
		{"html", []byte(`<!doctype html><img src=x onerror=alert(1)>`), CodeType},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), CodeType},
		{"pdf", []byte("%PDF-1.7\n1 0 obj\n"), CodeType},
		{"empty", nil, CodeType},
		{"pixel bomb", pngHeader(50_000, 50_000), CodePixels},
		{"too tall", pngHeader(10, 70_000), CodePixels},
		{"truncated jpeg", good[:len(good)/2], CodeCorrupt},
		{"png header then garbage", append(pngHeader(100, 100), bytes.Repeat([]byte{0x42}, 500)...), CodeCorrupt},
		{"jpeg magic then svg", append([]byte{0xFF, 0xD8, 0xFF}, []byte(`<svg/>`)...), CodeCorrupt},
		{"zip is not a picture", []byte("PK\x03\x04rest"), CodeType},
	}
	for _, c := range cases {
		_, err := Image(c.data, ContentOptions)
		r, ok := AsRefusal(err)
		if !ok {
			t.Errorf("%s: %v, want a refusal", c.name, err)
			continue
		}
		if r.Code != c.code || r.Message == "" {
			t.Errorf("%s: refused as %s (%q), want %s", c.name, r.Code, r.Message, c.code)
		}
	}
}

func TestRecipesDifferWhenTheOutputWould(t *testing.T) {
	if ContentOptions.Recipe() == StripOptions.Recipe() {
		t.Fatal("slicing is not in the recipe")
	}
	o := ContentOptions
	o.AVIFQuality++
	if o.Recipe() == ContentOptions.Recipe() {
		t.Fatal("a quality is not in the recipe")
	}
	o = ContentOptions
	o.Widths = []int{360, 720}
	if o.Recipe() == ContentOptions.Recipe() {
		t.Fatal("the widths are not in the recipe")
	}
}
