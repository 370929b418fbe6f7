package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"storefront/demo"
)

var fixed = func() time.Time { return time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC) }

func TestWritesCatalogJSON(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if err := run([]string{"-seed", "5", "-works", "80"}, &out, &errOut, fixed); err != nil {
		t.Fatal(err)
	}
	var cat demo.Catalog
	if err := json.Unmarshal(out.Bytes(), &cat); err != nil {
		t.Fatalf("output is not a catalog: %v", err)
	}
	if cat.Seed != 5 || len(cat.Products) != 80 {
		t.Fatalf("seed %d, %d works", cat.Seed, len(cat.Products))
	}
	if !strings.Contains(errOut.String(), "80 works") {
		t.Fatalf("summary %q", errOut.String())
	}
	want, _ := json.Marshal(demo.Generate(demo.Options{Seed: 5, Works: 80, Now: fixed()}))
	if !bytes.Equal(bytes.TrimSpace(out.Bytes()), want) {
		t.Fatal("CLI output differs from demo.Generate with the same options")
	}
}

func TestWritesFileAndHonoursNow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cat.json")
	var out, errOut bytes.Buffer
	if err := run([]string{"-works", "30", "-now", "2030-01-01T00:00:00Z", "-o", path, "-indent"}, &out, &errOut, fixed); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatal("wrote to stdout despite -o")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cat demo.Catalog
	if err := json.Unmarshal(b, &cat); err != nil || !bytes.Contains(b, []byte("\n  \"products\"")) {
		t.Fatalf("file is not an indented catalog: %v", err)
	}
	if last := cat.Products[0].UpdatedAt; last.Year() < 2029 {
		t.Fatalf("-now ignored: last release %s", last)
	}
}

func TestBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-works", "0"}, {"-now", "yesterday"}, {"-nope"}, {"-o", "/nonexistent/dir/x.json", "-works", "5"}} {
		var out, errOut bytes.Buffer
		if err := run(args, &out, &errOut, fixed); err == nil {
			t.Fatalf("%v: no error", args)
		}
	}
}

func TestProgressBarOnlyWhenSlow(t *testing.T) {
	t.Parallel()
	var quick bytes.Buffer
	b := newBar(&quick, time.Hour)
	b.update(50, 100)
	b.done()
	if quick.Len() != 0 {
		t.Fatalf("quick run drew %q", quick.String())
	}
	var slow bytes.Buffer
	b = newBar(&slow, 0)
	b.update(50, 100)
	b.update(50, 100)
	b.update(100, 100)
	b.done()
	s := slow.String()
	if strings.Count(s, "\r") != 2 || !strings.Contains(s, " 50% 50/100") || !strings.HasSuffix(s, "100% 100/100\n") {
		t.Fatalf("bar output %q", s)
	}
}

func TestWritesArt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if err := run([]string{"-works", "40", "-art", dir, "-art-works", "40", "-o", filepath.Join(dir, "cat.json")}, &out, &errOut, fixed); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "cat.json"))
	var cat demo.Catalog
	if err := json.Unmarshal(b, &cat); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := range cat.Products {
		p := &cat.Products[i]
		ext := ".svg"
		if p.Section == "EB" {
			ext = ".txt"
		}
		paths = append(paths, p.ThumbURL, p.ThumbWideURL, p.Volumes[0].ContentBase+"/1"+ext)
	}
	for _, b := range cat.Banners {
		paths = append(paths, b.ImageURL)
	}
	for _, l := range cat.QuickLinks.Links {
		paths = append(paths, l.IconURL)
	}
	for _, p := range paths {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || st.Size() < 100 {
			t.Fatalf("%s: %v", p, err)
		}
	}
}
