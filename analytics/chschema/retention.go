package chschema

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Retention is how long the raw tables keep their rows; 0 keeps them for
// ever. The rollups (pageviews_hourly, work_daily, work_hourly,
// active_users_daily, funnel_daily, revenue_daily) are never dropped: the
// materialized views filled them at insert time, so they keep every day's
// figures after the raw rows behind them are gone.
//
// ClickHouse 18.16 has no table TTL (it arrived in 19.6), so retention drops
// whole monthly partitions (every raw table is PARTITION BY toYYYYMM): a
// month goes once all of it is older than the retention, so rows live
// between the retention and the retention plus one month. DROP PARTITION is
// the same statement on 18.16 and on current ClickHouse, is replicated by
// ReplicatedMergeTree, and costs nothing (it unlinks the parts).
type Retention struct {
	Events time.Duration // raw events (ANALYTICS_RAW_RETENTION)
	Dead   time.Duration // poison messages in events_dead (ANALYTICS_DEAD_RETENTION)
}

// Default retention: 13 months of raw events (a year-over-year comparison
// by day and route still finds last year's month), 30 days of dead letters
// (time to look at a poison message and fix its sender).
const (
	DefaultEventsRetention = 396 * 24 * time.Hour
	DefaultDeadRetention   = 30 * 24 * time.Hour
)

// Apply drops the partitions past retention as of now and returns what it
// dropped ("events 202401").
func (r Retention) Apply(ctx context.Context, conn driver.Conn, now time.Time) ([]string, error) {
	var dropped []string
	for _, t := range []struct {
		table string
		keep  time.Duration
	}{{"events", r.Events}, {"events_dead", r.Dead}} {
		if t.keep <= 0 {
			continue
		}
		ps, err := DropMonthsBefore(ctx, conn, t.table, now.Add(-t.keep))
		if err != nil {
			return dropped, err
		}
		for _, p := range ps {
			dropped = append(dropped, t.table+" "+p)
		}
	}
	return dropped, nil
}

// DropMonthsBefore drops every monthly partition (toYYYYMM) of table whose
// whole month ended a day or more before cutoff (the day covers a partition
// key computed in another time zone than the cutoff's) and returns them.
func DropMonthsBefore(ctx context.Context, conn driver.Conn, table string, cutoff time.Time) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT DISTINCT partition FROM system.parts
		WHERE database = currentDatabase() AND table = ? AND active ORDER BY partition`, table)
	if err != nil {
		return nil, fmt.Errorf("list partitions of %s: %w", table, err)
	}
	var old []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list partitions of %s: %w", table, err)
		}
		ym, err := strconv.Atoi(p)
		if err != nil || ym < 100001 || ym > 999912 {
			continue // not a toYYYYMM partition: not ours to drop
		}
		monthEnd := time.Date(ym/100, time.Month(ym%100)+1, 1, 0, 0, 0, 0, time.UTC)
		if !monthEnd.AddDate(0, 0, 1).After(cutoff) {
			old = append(old, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list partitions of %s: %w", table, err)
	}
	var dropped []string
	for _, p := range old {
		// p is six digits (checked above): safe in the statement.
		if err := conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s DROP PARTITION %s", table, p)); err != nil {
			return dropped, fmt.Errorf("drop partition %s of %s: %w", p, table, err)
		}
		dropped = append(dropped, p)
	}
	return dropped, nil
}
