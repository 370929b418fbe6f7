package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// file is one entry of a layer.
type file struct {
	path     string // absolute path in the image
	mode     fs.FileMode
	uid, gid int
	data     []byte // regular files
	dir      bool
}

const (
	caPath = "/etc/ssl/certs/ca-certificates.crt"
	// libDir is where shared libraries go: the loader of Debian-built glibc
	// searches it without an ld.so.cache.
	libDir = "/usr/lib/x86_64-linux-gnu"
)

// HostCA is where the system's CA bundle is read from.
var HostCA = "/etc/ssl/certs/ca-certificates.crt"

// hostLibDirs are searched, in order, for a library a binary names.
var hostLibDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// imageLibDirs are the folders the loader searches inside the image.
var imageLibDirs = []string{"/lib/x86_64-linux-gnu", libDir, "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

func baseFiles(s Spec) ([]file, error) {
	ca, err := os.ReadFile(HostCA)
	if err != nil {
		return nil, fmt.Errorf("cannot read the system's CA certificates (Debian: ca-certificates): %w", err)
	}
	files := []file{
		{path: "/etc/passwd", mode: 0o644, data: fmt.Appendf(nil, "root:x:0:0:root:/root:/usr/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/usr/sbin/nologin\n", NonRoot, NonRoot)},
		{path: "/etc/group", mode: 0o644, data: fmt.Appendf(nil, "root:x:0:\nnonroot:x:%d:\n", NonRoot)},
		// Go's resolver reads this to prefer /etc/hosts then DNS; without it a
		// cgo binary could hand lookups to glibc's NSS modules, which are not here.
		{path: "/etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{path: caPath, mode: 0o644, data: ca},
		{path: "/home/nonroot", mode: fs.ModeDir | 0o755, uid: NonRoot, gid: NonRoot, dir: true},
		{path: "/tmp", mode: fs.ModeDir | fs.ModeSticky | 0o777, dir: true},
	}
	if s.DataDir != "" {
		files = append(files, file{path: s.DataDir, mode: fs.ModeDir | 0o700, uid: NonRoot, gid: NonRoot, dir: true})
	}
	libs, err := sharedLibs(append([]string{s.Binary}, s.Modules...))
	if err != nil {
		return nil, err
	}
	for _, m := range s.Modules {
		libs[m] = m
	}
	for at, from := range libs {
		data, err := os.ReadFile(from)
		if err != nil {
			return nil, err
		}
		files = append(files, file{path: at, mode: 0o755, data: data})
	}
	return files, nil
}

func appFiles(s Spec) ([]file, error) {
	bin, err := os.ReadFile(s.Binary)
	if err != nil {
		return nil, err
	}
	files := []file{{path: s.Entrypoint()[0], mode: 0o755, data: bin}}
	if s.Frontend == "" {
		return files, nil
	}
	if _, err := os.Stat(filepath.Join(s.Frontend, "index.html")); err != nil {
		return nil, fmt.Errorf("the frontend is not built (npm run build in frontend/): %w", err)
	}
	err = filepath.WalkDir(s.Frontend, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: only regular files go into an image", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.Frontend, p)
		files = append(files, file{path: path.Join(FrontendDir, filepath.ToSlash(rel)), mode: 0o644, data: data})
		return nil
	})
	return files, err
}

// sharedLibs maps the image path of every shared object the ELF files at
// roots need, transitively, to the host file holding it: the program
// interpreter at its own path, libraries under libDir by the name the
// binaries ask for (symlinks resolved, so the image holds plain files).
// A static binary needs none.
func sharedLibs(roots []string) (map[string]string, error) {
	out := map[string]string{}
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		interp, needed, runpath, err := elfDeps(p, nil)
		if err != nil {
			return nil, err
		}
		if interp != "" {
			real, err := filepath.EvalSymlinks(interp)
			if err != nil {
				return nil, fmt.Errorf("%s: interpreter %s: %w", p, interp, err)
			}
			out[interp] = real
		}
		for _, lib := range needed {
			host := ""
			for _, d := range append(runpath, hostLibDirs...) {
				if _, err := os.Stat(filepath.Join(d, lib)); err == nil {
					host = filepath.Join(d, lib)
					break
				}
			}
			if host == "" {
				return nil, fmt.Errorf("%s needs %s, found in none of %v", p, lib, hostLibDirs)
			}
			real, err := filepath.EvalSymlinks(host)
			if err != nil {
				return nil, err
			}
			out[path.Join(libDir, lib)] = real
			queue = append(queue, real)
		}
	}
	return out, nil
}

// elfDeps reads an ELF file's interpreter, needed libraries and run path,
// from the host (data nil) or from bytes.
func elfDeps(name string, data []byte) (interp string, needed, runpath []string, err error) {
	var f *elf.File
	if data == nil {
		f, err = elf.Open(name)
	} else {
		f, err = elf.NewFile(bytes.NewReader(data))
	}
	if err != nil {
		return "", nil, nil, fmt.Errorf("cannot read ELF %s: %w", name, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(p.Open())
			if err != nil {
				return "", nil, nil, err
			}
			interp = strings.TrimRight(string(b), "\x00")
		}
	}
	needed, err = f.ImportedLibraries()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return "", nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
		vals, _ := f.DynString(tag)
		for _, v := range vals {
			runpath = append(runpath, strings.Split(v, ":")...)
		}
	}
	return interp, needed, runpath, nil
}

// tarLayer writes files, and every parent folder they lack, as one gzipped
// tar in path order with fixed times and owners: the same files give the
// same digest.
func tarLayer(files []file, created time.Time) (v1.Layer, error) {
	byPath := map[string]file{}
	for _, f := range files {
		byPath[f.path] = f
		for d := path.Dir(f.path); d != "/"; d = path.Dir(d) {
			if _, ok := byPath[d]; !ok {
				byPath[d] = file{path: d, mode: fs.ModeDir | 0o755, dir: true}
			}
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		f := byPath[p]
		h := &tar.Header{
			Name:    strings.TrimPrefix(p, "/"),
			Mode:    int64(f.mode.Perm()),
			Uid:     f.uid,
			Gid:     f.gid,
			ModTime: created,
			Format:  tar.FormatPAX,
		}
		if f.mode&fs.ModeSticky != 0 {
			h.Mode |= 0o1000
		}
		if f.dir {
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.DefaultCompression))
}
