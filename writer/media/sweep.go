package media

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/media/store"
	"storefront/writer/catalog"
)

// Sweep removes versions whose grace period is over, the legacy documents
// and objects of volumes converted to derived keys (legacy.go) once their
// grace is over too, and the parts of uploads abandoned for UploadTTL. A
// version's objects are deleted from the store when no volume uses the
// version any more; their keys follow from its manifest. It holds gcLock
// exclusively, so no job is storing (and counting on) an object it deletes.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	removed := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(gcLock)); err != nil {
			return fmt.Errorf("media lock: %w", err)
		}
		rows, err := tx.Query(ctx, `UPDATE volume_media v SET removed = true FROM (
				SELECT pid, no, ver FROM volume_media WHERE retire_at IS NOT NULL AND retire_at <= $1 AND NOT removed
				ORDER BY retire_at LIMIT 500 FOR UPDATE) t
			WHERE v.pid = t.pid AND v.no = t.no AND v.ver = t.ver RETURNING v.pid, v.no, v.ver`, s.cfg.Now().UTC())
		if err != nil {
			return fmt.Errorf("find retired versions: %w", err)
		}
		var pids, vers []string
		for rows.Next() {
			var pid, ver string
			var no int
			if err := rows.Scan(&pid, &no, &ver); err != nil {
				rows.Close()
				return fmt.Errorf("scan retired version: %w", err)
			}
			s.log.Info("removed retired version", "pid", pid, "no", no, "ver", ver)
			pids, vers = append(pids, pid), append(vers, ver)
			removed++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("find retired versions: %w", err)
		}
		if len(pids) == 0 {
			return nil
		}
		if err := s.dropUnused(ctx, tx, vers); err != nil {
			return err
		}
		return catalog.TouchProducts(ctx, tx, uniq(pids)...)
	})
	if err != nil {
		return 0, err
	}
	if removed > 0 {
		s.Changed()
	}
	n, err := s.sweepLegacy(ctx)
	if err != nil {
		return removed, err
	}
	if n > 0 {
		s.Changed()
	}
	return removed, s.dropAbandoned(ctx)
}

// dropUnused deletes the objects and the record of each of vers that no
// volume uses any more (in grace or current). Caller holds gcLock.
func (s *Service) dropUnused(ctx context.Context, tx pgx.Tx, vers []string) error {
	rows, err := tx.Query(ctx, `DELETE FROM media_versions m WHERE m.ver = ANY($1)
		AND NOT EXISTS (SELECT 1 FROM volume_media v WHERE v.ver = m.ver AND NOT v.removed) RETURNING m.manifest`, uniq(vers))
	if err != nil {
		return fmt.Errorf("drop unused versions: %w", err)
	}
	var gone []contract.ContentManifest
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			rows.Close()
			return fmt.Errorf("scan unused version: %w", err)
		}
		var m contract.ContentManifest
		if err := json.Unmarshal(doc, &m); err != nil {
			rows.Close()
			return fmt.Errorf("decode manifest: %w", err)
		}
		gone = append(gone, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("drop unused versions: %w", err)
	}
	for i := range gone {
		keys := contract.ContentKeys(&gone[i])
		// The manifest goes first: a version without one is not served.
		for j := len(keys) - 1; j >= 0; j-- {
			if err := s.store.Delete(ctx, keys[j]); err != nil && !store.IsNotFound(err) {
				return err
			}
		}
		s.log.Info("removed version objects", "ver", gone[i].Ver, "objects", len(keys))
	}
	return nil
}

func uniq(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
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
