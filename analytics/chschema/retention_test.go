package chschema_test

import (
	"context"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"storefront/analytics/chschema"
	"storefront/devstack/testenv"
)

// Retention drops the raw months past their retention on the real server
// (Debian's 18.16 here, which has no TTL) and leaves the rollups whole.
func TestRetentionDropsOldMonthsAndKeepsRollups(t *testing.T) {
	ctx := context.Background()
	conn := testenv.OpenClickHouse(t, testenv.ClickHouseURL(t))
	if _, err := chschema.Migrate(ctx, conn, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	days := []time.Time{
		time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC),  // past both retentions
		time.Date(2026, 8, 31, 12, 0, 0, 0, time.UTC),  // its month ended 86 days ago: past 30, within 90 (+ a day)
		time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC),  // October: not ended 30 days ago
		time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), // this month
	}
	ev, err := conn.PrepareBatch(ctx, "INSERT INTO events (id, type, ts, kst_date, pid, section, genre_id)")
	if err != nil {
		t.Fatal(err)
	}
	dead, err := conn.PrepareBatch(ctx, "INSERT INTO events_dead (received_at, subject, stream_seq, error, payload)")
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range days {
		if err := ev.Append("e"+string(rune('a'+i)), "view_content", d, d, "P1", "WT", "21"); err != nil {
			t.Fatal(err)
		}
		if err := dead.Append(d, "events.track.x", uint64(i+1), "bad", "{"); err != nil {
			t.Fatal(err)
		}
	}
	if err := ev.Send(); err != nil {
		t.Fatal(err)
	}
	if err := dead.Send(); err != nil {
		t.Fatal(err)
	}
	count := func(q string) uint64 {
		t.Helper()
		var n uint64
		if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rollup := "SELECT toUInt64(sum(views)) FROM work_daily"
	if n := count(rollup); n != 4 {
		t.Fatalf("work_daily views %d before retention, want 4", n)
	}

	r := chschema.Retention{Events: 90 * 24 * time.Hour, Dead: 30 * 24 * time.Hour}
	dropped, err := r.Apply(ctx, conn, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"events 202506", "events_dead 202506", "events_dead 202608"}
	// (events keeps August: it ended 86 days ago, and a month goes once it
	// ended retention + 1 day ago.)
	if !reflect.DeepEqual(dropped, want) {
		t.Fatalf("dropped %q, want %q", dropped, want)
	}
	if n := count("SELECT count() FROM events"); n != 3 {
		t.Fatalf("%d raw events left, want 3", n)
	}
	if n := count("SELECT count() FROM events_dead"); n != 2 {
		t.Fatalf("%d dead letters left, want 2", n)
	}
	if n := count(rollup); n != 4 {
		t.Fatalf("work_daily views %d after retention, want the 4 it had", n)
	}
	// Nothing more to drop: a second run drops nothing.
	if again, err := r.Apply(ctx, conn, now); err != nil || len(again) != 0 {
		t.Fatalf("second run: %q %v", again, err)
	}
	// Zero keeps for ever.
	if none, err := (chschema.Retention{}).Apply(ctx, conn, now.AddDate(10, 0, 0)); err != nil || len(none) != 0 {
		t.Fatalf("zero retention dropped %q %v", none, err)
	}
}
