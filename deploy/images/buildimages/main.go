// Command buildimages writes the store's OCI images as OCI layouts (one
// folder per image) without a container engine, or checks layouts written
// before. scripts/images.sh builds the binaries and runs it.
//
//	buildimages -bin bin/images -frontend frontend/build/client -out .data/images
//	buildimages -check [-run] -out .data/images
//
// -run (root only) also unpacks each image and starts its binary with -h
// under chroot as the image's user: the dynamic loader must find every
// library in the image for the flags to be printed.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"storefront/deploy/images"
	"storefront/svc"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "buildimages:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("buildimages", flag.ContinueOnError)
	binDir := fs.String("bin", "bin/images", "folder with the binaries edge, writer, analytics, storefront")
	frontend := fs.String("frontend", "frontend/build/client", "the built SPA")
	out := fs.String("out", ".data/images", "one OCI layout per image is written under it")
	version := fs.String("version", "dev", "org.opencontainers.image.version (env IMAGE_VERSION)")
	revision := fs.String("revision", "unknown", "git commit (env IMAGE_REVISION)")
	source := fs.String("source", "https://example.invalid/storefront", "repository address (env IMAGE_SOURCE)")
	epoch := fs.Int64("source-date-epoch", 0, "time of every file and of the image, Unix seconds (env SOURCE_DATE_EPOCH)")
	check := fs.Bool("check", false, "check the layouts under -out instead of building")
	runBins := fs.Bool("run", false, "with -check: start each binary with -h under chroot (needs root)")
	if err := svc.Parse(fs, args); err != nil {
		return err
	}
	meta := images.Meta{Version: *version, Revision: *revision, Source: *source, Created: time.Unix(*epoch, 0).UTC()}
	specs := images.Specs(*binDir, *frontend)
	if *check {
		return checkAll(*out, specs, meta, *runBins)
	}
	for _, s := range specs {
		img, err := images.Build(s, meta)
		if err != nil {
			return err
		}
		dir := filepath.Join(*out, s.Name)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		p, err := layout.Write(dir, empty.Index)
		if err != nil {
			return fmt.Errorf("cannot write the layout of %s: %w", s.Name, err)
		}
		if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
			"org.opencontainers.image.ref.name": "storefront-" + s.Name + ":" + *version,
		})); err != nil {
			return fmt.Errorf("cannot write the image of %s: %w", s.Name, err)
		}
		d, _ := img.Digest()
		m, _ := img.Manifest()
		var size int64
		for _, l := range m.Layers {
			size += l.Size
		}
		fmt.Printf("%s %s %.1f MB\n", s.Name, d, float64(size)/1e6)
	}
	return nil
}

func readImage(dir string) (v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, err
	}
	idx, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(im.Manifests) != 1 {
		return nil, fmt.Errorf("%s: %d images, want 1", dir, len(im.Manifests))
	}
	return idx.Image(im.Manifests[0].Digest)
}

func checkAll(out string, specs []images.Spec, meta images.Meta, runBins bool) error {
	var errs []error
	for _, s := range specs {
		img, err := readImage(filepath.Join(out, s.Name))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
			continue
		}
		problems := images.Check(img, s, meta)
		if runBins && len(problems) == 0 {
			if err := runHelp(img, s); err != nil {
				problems = append(problems, err)
			}
		}
		if len(problems) == 0 {
			d, _ := img.Digest()
			fmt.Printf("%s ok %s\n", s.Name, d)
		}
		errs = append(errs, problems...)
	}
	return errors.Join(errs...)
}

// runHelp unpacks img into a temporary root and runs its entrypoint with -h
// as the image's user under chroot.
func runHelp(img v1.Image, s images.Spec) error {
	tree, err := images.Tree(img)
	if err != nil {
		return err
	}
	root, err := os.MkdirTemp("", "image-"+s.Name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	for p, e := range tree {
		at := filepath.Join(root, p)
		if e.Mode.IsDir() {
			if err := os.MkdirAll(at, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(at, e.Data, e.Mode.Perm()); err != nil {
			return err
		}
	}
	os.Chmod(root, 0o755)
	cmd := exec.Command("chroot", "--userspec="+strconv.Itoa(images.NonRoot)+":"+strconv.Itoa(images.NonRoot), root, s.Entrypoint()[0], "-h")
	outb, _ := cmd.CombinedOutput()
	// Every service prints its flags, -log-level among them, once it runs:
	// a missing library stops it in the loader before that.
	if !bytes.Contains(outb, []byte("-log-level")) {
		return fmt.Errorf("%s: %s -h under chroot did not print its flags:\n%s", s.Name, s.Entrypoint()[0], outb)
	}
	return nil
}
