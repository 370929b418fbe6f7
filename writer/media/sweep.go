package media

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/outbox"
)

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
