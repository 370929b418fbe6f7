// Package originals makes the files the demo catalog uploads: the drawings of
// demo/art rasterized (librsvg through libvips) into the JPEGs a content team
// would send, and novels as EPUB books of demo/prose's text. They go through
// the writer's upload and processing path like any upload; the edge never
// draws anything.
//
// Only a small pool is made (demo/pool.go: a few covers per genre, a few wide
// covers, a few episodes per section), which the works share; banners and
// event images are drawn one by one, since each carries its own title.
// Everything is deterministic: the same pool gives the same bytes, so a
// second run finds every file already stored under its hash.
//
// It links libvips (cgo) and renders SVG, which the writer refuses from
// uploads: it runs in the launcher only, on drawings of its own.
package originals

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"strconv"
	"strings"
	"sync"

	"github.com/davidbyttow/govips/v2/vips"
	"golang.org/x/sync/errgroup"

	"storefront/contract"
	"storefront/demo"
	"storefront/demo/art"
	"storefront/demo/prose"
)

// Pool is the pooled originals: Covers[demo.PoolCover(...)],
// Wides[demo.PoolWide(...)], and Episodes[section][demo.PoolEpisode(...)]
// the files of one volume (strips, pages, or one EPUB).
type Pool struct {
	Covers   [][]byte
	Wides    [][]byte
	Episodes map[string][][][]byte
}

// Files counts the pool's files.
func (p *Pool) Files() int {
	n := len(p.Covers) + len(p.Wides)
	for _, eps := range p.Episodes {
		for _, files := range eps {
			n += len(files)
		}
	}
	return n
}

var startOnce sync.Once

func start() {
	startOnce.Do(func() {
		vips.LoggingSettings(nil, vips.LogLevelError)
		vips.Startup(&vips.Config{MaxCacheFiles: 0, MaxCacheMem: 0, MaxCacheSize: 0})
	})
}

// Rasterize turns one of our own SVG drawings into a JPEG.
func Rasterize(svg []byte) ([]byte, error) {
	start()
	img, err := vips.NewImageFromBuffer(svg)
	if err != nil {
		return nil, fmt.Errorf("rasterize drawing: %w", err)
	}
	defer img.Close()
	if err := img.ToColorSpace(vips.InterpretationSRGB); err != nil {
		return nil, fmt.Errorf("rasterize drawing: %w", err)
	}
	if img.HasAlpha() {
		if err := img.Flatten(&vips.Color{R: 255, G: 255, B: 255}); err != nil {
			return nil, fmt.Errorf("rasterize drawing: %w", err)
		}
	}
	b, _, err := img.ExportJpeg(&vips.JpegExportParams{Quality: 90, StripMetadata: true})
	if err != nil {
		return nil, fmt.Errorf("encode drawing: %w", err)
	}
	return b, nil
}

func draw(f func(*bytes.Buffer) error) ([]byte, error) {
	var b bytes.Buffer
	if err := f(&b); err != nil {
		return nil, err
	}
	return Rasterize(b.Bytes())
}

// sample is the made-up work a pooled drawing is drawn for.
func sample(section string, i int, title string) *contract.Product {
	return &contract.Product{PID: fmt.Sprintf("pool%s%d", strings.ToLower(section), i), Section: section, Title: title, Unit: "화"}
}

// MakePool draws the pool, on every core.
func MakePool() (*Pool, error) {
	p := &Pool{
		Covers:   make([][]byte, demo.PoolCovers()),
		Wides:    make([][]byte, demo.PoolWides),
		Episodes: map[string][][][]byte{},
	}
	var g errgroup.Group
	g.SetLimit(4)
	for i := range p.Covers {
		g.Go(func() (err error) {
			genre := contract.Genres[i/demo.PoolCoversPerGenre]
			p.Covers[i], err = draw(func(b *bytes.Buffer) error { return art.Cover(b, sample("CV", i, genre.Name)) })
			return err
		})
	}
	for i := range p.Wides {
		g.Go(func() (err error) {
			p.Wides[i], err = draw(func(b *bytes.Buffer) error { return art.Wide(b, sample("WD", i, "오늘의 추천")) })
			return err
		})
	}
	for _, sec := range []string{contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel} {
		eps := make([][][]byte, demo.PoolEpisodes)
		p.Episodes[sec] = eps
		for e := range eps {
			if sec == contract.SectionNovel {
				g.Go(func() (err error) {
					book, err := EPUB(sample(sec, e, "견본 소설"), e+1, demo.PoolNovelChapters)
					eps[e] = [][]byte{book}
					return err
				})
				continue
			}
			n := demo.PoolStrips
			if sec == contract.SectionComic {
				n = demo.PoolComicPages
			}
			eps[e] = make([][]byte, n)
			for k := range n {
				g.Go(func() (err error) {
					prod := sample(sec, e, "견본 작품")
					eps[e][k], err = draw(func(b *bytes.Buffer) error { return art.Page(b, prod, e+1, k+1) })
					return err
				})
			}
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return p, nil
}

// Banner is banner id's picture with its title.
func Banner(id int64, title string) ([]byte, error) {
	return draw(func(b *bytes.Buffer) error { return art.Banner(b, id, title) })
}

// EventBanner is event eid's picture: its kind's label and its title.
func EventBanner(eid int64, kind, title string) ([]byte, error) {
	return draw(func(b *bytes.Buffer) error { return art.EventBanner(b, eid, kind, title) })
}

// EPUB makes a book of chapters chapters of volume vol of p's text: one
// chapter per chunk of demo/prose, paragraphs as <p>.
func EPUB(p *contract.Product, vol, chapters int) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	// OCF: "mimetype" first, stored, with no extra field, so the book is
	// recognised by its first bytes.
	add := func(name string, method uint16, data string) error {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			return fmt.Errorf("epub %s: %w", name, err)
		}
		_, err = w.Write([]byte(data))
		return err
	}
	if err := add("mimetype", zip.Store, "application/epub+zip"); err != nil {
		return nil, err
	}
	if err := add("META-INF/container.xml", zip.Deflate, `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`); err != nil {
		return nil, err
	}
	var items, spine strings.Builder
	for c := 1; c <= chapters; c++ {
		id := "c" + strconv.Itoa(c)
		fmt.Fprintf(&items, `<item id="%s" href="%s.xhtml" media-type="application/xhtml+xml"/>`, id, id)
		fmt.Fprintf(&spine, `<itemref idref="%s"/>`, id)
		var text bytes.Buffer
		if err := prose.Text(&text, p, vol, c); err != nil {
			return nil, fmt.Errorf("epub text: %w", err)
		}
		var body strings.Builder
		for _, para := range strings.Split(text.String(), "\n\n") {
			if para = strings.TrimSpace(para); para != "" {
				body.WriteString("<p>" + html.EscapeString(para) + "</p>\n")
			}
		}
		if err := add("OEBPS/"+id+".xhtml", zip.Deflate, `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>`+id+`</title></head><body>
`+body.String()+`</body></html>`); err != nil {
			return nil, err
		}
	}
	if err := add("OEBPS/content.opf", zip.Deflate, `<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>`+html.EscapeString(p.Title)+`</dc:title></metadata>
<manifest>`+items.String()+`</manifest><spine>`+spine.String()+`</spine></package>`); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, fmt.Errorf("epub: %w", err)
	}
	return buf.Bytes(), nil
}
