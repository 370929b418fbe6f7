package contract

import (
	"testing"
	"time"
)

func TestReleaseDay(t *testing.T) {
	kst := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, KST) } // 2026-11-23 is a Monday
	for _, c := range []struct {
		at      time.Time
		start   time.Time
		weekday time.Weekday
	}{
		{kst(23, 0, 0), kst(22, 23, 0), time.Monday},    // Monday midnight: Sunday 23:00 opened Monday
		{kst(23, 12, 0), kst(22, 23, 0), time.Monday},   // Monday noon
		{kst(23, 22, 59), kst(22, 23, 0), time.Monday},  // the minute before the release
		{kst(23, 23, 0), kst(23, 23, 0), time.Tuesday},  // the release opens Tuesday's episodes
		{kst(23, 23, 59), kst(23, 23, 0), time.Tuesday}, // Monday 23:59 is Tuesday's release day
		{kst(29, 23, 30), kst(29, 23, 30).Add(-30 * time.Minute), time.Monday},
	} {
		if got := ReleaseDayStart(c.at); !got.Equal(c.start) {
			t.Errorf("ReleaseDayStart(%s) = %s, want %s", c.at, got, c.start)
		}
		if got := ReleaseWeekday(c.at); got != c.weekday {
			t.Errorf("ReleaseWeekday(%s) = %s, want %s", c.at, got, c.weekday)
		}
		if got := NextReleaseDay(c.at); !got.Equal(c.start.Add(24 * time.Hour)) {
			t.Errorf("NextReleaseDay(%s) = %s", c.at, got)
		}
	}
	// In UTC too: 14:00 UTC is 23:00 KST.
	if got := ReleaseDayStart(time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)); !got.Equal(kst(23, 23, 0)) {
		t.Errorf("14:00 UTC: %s", got)
	}
}
