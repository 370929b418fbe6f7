package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/media/process"
)

// made is a processed picture with the bytes of each variant (data[i] is
// img.Variants[i]), before storing gives the variants their keys. A picture
// reused from media_made has its keys and no bytes.
type made struct {
	img  contract.MediaImage
	data [][]byte
}

func newMade(id string, p process.Picture) made {
	m := made{img: contract.MediaImage{ID: id, Width: p.Width, Height: p.Height, Variants: make([]contract.MediaVariant, len(p.Variants))}, data: make([][]byte, len(p.Variants))}
	for i, v := range p.Variants {
		m.img.Variants[i] = contract.MediaVariant{Width: v.Width, Height: v.Height, Format: v.Format, Size: int64(len(v.Data))}
		m.data[i] = v.Data
	}
	return m
}

// sourceMade is what one source picture (an original, or a page of a ZIP or
// EPUB) became under one recipe: made now, or reused from media_made.
type sourceMade struct {
	source, recipe string
	pics           []*made
	reused         bool
}

// plan is a job's outcome before anything is stored: a public picture (its
// source's pictures), or the version of a volume's content the job gives it.
type plan struct {
	job     *job
	sources []*sourceMade
	image   *made
	vol     *versionMade
}

// versionMade is one version of a volume's content: encoded now (pages and
// texts hold the bytes), or found already made (exists: its objects are in
// the store under keys derived from ver, and the volume only points at it).
type versionMade struct {
	ver, kind string
	exists    bool
	pages     []*made
	texts     [][]byte
}

// planner plans jobs; within one batch of jobs on the same files it looks
// each source and original up once.
type planner struct {
	s         *Service
	reused    map[string]*sourceMade // source "\x00" recipe
	originals map[string][]byte
	sections  map[string]string
	versions  map[string]*versionMade
}

func (s *Service) newPlanner() *planner {
	return &planner{s: s, reused: map[string]*sourceMade{}, originals: map[string][]byte{}, sections: map[string]string{}, versions: map[string]*versionMade{}}
}

func (pl *planner) original(ctx context.Context, key string) ([]byte, error) {
	if b, ok := pl.originals[key]; ok {
		return b, nil
	}
	b, err := pl.s.store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read original %s: %w", key, err)
	}
	pl.originals[key] = b
	return b, nil
}

// source turns one source into its pictures: what media_made recorded for
// this source and recipe, or, the first time, what processing makes of the
// bytes load returns (only then are they read). Pictures are named by the
// source (one picture) or by the source and the segment's index.
func (pl *planner) source(ctx context.Context, source string, opt process.Options, load func() ([]byte, error)) (*sourceMade, error) {
	recipe := opt.Recipe()
	if sm := pl.reused[source+"\x00"+recipe]; sm != nil {
		return sm, nil
	}
	var doc []byte
	err := pl.s.pool.QueryRow(ctx, `SELECT pics FROM media_made WHERE source = $1 AND recipe = $2`, source, recipe).Scan(&doc)
	if err == nil {
		var imgs []contract.MediaImage
		if err := json.Unmarshal(doc, &imgs); err != nil {
			return nil, fmt.Errorf("decode pictures made of %s: %w", source, err)
		}
		sm := &sourceMade{source: source, recipe: recipe, reused: true}
		for _, img := range imgs {
			sm.pics = append(sm.pics, &made{img: img})
		}
		pl.reused[source+"\x00"+recipe] = sm
		return sm, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("find pictures made of %s: %w", source, err)
	}
	data, err := load()
	if err != nil {
		return nil, err
	}
	pics, err := process.Image(data, opt)
	if err != nil {
		return nil, err
	}
	pl.s.encoded.Add(1)
	sm := &sourceMade{source: source, recipe: recipe}
	for i, p := range pics {
		id := source
		if len(pics) > 1 {
			id = subID(source, i)
		}
		m := newMade(id, p)
		sm.pics = append(sm.pics, &m)
	}
	return sm, nil
}

// process makes (or reuses) the variants of a job, then stores them and
// commits the documents in one transaction.
func (s *Service) process(ctx context.Context, j *job) error {
	p, err := s.newPlanner().plan(ctx, j)
	if err != nil {
		return err
	}
	return s.commit(ctx, []*plan{p})
}

func (pl *planner) plan(ctx context.Context, j *job) (*plan, error) {
	if j.Target == TargetVolume {
		return pl.planVolume(ctx, j)
	}
	sm, err := pl.source(ctx, j.Originals[0], process.CoverOptions, func() ([]byte, error) { return pl.original(ctx, j.Originals[0]) })
	if err != nil {
		return nil, err
	}
	return &plan{job: j, sources: []*sourceMade{sm}, image: sm.pics[0]}, nil
}

// subID names segment or page i made from an original.
func subID(original string, i int) string {
	sum := sha256.Sum256([]byte(original + "/" + strconv.Itoa(i)))
	return hex.EncodeToString(sum[:])
}

// versionOf names a version by its originals and how they are processed, so
// the same files make the same version (and URLs) again, and a change of
// widths, qualities or formats makes a new one that replaces the old in the
// usual way.
func versionOf(originals []string, recipe string) string {
	sum := sha256.Sum256([]byte(strings.Join(originals, ",") + "|" + recipe))
	return hex.EncodeToString(sum[:8])
}

func (pl *planner) section(ctx context.Context, pid string) (string, error) {
	if sec, ok := pl.sections[pid]; ok {
		return sec, nil
	}
	var section string
	if err := pl.s.pool.QueryRow(ctx, `SELECT section FROM works WHERE pid = $1`, pid).Scan(&section); err != nil {
		return "", fmt.Errorf("load work %s: %w", pid, err)
	}
	pl.sections[pid] = section
	return section, nil
}

// planVolume names the version the job's files make and, unless a version
// of that name exists already (the same files given to another volume, or
// again to this one), encodes every page. Versions are not assembled from
// pictures made for other versions: their objects live under keys derived
// from the version, so a version is encoded whole, once.
func (pl *planner) planVolume(ctx context.Context, j *job) (*plan, error) {
	section, err := pl.section(ctx, j.PID)
	if err != nil {
		return nil, err
	}
	opt := process.ContentOptions
	if section == "WT" {
		opt = process.StripOptions
	}
	recipe := opt.Recipe()
	epub := len(j.Kinds) == 1 && j.Kinds[0] == process.KindEPUB
	if epub {
		recipe = "epub " + process.ContentOptions.Recipe()
	}
	ver := versionOf(j.Originals, recipe)
	var book *process.Book
	// A book without pictures is one version for every volume given it:
	// once that version is made, no other volume's job needs the book read
	// (the demo gives a few books to tens of thousands of volumes).
	if epub && !pl.made(ctx, ver) {
		data, err := pl.original(ctx, j.Originals[0])
		if err != nil {
			return nil, err
		}
		// A book's pictures are named in its chunks by this volume's URLs,
		// so a book with pictures is this volume's own version; one without
		// is shared by every volume given the same file.
		own := versionOf(j.Originals, recipe+"|"+j.PID+"/"+strconv.Itoa(j.No))
		base := contract.VolumeMediaBase(j.PID, j.No, own)
		book, err = process.EPUB(data, opt.Limits, func(i int) string { return base + "/" + strconv.Itoa(i+1) })
		if err != nil {
			return nil, err
		}
		if len(book.Images) > 0 {
			ver = own
		}
	}
	if vm := pl.versions[ver]; vm != nil {
		return &plan{job: j, vol: vm}, nil
	}
	var exists bool
	if err := pl.s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM media_versions WHERE ver = $1)`, ver).Scan(&exists); err != nil {
		return nil, fmt.Errorf("find version %s: %w", ver, err)
	}
	vm := &versionMade{ver: ver, kind: contract.MediaKindImages, exists: exists}
	pl.versions[ver] = vm
	if vm.exists {
		return &plan{job: j, vol: vm}, nil
	}
	if err := pl.encodeVersion(ctx, j, vm, opt, book); err != nil {
		delete(pl.versions, ver)
		return nil, err
	}
	return &plan{job: j, vol: vm}, nil
}

// made reports whether version ver is made already (a failed look-up
// counts as not: the caller then makes sure the slow way).
func (pl *planner) made(ctx context.Context, ver string) bool {
	if vm := pl.versions[ver]; vm != nil {
		return true
	}
	var ok bool
	err := pl.s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM media_versions WHERE ver = $1)`, ver).Scan(&ok)
	return err == nil && ok
}

func (pl *planner) encodeVersion(ctx context.Context, j *job, vm *versionMade, opt process.Options, book *process.Book) error {
	add := func(name string, opt process.Options, data []byte) error {
		pics, err := process.Image(data, opt)
		if err != nil {
			return err
		}
		pl.s.encoded.Add(1)
		for i, p := range pics {
			id := name
			if len(pics) > 1 {
				id = subID(name, i)
			}
			m := newMade(id, p)
			vm.pages = append(vm.pages, &m)
		}
		return nil
	}
	switch {
	case book != nil:
		vm.kind, vm.texts = contract.MediaKindText, book.Chunks
		for i, p := range book.Images {
			if err := add(subID(j.Originals[0], i), process.ContentOptions, p); err != nil {
				return err
			}
		}
	case len(j.Kinds) == 1 && j.Kinds[0] == process.KindZIP:
		data, err := pl.original(ctx, j.Originals[0])
		if err != nil {
			return err
		}
		pages, err := process.ZipPages(data, opt.Limits)
		if err != nil {
			return err
		}
		for i, p := range pages {
			if err := add(subID(j.Originals[0], i), opt, p); err != nil {
				return err
			}
		}
	default:
		for _, k := range j.Originals {
			data, err := pl.original(ctx, k)
			if err != nil {
				return err
			}
			if err := add(k, opt, data); err != nil {
				return err
			}
		}
	}
	return nil
}

// manifest is what the viewer needs of the version: formats every page
// has, each page's size and widths, how many chunks.
func (vm *versionMade) manifest() contract.ContentManifest {
	m := contract.ContentManifest{Ver: vm.ver, Kind: vm.kind, Formats: []string{}, Pages: []contract.ManifestPage{}, Chunks: len(vm.texts)}
	for _, f := range []string{contract.FormatAVIF, contract.FormatWebP, contract.FormatJPEG} {
		every := len(vm.pages) > 0
		for _, p := range vm.pages {
			if !slices.ContainsFunc(p.img.Variants, func(x contract.MediaVariant) bool { return x.Format == f }) {
				every = false
				break
			}
		}
		if every {
			m.Formats = append(m.Formats, f)
		}
	}
	for _, p := range vm.pages {
		mp := contract.ManifestPage{W: p.img.Width, H: p.img.Height, Widths: []int{}}
		for _, x := range p.img.Variants {
			if !slices.Contains(mp.Widths, x.Width) {
				mp.Widths = append(mp.Widths, x.Width)
			}
		}
		slices.Sort(mp.Widths)
		m.Pages = append(m.Pages, mp)
	}
	return m
}
