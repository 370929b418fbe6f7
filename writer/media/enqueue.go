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
// checked and stored once, and one job per section is queued (the section
// picks the recipe): it names its first volume, and media_job_volumes the
// others. The worker encodes the files once and, in the transaction that
// finishes the job, points every one of its volumes at the version. Volumes
// that already have a job for these files (their own or a shared one) are
// left out, so a second run queues nothing. Every volume must exist. It
// returns how many volumes it queued pages for.
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
	queued := 0
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Two launchers giving these files at once queue them once.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "media:volumes:"+strings.Join(keys, ",")); err != nil {
			return fmt.Errorf("lock media files: %w", err)
		}
		// The volumes without a job for these files, by section, in the
		// order given.
		rows, err := tx.Query(ctx, `SELECT w.section, t.pid, t.no FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS t(pid, no, i)
			JOIN works w ON w.pid = t.pid
			WHERE NOT EXISTS (SELECT 1 FROM media_jobs m WHERE m.target = 'volume' AND m.pid = t.pid AND m.no = t.no AND m.ref_id = 0
				AND m.originals = $3 AND m.state <> 'failed')
			AND NOT EXISTS (SELECT 1 FROM media_job_volumes x JOIN media_jobs m ON m.id = x.job_id
				WHERE x.pid = t.pid AND x.no = t.no AND m.originals = $3 AND m.state <> 'failed')
			ORDER BY t.i`, pids, nos, keys)
		if err != nil {
			return fmt.Errorf("find volumes to queue: %w", err)
		}
		bySection := map[string][]Volume{}
		var order []string
		seen := map[Volume]bool{}
		for rows.Next() {
			var sec string
			var v Volume
			if err := rows.Scan(&sec, &v.PID, &v.No); err != nil {
				rows.Close()
				return fmt.Errorf("find volumes to queue: %w", err)
			}
			if seen[v] {
				continue
			}
			seen[v] = true
			if bySection[sec] == nil {
				order = append(order, sec)
			}
			bySection[sec] = append(bySection[sec], v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("find volumes to queue: %w", err)
		}
		now := s.cfg.Now().UTC()
		for _, sec := range order {
			vs := bySection[sec]
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO media_jobs (target, pid, no, ref_id, originals, kinds, not_before, created_at, updated_at)
				VALUES ('volume', $1, $2, 0, $3, $4, $5, $5, $5) RETURNING id`, vs[0].PID, vs[0].No, keys, kinds, now).Scan(&id); err != nil {
				return fmt.Errorf("queue media job: %w", err)
			}
			if len(vs) > 1 {
				rest := make([][]any, len(vs)-1)
				for i, v := range vs[1:] {
					rest[i] = []any{id, v.PID, int32(v.No)}
				}
				if _, err := tx.CopyFrom(ctx, pgx.Identifier{"media_job_volumes"}, []string{"job_id", "pid", "no"}, pgx.CopyFromRows(rest)); err != nil {
					return fmt.Errorf("queue media job's volumes: %w", err)
				}
			}
			queued += len(vs)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if queued > 0 {
		s.Wake()
	}
	return queued, nil
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
