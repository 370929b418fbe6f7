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
	err = s.process(jctx, j)
	stop()
	if err == nil {
		return true, nil
	}
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
// img.Variants[i]), before storing gives the variants their keys.
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

// process makes the variants of a job (CPU only, nothing stored), then
// stores them and commits the documents in one transaction.
func (s *Service) process(ctx context.Context, j *job) error {
	originals := make([][]byte, len(j.Originals))
	for i, k := range j.Originals {
		b, err := s.store.Get(ctx, k)
		if err != nil {
			return fmt.Errorf("read original %s: %w", k, err)
		}
		originals[i] = b
	}
	if j.Target == TargetVolume {
		return s.processVolume(ctx, j, originals)
	}
	pics, err := process.Image(originals[0], process.CoverOptions)
	if err != nil {
		return err
	}
	m := newMade(j.Originals[0], pics[0])
	return s.commit(ctx, j, []*made{&m}, nil, func(tx pgx.Tx, _ []string) (string, error) { return s.saveImage(ctx, tx, j, m.img) })
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

func (s *Service) processVolume(ctx context.Context, j *job, originals [][]byte) error {
	var section string
	if err := s.pool.QueryRow(ctx, `SELECT section FROM works WHERE pid = $1`, j.PID).Scan(&section); err != nil {
		return fmt.Errorf("load work %s: %w", j.PID, err)
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
	// Pictures in reading order, each with the name its pages derive from.
	type source struct {
		data []byte
		name string
	}
	var sources []source
	switch {
	case len(j.Kinds) == 1 && j.Kinds[0] == process.KindZIP:
		pages, err := process.ZipPages(originals[0], opt.Limits)
		if err != nil {
			return err
		}
		for i, p := range pages {
			sources = append(sources, source{p, subID(j.Originals[0], i)})
		}
	case len(j.Kinds) == 1 && j.Kinds[0] == process.KindEPUB:
		base := contract.VolumeMediaBase(j.PID, j.No, ver)
		book, err := process.EPUB(originals[0], opt.Limits, func(i int) string { return base + "/" + strconv.Itoa(i+1) })
		if err != nil {
			return err
		}
		kind, texts, opt = contract.MediaKindText, book.Chunks, process.ContentOptions
		for i, p := range book.Images {
			sources = append(sources, source{p, subID(j.Originals[0], i)})
		}
	default:
		for i, o := range originals {
			sources = append(sources, source{o, j.Originals[i]})
		}
	}
	var pages []*made
	for _, src := range sources {
		pics, err := process.Image(src.data, opt)
		if err != nil {
			return err
		}
		for i, p := range pics {
			id := src.name
			if len(pics) > 1 {
				id = subID(src.name, i)
			}
			m := newMade(id, p)
			pages = append(pages, &m)
		}
	}
	return s.commit(ctx, j, pages, texts, func(tx pgx.Tx, textKeys []string) (string, error) {
		v := contract.VolumeMediaVersion{Ver: ver, Kind: kind, Pages: make([]contract.MediaImage, len(pages))}
		for i, p := range pages {
			v.Pages[i] = p.img
		}
		for i, k := range textKeys {
			v.Texts = append(v.Texts, contract.MediaText{Key: k, Size: int64(len(texts[i]))})
		}
		return s.saveVolume(ctx, tx, j, v)
	})
}

// commit stores every object and saves the documents in one transaction that
// holds gcLock shared, then marks the job done. A job that is no longer this
// worker's (its lease ran out and another took it) commits nothing.
func (s *Service) commit(ctx context.Context, j *job, pics []*made, texts [][]byte, save func(tx pgx.Tx, textKeys []string) (string, error)) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var state string
		var attempts int
		if err := tx.QueryRow(ctx, `SELECT state, attempts FROM media_jobs WHERE id = $1 FOR UPDATE`, j.ID).Scan(&state, &attempts); err != nil {
			return fmt.Errorf("lock media job: %w", err)
		}
		if state != "running" || attempts != j.Attempts {
			return errLostLease
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, int64(gcLock)); err != nil {
			return fmt.Errorf("media lock: %w", err)
		}
		for _, p := range pics {
			for i, d := range p.data {
				key, err := s.store.Put(ctx, d, contract.MediaContentType(p.img.Variants[i].Format))
				if err != nil {
					return err
				}
				p.img.Variants[i].Key = key
			}
		}
		textKeys := make([]string, len(texts))
		for i, t := range texts {
			key, err := s.store.Put(ctx, t, "text/html; charset=utf-8")
			if err != nil {
				return err
			}
			textKeys[i] = key
		}
		url, err := save(tx, textKeys)
		if err != nil {
			return err
		}
		// The originals stay: a version can be made again from them.
		if err := ref(ctx, tx, "orig:"+strconv.FormatInt(j.ID, 10), j.Originals...); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE media_jobs SET state = 'done', reason = '', result = $2, lease_until = NULL, updated_at = $3 WHERE id = $1`,
			j.ID, url, s.cfg.Now().UTC()); err != nil {
			return fmt.Errorf("finish media job: %w", err)
		}
		return outbox.Notify(ctx, tx)
	})
	if errors.Is(err, errLostLease) {
		s.log.Warn("media job taken over by another worker; dropping this run", "job", j.ID)
		return nil
	}
	if err != nil {
		return err
	}
	s.Changed()
	return nil
}

var errLostLease = errors.New("media job lease lost")

// ref records that owner needs keys.
func ref(ctx context.Context, tx pgx.Tx, owner string, keys ...string) error {
	if _, err := tx.Exec(ctx, `INSERT INTO media_refs (owner, key) SELECT $1, k FROM unnest($2::text[]) AS t(k) ON CONFLICT DO NOTHING`, owner, keys); err != nil {
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

// saveVolume makes v the volume's current version. The version it replaces
// stays readable for the grace period (a reader in the middle of it keeps
// going), then the sweeper removes it. The same files again are the same
// version: nothing changes, or a retiring version comes back.
func (s *Service) saveVolume(ctx context.Context, tx pgx.Tx, j *job, v contract.VolumeMediaVersion) (string, error) {
	url := contract.VolumeMediaBase(j.PID, j.No, v.Ver)
	now := s.cfg.Now().UTC()
	if _, err := tx.Exec(ctx, `DELETE FROM volume_media WHERE pid = $1 AND no = $2 AND ver = $3 AND removed`, j.PID, j.No, v.Ver); err != nil {
		return "", fmt.Errorf("clear removed version: %w", err)
	}
	var retireAt *time.Time
	err := tx.QueryRow(ctx, `SELECT retire_at FROM volume_media WHERE pid = $1 AND no = $2 AND ver = $3`, j.PID, j.No, v.Ver).Scan(&retireAt)
	exists := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("load version: %w", err)
	}
	if exists && retireAt == nil {
		return url, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE volume_media SET retire_at = $3 WHERE pid = $1 AND no = $2 AND retire_at IS NULL`,
		j.PID, j.No, now.Add(s.cfg.Grace)); err != nil {
		return "", fmt.Errorf("retire current version: %w", err)
	}
	if exists {
		if _, err := tx.Exec(ctx, `UPDATE volume_media SET retire_at = NULL WHERE pid = $1 AND no = $2 AND ver = $3`, j.PID, j.No, v.Ver); err != nil {
			return "", fmt.Errorf("bring version back: %w", err)
		}
	} else {
		doc, err := json.Marshal(v)
		if err != nil {
			return "", fmt.Errorf("marshal version: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO volume_media (pid, no, ver, doc, created_at) VALUES ($1, $2, $3, $4, $5)`, j.PID, j.No, v.Ver, doc, now); err != nil {
			return "", fmt.Errorf("save version: %w", err)
		}
		var keys []string
		for _, p := range v.Pages {
			keys = append(keys, imageKeys(p)...)
		}
		for _, t := range v.Texts {
			keys = append(keys, t.Key)
		}
		if err := ref(ctx, tx, volOwner(j.PID, j.No, v.Ver), keys...); err != nil {
			return "", err
		}
	}
	return url, outbox.Doc(ctx, tx, contract.VolumeMediaKey(j.PID, j.No))
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
