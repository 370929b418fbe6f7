package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/outbox"
)

// TouchStats enqueues the counters documents (stat.<pid>) of works whose
// counters (zzims, reviews, points, views) changed in tx: a few dozen bytes
// each, where TouchProducts republishes the whole work with every volume and
// makes every edge drop every list of its section. Changes of one work within
// one relay batch go out as one document (the relay publishes a key once per
// batch), so a zzim storm on a popular work costs the edges one small update
// per batch.
func TouchStats(ctx context.Context, tx pgx.Tx, pids ...string) error {
	keys := make([]string, len(pids))
	for i, p := range pids {
		keys[i] = contract.StatKey(p)
	}
	return outbox.Doc(ctx, tx, keys...)
}

// BuildStats is the outbox builder for stat.<pid> keys: the counters of the
// works as committed now.
func BuildStats(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
	pids := make([]string, len(keys))
	for i, k := range keys {
		pids[i] = strings.TrimPrefix(k, contract.KeyStat)
	}
	rows, err := tx.Query(ctx, `SELECT pid, view_cnt, review_count, point_sum, zzim_count FROM works WHERE pid = ANY($1)`, pids)
	if err != nil {
		return nil, fmt.Errorf("load work counters: %w", err)
	}
	defer rows.Close()
	out := make(map[string][]byte, len(keys))
	for rows.Next() {
		var s contract.ProductStat
		if err := rows.Scan(&s.PID, &s.ViewCnt, &s.ReviewCount, &s.PointSum, &s.ZzimCount); err != nil {
			return nil, fmt.Errorf("scan work counters: %w", err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("marshal counters of %s: %w", s.PID, err)
		}
		out[contract.StatKey(s.PID)] = b
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load work counters: %w", err)
	}
	return out, nil
}
