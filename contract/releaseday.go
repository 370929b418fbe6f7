package contract

import "time"

// ReleaseHour is when a day's episodes go out (KST): at 23:00 the evening
// before, as Korean webtoon stores do, so Monday's episodes are read from
// Sunday 23:00. Everything that says "today" about releases (the today-updated
// list, the UP badge, today's weekday list) and the demo's schedule go by the
// release day, not the calendar day: counted from midnight, "오늘 업데이트" was
// empty 23 hours a day (issue 24).
const ReleaseHour = 23

// ReleaseDayStart is when t's release day began: the latest 23:00 KST at or
// before t.
func ReleaseDayStart(t time.Time) time.Time {
	k := t.In(KST)
	s := time.Date(k.Year(), k.Month(), k.Day(), ReleaseHour, 0, 0, 0, KST)
	if s.After(t) {
		s = s.AddDate(0, 0, -1)
	}
	return s
}

// NextReleaseDay is when the release day after t's begins.
func NextReleaseDay(t time.Time) time.Time { return ReleaseDayStart(t).AddDate(0, 0, 1) }

// ReleaseWeekday is the weekday whose episodes t's release day carries: the
// KST calendar day after its 23:00 start.
func ReleaseWeekday(t time.Time) time.Weekday {
	return ReleaseDayStart(t).Add(time.Duration(24-ReleaseHour) * time.Hour).Weekday()
}
