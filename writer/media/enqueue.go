package media

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Job names what to make of files given in process (not over HTTP): a
// volume's content (Target volume, PID, No) or a picture (cover and wide:
// PID; banner and event: RefID).
type Job struct {
	Target string
	PID    string
	No     int
	RefID  int64
}

// Volume names one volume of a work.
type Volume struct {
	PID string
	No  int
}

// Enqueue is the upload path for callers inside the writer's process (the
// launcher's demo catalog): files are checked exactly as a completed upload
// is (a refusal is returned as a *process.Refusal), stored under their hashes,
// and a job is queued. The same files for the same target again find the job
// that already made (or is making) them and queue nothing, so a second run
// of the launcher processes nothing twice. It returns the job's id.
func (s *Service) Enqueue(ctx context.Context, j Job, files [][]byte) (int64, error) {
	keys, kinds, err := s.storeOriginals(ctx, files)
	if err != nil {
		return 0, err
	}
	var section string
	if j.Target == TargetVolume {
		if err := s.pool.QueryRow(ctx, `SELECT w.section FROM volumes v JOIN works w USING (pid) WHERE v.pid = $1 AND v.no = $2`, j.PID, j.No).Scan(&section); err != nil {
			return 0, fmt.Errorf("enqueue media for %s/%d: %w", j.PID, j.No, err)
		}
	}
	if err := fits(j.Target, section, kinds); err != nil {
		return 0, fmt.Errorf("enqueue media for %s/%d: %w", j.PID, j.No, err)
	}
	var id int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// One enqueuer at a time per target, so two launchers racing on
		// the same catalog still make one job.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
			fmt.Sprintf("media:%s:%s:%d:%d", j.Target, j.PID, j.No, j.RefID)); err != nil {
			return fmt.Errorf("lock media target: %w", err)
		}
		err := tx.QueryRow(ctx, `SELECT id FROM media_jobs WHERE target = $1 AND pid = $2 AND no = $3 AND ref_id = $4
			AND originals = $5 AND state <> 'failed' ORDER BY id DESC LIMIT 1`, j.Target, j.PID, j.No, j.RefID, keys).Scan(&id)
		if err == nil {
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("find media job: %w", err)
		}
		now := s.cfg.Now().UTC()
		return tx.QueryRow(ctx, `INSERT INTO media_jobs (target, pid, no, ref_id, originals, kinds, not_before, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $7) RETURNING id`, j.Target, j.PID, j.No, j.RefID, keys, kinds, now).Scan(&id)
	})
	if err != nil {
		return 0, err
	}
	s.Wake()
	return id, nil
}

// EnqueueVolumes gives the same files to many volumes at once: they are
// checked and stored once, and one job per volume is queued in one
// statement, except for volumes that already have a job for these files
// (a second run queues nothing). The worker encodes the files for the first
// of these jobs and reuses what it made for the others (media_made), so the
// rest cost only their documents. Every volume must exist. It returns how
// many jobs it queued.
func (s *Service) EnqueueVolumes(ctx context.Context, files [][]byte, vols []Volume) (int, error) {
	if len(vols) == 0 {
		return 0, nil
	}
	keys, kinds, err := s.storeOriginals(ctx, files)
	if err != nil {
		return 0, err
	}
	pids := make([]string, len(vols))
	nos := make([]int32, len(vols))
	for i, v := range vols {
		pids[i], nos[i] = v.PID, int32(v.No)
	}
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT w.section, count(*) OVER () FROM unnest($1::text[], $2::int[]) AS t(pid, no)
		JOIN volumes v ON v.pid = t.pid AND v.no = t.no JOIN works w ON w.pid = t.pid`, pids, nos)
	if err != nil {
		return 0, fmt.Errorf("enqueue media: load volumes: %w", err)
	}
	var sections []string
	found := 0
	for rows.Next() {
		var sec string
		if err := rows.Scan(&sec, &found); err != nil {
			rows.Close()
			return 0, fmt.Errorf("enqueue media: scan volume: %w", err)
		}
		sections = append(sections, sec)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("enqueue media: load volumes: %w", err)
	}
	if found != len(vols) {
		return 0, fmt.Errorf("enqueue media: %d of %d volumes do not exist", len(vols)-found, len(vols))
	}
	for _, sec := range sections {
		if err := fits(TargetVolume, sec, kinds); err != nil {
			return 0, fmt.Errorf("enqueue media for %s volumes: %w", sec, err)
		}
	}
	var queued int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Two launchers giving these files at once queue them once.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "media:volumes:"+strings.Join(keys, ",")); err != nil {
			return fmt.Errorf("lock media files: %w", err)
		}
		now := s.cfg.Now().UTC()
		tag, err := tx.Exec(ctx, `INSERT INTO media_jobs (target, pid, no, ref_id, originals, kinds, not_before, created_at, updated_at)
			SELECT 'volume', t.pid, t.no, 0, $3, $4, $5, $5, $5 FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS t(pid, no, i)
			WHERE NOT EXISTS (SELECT 1 FROM media_jobs m WHERE m.target = 'volume' AND m.pid = t.pid AND m.no = t.no AND m.ref_id = 0
				AND m.originals = $3 AND m.state <> 'failed')
			ORDER BY t.i`, pids, nos, keys, kinds, now)
		if err != nil {
			return fmt.Errorf("queue media jobs: %w", err)
		}
		queued = tag.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, err
	}
	if queued > 0 {
		s.Wake()
	}
	return int(queued), nil
}

// storeOriginals checks files as a completed upload is checked and stores
// them under their hashes.
func (s *Service) storeOriginals(ctx context.Context, files [][]byte) (keys, kinds []string, err error) {
	if s.store == nil {
		return nil, nil, errors.New("enqueue media: no content store configured")
	}
	if len(files) == 0 || len(files) > MaxJobUploads {
		return nil, nil, fmt.Errorf("enqueue media: %d files (1 to %d)", len(files), MaxJobUploads)
	}
	keys = make([]string, len(files))
	kinds = make([]string, len(files))
	for i, f := range files {
		kind, err := check(f)
		if err != nil {
			return nil, nil, err
		}
		kinds[i] = kind
		if keys[i], err = s.store.Put(ctx, f, "application/octet-stream"); err != nil {
			return nil, nil, err
		}
	}
	return keys, kinds, nil
}

// JobState is a job's state and, once failed, its reason.
func (s *Service) JobState(ctx context.Context, id int64) (state, reason string, err error) {
	err = s.pool.QueryRow(ctx, `SELECT state, reason FROM media_jobs WHERE id = $1`, id).Scan(&state, &reason)
	if err != nil {
		return "", "", fmt.Errorf("media job %d: %w", id, err)
	}
	return state, reason, nil
}

// Pending is how many jobs are not finished (queued or running), and how
// many of them make a picture (cover, wide cover, banner, event) rather than
// a volume's pages.
func (s *Service) Pending(ctx context.Context) (all, pictures int, err error) {
	if err := s.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE target <> 'volume') FROM media_jobs WHERE state IN ('queued', 'running')`).Scan(&all, &pictures); err != nil {
		return 0, 0, fmt.Errorf("count pending media jobs: %w", err)
	}
	return all, pictures, nil
}
