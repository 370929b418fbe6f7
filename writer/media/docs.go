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

// buildVolumes builds the schema-1 document media.vol.<pid>.<no> while a
// converted volume's grace lasts (legacy.go): edges of the previous release
// read it until then. A volume without one (every volume processed since, and
// every converted one after its grace) has no document: the relay deletes
// the key.
func (s *Service) buildVolumes(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	var pids []string
	var nos []int32
	for _, k := range keys {
		rest := strings.TrimPrefix(k, contract.VolumeMediaKeyPrefix)
		dot := strings.LastIndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		no, err := strconv.Atoi(rest[dot+1:])
		if err != nil {
			continue
		}
		pids, nos = append(pids, rest[:dot]), append(nos, int32(no))
	}
	rows, err := tx.Query(ctx, `SELECT v.pid, v.no, v.doc, v.retire_at FROM volume_media v
		JOIN (SELECT DISTINCT pid, no FROM unnest($1::text[], $2::int[]) AS u(pid, no)) t ON v.pid = t.pid AND v.no = t.no
		WHERE NOT v.removed AND v.doc IS NOT NULL ORDER BY v.pid, v.no, v.created_at DESC`, pids, nos)
	if err != nil {
		return nil, fmt.Errorf("load volume media: %w", err)
	}
	docs := map[string]*contract.VolumeMedia{}
	var order []string
	for rows.Next() {
		var pid string
		var no int
		var doc []byte
		var retireAt *time.Time
		if err := rows.Scan(&pid, &no, &doc, &retireAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan volume media: %w", err)
		}
		k := contract.VolumeMediaKey(pid, no)
		var v contract.VolumeMediaVersion
		if err := json.Unmarshal(doc, &v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("decode volume media %s: %w", k, err)
		}
		vm := docs[k]
		if vm == nil {
			vm = &contract.VolumeMedia{PID: pid, No: no}
			docs[k] = vm
			order = append(order, k)
		}
		if retireAt == nil {
			vm.Current = v
			continue
		}
		t := retireAt.UTC()
		v.RetireAt = &t
		vm.Retired = append(vm.Retired, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load volume media: %w", err)
	}
	out := map[string][]byte{}
	var found []string
	for _, k := range order {
		if docs[k].Current.Ver != "" {
			found = append(found, k)
		}
	}
	if len(found) == 0 {
		return out, nil
	}
	vrows, err := tx.Query(ctx, `SELECT nextval('catalog_version') FROM generate_series(1, $1)`, len(found))
	if err != nil {
		return nil, fmt.Errorf("version volume media: %w", err)
	}
	versions, err := pgx.CollectRows(vrows, pgx.RowTo[int64])
	if err != nil || len(versions) != len(found) {
		return nil, fmt.Errorf("version volume media: %d of %d (%v)", len(versions), len(found), err)
	}
	for i, k := range found {
		vm := docs[k]
		vm.Version = versions[i]
		b, err := json.Marshal(vm)
		if err != nil {
			return nil, fmt.Errorf("marshal volume media: %w", err)
		}
		out[k] = b
	}
	return out, nil
}
