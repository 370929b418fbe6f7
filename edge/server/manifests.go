package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"storefront/contract"
)

// A volume's content has no KV document (contract/media.go, issue 35): a
// page's object key derives from the version, page, width and format, and
// what says which pages, widths and formats exist is the version's manifest,
// one immutable object fetched on demand through the object cache. The edge
// keeps a bounded number of manifests parsed, with every variant's key built
// once, so serving a page builds no key and allocates nothing.

// maxManifests bounds the parsed manifests one edge keeps: a release spike
// reads a few hundred versions; a webtoon version of 60 segments in 3
// widths and 3 formats is about 50 KB parsed.
const maxManifests = 1024

// contentManifest is a parsed manifest: its bytes (served as manifest.json),
// and per page the variants with their object keys.
type contentManifest struct {
	m      contract.ContentManifest
	raw    []byte
	pages  []contract.MediaImage
	chunks []string
}

type manifestCache struct {
	mu sync.Mutex
	m  map[string]*contentManifest
}

func (c *manifestCache) get(ver []byte) *contentManifest {
	c.mu.Lock()
	m := c.m[string(ver)]
	c.mu.Unlock()
	return m
}

func (c *manifestCache) put(m *contentManifest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*contentManifest)
	}
	for k := range c.m {
		if len(c.m) < maxManifests {
			break
		}
		delete(c.m, k) // any one: the object cache still has its bytes
	}
	c.m[m.m.Ver] = m
}

// manifest returns version ver's manifest, from memory or read once from
// the object cache or store however many requests miss together. Callers
// have checked that ver is a version of a volume they may read, so nobody
// makes the edge read objects for made-up versions.
func (s *Server) manifest(ver []byte) (*contentManifest, error) {
	if m := s.manifests.get(ver); m != nil {
		return m, nil
	}
	v := string(ver)
	raw, err := s.object(contract.ContentManifestKey(v))
	if err != nil {
		return nil, err
	}
	m, err := parseManifest(v, raw)
	if err != nil {
		return nil, err
	}
	s.manifests.put(m)
	return m, nil
}

// cachedManifest is ver's manifest if this edge has it parsed, else nil;
// it never reads the store (for callers holding the catalog's lock).
func (s *Server) cachedManifest(ver string) *contract.ContentManifest {
	if m := s.manifests.get([]byte(ver)); m != nil {
		return &m.m
	}
	return nil
}

func parseManifest(ver string, raw []byte) (*contentManifest, error) {
	out := &contentManifest{raw: raw}
	if err := json.Unmarshal(raw, &out.m); err != nil {
		return nil, fmt.Errorf("decode manifest %s: %w", ver, err)
	}
	if out.m.Ver != ver {
		return nil, fmt.Errorf("manifest %s names version %q", ver, out.m.Ver)
	}
	out.pages = make([]contract.MediaImage, len(out.m.Pages))
	for i, p := range out.m.Pages {
		img := contract.MediaImage{Width: p.W, Height: p.H, Variants: make([]contract.MediaVariant, 0, len(p.Widths)*len(out.m.Formats))}
		for _, w := range p.Widths {
			for _, f := range out.m.Formats {
				h := 0
				if p.W > 0 {
					h = p.H * w / p.W
				}
				img.Variants = append(img.Variants, contract.MediaVariant{Width: w, Height: h, Format: f, Key: contract.ContentObjectKey(ver, i+1, w, f)})
			}
		}
		out.pages[i] = img
	}
	if out.m.Kind == contract.MediaKindText {
		out.chunks = make([]string, out.m.Chunks)
		for i := range out.chunks {
			out.chunks[i] = contract.ContentChunkKey(ver, i+1)
		}
	}
	return out, nil
}

// prefetchManifest reads the manifest of volume no of pid's current version
// into memory, when it has one; a failure is left to the render to answer.
func (s *Server) prefetchManifest(pid string, no int) {
	// A paged work's volume is in a page: have it cached first.
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.MediaTimeout)
	defer cancel()
	if _, err := s.store.EnsureVolumePage(ctx, pid, no); err != nil {
		s.log.Warn("read volume page", "pid", pid, "no", no, "err", err)
		return
	}
	ver := s.store.ContentVer(pid, no)
	if ver == "" || s.manifests.get([]byte(ver)) != nil {
		return
	}
	if _, err := s.manifest([]byte(ver)); err != nil {
		s.log.Warn("read content manifest", "ver", ver, "err", err)
	}
}
