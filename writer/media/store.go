package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/catalog"
	"storefront/writer/outbox"
)

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
		versions := map[*versionMade]bool{}
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
			if !versions[p.vol] {
				versions[p.vol] = true
				if err := s.storeVersion(ctx, tx, p.vol); err != nil {
					return err
				}
			}
			vols = append(vols, volumeSave{job: p.job, ver: p.vol.ver})
			volPlans = append(volPlans, p)
		}
		// A job for many volumes points the others at its version too
		// (after the plans' own, whose URLs are the jobs' results).
		shared, err := sharedVolumes(ctx, tx, volPlans)
		if err != nil {
			return err
		}
		vurls, err := s.saveVolumes(ctx, tx, append(vols, shared...))
		if err != nil {
			return err
		}
		for i, p := range volPlans {
			urls[p] = vurls[i]
		}
		// The originals stay: a version can be made again from them.
		// One reference per original, not per job: thousands of jobs given
		// the same files add no rows.
		var owners, keys, results []string
		var ids []int64
		origs := map[string]bool{}
		for _, p := range ours {
			for _, k := range p.job.Originals {
				if !origs[k] {
					origs[k] = true
					owners = append(owners, origOwner)
					keys = append(keys, k)
				}
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

// sharedVolumes lists the other volumes of the plans' jobs
// (media_job_volumes), each to get its job's version.
func sharedVolumes(ctx context.Context, tx pgx.Tx, plans []*plan) ([]volumeSave, error) {
	if len(plans) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(plans))
	byID := make(map[int64]*plan, len(plans))
	for i, p := range plans {
		ids[i] = p.job.ID
		byID[p.job.ID] = p
	}
	rows, err := tx.Query(ctx, `SELECT job_id, pid, no FROM media_job_volumes WHERE job_id = ANY($1) ORDER BY job_id, pid, no`, ids)
	if err != nil {
		return nil, fmt.Errorf("load the volumes of media jobs: %w", err)
	}
	defer rows.Close()
	var out []volumeSave
	for rows.Next() {
		var id int64
		v := &job{Target: TargetVolume}
		if err := rows.Scan(&id, &v.PID, &v.No); err != nil {
			return nil, fmt.Errorf("load the volumes of media jobs: %w", err)
		}
		p := byID[id]
		v.ID, v.Originals, v.Kinds = id, p.job.Originals, p.job.Kinds
		out = append(out, volumeSave{job: v, ver: p.vol.ver})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load the volumes of media jobs: %w", err)
	}
	return out, nil
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

// origOwner owns every original in media_refs: originals stay (a version
// can be made again from them).
const origOwner = "orig"

// storeVersion stores a version's objects under the keys derived from it,
// then its manifest, and records the version; for a version found already
// made it checks, under gcLock, that the sweeper has not removed it since.
func (s *Service) storeVersion(ctx context.Context, tx pgx.Tx, vm *versionMade) error {
	if vm.exists {
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM media_versions WHERE ver = $1)`, vm.ver).Scan(&ok); err != nil {
			return fmt.Errorf("check version %s: %w", vm.ver, err)
		}
		if !ok {
			return fmt.Errorf("version %s was removed meanwhile: %w", vm.ver, errMadeGone)
		}
		return nil
	}
	for n, m := range vm.pages {
		for i, d := range m.data {
			v := m.img.Variants[i]
			if err := s.store.PutObject(ctx, contract.ContentObjectKey(vm.ver, n+1, v.Width, v.Format), d, contract.MediaContentType(v.Format)); err != nil {
				return err
			}
		}
	}
	for n, t := range vm.texts {
		if err := s.store.PutObject(ctx, contract.ContentChunkKey(vm.ver, n+1), t, "text/html; charset=utf-8"); err != nil {
			return err
		}
	}
	man := vm.manifest()
	doc, err := json.Marshal(man)
	if err != nil {
		return fmt.Errorf("marshal manifest of %s: %w", vm.ver, err)
	}
	// The manifest last: a version whose manifest exists is whole.
	if err := s.store.PutObject(ctx, contract.ContentManifestKey(vm.ver), doc, "application/json"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO media_versions (ver, kind, manifest, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (ver) DO NOTHING`,
		vm.ver, vm.kind, doc, s.cfg.Now().UTC()); err != nil {
		return fmt.Errorf("record version %s: %w", vm.ver, err)
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
	ver string
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
		urls[i] = contract.VolumeMediaBase(it.job.PID, it.job.No, it.ver)
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
		pids[r], nos[r], vers[r] = items[i].job.PID, int32(items[i].job.No), items[i].ver
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
	var chPIDs, backPIDs, backVers, newPIDs, newVers []string
	var chNos, backNos, newNos []int32
	touched := map[string]bool{}
	var works []string
	for r := range uniq {
		if state[r] == 1 {
			continue
		}
		chPIDs, chNos = append(chPIDs, pids[r]), append(chNos, nos[r])
		if !touched[pids[r]] {
			touched[pids[r]] = true
			works = append(works, pids[r])
		}
		if state[r] == 2 {
			backPIDs, backNos, backVers = append(backPIDs, pids[r]), append(backNos, nos[r]), append(backVers, vers[r])
			continue
		}
		newPIDs, newNos, newVers = append(newPIDs, pids[r]), append(newNos, nos[r]), append(newVers, vers[r])
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
		if _, err := tx.Exec(ctx, `INSERT INTO volume_media (pid, no, ver, created_at)
			SELECT pid, no, ver, $4 FROM unnest($1::text[], $2::int[], $3::text[]) AS t(pid, no, ver)`,
			newPIDs, newNos, newVers, now); err != nil {
			return nil, fmt.Errorf("save versions: %w", err)
		}
	}
	// The volume's version is a field of its work's document: the work is
	// published again, once for however many of its volumes changed.
	if len(works) == 0 {
		return urls, nil
	}
	return urls, catalog.TouchProducts(ctx, tx, works...)
}
