package media

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/media/process"
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
	// Volumes still in the shape of before derived keys (legacy.go) are
	// converted first; a failure is tried again at each sweep.
	if _, err := s.ConvertLegacy(ctx); err != nil && ctx.Err() == nil {
		s.log.Error("convert legacy media", "err", err)
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
			if _, err := s.ConvertLegacy(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("convert legacy media", "err", err)
			}
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
