package contract

import (
	"strconv"
	"strings"
	"time"
)

// Media: the files the content team uploads (covers, wide covers, banners, event
// images, and a volume's pages, strips or text), after the writer's processing
// job has validated, resized and encoded them. Processing writes the encoded
// files into the object store under content-addressed keys and publishes what it
// made as documents in the catalog bucket, so an edge learns of them through the
// same KV watch as the rest of the catalog and never asks PostgreSQL.
//
// KV keys (catalog bucket):
//
//	media.img.<id>          MediaImage   a public image (cover, wide, banner, event)
//	media.vol.<pid>.<no>    VolumeMedia  a volume's content, current and retiring versions
//
// Object keys in the store are the lowercase hex SHA-256 of the object's bytes
// (ObjectKey), so an identical file is stored once and every URL that names an
// object never changes meaning.
//
// URLs the edge serves:
//
//	/media/<id>                       public image; variant chosen by Accept and ?w=
//	/media/<id>/<w>.<ext>             public image, one explicit variant
//	/content/<pid>/<no>/<ver>/<n>               page n of version ver; by Accept and ?w=
//	/content/<pid>/<no>/<ver>/<n>/<w>.<ext>     page n, one explicit variant
//	/content/<pid>/<no>/<ver>/<n>.html          text chunk n of a novel (sanitized)
//
// Pages up to the Volume's PreviewPages are public; every other page, in every
// width and format, needs ?t=<content token> (SignContent), which binds pid, no
// and an expiry, so a CDN in front of the edges can check the same signature on
// the path prefix /content/<pid>/<no>/ without asking anyone.
const (
	MediaPrefix = "/media/"

	MediaImageKeyPrefix  = "media.img."
	VolumeMediaKeyPrefix = "media.vol."
)

// Media formats, in the order the edge prefers them when Accept allows.
const (
	FormatAVIF = "avif"
	FormatWebP = "webp"
	FormatJPEG = "jpeg"
)

// MediaExt is the file extension of a format in URLs.
func MediaExt(format string) string {
	if format == FormatJPEG {
		return "jpg"
	}
	return format
}

// MediaContentType is the Content-Type of a format.
func MediaContentType(format string) string {
	switch format {
	case FormatAVIF:
		return "image/avif"
	case FormatWebP:
		return "image/webp"
	case FormatJPEG:
		return "image/jpeg"
	}
	return "application/octet-stream"
}

// MediaVariant is one encoded file of an image: one width in one format.
type MediaVariant struct {
	Width  int    `json:"w"`
	Height int    `json:"h"`
	Format string `json:"f"`
	// Key is the object key (hex SHA-256 of the bytes).
	Key  string `json:"k"`
	Size int64  `json:"s"`
}

// MediaImage is one processed picture: a cover, a banner, a comic page or one
// bounded-height segment of a webtoon strip.
type MediaImage struct {
	// ID names the picture in URLs: the hex SHA-256 of the original's bytes
	// (for a strip segment, of the original and the segment's index), so the
	// same upload gets the same URL.
	ID string `json:"id"`
	// Width and Height of the largest variant: the viewer reserves
	// Height/Width of the screen's width before the bytes arrive.
	Width    int            `json:"w"`
	Height   int            `json:"h"`
	Variants []MediaVariant `json:"v"`
}

// MediaText is one chunk of a novel's text, sanitized XHTML body content.
type MediaText struct {
	Key  string `json:"k"`
	Size int64  `json:"s"`
}

// Media kinds of a volume.
const (
	MediaKindImages = "images" // WT strip segments, CM pages
	MediaKindText   = "text"   // EB chunks
)

// VolumeMediaVersion is one processed upload of a volume's content.
type VolumeMediaVersion struct {
	// Ver names the version in URLs: short hex of the originals' hashes.
	Ver   string       `json:"ver"`
	Kind  string       `json:"kind"`
	Pages []MediaImage `json:"pages,omitempty"`
	Texts []MediaText  `json:"texts,omitempty"`
	// RetireAt is set on a replaced version: readers who opened it keep
	// reading until then, and its objects may be removed after it.
	RetireAt *time.Time `json:"retireAt,omitempty"`
}

// VolumeMedia is the KV document of a volume's content: the current version
// and the replaced ones still within their grace period.
type VolumeMedia struct {
	PID     string               `json:"pid"`
	No      int                  `json:"no"`
	Current VolumeMediaVersion   `json:"current"`
	Retired []VolumeMediaVersion `json:"retired,omitempty"`
	// Version grows with every change; an edge ignores an older document.
	Version int64 `json:"version"`
}

// Count is how many pages (images) or chunks (text) the current version has.
func (m *VolumeMedia) Count() int {
	if m.Current.Kind == MediaKindText {
		return len(m.Current.Texts)
	}
	return len(m.Current.Pages)
}

// MediaImageKey is the KV key of a public image.
func MediaImageKey(id string) string { return MediaImageKeyPrefix + id }

// VolumeMediaKey is the KV key of a volume's content.
func VolumeMediaKey(pid string, no int) string {
	return VolumeMediaKeyPrefix + pid + "." + strconv.Itoa(no)
}

// MediaURL is the negotiated URL of a public image.
func MediaURL(id string) string { return MediaPrefix + id }

// VolumeMediaBase is the base URL of one version of a volume's content; page n
// is VolumeMediaBase + "/" + n.
func VolumeMediaBase(pid string, no int, ver string) string {
	return ContentBase(pid, no) + "/" + ver
}

// ValidMediaID reports whether s can be an image id or object key: 64
// lowercase hex digits.
func ValidMediaID(s string) bool {
	if len(s) != 64 {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f')
	}) < 0
}
