package process

import (
	"fmt"
	"math"
	"sync"

	"github.com/davidbyttow/govips/v2/vips"

	"storefront/contract"
)

// Variant is one encoded file of a picture: one width in one format.
type Variant struct {
	Width, Height int
	Format        string // contract.FormatAVIF, FormatWebP, FormatJPEG
	Data          []byte
}

// Picture is one processed picture (a cover, a page, or one segment of a
// strip): its largest size and every variant.
type Picture struct {
	Width, Height int
	Variants      []Variant
}

// Options says what to make of a picture.
type Options struct {
	// Widths to make, each capped at the original's width (a narrower
	// original is kept at its own width, never enlarged).
	Widths []int
	// SegmentRatio > 0 slices a tall picture into segments no taller than
	// SegmentRatio × its width, of near-equal height (webtoon strips: the
	// viewer loads them one by one and reserves each one's height).
	SegmentRatio float64
	// Formats to encode, in the edge's order of preference.
	Formats []string
	// Qualities, matched so the three look alike (media/README.md has the
	// SSIM figures); AVIFEffort trades encode time for size (0-9).
	JPEGQuality, WebPQuality, AVIFQuality, AVIFEffort int
	Limits                                            Limits
}

// Recipe names what opt makes, so a version made with other settings is
// another version (the writer puts it in the version's name).
func (o Options) Recipe() string {
	return fmt.Sprintf("w%v s%g f%v q%d/%d/%d e%d", o.Widths, o.SegmentRatio, o.Formats, o.JPEGQuality, o.WebPQuality, o.AVIFQuality, o.AVIFEffort)
}

var allFormats = []string{contract.FormatAVIF, contract.FormatWebP, contract.FormatJPEG}

// ContentOptions: comic pages and webtoon strips on phone screens at 1x, 2x
// and 3x of a 360-point width. AVIF at effort 1 rather than 2: the same
// SSIM (0.871 against 0.872) for 2 % more bytes and about a third less
// encoding CPU (BenchmarkAVIFEffort; 0 is slower and larger, 3 twice as
// slow, media/README.md).
var ContentOptions = Options{
	Widths:      []int{360, 720, 1080},
	Formats:     allFormats,
	JPEGQuality: 82, WebPQuality: 78, AVIFQuality: 64, AVIFEffort: 1,
	Limits: DefaultLimits,
}

// StripOptions: ContentOptions with strips cut into segments at most twice
// as tall as wide (1440 px at 720), so the first one arrives fast and the
// viewer reserves space segment by segment.
var StripOptions = func() Options { o := ContentOptions; o.SegmentRatio = 2; return o }()

// CoverOptions: covers, wide covers, banners and event images, shown from
// list thumbnails to a detail page's header.
var CoverOptions = Options{
	Widths:      []int{240, 480, 960},
	Formats:     allFormats,
	JPEGQuality: 82, WebPQuality: 78, AVIFQuality: 64, AVIFEffort: 1,
	Limits: DefaultLimits,
}

var startOnce sync.Once

func startVips() {
	startOnce.Do(func() {
		// govips logs every operation at Info; only errors are worth a line.
		vips.LoggingSettings(nil, vips.LogLevelError)
		// The operation cache helps repeated work on the same image; every
		// upload is new, so it would only hold memory.
		vips.Startup(&vips.Config{MaxCacheFiles: 0, MaxCacheMem: 0, MaxCacheSize: 0})
	})
}

// Image validates one picture and makes its variants: one Picture, or one
// per segment when opt slices. data must be JPEG, PNG or WebP by content.
func Image(data []byte, opt Options) ([]Picture, error) {
	kind, err := Sniff(data)
	if err != nil {
		return nil, err
	}
	if !IsImage(kind) {
		return nil, refuse(CodeType, msgType, "%s is not a picture", kind)
	}
	if _, _, err := Dimensions(data, opt.Limits); err != nil {
		return nil, err
	}
	startVips()
	img, err := vips.LoadImageFromBuffer(data, vips.NewImportParams())
	if err != nil {
		return nil, refuse(CodeCorrupt, msgCorrupt, "decode: %v", err)
	}
	defer img.Close()
	// The loader libvips chose must be the one the bytes were sniffed as:
	// nothing else (SVG, PDF, ...) gets to parse an upload.
	if want := map[string]vips.ImageType{KindJPEG: vips.ImageTypeJPEG, KindPNG: vips.ImageTypePNG, KindWebP: vips.ImageTypeWEBP}[kind]; img.OriginalFormat() != want {
		return nil, refuse(CodeType, msgType, "libvips loaded %v, sniffed %s", img.OriginalFormat(), kind)
	}
	// Decode every pixel once now: a truncated or corrupt file fails here
	// as the uploader's fault, not later inside an encoder, and libvips keeps
	// the decoded picture for the many variants made from it.
	if _, err := img.Average(); err != nil {
		return nil, refuse(CodeCorrupt, msgCorrupt, "decode: %v", err)
	}
	if err := normalize(img); err != nil {
		return nil, err
	}
	W, H := img.Width(), img.Height()
	segments := [][2]int{{0, H}}
	if opt.SegmentRatio > 0 {
		segments = slices(H, int(math.Floor(opt.SegmentRatio*float64(W))))
	}
	out := make([]Picture, 0, len(segments))
	for _, s := range segments {
		seg, err := img.Copy()
		if err != nil {
			return nil, fmt.Errorf("copy picture: %w", err)
		}
		if len(segments) > 1 {
			if err := seg.ExtractArea(0, s[0], W, s[1]); err != nil {
				seg.Close()
				return nil, fmt.Errorf("cut segment at %d: %w", s[0], err)
			}
		}
		p, err := variants(seg, opt)
		seg.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// normalize turns what was loaded into 8-bit sRGB without alpha, the right
// way up, with no metadata (EXIF with GPS positions, camera serials and
// editing history never reach a reader).
func normalize(img *vips.ImageRef) error {
	if err := img.AutoRotate(); err != nil {
		return refuse(CodeCorrupt, msgCorrupt, "rotate: %v", err)
	}
	if img.Interpretation() != vips.InterpretationSRGB || img.BandFormat() != vips.BandFormatUchar {
		if err := img.ToColorSpace(vips.InterpretationSRGB); err != nil {
			return refuse(CodeCorrupt, msgCorrupt, "to sRGB: %v", err)
		}
	}
	if img.HasAlpha() {
		// Pages are read on white; transparency would show the viewer's
		// background through a JPEG-less browser's fallback.
		if err := img.Flatten(&vips.Color{R: 255, G: 255, B: 255}); err != nil {
			return refuse(CodeCorrupt, msgCorrupt, "flatten: %v", err)
		}
	}
	if err := img.RemoveMetadata(); err != nil {
		return fmt.Errorf("strip metadata: %w", err)
	}
	// The picture is upright now; an orientation tag left behind makes the
	// WebP writer emit an EXIF block of its own.
	if err := img.RemoveOrientation(); err != nil {
		return fmt.Errorf("strip orientation: %w", err)
	}
	return nil
}

// slices cuts height H into n near-equal segments no taller than max.
func slices(H, max int) [][2]int {
	if max <= 0 || H <= max {
		return [][2]int{{0, H}}
	}
	n := (H + max - 1) / max
	out := make([][2]int, 0, n)
	for i := 0; i < n; i++ {
		top := H * i / n
		bottom := H * (i + 1) / n
		out = append(out, [2]int{top, bottom - top})
	}
	return out
}

// Widths is the list of widths made for an original of width w.
func Widths(w int, want []int) []int {
	var out []int
	largest := 0
	for _, x := range want {
		largest = max(largest, x)
	}
	for _, x := range want {
		if x < w && x < largest {
			out = append(out, x)
		}
	}
	return append(out, min(w, largest))
}

func variants(seg *vips.ImageRef, opt Options) (Picture, error) {
	W := seg.Width()
	var p Picture
	for _, w := range Widths(W, opt.Widths) {
		r, err := seg.Copy()
		if err != nil {
			return p, fmt.Errorf("copy picture: %w", err)
		}
		if w != W {
			if err := r.Resize(float64(w)/float64(W), vips.KernelLanczos3); err != nil {
				r.Close()
				return p, fmt.Errorf("resize to %d: %w", w, err)
			}
		}
		for _, f := range opt.Formats {
			data, err := encode(r, f, opt)
			if err != nil {
				r.Close()
				return p, err
			}
			p.Variants = append(p.Variants, Variant{Width: r.Width(), Height: r.Height(), Format: f, Data: data})
		}
		if r.Width() >= p.Width {
			p.Width, p.Height = r.Width(), r.Height()
		}
		r.Close()
	}
	return p, nil
}

func encode(r *vips.ImageRef, format string, opt Options) ([]byte, error) {
	var (
		data []byte
		err  error
	)
	switch format {
	case contract.FormatAVIF:
		data, _, err = r.ExportAvif(&vips.AvifExportParams{StripMetadata: true, Quality: opt.AVIFQuality, Bitdepth: 8, Effort: opt.AVIFEffort})
	case contract.FormatWebP:
		data, _, err = r.ExportWebp(&vips.WebpExportParams{StripMetadata: true, Quality: opt.WebPQuality, ReductionEffort: 4})
		if err == nil {
			data, err = stripWebPMetadata(data)
		}
	case contract.FormatJPEG:
		data, _, err = r.ExportJpeg(&vips.JpegExportParams{StripMetadata: true, Quality: opt.JPEGQuality, Interlace: true, OptimizeCoding: true, SubsampleMode: vips.VipsForeignSubsampleAuto})
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s %dx%d: %w", format, r.Width(), r.Height(), err)
	}
	return data, nil
}
