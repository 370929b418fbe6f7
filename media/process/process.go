// Package process turns the content team's uploads into what readers get:
// pictures validated, stripped of metadata, sliced (webtoon strips), resized
// to a few widths and encoded as AVIF, WebP and JPEG with libvips (govips);
// ZIP/CBZ archives unpacked into ordered pages; EPUB books parsed, their XHTML
// sanitized with bluemonday and cut into chunks for the novel viewer.
//
// Everything here is pure: bytes in, encoded bytes and dimensions out. The
// writer's job stores the results (media/store) and publishes the documents
// (contract/media.go).
//
// Untrusted input never reaches a libvips loader it was not sniffed for: the
// format is taken from the first bytes (never the file name), only JPEG, PNG
// and WebP pass, and the dimensions are read from the header with Go's own
// decoders before libvips decodes a single pixel, so a decompression bomb is
// refused for its declared size.
package process

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // header decoders for DecodeConfig
	_ "image/png"

	_ "golang.org/x/image/webp"
)

// Refusal is bad input: the upload is refused with Message (Korean, shown in
// the admin screen) and nothing is stored. Code is a stable machine name.
type Refusal struct {
	Code    string
	Message string
	Detail  string
}

func (r *Refusal) Error() string {
	if r.Detail != "" {
		return r.Code + ": " + r.Detail
	}
	return r.Code
}

// Refusal codes.
const (
	CodeType     = "unsupported_type"
	CodeTooLarge = "too_large"
	CodePixels   = "too_many_pixels"
	CodeCorrupt  = "corrupt"
	CodeArchive  = "bad_archive"
	CodeScript   = "script"
)

func refuse(code, msg, detail string, args ...any) *Refusal {
	return &Refusal{Code: code, Message: msg, Detail: fmt.Sprintf(detail, args...)}
}

// AsRefusal returns the refusal inside err, if it is one.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// Korean messages of refusals (the admin screen shows them as they are).
const (
	msgType     = "지원하지 않는 파일 형식입니다. JPEG, PNG, WebP 이미지나 ZIP, CBZ, EPUB 파일만 올릴 수 있습니다."
	msgTooLarge = "파일이 너무 큽니다."
	msgPixels   = "이미지의 가로세로 크기가 너무 큽니다."
	msgCorrupt  = "이미지를 읽을 수 없습니다. 손상된 파일인지 확인해 주세요."
	msgArchive  = "압축 파일을 열 수 없거나 허용되지 않는 내용이 들어 있습니다."
	msgScript   = "스크립트가 들어 있는 EPUB은 올릴 수 없습니다."
	msgEPUB     = "EPUB 파일을 읽을 수 없습니다."
	msgEmpty    = "이미지가 들어 있지 않습니다."
)

// Sniffed kinds of upload.
const (
	KindJPEG = "jpeg"
	KindPNG  = "png"
	KindWebP = "webp"
	KindZIP  = "zip" // ZIP or CBZ of pages (an EPUB is a ZIP too; see Sniff)
	KindEPUB = "epub"
)

// Sniff names what data is from its first bytes. Anything that is not one of
// the kinds above, SVG, HTML, PDF, GIF and every other format libvips could
// load included, is a refusal.
func Sniff(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return KindJPEG, nil
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return KindPNG, nil
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return KindWebP, nil
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		// An EPUB's first entry is the stored "mimetype" file (OCF 3.3 §4.3).
		if len(data) >= 58 && bytes.Equal(data[30:38], []byte("mimetype")) && bytes.HasPrefix(data[38:], []byte("application/epub+zip")) {
			return KindEPUB, nil
		}
		return KindZIP, nil
	}
	return "", refuse(CodeType, msgType, "unrecognised content (% x)", head(data, 8))
}

// IsImage reports whether a sniffed kind is a single picture.
func IsImage(kind string) bool { return kind == KindJPEG || kind == KindPNG || kind == KindWebP }

func head(b []byte, n int) []byte {
	if len(b) < n {
		return b
	}
	return b[:n]
}

// Limits bound what one upload may cost.
type Limits struct {
	// MaxPixels of one picture (width × height as its header declares).
	MaxPixels int64
	// MaxSide is the longest side of one picture.
	MaxSide int
	// MaxArchiveFiles and MaxArchiveBytes bound a ZIP/CBZ/EPUB's entries
	// and their total uncompressed size; MaxRatio the compression ratio of
	// any entry (a ZIP bomb's is in the thousands).
	MaxArchiveFiles int
	MaxArchiveBytes int64
	MaxRatio        int64
}

// DefaultLimits: a webtoon strip of 800 × 60,000 is 48 MP; nothing a phone
// shows needs more. A 100 MP RGB decode is 300 MB, which is the ceiling one
// job may take on a small machine.
var DefaultLimits = Limits{
	MaxPixels:       100_000_000,
	MaxSide:         65_000,
	MaxArchiveFiles: 2_000,
	MaxArchiveBytes: 1 << 30,
	MaxRatio:        500,
}

// Dimensions reads width and height from the header of a sniffed picture,
// without decoding pixels, and checks them against lim.
func Dimensions(data []byte, lim Limits) (w, h int, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, refuse(CodeCorrupt, msgCorrupt, "header: %v", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, refuse(CodeCorrupt, msgCorrupt, "empty picture %dx%d", cfg.Width, cfg.Height)
	}
	if cfg.Width > lim.MaxSide || cfg.Height > lim.MaxSide || int64(cfg.Width)*int64(cfg.Height) > lim.MaxPixels {
		return 0, 0, refuse(CodePixels, msgPixels, "%dx%d is over the limit (%d pixels, %d a side)", cfg.Width, cfg.Height, lim.MaxPixels, lim.MaxSide)
	}
	return cfg.Width, cfg.Height, nil
}
