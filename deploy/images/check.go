package images

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Entry is one file of an image's flattened tree.
type Entry struct {
	Mode     fs.FileMode
	UID, GID int
	Data     []byte // regular files
}

// Tree flattens the layers of img, later layers over earlier ones (whiteouts
// are not used by Build and are refused).
func Tree(img v1.Image) (map[string]Entry, error) {
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	tree := map[string]Entry{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rc.Close()
				return nil, fmt.Errorf("cannot read layer: %w", err)
			}
			name := "/" + strings.TrimSuffix(path.Clean(h.Name), "/")
			if strings.HasPrefix(path.Base(name), ".wh.") {
				rc.Close()
				return nil, fmt.Errorf("%s: whiteouts are not expected", name)
			}
			e := Entry{Mode: h.FileInfo().Mode(), UID: h.Uid, GID: h.Gid}
			if h.Typeflag == tar.TypeReg {
				if e.Data, err = io.ReadAll(tr); err != nil {
					rc.Close()
					return nil, err
				}
			}
			tree[name] = e
		}
		rc.Close()
	}
	return tree, nil
}

// Check lists what is wrong with img as the image of s: its configuration
// (a non-root user the image knows, the entrypoint, the ports, the labels)
// and its contents (the binary owned by root and not writable by the user,
// CA certificates, every shared library each ELF file needs, the SPA where
// s carries one, no set-uid file). Nil means it is right.
func Check(img v1.Image, s Spec, m Meta) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(s.Name+": "+format, a...)) }
	cf, err := img.ConfigFile()
	if err != nil {
		return []error{err}
	}
	tree, err := Tree(img)
	if err != nil {
		return []error{err}
	}
	c := cf.Config
	uid, _, _ := strings.Cut(c.User, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		bad("user %q is not a numeric non-root uid (Kubernetes' runAsNonRoot can only check numbers)", c.User)
	} else if !strings.Contains(string(tree["/etc/passwd"].Data), ":x:"+uid+":") {
		bad("user %s is not in /etc/passwd", uid)
	}
	if !slices.Equal(c.Entrypoint, s.Entrypoint()) {
		bad("entrypoint %q, want %q", c.Entrypoint, s.Entrypoint())
	}
	if !slices.Equal(c.Cmd, s.Args) {
		bad("cmd %q, want %q", c.Cmd, s.Args)
	}
	var ports []string
	for p := range c.ExposedPorts {
		ports = append(ports, p)
	}
	sort.Strings(ports)
	want := append([]string(nil), s.Ports...)
	sort.Strings(want)
	if !slices.Equal(ports, want) {
		bad("exposed ports %v, want %v", ports, want)
	}
	for k, v := range m.Labels(s) {
		if c.Labels[k] != v {
			bad("label %s = %q, want %q", k, c.Labels[k], v)
		}
	}
	for _, kv := range s.Env {
		if !slices.Contains(c.Env, kv) {
			bad("environment lacks %s", kv)
		}
	}
	bin, ok := tree[s.Entrypoint()[0]]
	switch {
	case !ok || !bin.Mode.IsRegular():
		bad("no binary at %s", s.Entrypoint()[0])
	case bin.Mode.Perm()&0o111 == 0:
		bad("%s is not executable", s.Entrypoint()[0])
	case bin.UID != 0 || bin.Mode.Perm()&0o022 != 0:
		bad("%s can be changed by the user it runs as", s.Entrypoint()[0])
	}
	if len(tree[caPath].Data) == 0 {
		bad("no CA certificates at %s", caPath)
	}
	if s.Frontend != "" && !bytes.Contains(tree[FrontendDir+"/index.html"].Data, []byte("<html")) {
		bad("no SPA at %s/index.html", FrontendDir)
	}
	if s.DataDir != "" && (tree[s.DataDir].UID != NonRoot || !tree[s.DataDir].Mode.IsDir()) {
		bad("%s is not a folder of the user", s.DataDir)
	}
	for p, e := range tree {
		if e.Mode&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
			bad("%s is set-uid or set-gid", p)
		}
		if !e.Mode.IsRegular() || !bytes.HasPrefix(e.Data, []byte("\x7fELF")) {
			continue
		}
		interp, needed, runpath, err := elfDeps(p, e.Data)
		if err != nil {
			bad("%v", err)
			continue
		}
		if interp != "" {
			if _, ok := tree[interp]; !ok {
				bad("%s: its interpreter %s is missing", p, interp)
			}
		}
		for _, lib := range needed {
			if !slices.ContainsFunc(append(runpath, imageLibDirs...), func(d string) bool { _, ok := tree[path.Join(d, lib)]; return ok }) {
				bad("%s needs %s, which the image lacks", p, lib)
			}
		}
	}
	return errs
}
