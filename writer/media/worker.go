package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/media/process"
	"storefront/media/store"
	"storefront/writer/catalog"
	"storefront/writer/outbox"
)

// gcLock is the advisory lock between jobs storing objects (shared) and the
// sweeper removing retired ones (exclusive): an object a job finds already
// stored (content addressing skips the write) cannot be removed before the
// job's references to it commit.
const gcLock = 0x6d65646961 // "media"

type job struct {
	ID        int64
	Target    string
	PID       string
	No        int
	RefID     int64
	Originals []string
	Kinds     []string
	Attempts  int
}

// Run works on jobs until ctx ends: claims one (queued, or running with a
// lease run out because its worker died), processes it, and sweeps retired
// versions past their grace and abandoned uploads. Any number of workers may run on any number of
// writer nodes; SKIP LOCKED hands each job to one.
func (s *Service) Run(ctx context.Context) error {
	if s.store == nil {
		<-ctx.Done()
		return nil
	}
	var wg sync.WaitGroup
	for i := range s.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.loop(ctx, i == 0)
		}()
	}
	wg.Wait()
	return nil
}

// loop is one worker; the first also sweeps.
func (s *Service) loop(ctx context.Context, sweeps bool) {
	lastSweep := time.Time{}
	for {
		worked, err := s.Once(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Error("media job", "err", err)
		}
		if now := s.cfg.Now(); sweeps && now.Sub(lastSweep) >= s.cfg.Poll*10 {
			if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("media sweep", "err", err)
			}
			lastSweep = now
		}
		if worked {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-time.After(s.cfg.Poll):
		}
	}
}

// Once claims and processes at most one job; it reports whether it found one.
func (s *Service) Once(ctx context.Context) (bool, error) {
	j, err := s.claim(ctx)
	if err != nil || j == nil {
		return false, err
	}
	if j.Attempts > s.cfg.MaxAttempts {
		// Claimed again after its lease ran out this often: it takes its
		// worker down with it (or never ends). Stop feeding it to workers.
		return true, s.fail(ctx, j, "처리 중 작업이 여러 번 중단되어 멈췄습니다. 파일을 확인해 주세요.")
	}
	// The lease is renewed while the job runs, so only a dead worker's
	// lease runs out.
	jctx, stop := context.WithCancel(ctx)
	defer stop()
	go s.renew(jctx, j)
	// Jobs on the same files wait for the one making them, then reuse
	// what it made (its siblings are done by then, most of them).
	unlock := s.files.lock(strings.Join(j.Originals, ","))
	err = s.process(jctx, j)
	stop()
	if err == nil {
		if j.Target == TargetVolume {
			s.siblings(ctx, j)
		}
		unlock()
		return true, nil
	}
	unlock()
	if r, ok := process.AsRefusal(err); ok {
		s.log.Info("media job refused", "job", j.ID, "code", r.Code, "detail", r.Detail)
		return true, s.fail(ctx, j, r.Message)
	}
	if ctx.Err() != nil {
		return true, err // shutting down: the lease runs out and another worker takes it
	}
	s.log.Warn("media job failed, will retry", "job", j.ID, "attempt", j.Attempts, "err", err)
	if j.Attempts >= s.cfg.MaxAttempts {
		return true, s.fail(ctx, j, "처리하지 못했습니다. 잠시 후 다시 올려 주세요.")
	}
	backoff := time.Duration(j.Attempts*j.Attempts) * 5 * time.Second
	_, uerr := s.pool.Exec(ctx, `UPDATE media_jobs SET state = 'queued', lease_until = NULL, not_before = $3, updated_at = $4
		WHERE id = $1 AND attempts = $2 AND state = 'running'`, j.ID, j.Attempts, s.cfg.Now().Add(backoff).UTC(), s.cfg.Now().UTC())
	return true, errors.Join(err, uerr)
}

func (s *Service) claim(ctx context.Context) (*job, error) {
	now := s.cfg.Now().UTC()
	var j job
	err := s.pool.QueryRow(ctx, `UPDATE media_jobs SET state = 'running', attempts = attempts + 1, lease_until = $2, updated_at = $1
		WHERE id = (SELECT id FROM media_jobs
			WHERE (state = 'queued' AND not_before <= $1) OR (state = 'running' AND lease_until < $1)
			ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING id, target, pid, no, ref_id, originals, kinds, attempts`, now, now.Add(s.cfg.Lease)).
		Scan(&j.ID, &j.Target, &j.PID, &j.No, &j.RefID, &j.Originals, &j.Kinds, &j.Attempts)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim media job: %w", err)
	}
	return &j, nil
}

func (s *Service) renew(ctx context.Context, j *job) {
	t := time.NewTicker(s.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.pool.Exec(ctx, `UPDATE media_jobs SET lease_until = $3 WHERE id = $1 AND attempts = $2 AND state = 'running'`,
				j.ID, j.Attempts, s.cfg.Now().Add(s.cfg.Lease).UTC()); err != nil && ctx.Err() == nil {
				s.log.Warn("renew media job lease", "job", j.ID, "err", err)
			}
		}
	}
}

func (s *Service) fail(ctx context.Context, j *job, reason string) error {
	_, err := s.pool.Exec(ctx, `UPDATE media_jobs SET state = 'failed', reason = $3, lease_until = NULL, updated_at = $4
		WHERE id = $1 AND attempts = $2`, j.ID, j.Attempts, reason, s.cfg.Now().UTC())
	if err != nil {
		return fmt.Errorf("fail media job %d: %w", j.ID, err)
	}
	return nil
}

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

// plan is a job's outcome before anything is stored: its pictures by
// source, its text chunks, and what it saves: a volume's version (made once
// the objects have their keys) or a public picture.
type plan struct {
	job     *job
	sources []*sourceMade
	texts   [][]byte
	version func(textKeys []string) contract.VolumeMediaVersion
	image   *made
}

// planner plans jobs; within one batch of jobs on the same files it looks
// each source and original up once.
type planner struct {
	s         *Service
	reused    map[string]*sourceMade // source "\x00" recipe
	originals map[string][]byte
	sections  map[string]string
}

func (s *Service) newPlanner() *planner {
	return &planner{s: s, reused: map[string]*sourceMade{}, originals: map[string][]byte{}, sections: map[string]string{}}
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
	if len(j.Kinds) == 1 && j.Kinds[0] == process.KindEPUB {
		recipe = "epub " + process.ContentOptions.Recipe()
	}
	ver := versionOf(j.Originals, recipe)
	kind := contract.MediaKindImages
	var texts [][]byte
	var sources []*sourceMade
	add := func(name string, opt process.Options, load func() ([]byte, error)) error {
		sm, err := pl.source(ctx, name, opt, load)
		if err == nil {
			sources = append(sources, sm)
		}
		return err
	}
	switch {
	case len(j.Kinds) == 1 && j.Kinds[0] == process.KindZIP:
		data, err := pl.original(ctx, j.Originals[0])
		if err != nil {
			return nil, err
		}
		pages, err := process.ZipPages(data, opt.Limits)
		if err != nil {
			return nil, err
		}
		for i, p := range pages {
			if err := add(subID(j.Originals[0], i), opt, func() ([]byte, error) { return p, nil }); err != nil {
				return nil, err
			}
		}
	case len(j.Kinds) == 1 && j.Kinds[0] == process.KindEPUB:
		data, err := pl.original(ctx, j.Originals[0])
		if err != nil {
			return nil, err
		}
		base := contract.VolumeMediaBase(j.PID, j.No, ver)
		book, err := process.EPUB(data, opt.Limits, func(i int) string { return base + "/" + strconv.Itoa(i+1) })
		if err != nil {
			return nil, err
		}
		kind, texts = contract.MediaKindText, book.Chunks
		for i, p := range book.Images {
			if err := add(subID(j.Originals[0], i), process.ContentOptions, func() ([]byte, error) { return p, nil }); err != nil {
				return nil, err
			}
		}
	default:
		for _, k := range j.Originals {
			if err := add(k, opt, func() ([]byte, error) { return pl.original(ctx, k) }); err != nil {
				return nil, err
			}
		}
	}
	return &plan{job: j, sources: sources, texts: texts, version: func(textKeys []string) contract.VolumeMediaVersion {
		v := contract.VolumeMediaVersion{Ver: ver, Kind: kind}
		for _, sm := range sources {
			for _, m := range sm.pics {
				v.Pages = append(v.Pages, m.img)
			}
		}
		for i, k := range textKeys {
			v.Texts = append(v.Texts, contract.MediaText{Key: k, Size: int64(len(texts[i]))})
		}
		return v
	}}, nil
}

// commit stores every object and saves the documents of plans in one
// transaction that holds gcLock shared, then marks their jobs done, in a
// few statements however many plans there are. A job that is no longer this
// worker's (its lease ran out and another took it) commits nothing; the
// others go on.
func (s *Service) commit(ctx context.Context, plans []*plan) error {
	live := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, int64(gcLock)); err != nil {
			return fmt.Errorf("media lock: %w", err)
		}
		ours, err := s.lockJobs(ctx, tx, plans)
		if err != nil {
			return err
		}
		live = len(ours)
		checked := map[*sourceMade]bool{}
		stored := map[string]bool{}
		var vols []volumeSave
		var volPlans []*plan
		urls := make(map[*plan]string, len(ours))
		for _, p := range ours {
			for _, sm := range p.sources {
				if checked[sm] {
					continue
				}
				checked[sm] = true
				if err := s.storeSource(ctx, tx, sm); err != nil {
					return err
				}
			}
			if p.image != nil {
				url, err := s.saveImage(ctx, tx, p.job, p.image.img)
				if err != nil {
					return err
				}
				urls[p] = url
				continue
			}
			textKeys := make([]string, len(p.texts))
			for i, t := range p.texts {
				key := store.Key(t)
				if !stored[key] {
					if _, err := s.store.Put(ctx, t, "text/html; charset=utf-8"); err != nil {
						return err
					}
					stored[key] = true
				}
				textKeys[i] = key
			}
			vols = append(vols, volumeSave{job: p.job, v: p.version(textKeys)})
			volPlans = append(volPlans, p)
		}
		vurls, err := s.saveVolumes(ctx, tx, vols)
		if err != nil {
			return err
		}
		for i, p := range volPlans {
			urls[p] = vurls[i]
		}
		// The originals stay: a version can be made again from them.
		var owners, keys, results []string
		var ids []int64
		for _, p := range ours {
			for _, k := range p.job.Originals {
				owners = append(owners, "orig:"+strconv.FormatInt(p.job.ID, 10))
				keys = append(keys, k)
			}
			ids = append(ids, p.job.ID)
			results = append(results, urls[p])
		}
		if err := refs(ctx, tx, owners, keys); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE media_jobs m SET state = 'done', reason = '', result = t.url, lease_until = NULL, updated_at = $3
			FROM unnest($1::bigint[], $2::text[]) AS t(id, url) WHERE m.id = t.id`, ids, results, s.cfg.Now().UTC()); err != nil {
			return fmt.Errorf("finish media jobs: %w", err)
		}
		return outbox.Notify(ctx, tx)
	})
	if err != nil {
		return err
	}
	if live < len(plans) {
		s.log.Warn("media jobs taken over by other workers; dropping this run of them", "jobs", len(plans)-live)
	}
	if live > 0 {
		s.Changed()
	}
	return nil
}

// lockJobs locks the plans' jobs and returns the plans whose job is still
// this worker's run (running, with the attempt it claimed).
func (s *Service) lockJobs(ctx context.Context, tx pgx.Tx, plans []*plan) ([]*plan, error) {
	ids := make([]int64, len(plans))
	for i, p := range plans {
		ids[i] = p.job.ID
	}
	rows, err := tx.Query(ctx, `SELECT id, attempts FROM media_jobs WHERE id = ANY($1) AND state = 'running' ORDER BY id FOR UPDATE`, ids)
	if err != nil {
		return nil, fmt.Errorf("lock media jobs: %w", err)
	}
	attempts := map[int64]int{}
	for rows.Next() {
		var id int64
		var a int
		if err := rows.Scan(&id, &a); err != nil {
			rows.Close()
			return nil, fmt.Errorf("lock media jobs: %w", err)
		}
		attempts[id] = a
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lock media jobs: %w", err)
	}
	var ours []*plan
	for _, p := range plans {
		if a, ok := attempts[p.job.ID]; ok && a == p.job.Attempts {
			ours = append(ours, p)
		}
	}
	return ours, nil
}

// storeSource stores what was made of a source and records it in
// media_made. A reused source is checked to be still recorded: under
// gcLock, so its objects cannot have gone since (the sweeper drops the
// record with them).
func (s *Service) storeSource(ctx context.Context, tx pgx.Tx, sm *sourceMade) error {
	if sm.reused {
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM media_made WHERE source = $1 AND recipe = $2)`, sm.source, sm.recipe).Scan(&ok); err != nil {
			return fmt.Errorf("check pictures made of %s: %w", sm.source, err)
		}
		if !ok {
			return fmt.Errorf("pictures made of %s were removed meanwhile: %w", sm.source, errMadeGone)
		}
		return nil
	}
	var keys []string
	imgs := make([]contract.MediaImage, len(sm.pics))
	for k, m := range sm.pics {
		for i, d := range m.data {
			key, err := s.store.Put(ctx, d, contract.MediaContentType(m.img.Variants[i].Format))
			if err != nil {
				return err
			}
			m.img.Variants[i].Key = key
			keys = append(keys, key)
		}
		imgs[k] = m.img
	}
	doc, err := json.Marshal(imgs)
	if err != nil {
		return fmt.Errorf("marshal pictures made of %s: %w", sm.source, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO media_made (source, recipe, pics, keys) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		sm.source, sm.recipe, doc, keys); err != nil {
		return fmt.Errorf("record pictures made of %s: %w", sm.source, err)
	}
	return nil
}

var errLostLease = errors.New("media job lease lost")

// keyedMutex is a mutex per key (jobs of one writer on the same files), so
// two workers never encode the same files at once. Across writer nodes the
// same files may be encoded twice, which costs time and changes nothing.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*keyedEntry
}

type keyedEntry struct {
	sync.Mutex
	users int
}

func (k *keyedMutex) lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*keyedEntry{}
	}
	e := k.m[key]
	if e == nil {
		e = &keyedEntry{}
		k.m[key] = e
	}
	e.users++
	k.mu.Unlock()
	e.Lock()
	return func() {
		e.Unlock()
		k.mu.Lock()
		if e.users--; e.users == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
}

// errMadeGone: a reused picture's objects were removed between planning and
// storing; the job is retried and makes them again.
var errMadeGone = errors.New("made pictures removed")

// siblingBatch is how many jobs on the same files one transaction finishes.
const siblingBatch = 500

// siblings finishes the queued jobs that give the same files to other
// volumes of the same section as j (the demo catalog gives a few episodes
// to thousands of volumes), a batch per transaction: j made the pictures,
// so they only reuse them and cost their documents.
func (s *Service) siblings(ctx context.Context, j *job) {
	skip := []int64{} // not nil: "id <> ALL(NULL)" is never true
	for ctx.Err() == nil {
		now := s.cfg.Now().UTC()
		rows, err := s.pool.Query(ctx, `UPDATE media_jobs SET state = 'running', attempts = attempts + 1, lease_until = $2, updated_at = $1
			WHERE id IN (SELECT m.id FROM media_jobs m JOIN works w ON w.pid = m.pid
				WHERE m.state = 'queued' AND m.not_before <= $1 AND m.target = 'volume' AND m.originals = $3 AND m.kinds = $4
				AND w.section = (SELECT section FROM works WHERE pid = $5) AND m.id <> ALL($6)
				ORDER BY m.id LIMIT $7 FOR UPDATE OF m SKIP LOCKED)
			RETURNING id, target, pid, no, ref_id, originals, kinds, attempts`,
			now, now.Add(s.cfg.Lease), j.Originals, j.Kinds, j.PID, skip, siblingBatch)
		if err != nil {
			s.log.Error("claim sibling media jobs", "err", err)
			return
		}
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*job, error) {
			var b job
			err := r.Scan(&b.ID, &b.Target, &b.PID, &b.No, &b.RefID, &b.Originals, &b.Kinds, &b.Attempts)
			return &b, err
		})
		if err != nil {
			s.log.Error("claim sibling media jobs", "err", err)
			return
		}
		if len(batch) == 0 {
			return
		}
		pl := s.newPlanner()
		var plans []*plan
		var ids []int64
		for _, b := range batch {
			p, err := pl.plan(ctx, b)
			if err != nil {
				// Left to be processed on its own, where its error is
				// handled like any job's.
				s.log.Warn("sibling media job left for later", "job", b.ID, "err", err)
				s.release(ctx, []int64{b.ID})
				skip = append(skip, b.ID)
				continue
			}
			plans = append(plans, p)
			ids = append(ids, b.ID)
		}
		if len(plans) == 0 {
			continue
		}
		if err := s.commit(ctx, plans); err != nil {
			s.log.Error("finish sibling media jobs", "jobs", len(plans), "err", err)
			s.release(ctx, ids)
			return
		}
	}
}

// release puts claimed jobs back in the queue.
func (s *Service) release(ctx context.Context, ids []int64) {
	if _, err := s.pool.Exec(ctx, `UPDATE media_jobs SET state = 'queued', lease_until = NULL, updated_at = $2 WHERE id = ANY($1) AND state = 'running'`,
		ids, s.cfg.Now().UTC()); err != nil && ctx.Err() == nil {
		s.log.Warn("release media jobs", "err", err)
	}
}

// ref records that owner needs keys.
func ref(ctx context.Context, tx pgx.Tx, owner string, keys ...string) error {
	owners := make([]string, len(keys))
	for i := range owners {
		owners[i] = owner
	}
	return refs(ctx, tx, owners, keys)
}

// refs records that owners[i] needs keys[i].
func refs(ctx context.Context, tx pgx.Tx, owners, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO media_refs (owner, key) SELECT o, k FROM unnest($1::text[], $2::text[]) AS t(o, k) ON CONFLICT DO NOTHING`, owners, keys); err != nil {
		return fmt.Errorf("record media refs: %w", err)
	}
	return nil
}

func imageKeys(img contract.MediaImage) []string {
	keys := make([]string, len(img.Variants))
	for i, v := range img.Variants {
		keys[i] = v.Key
	}
	return keys
}

// saveImage records a public picture and points its work, banner or event
// at it.
func (s *Service) saveImage(ctx context.Context, tx pgx.Tx, j *job, img contract.MediaImage) (string, error) {
	doc, err := json.Marshal(img)
	if err != nil {
		return "", fmt.Errorf("marshal media image: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO media_images (id, doc) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`, img.ID, doc); err != nil {
		return "", fmt.Errorf("save media image: %w", err)
	}
	if err := ref(ctx, tx, "img:"+img.ID, imageKeys(img)...); err != nil {
		return "", err
	}
	if err := outbox.Doc(ctx, tx, contract.MediaImageKey(img.ID)); err != nil {
		return "", err
	}
	url := contract.MediaURL(img.ID)
	switch j.Target {
	case TargetCover, TargetWide:
		col := "thumb_url"
		if j.Target == TargetWide {
			col = "thumb_wide_url"
		}
		if _, err := tx.Exec(ctx, `UPDATE works SET `+col+` = $2, updated_at = $3 WHERE pid = $1`, j.PID, url, s.cfg.Now().UTC()); err != nil {
			return "", fmt.Errorf("point work at its picture: %w", err)
		}
		if err := catalog.TouchProducts(ctx, tx, j.PID); err != nil {
			return "", err
		}
	case TargetBanner:
		if _, err := tx.Exec(ctx, `UPDATE banners SET image_url = $2, version = nextval('catalog_version') WHERE id = $1`, j.RefID, url); err != nil {
			return "", fmt.Errorf("point banner at its picture: %w", err)
		}
		if err := outbox.Doc(ctx, tx, contract.KeyBanner+strconv.FormatInt(j.RefID, 10)); err != nil {
			return "", err
		}
	case TargetEvent:
		if _, err := tx.Exec(ctx, `UPDATE events SET banner_url = $2, version = nextval('catalog_version') WHERE eid = $1`, j.RefID, url); err != nil {
			return "", fmt.Errorf("point event at its picture: %w", err)
		}
		if err := outbox.Doc(ctx, tx, contract.KeyEvent+strconv.FormatInt(j.RefID, 10)); err != nil {
			return "", err
		}
	}
	return url, nil
}

// volumeSave is a version to make its volume's current one.
type volumeSave struct {
	job *job
	v   contract.VolumeMediaVersion
}

// saveVolumes makes each item's version its volume's current one, in a few
// statements for any number of volumes. The version it replaces stays
// readable for the grace period (a reader in the middle of it keeps going),
// then the sweeper removes it. The same files again are the same version:
// nothing changes, or a retiring version comes back. It returns each item's
// URL.
func (s *Service) saveVolumes(ctx context.Context, tx pgx.Tx, items []volumeSave) ([]string, error) {
	urls := make([]string, len(items))
	// One row per volume (a batch names a volume once; a second item for
	// it is the same files, so the same version).
	var uniq []int
	seen := map[string]bool{}
	for i, it := range items {
		urls[i] = contract.VolumeMediaBase(it.job.PID, it.job.No, it.v.Ver)
		k := it.job.PID + "/" + strconv.Itoa(it.job.No)
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, i)
		}
	}
	if len(uniq) == 0 {
		return urls, nil
	}
	pids, nos, vers := make([]string, len(uniq)), make([]int32, len(uniq)), make([]string, len(uniq))
	for r, i := range uniq {
		pids[r], nos[r], vers[r] = items[i].job.PID, int32(items[i].job.No), items[i].v.Ver
	}
	if _, err := tx.Exec(ctx, `DELETE FROM volume_media v USING unnest($1::text[], $2::int[], $3::text[]) AS t(pid, no, ver)
		WHERE v.pid = t.pid AND v.no = t.no AND v.ver = t.ver AND v.removed`, pids, nos, vers); err != nil {
		return nil, fmt.Errorf("clear removed versions: %w", err)
	}
	// Per row: 0 a new version, 1 already current, 2 retiring (comes back).
	state := make([]int, len(uniq))
	rows, err := tx.Query(ctx, `SELECT t.i, v.retire_at IS NULL FROM unnest($1::text[], $2::int[], $3::text[]) WITH ORDINALITY AS t(pid, no, ver, i)
		JOIN volume_media v ON v.pid = t.pid AND v.no = t.no AND v.ver = t.ver`, pids, nos, vers)
	if err != nil {
		return nil, fmt.Errorf("load versions: %w", err)
	}
	for rows.Next() {
		var i int
		var current bool
		if err := rows.Scan(&i, &current); err != nil {
			rows.Close()
			return nil, fmt.Errorf("load versions: %w", err)
		}
		state[i-1] = 2
		if current {
			state[i-1] = 1
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load versions: %w", err)
	}
	var chPIDs, backPIDs, backVers, newPIDs, newVers, newDocs, owners, keys, docKeys []string
	var chNos, backNos, newNos []int32
	for r, i := range uniq {
		if state[r] == 1 {
			continue
		}
		chPIDs, chNos = append(chPIDs, pids[r]), append(chNos, nos[r])
		docKeys = append(docKeys, contract.VolumeMediaKey(pids[r], int(nos[r])))
		if state[r] == 2 {
			backPIDs, backNos, backVers = append(backPIDs, pids[r]), append(backNos, nos[r]), append(backVers, vers[r])
			continue
		}
		doc, err := json.Marshal(items[i].v)
		if err != nil {
			return nil, fmt.Errorf("marshal version: %w", err)
		}
		newPIDs, newNos, newVers, newDocs = append(newPIDs, pids[r]), append(newNos, nos[r]), append(newVers, vers[r]), append(newDocs, string(doc))
		owner := volOwner(pids[r], int(nos[r]), vers[r])
		for _, p := range items[i].v.Pages {
			for _, k := range imageKeys(p) {
				owners, keys = append(owners, owner), append(keys, k)
			}
		}
		for _, t := range items[i].v.Texts {
			owners, keys = append(owners, owner), append(keys, t.Key)
		}
	}
	now := s.cfg.Now().UTC()
	if len(chPIDs) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE volume_media v SET retire_at = $3 FROM unnest($1::text[], $2::int[]) AS t(pid, no)
			WHERE v.pid = t.pid AND v.no = t.no AND v.retire_at IS NULL`, chPIDs, chNos, now.Add(s.cfg.Grace)); err != nil {
			return nil, fmt.Errorf("retire current versions: %w", err)
		}
	}
	if len(backPIDs) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE volume_media v SET retire_at = NULL FROM unnest($1::text[], $2::int[], $3::text[]) AS t(pid, no, ver)
			WHERE v.pid = t.pid AND v.no = t.no AND v.ver = t.ver`, backPIDs, backNos, backVers); err != nil {
			return nil, fmt.Errorf("bring versions back: %w", err)
		}
	}
	if len(newPIDs) > 0 {
		if _, err := tx.Exec(ctx, `INSERT INTO volume_media (pid, no, ver, doc, created_at)
			SELECT pid, no, ver, doc::jsonb, $5 FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS t(pid, no, ver, doc)`,
			newPIDs, newNos, newVers, newDocs, now); err != nil {
			return nil, fmt.Errorf("save versions: %w", err)
		}
		if err := refs(ctx, tx, owners, keys); err != nil {
			return nil, err
		}
	}
	return urls, outbox.Doc(ctx, tx, docKeys...)
}

func volOwner(pid string, no int, ver string) string {
	return "vol:" + pid + ":" + strconv.Itoa(no) + ":" + ver
}

// Sweep removes versions whose grace period is over, and the parts of
// uploads abandoned for UploadTTL. For versions: their references go,
// objects nothing else references are deleted from the store, and the
// volume's document is published without them. It holds gcLock exclusively,
// so no job is storing (and counting on) an object it deletes.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	removed := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(gcLock)); err != nil {
			return fmt.Errorf("media lock: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT pid, no, ver FROM volume_media WHERE retire_at IS NOT NULL AND retire_at <= $1 AND NOT removed
			ORDER BY retire_at LIMIT 50 FOR UPDATE`, s.cfg.Now().UTC())
		if err != nil {
			return fmt.Errorf("find retired versions: %w", err)
		}
		type version struct {
			pid string
			no  int
			ver string
		}
		var vs []version
		for rows.Next() {
			var v version
			if err := rows.Scan(&v.pid, &v.no, &v.ver); err != nil {
				rows.Close()
				return fmt.Errorf("scan retired version: %w", err)
			}
			vs = append(vs, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("find retired versions: %w", err)
		}
		for _, v := range vs {
			var orphans []string
			err := tx.QueryRow(ctx, `WITH gone AS (DELETE FROM media_refs WHERE owner = $1 RETURNING key)
				SELECT coalesce(array_agg(DISTINCT key), '{}') FROM gone g
				WHERE NOT EXISTS (SELECT 1 FROM media_refs r WHERE r.key = g.key AND r.owner <> $1)`, volOwner(v.pid, v.no, v.ver)).Scan(&orphans)
			if err != nil {
				return fmt.Errorf("drop refs of %s/%d/%s: %w", v.pid, v.no, v.ver, err)
			}
			for _, k := range orphans {
				if err := s.store.Delete(ctx, k); err != nil {
					return err
				}
			}
			// What was made of a source is reused only while all of it exists.
			if _, err := tx.Exec(ctx, `DELETE FROM media_made WHERE keys && $1`, orphans); err != nil {
				return fmt.Errorf("forget removed pictures: %w", err)
			}
			if _, err := tx.Exec(ctx, `UPDATE volume_media SET removed = true WHERE pid = $1 AND no = $2 AND ver = $3`, v.pid, v.no, v.ver); err != nil {
				return fmt.Errorf("mark version removed: %w", err)
			}
			if err := outbox.Doc(ctx, tx, contract.VolumeMediaKey(v.pid, v.no)); err != nil {
				return err
			}
			s.log.Info("removed retired version", "pid", v.pid, "no", v.no, "ver", v.ver, "objects", len(orphans))
			removed++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if removed > 0 {
		s.Changed()
	}
	return removed, s.dropAbandoned(ctx)
}

// UploadTTL is how long an upload may sit unfinished (no part, no complete)
// before its parts are removed: a day covers a creator's dropped connection
// and the next morning's resume.
const UploadTTL = 24 * time.Hour

// dropAbandoned aborts uploads nobody touched for UploadTTL and removes
// their parts from the store.
func (s *Service) dropAbandoned(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, `UPDATE media_uploads SET state = 'aborted', updated_at = $1
		WHERE state = 'uploading' AND updated_at < $2 RETURNING id`, s.cfg.Now().UTC(), s.cfg.Now().Add(-UploadTTL).UTC())
	if err != nil {
		return fmt.Errorf("abort abandoned uploads: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("scan abandoned upload: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("abort abandoned uploads: %w", err)
	}
	for _, id := range ids {
		s.removeParts(ctx, id)
	}
	return nil
}
