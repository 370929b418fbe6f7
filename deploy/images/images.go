// Package images builds the store's OCI images without a container engine and
// checks them. An image is assembled from files of this machine only: the Go
// binary, the shared libraries a cgo binary links (found by reading its ELF
// headers, not by running ldd), the system's CA certificates, a passwd file
// with one unprivileged user, and for the edge and the launcher the built SPA.
// No base image is pulled, so the build works offline and its only inputs are
// files in the repository and on this machine.
//
// The same inputs give the same image digest: every tar entry has a fixed
// modification time (SOURCE_DATE_EPOCH), owner and order, and gzip adds no
// timestamp. Build twice and compare (scripts/images.sh does).
//
// The heavy dependency (go-containerregistry) stays in this package and its
// command; the services never link it.
package images

import (
	"fmt"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// NonRoot is the user every image runs as (distroless's "nonroot" numbers, so
// a PodSecurity "restricted" policy with runAsNonRoot can check it).
const NonRoot = 65532

// Spec describes one image.
type Spec struct {
	Name        string   // image name and binary name: edge, writer, analytics, launcher
	Description string   // org.opencontainers.image.description
	Binary      string   // host path of the binary, installed as /usr/local/bin/<Name>
	Args        []string // default arguments (the image's Cmd)
	Ports       []string // exposed, "8080/tcp"
	Env         []string // KEY=value defaults
	Frontend    string   // host folder of the built SPA, installed as /srv/frontend (empty: none)
	// Modules are shared objects the binary opens at run time (dlopen), so
	// its ELF headers do not name them: libvips's format modules. They and
	// the libraries they link are copied like the binary's own.
	Modules []string
	// DataDir is a folder owned by the user (the launcher's data), or empty.
	DataDir string
}

// Entrypoint is where the binary of s lives in the image.
func (s Spec) Entrypoint() []string { return []string{"/usr/local/bin/" + s.Name} }

// FrontendDir is where the SPA lives in the images that carry it.
const FrontendDir = "/srv/frontend"

// Meta is what every image of one build is labelled with.
type Meta struct {
	Version  string    // org.opencontainers.image.version
	Revision string    // git commit, org.opencontainers.image.revision
	Source   string    // org.opencontainers.image.source
	Created  time.Time // SOURCE_DATE_EPOCH: every file's time and the config's "created"
}

// Labels are the OCI annotations put in each image's config.
func (m Meta) Labels(s Spec) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "storefront-" + s.Name,
		"org.opencontainers.image.description": s.Description,
		"org.opencontainers.image.version":     m.Version,
		"org.opencontainers.image.revision":    m.Revision,
		"org.opencontainers.image.source":      m.Source,
		"org.opencontainers.image.created":     m.Created.UTC().Format(time.RFC3339),
		"org.opencontainers.image.licenses":    "proprietary",
	}
}

// Build assembles the image of s: a base layer (users, CA certificates, the
// shared libraries) and an application layer (binary, SPA), so images built
// from the same machine share their base where their libraries agree.
func Build(s Spec, m Meta) (v1.Image, error) {
	base, err := baseFiles(s)
	if err != nil {
		return nil, fmt.Errorf("cannot collect the base of %s: %w", s.Name, err)
	}
	app, err := appFiles(s)
	if err != nil {
		return nil, fmt.Errorf("cannot collect the files of %s: %w", s.Name, err)
	}
	var layers []v1.Layer
	for _, files := range [][]file{base, app} {
		l, err := tarLayer(files, m.Created)
		if err != nil {
			return nil, fmt.Errorf("cannot build a layer of %s: %w", s.Name, err)
		}
		layers = append(layers, l)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	var adds []mutate.Addendum
	for i, l := range layers {
		adds = append(adds, mutate.Addendum{Layer: l, MediaType: types.OCILayer, History: v1.History{
			Created:   v1.Time{Time: m.Created},
			CreatedBy: []string{"storefront deploy/images: base", "storefront deploy/images: " + s.Name}[i],
		}})
	}
	img, err = mutate.Append(img, adds...)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = "amd64", "linux"
	cf.Created = v1.Time{Time: m.Created}
	ports := map[string]struct{}{}
	for _, p := range s.Ports {
		ports[p] = struct{}{}
	}
	env := append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=" + caPath}, s.Env...)
	sort.Strings(env[2:])
	vols := map[string]struct{}{}
	if s.DataDir != "" {
		vols[s.DataDir] = struct{}{}
	}
	cf.Config = v1.Config{
		User:         fmt.Sprintf("%d:%d", NonRoot, NonRoot),
		Entrypoint:   s.Entrypoint(),
		Cmd:          s.Args,
		Env:          env,
		ExposedPorts: ports,
		Labels:       m.Labels(s),
		WorkingDir:   "/home/nonroot",
		StopSignal:   "SIGTERM",
	}
	if len(vols) > 0 {
		cf.Config.Volumes = vols
	}
	return mutate.ConfigFile(img, cf)
}
