// Command democatalog writes a generated demo catalog as JSON, for inspection.
// The store itself loads the catalog through cmd/storefront; this tool only shows
// what would be loaded.
//
//	democatalog -seed 1 -works 3000 -o catalog.json
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"storefront/contract"
	"storefront/demo"
	"storefront/demo/art"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr, time.Now); err != nil {
		fmt.Fprintln(os.Stderr, "democatalog:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer, clock func() time.Time) error {
	fs := flag.NewFlagSet("democatalog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Int64("seed", 1, "catalog seed")
	works := fs.Int("works", demo.DefaultWorks, "number of works")
	vpw := fs.Float64("volumes-per-work", demo.DefaultVolumesPerWork, "average volumes per work")
	now := fs.String("now", "", "anchor time (RFC 3339); default the current time")
	out := fs.String("o", "-", "output file, - for stdout")
	indent := fs.Bool("indent", false, "indent the JSON")
	artDir := fs.String("art", "", "also write the art of the first -art-works works, the banners and the quick-link icons into this folder")
	artWorks := fs.Int("art-works", 12, "how many works -art draws")
	if err := fs.Parse(args); err != nil {
		return err
	}
	anchor := clock()
	if *now != "" {
		t, err := time.Parse(time.RFC3339, *now)
		if err != nil {
			return fmt.Errorf("parse -now: %w", err)
		}
		anchor = t
	}
	if *works <= 0 {
		return fmt.Errorf("-works must be positive, got %d", *works)
	}

	// Open the output first: a bad path should fail before a long generation.
	var w io.Writer = stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("create output: %w", err)
		}
		defer f.Close()
		w = f
	}

	bar := newBar(stderr, time.Second)
	start := time.Now()
	cat := demo.Generate(demo.Options{Seed: *seed, Works: *works, VolumesPerWork: *vpw, Now: anchor, Progress: bar.update})
	bar.done()
	took := time.Since(start)

	bw := bufio.NewWriterSize(w, 1<<20)
	if err := encode(bw, cat, *indent); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	if f, ok := w.(*os.File); ok && f != stdout {
		if err := f.Close(); err != nil {
			return fmt.Errorf("close output: %w", err)
		}
	}
	if *artDir != "" {
		if err := writeArt(*artDir, cat, *artWorks); err != nil {
			return err
		}
	}
	vols := 0
	for i := range cat.Products {
		vols += len(cat.Products[i].Volumes)
	}
	fmt.Fprintf(stderr, "%d works, %d volumes, %d events, generated in %s, written in %s\n", len(cat.Products), vols, len(cat.Events),
		took.Round(time.Millisecond), (time.Since(start) - took).Round(time.Millisecond))
	return nil
}

// bar draws a progress bar once generation has taken longer than after, so a
// quick run prints nothing but its summary.
type bar struct {
	w     io.Writer
	start time.Time
	after time.Duration
	last  int
	drawn bool
}

func newBar(w io.Writer, after time.Duration) *bar {
	return &bar{w: w, start: time.Now(), after: after, last: -1}
}

func (b *bar) update(done, total int) {
	if total <= 0 || time.Since(b.start) < b.after {
		return
	}
	pct := done * 100 / total
	if pct == b.last {
		return
	}
	b.last, b.drawn = pct, true
	const width = 40
	fill := pct * width / 100
	fmt.Fprintf(b.w, "\rgenerating [%s%s] %3d%% %d/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), pct, done, total)
}

func (b *bar) done() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}

// writeArt writes what the edge would serve for the first works of cat, under
// the same paths (img/cover/<pid>.svg, content/<pid>/<no>/<n>.svg|txt, ...).
func writeArt(dir string, cat *demo.Catalog, works int) error {
	put := func(rel string, draw func(io.Writer) error) error {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("write art: %w", err)
		}
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("write art: %w", err)
		}
		if err := draw(f); err != nil {
			f.Close()
			return fmt.Errorf("draw %s: %w", rel, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("write art %s: %w", rel, err)
		}
		return nil
	}
	for i := range min(works, len(cat.Products)) {
		p := &cat.Products[i]
		if err := put("img/cover/"+p.PID+".svg", func(w io.Writer) error { return art.Cover(w, p) }); err != nil {
			return err
		}
		if err := put("img/wide/"+p.PID+".svg", func(w io.Writer) error { return art.Wide(w, p) }); err != nil {
			return err
		}
		v := p.Volumes[0]
		for n := 1; n <= v.Pages; n++ {
			ext, draw := ".svg", func(w io.Writer) error { return art.Page(w, p, v.No, n) }
			if p.Section == contract.SectionNovel {
				ext, draw = ".txt", func(w io.Writer) error { return art.Text(w, p, v.No, n) }
			}
			if err := put(strings.TrimPrefix(v.ContentBase, "/")+"/"+fmt.Sprint(n)+ext, draw); err != nil {
				return err
			}
		}
	}
	for _, b := range cat.Banners {
		if err := put(fmt.Sprintf("img/banner/%d.svg", b.ID), func(w io.Writer) error { return art.Banner(w, b.ID, b.Title) }); err != nil {
			return err
		}
	}
	for _, e := range cat.Events {
		if err := put(fmt.Sprintf("img/banner/%d.svg", e.EID), func(w io.Writer) error { return art.EventBanner(w, e.EID, e.Kind, e.Title) }); err != nil {
			return err
		}
	}
	for _, l := range cat.QuickLinks.Links {
		name := strings.TrimSuffix(strings.TrimPrefix(l.IconURL, "/icons/"), ".svg")
		if err := put("icons/"+name+".svg", func(w io.Writer) error { return art.Icon(w, name) }); err != nil {
			return err
		}
	}
	return nil
}

// encode writes cat as the JSON json.Marshal would give, one product at a time:
// a 100,000-work catalog is near a gigabyte of JSON, which encoding/json would
// otherwise build in memory whole. With indent it falls back to MarshalIndent.
func encode(w io.Writer, cat *demo.Catalog, indent bool) error {
	if indent {
		b, err := json.MarshalIndent(cat, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	rest := *cat
	rest.Products = nil
	head, err := json.Marshal(&rest)
	if err != nil {
		return err
	}
	// A JSON string never holds `"products":null` (its quotes would be
	// escaped), so the first match is the field.
	const hole = `"products":null`
	at := bytes.Index(head, []byte(hole))
	if at < 0 {
		return fmt.Errorf("catalog JSON has no products field")
	}
	if _, err := w.Write(head[:at]); err != nil {
		return err
	}
	if _, err := io.WriteString(w, `"products":[`); err != nil {
		return err
	}
	for i := range cat.Products {
		b, err := json.Marshal(&cat.Products[i])
		if err != nil {
			return fmt.Errorf("encode %s: %w", cat.Products[i].PID, err)
		}
		if i > 0 {
			b = append([]byte{','}, b...)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "]"); err != nil {
		return err
	}
	_, err = w.Write(append(head[at+len(hole):], '\n'))
	return err
}
