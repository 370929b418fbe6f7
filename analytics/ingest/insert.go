package ingest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// insert writes the dead rows and the events of b. With all set, or for rows
// marked for recheck, ids already in the events table are dropped first; the
// dropped rows stay dropped across attempts.
func (in *Ingester) insert(ctx context.Context, b *batch, all bool) error {
	resend := in.cfg.BlockDedup && b.sent != nil
	if !resend {
		if err := in.dropStored(ctx, b, all); err != nil {
			return err
		}
	}
	now := in.cfg.Now().UTC().Truncate(time.Second)
	if len(b.dead) > 0 {
		db, err := in.conn.PrepareBatch(ctx, insertDead)
		if err != nil {
			return fmt.Errorf("prepare dead-letter insert: %w", err)
		}
		for _, d := range b.dead {
			if err := db.Append(now, d.subject, d.seq, d.deliveries, d.err, d.payload); err != nil {
				return fmt.Errorf("append dead letter: %w", err)
			}
		}
		if err := db.Send(); err != nil {
			return fmt.Errorf("insert %d dead letters: %w", len(b.dead), err)
		}
		in.m.dead.Add(float64(len(b.dead)))
		in.log.Warn("poison events parked in events_dead", "count", len(b.dead), "first_error", b.dead[0].err)
		b.dead = nil
	}
	if len(b.rows) == 0 {
		in.m.duplicates.Add(float64(b.dups))
		b.dups = 0
		return nil
	}
	start := time.Now()
	var cols columns
	oldest := b.rows[0].ev.Time
	for _, r := range b.rows {
		if !resend {
			cols.add(r, now)
		}
		if r.ev.Time.Before(oldest) {
			oldest = r.ev.Time
		}
	}
	if resend {
		cols = *b.sent
	} else if in.cfg.BlockDedup {
		b.sent = &cols
	}
	b.queryID = newQueryID()
	eb, err := in.conn.PrepareBatch(clickhouse.Context(ctx, clickhouse.WithQueryID(b.queryID)), insertEvents)
	if err != nil {
		return fmt.Errorf("prepare events insert: %w", err)
	}
	if err := cols.appendTo(eb); err != nil {
		_ = eb.Abort()
		return err
	}
	if err := eb.Send(); err != nil {
		return fmt.Errorf("insert %d events: %w", len(b.rows), err)
	}
	in.m.insertSecs.Observe(time.Since(start).Seconds())
	in.m.lagSecs.Observe(in.cfg.Now().Sub(oldest).Seconds())
	in.m.inserted.Add(float64(len(b.rows)))
	in.m.duplicates.Add(float64(b.dups))
	in.m.batches.Inc()
	b.rows, b.recheck, b.dups, b.sent = nil, nil, 0, nil
	return nil
}

// dropStored removes from b the rows whose id is already in the events table.
func (in *Ingester) dropStored(ctx context.Context, b *batch, all bool) error {
	var check []int
	for i := range b.rows {
		if all || b.recheck[i] {
			check = append(check, i)
		}
	}
	if len(check) == 0 {
		return nil
	}
	if all && b.queryID != "" {
		if err := in.awaitQuery(ctx, b.queryID); err != nil {
			return err
		}
	}
	stored := map[string]bool{}
	const chunk = 1000 // keeps the query under max_query_size
	for lo := 0; lo < len(check); lo += chunk {
		part := check[lo:min(lo+chunk, len(check))]
		types, dates, ids := map[string]bool{}, map[string]bool{}, make([]string, 0, len(part))
		for _, i := range part {
			e := &b.rows[i].ev
			types[quote(e.Type)] = true
			dates[quote(kstDate(e.Time).Format("2006-01-02"))] = true
			ids = append(ids, quote(e.ID))
		}
		// The sorting key starts with (type, kst_date): naming both keeps the scan small.
		q := "SELECT id FROM events WHERE type IN (" + joinKeys(types) + ") AND kst_date IN (" + joinKeys(dates) +
			") AND id IN (" + strings.Join(ids, ",") + ")"
		rows, err := in.conn.Query(ctx, q)
		if err != nil {
			return fmt.Errorf("look up stored event ids: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("scan stored event id: %w", err)
			}
			stored[id] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("look up stored event ids: %w", err)
		}
	}
	keep, keepCheck := b.rows[:0], b.recheck[:0]
	for i, r := range b.rows {
		if stored[r.ev.ID] {
			b.dups++
			continue
		}
		keep = append(keep, r)
		keepCheck = append(keepCheck, b.recheck[i])
	}
	b.rows, b.recheck = keep, keepCheck
	return nil
}

// awaitQuery waits until the server no longer runs query id: only then does a
// look-up tell for sure whether that insert stored its rows.
func (in *Ingester) awaitQuery(ctx context.Context, id string) error {
	for {
		var n uint64
		if err := in.conn.QueryRow(ctx, "SELECT count() FROM system.processes WHERE query_id = ?", id).Scan(&n); err != nil {
			return fmt.Errorf("check previous insert %s: %w", id, err)
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("previous insert %s still running: %w", id, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func newQueryID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "analytics-insert-" + hex.EncodeToString(b[:])
}

// quote makes a ClickHouse string literal.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(s) + "'"
}

func joinKeys(m map[string]bool) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return strings.Join(out, ",")
}
