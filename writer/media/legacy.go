package media

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/catalog"
	"storefront/writer/outbox"
)

// The move from MediaSchema 1 (a media.vol.<pid>.<no> document per volume
// listing every variant's content-hash key, a media_refs row per variant)
// to derived keys, done by the writer itself while it runs, without a gap
// readers see:
//
//  1. convertLegacy copies each unconverted version's objects to the keys
//     derived from it, stores its manifest, records it in media_versions,
//     and republishes the volumes' works with their contentVer; edges of
//     this release serve from that, edges of the previous one still read
//     the old document and objects, which stay;
//  2. after the grace period (Config.Grace), sweepLegacy drops the old
//     document (the relay deletes its media.vol.* key), its media_refs rows
//     and the objects nothing else references, and republishes the works
//     once more (a writer of the previous release that published a work
//     during the rollout left out its volumes' contentVer).

// legacyBatch is how many volumes one conversion or clean-up transaction takes.
const legacyBatch = 500

// ConvertLegacy converts every volume still in the old shape and reports
// how many it converted.
func (s *Service) ConvertLegacy(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := s.convertLegacyBatch(ctx)
		total += n
		if err != nil || n < legacyBatch {
			if total > 0 {
				s.Changed()
			}
			return total, err
		}
	}
}

func (s *Service) convertLegacyBatch(ctx context.Context) (int, error) {
	converted := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Shared: the sweeper deletes no object this copies from.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, int64(gcLock)); err != nil {
			return fmt.Errorf("media lock: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT pid, no, ver, doc FROM volume_media WHERE doc IS NOT NULL AND legacy_until IS NULL AND NOT removed
			ORDER BY ver, pid, no LIMIT $1 FOR UPDATE SKIP LOCKED`, legacyBatch)
		if err != nil {
			return fmt.Errorf("find legacy volumes: %w", err)
		}
		type legacy struct {
			pid, ver string
			no       int
			doc      []byte
		}
		var ls []legacy
		for rows.Next() {
			var l legacy
			if err := rows.Scan(&l.pid, &l.no, &l.ver, &l.doc); err != nil {
				rows.Close()
				return fmt.Errorf("scan legacy volume: %w", err)
			}
			ls = append(ls, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("find legacy volumes: %w", err)
		}
		done := map[string]bool{}
		var pids, vers []string
		var nos []int32
		for _, l := range ls {
			if !done[l.ver] {
				var v contract.VolumeMediaVersion
				if err := json.Unmarshal(l.doc, &v); err != nil {
					return fmt.Errorf("decode legacy %s/%d/%s: %w", l.pid, l.no, l.ver, err)
				}
				v.Ver = l.ver
				if err := s.convertVersion(ctx, tx, &v); err != nil {
					return err
				}
				done[l.ver] = true
			}
			pids, nos, vers = append(pids, l.pid), append(nos, int32(l.no)), append(vers, l.ver)
		}
		if len(pids) == 0 {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE volume_media v SET legacy_until = $4 FROM unnest($1::text[], $2::int[], $3::text[]) AS t(pid, no, ver)
			WHERE v.pid = t.pid AND v.no = t.no AND v.ver = t.ver`, pids, nos, vers, s.cfg.Now().Add(s.cfg.Grace).UTC()); err != nil {
			return fmt.Errorf("mark legacy volumes converted: %w", err)
		}
		converted = len(pids)
		s.log.Info("converted volumes to derived media keys", "volumes", converted, "versions", len(done))
		return catalog.TouchProducts(ctx, tx, uniq(pids)...)
	})
	return converted, err
}

// convertVersion copies a schema-1 version's objects to the keys derived
// from it and records it, unless it is recorded already.
func (s *Service) convertVersion(ctx context.Context, tx pgx.Tx, v *contract.VolumeMediaVersion) error {
	var ok bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM media_versions WHERE ver = $1)`, v.Ver).Scan(&ok); err != nil {
		return fmt.Errorf("find version %s: %w", v.Ver, err)
	}
	if ok {
		return nil
	}
	vm := &versionMade{ver: v.Ver, kind: v.Kind}
	if vm.kind == "" {
		vm.kind = contract.MediaKindImages
	}
	copyObj := func(from, to, ctype string) error {
		b, err := s.store.Get(ctx, from)
		if err != nil {
			return fmt.Errorf("convert %s: %w", v.Ver, err)
		}
		return s.store.PutObject(ctx, to, b, ctype)
	}
	for n, p := range v.Pages {
		vm.pages = append(vm.pages, &made{img: p})
		for _, x := range p.Variants {
			if err := copyObj(x.Key, contract.ContentObjectKey(v.Ver, n+1, x.Width, x.Format), contract.MediaContentType(x.Format)); err != nil {
				return err
			}
		}
	}
	for n, t := range v.Texts {
		if err := copyObj(t.Key, contract.ContentChunkKey(v.Ver, n+1), "text/html; charset=utf-8"); err != nil {
			return err
		}
		vm.texts = append(vm.texts, nil)
	}
	doc, err := json.Marshal(vm.manifest())
	if err != nil {
		return fmt.Errorf("marshal manifest of %s: %w", v.Ver, err)
	}
	if err := s.store.PutObject(ctx, contract.ContentManifestKey(v.Ver), doc, "application/json"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO media_versions (ver, kind, manifest, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (ver) DO NOTHING`,
		v.Ver, vm.kind, doc, s.cfg.Now().UTC()); err != nil {
		return fmt.Errorf("record version %s: %w", v.Ver, err)
	}
	return nil
}

// sweepLegacy removes, for converted volumes past their grace, the old
// document (and so its media.vol.* key), its media_refs rows and the objects
// nothing else references. It reports how many volumes it cleaned.
func (s *Service) sweepLegacy(ctx context.Context) (int, error) {
	total := 0
	for {
		n := 0
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(gcLock)); err != nil {
				return fmt.Errorf("media lock: %w", err)
			}
			rows, err := tx.Query(ctx, `UPDATE volume_media v SET doc = NULL FROM (
					SELECT pid, no, ver FROM volume_media WHERE doc IS NOT NULL AND legacy_until <= $1 LIMIT $2 FOR UPDATE) t
				WHERE v.pid = t.pid AND v.no = t.no AND v.ver = t.ver RETURNING v.pid, v.no, v.ver`, s.cfg.Now().UTC(), legacyBatch)
			if err != nil {
				return fmt.Errorf("find converted volumes: %w", err)
			}
			var owners, keys, pids []string
			for rows.Next() {
				var pid, ver string
				var no int
				if err := rows.Scan(&pid, &no, &ver); err != nil {
					rows.Close()
					return fmt.Errorf("scan converted volume: %w", err)
				}
				owners = append(owners, volOwner(pid, no, ver))
				keys = append(keys, contract.VolumeMediaKey(pid, no))
				pids = append(pids, pid)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("find converted volumes: %w", err)
			}
			if n = len(owners); n == 0 {
				return nil
			}
			var orphans []string
			if err := tx.QueryRow(ctx, `WITH gone AS (DELETE FROM media_refs WHERE owner = ANY($1) RETURNING key)
				SELECT coalesce(array_agg(DISTINCT key), '{}') FROM gone g
				WHERE NOT EXISTS (SELECT 1 FROM media_refs r WHERE r.key = g.key AND r.owner <> ALL($1))`, owners).Scan(&orphans); err != nil {
				return fmt.Errorf("drop legacy refs: %w", err)
			}
			for _, k := range orphans {
				if err := s.store.Delete(ctx, k); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `DELETE FROM media_made WHERE keys && $1`, orphans); err != nil {
				return fmt.Errorf("forget removed pictures: %w", err)
			}
			s.log.Info("removed legacy media documents", "volumes", n, "objects", len(orphans))
			if err := outbox.Doc(ctx, tx, keys...); err != nil {
				return err
			}
			// Once more, now that every writer is of this release: a work
			// a writer of the previous one published during the rollout
			// lacked its volumes' contentVer.
			return catalog.TouchProducts(ctx, tx, uniq(pids)...)
		})
		total += n
		if err != nil || n < legacyBatch {
			return total, err
		}
	}
}

func volOwner(pid string, no int, ver string) string {
	return "vol:" + pid + ":" + strconv.Itoa(no) + ":" + ver
}
