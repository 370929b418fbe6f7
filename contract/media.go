package contract

import (
	"strconv"
	"strings"
	"time"
)

// Media: the files the content team uploads (covers, wide covers, banners,
// event images, and a volume's pages, strips or text), after the writer's
// processing job has validated, resized and encoded them.
//
// Public pictures are KV documents (catalog bucket), their variants stored
// under content-addressed keys (ObjectKey: the hex SHA-256 of the bytes):
//
//	media.img.<id>          MediaImage   a public image (cover, wide, banner, event)
//
// A volume's content is derived, not enumerated (issue 35): the volume in
// its work's document carries its content version (Volume.ContentVer, and
// replaced versions still within their grace period), and every object of a
// version has a key derived from the version and the page, width and format
// (ContentObjectKey, ContentChunkKey). What the viewer needs beyond that
// (page count, sizes, widths, formats) is one immutable object per version,
// the ContentManifest (ContentManifestKey). A version is named by the
// originals and the recipe that made it, so volumes given the same files
// share one encoded set (the demo catalog gives a few episodes to thousands
// of volumes). No KV document and no database row exists per page, width or
// format. The per-volume documents of before (media.vol.<pid>.<no>,
// VolumeMedia) are only read by the writer's one-time conversion.
//
// URLs the edge serves:
//
//	/media/<id>                       public image; variant chosen by Accept and ?w=
//	/media/<id>/<w>.<ext>             public image, one explicit variant
//	/content/<pid>/<no>/<ver>/<n>               page n of version ver; by Accept and ?w=
//	/content/<pid>/<no>/<ver>/<n>/<w>.<ext>     page n, one explicit variant
//	/content/<pid>/<no>/<ver>/<n>.html          text chunk n of a novel (sanitized)
//	/content/<pid>/<no>/<ver>/manifest.json     the version's ContentManifest (immutable)
//
// Pages up to the Volume's PreviewPages are public; every other page, in every
// width and format, needs ?t=<content token> (SignContent), which binds pid, no
// and an expiry, so a CDN in front of the edges can check the same signature on
// the path prefix /content/<pid>/<no>/ without asking anyone.
//
// MediaSchema is the version of this shape: 2 since volumes carry their
// content version and media.vol.* documents are gone.
const MediaSchema = 2

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

// ContentManifest is what the viewer needs to lay out one version of a
// volume's content before any byte arrives, stored once per version as the
// object ContentManifestKey(Ver) and never changed.
type ContentManifest struct {
	Ver  string `json:"ver"`
	Kind string `json:"kind"`
	// Formats every page has, in the edge's order of preference.
	Formats []string       `json:"formats"`
	Pages   []ManifestPage `json:"pages"`
	// Chunks is how many text chunks a novel's version has.
	Chunks int `json:"chunks"`
}

// ManifestPage is one page (a comic page or a strip segment): its size at
// its widest, and the widths it comes in (ascending).
type ManifestPage struct {
	W      int   `json:"w"`
	H      int   `json:"h"`
	Widths []int `json:"widths"`
}

// Count is how many pages (images) or chunks (text) the version has.
func (m *ContentManifest) Count() int {
	if m.Kind == MediaKindText {
		return m.Chunks
	}
	return len(m.Pages)
}

// RetiredContent is a replaced version of a volume's content: readers who
// opened it keep reading until Until, then its objects are removed.
type RetiredContent struct {
	Ver   string    `json:"ver"`
	Until time.Time `json:"until"`
}

// contentObjectPrefix is the folder of every derived content object.
const contentObjectPrefix = "content/"

// ContentObjectKey is the object key of page n (from 1) of version ver in
// one width and format.
func ContentObjectKey(ver string, n, width int, format string) string {
	return contentObjectPrefix + ver + "/" + strconv.Itoa(n) + "/" + strconv.Itoa(width) + "." + MediaExt(format)
}

// ContentChunkKey is the object key of text chunk n (from 1) of version ver.
func ContentChunkKey(ver string, n int) string {
	return contentObjectPrefix + ver + "/" + strconv.Itoa(n) + ".html"
}

// ContentManifestKey is the object key of version ver's ContentManifest.
func ContentManifestKey(ver string) string {
	return contentObjectPrefix + ver + "/manifest.json"
}

// ContentKeys lists every object key of a version, the manifest last.
func ContentKeys(m *ContentManifest) []string {
	var keys []string
	for i, p := range m.Pages {
		for _, w := range p.Widths {
			for _, f := range m.Formats {
				keys = append(keys, ContentObjectKey(m.Ver, i+1, w, f))
			}
		}
	}
	for i := range m.Chunks {
		keys = append(keys, ContentChunkKey(m.Ver, i+1))
	}
	return append(keys, ContentManifestKey(m.Ver))
}

// VolumeMediaVersion is one processed upload of a volume's content, as the
// documents of MediaSchema 1 held it (read by the writer's conversion only).
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

// VolumeMedia was the KV document of a volume's content under MediaSchema 1
// (media.vol.<pid>.<no>): the current version and the replaced ones still
// within their grace period. Only the writer's conversion reads it now.
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
