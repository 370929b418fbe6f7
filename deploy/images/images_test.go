package images

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// testSpec is an image of this test binary (a cgo-linked Go program, so its
// shared libraries must come along) with a one-page SPA.
func testSpec(t *testing.T) (Spec, Meta) {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spa := t.TempDir()
	if err := os.WriteFile(filepath.Join(spa, "index.html"), []byte("<!doctype html><html lang=ko></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Spec{Name: "edge", Description: "test", Binary: bin, Ports: []string{"8080/tcp"}, Env: []string{"EDGE_ADDR=:8080"}, Frontend: spa, DataDir: "/data"},
		Meta{Version: "t", Revision: "abc", Source: "https://example.invalid/x", Created: time.Unix(1700000000, 0).UTC()}
}

func TestBuildIsReproducibleAndPassesItsCheck(t *testing.T) {
	s, m := testSpec(t)
	a, err := Build(s, m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(s, m)
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Fatalf("two builds of the same inputs: %s and %s", da, db)
	}
	if errs := Check(a, s, m); len(errs) > 0 {
		t.Fatalf("check: %v", errs)
	}
	tree, err := Tree(a)
	if err != nil {
		t.Fatal(err)
	}
	if e := tree["/tmp"]; e.Mode.Perm() != 0o777 || e.Mode&os.ModeSticky == 0 {
		t.Errorf("/tmp mode %v, want sticky and world-writable", e.Mode)
	}
	for p, e := range tree {
		if !e.Mode.IsDir() && e.UID != 0 {
			t.Errorf("%s owned by %d: only root owns files", p, e.UID)
		}
	}
	// Another time is another image: the date is an input, not the clock.
	m.Created = m.Created.Add(time.Second)
	c, _ := Build(s, m)
	if dc, _ := c.Digest(); dc == da {
		t.Error("the creation time does not reach the image")
	}
}

// The check finds what a wrong image lacks.
func TestCheckRefusesWrongImages(t *testing.T) {
	s, m := testSpec(t)
	img, err := Build(s, m)
	if err != nil {
		t.Fatal(err)
	}
	wants := func(img v1.Image, spec Spec, parts ...string) {
		t.Helper()
		errs := Check(img, spec, m)
		var all []string
		for _, e := range errs {
			all = append(all, e.Error())
		}
		joined := strings.Join(all, "\n")
		for _, p := range parts {
			if !strings.Contains(joined, p) {
				t.Errorf("check did not report %q; it said:\n%s", p, joined)
			}
		}
	}
	cf, _ := img.ConfigFile()
	cf = cf.DeepCopy()
	cf.Config.User = "0"
	cf.Config.Entrypoint = []string{"/bin/sh"}
	cf.Config.Labels["org.opencontainers.image.revision"] = "other"
	root, _ := mutate.ConfigFile(img, cf)
	wants(root, s, "non-root", "entrypoint", "label org.opencontainers.image.revision")

	other := s
	other.Ports = []string{"9090/tcp"}
	wants(img, other, "exposed ports")

	// Only the application layer: no users, no certificates, no libraries.
	app, err := appFiles(s)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tarLayer(app, m.Created)
	if err != nil {
		t.Fatal(err)
	}
	bare, _ := mutate.AppendLayers(empty.Image, l)
	cf2, _ := img.ConfigFile()
	bare, _ = mutate.ConfigFile(bare, cf2)
	wants(bare, s, "not in /etc/passwd", "no CA certificates", "its interpreter", "/data is not a folder of the user")
}
