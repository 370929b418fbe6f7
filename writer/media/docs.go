package media

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/outbox"
)

// Builders are the outbox builders of the media documents.
func (s *Service) Builders() map[string]outbox.Builder {
	return map[string]outbox.Builder{
		contract.MediaImageKeyPrefix:  buildImages,
		contract.VolumeMediaKeyPrefix: s.buildVolumes,
	}
}

func buildImages(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = strings.TrimPrefix(k, contract.MediaImageKeyPrefix)
	}
	rows, err := tx.Query(ctx, `SELECT id, doc FROM media_images WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("load media images: %w", err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var id string
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, fmt.Errorf("scan media image: %w", err)
		}
		out[contract.MediaImageKey(id)] = doc
	}
	return out, rows.Err()
}

// buildVolumes builds media.vol.<pid>.<no>: the current version and the
// retired ones still in their grace period. A volume with nothing left has
// no document (the relay deletes the key).
func (s *Service) buildVolumes(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, k := range keys {
		rest := strings.TrimPrefix(k, contract.VolumeMediaKeyPrefix)
		dot := strings.LastIndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		pid := rest[:dot]
		no, err := strconv.Atoi(rest[dot+1:])
		if err != nil {
			continue
		}
		rows, err := tx.Query(ctx, `SELECT doc, retire_at FROM volume_media WHERE pid = $1 AND no = $2 AND NOT removed
			ORDER BY created_at DESC`, pid, no)
		if err != nil {
			return nil, fmt.Errorf("load volume media %s: %w", k, err)
		}
		vm := contract.VolumeMedia{PID: pid, No: no}
		found := false
		for rows.Next() {
			var doc []byte
			var retireAt *time.Time
			if err := rows.Scan(&doc, &retireAt); err != nil {
				rows.Close()
				return nil, fmt.Errorf("scan volume media: %w", err)
			}
			var v contract.VolumeMediaVersion
			if err := json.Unmarshal(doc, &v); err != nil {
				rows.Close()
				return nil, fmt.Errorf("decode volume media %s: %w", k, err)
			}
			if retireAt == nil {
				vm.Current, found = v, true
				continue
			}
			t := retireAt.UTC()
			v.RetireAt = &t
			vm.Retired = append(vm.Retired, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("load volume media %s: %w", k, err)
		}
		if !found {
			continue
		}
		if err := tx.QueryRow(ctx, `SELECT nextval('catalog_version')`).Scan(&vm.Version); err != nil {
			return nil, fmt.Errorf("version volume media: %w", err)
		}
		b, err := json.Marshal(vm)
		if err != nil {
			return nil, fmt.Errorf("marshal volume media: %w", err)
		}
		out[k] = b
	}
	return out, nil
}
