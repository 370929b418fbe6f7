package media

import (
	"context"
	"errors"
	"fmt"

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

// Enqueue is the upload path for callers inside the writer's process (the
// launcher's demo catalog): files are checked exactly as a completed upload
// is (a refusal is returned as a *process.Refusal), stored under their hashes,
// and a job is queued. The same files for the same target again find the job
// that already made (or is making) them and queue nothing, so a second run
// of the launcher processes nothing twice. It returns the job's id.
func (s *Service) Enqueue(ctx context.Context, j Job, files [][]byte) (int64, error) {
	if s.store == nil {
		return 0, errors.New("enqueue media: no content store configured")
	}
	if len(files) == 0 || len(files) > MaxJobUploads {
		return 0, fmt.Errorf("enqueue media: %d files (1 to %d)", len(files), MaxJobUploads)
	}
	keys := make([]string, len(files))
	kinds := make([]string, len(files))
	for i, f := range files {
		kind, err := check(f)
		if err != nil {
			return 0, err
		}
		kinds[i] = kind
		if keys[i], err = s.store.Put(ctx, f, "application/octet-stream"); err != nil {
			return 0, err
		}
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
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
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

// JobState is a job's state and, once failed, its reason.
func (s *Service) JobState(ctx context.Context, id int64) (state, reason string, err error) {
	err = s.pool.QueryRow(ctx, `SELECT state, reason FROM media_jobs WHERE id = $1`, id).Scan(&state, &reason)
	if err != nil {
		return "", "", fmt.Errorf("media job %d: %w", id, err)
	}
	return state, reason, nil
}
