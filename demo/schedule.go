package demo

import (
	"math/rand/v2"
	"slices"

	"storefront/contract"
)

var weekdayNames = []string{"일", "월", "화", "수", "목", "금", "토"}

// schedule decides weekdays, update cycle and where the volumes lie in time.
func (g *gen) schedule(r *rand.Rand, p *contract.Product, m *meta) {
	today := kstDay(g.now)
	slot := func(day int64) int64 { return day*secondsPerDay - kstOffset + releaseHour*3600 }
	if p.FlagEnd {
		p.UpdateCycle = "완결"
		m.lastPast = slot(today - 30 - int64(r.IntN(1800)))
		switch {
		case p.Unit == "화":
			m.step = 7 * secondsPerDay
		case r.IntN(2) == 0:
			m.step = -1 // every volume released on the same day
		default:
			m.step = 60 * secondsPerDay
		}
		return
	}
	if p.Unit == "권" {
		p.UpdateCycle = pick(r, []string{"월 1회", "격월", "비정기"})
		if r.IntN(100) < 12 {
			m.next = slot(today + int64(r.IntN(2)))
			if m.next <= g.now {
				m.next += secondsPerDay
			}
			m.lastPast = slot(today - 30 - int64(r.IntN(30)))
		} else {
			m.lastPast = slot(today - 1 - int64(r.IntN(60)))
		}
		m.step = int64(30+r.IntN(60)) * secondsPerDay
		return
	}
	// Weekly (or daily) episodes at 23:00 KST on the work's weekdays.
	switch x := r.IntN(100); {
	case x < 85 || p.Section == contract.SectionWebtoon && x < 97:
		p.Weekdays = []int{r.IntN(7)}
	case x < 97:
		a, b := r.IntN(7), r.IntN(6)
		if b >= a {
			b++
		}
		p.Weekdays = []int{min(a, b), max(a, b)}
	default:
		p.Weekdays = []int{0, 1, 2, 3, 4, 5, 6}
	}
	if len(p.Weekdays) == 7 {
		p.UpdateCycle = "매일"
	} else {
		c := "매주 "
		for k, d := range p.Weekdays {
			if k > 0 {
				c += ", "
			}
			c += weekdayNames[d]
		}
		p.UpdateCycle = c + "요일"
	}
	last := slot(today)
	for last > g.now || !slices.Contains(p.Weekdays, weekdayOf(last)) {
		last -= secondsPerDay
	}
	m.lastPast = last
	next := slot(today)
	for next <= g.now || !slices.Contains(p.Weekdays, weekdayOf(next)) {
		next += secondsPerDay
	}
	// Episodes are uploaded ahead of their slot; the edge flips them visible.
	if next-g.now <= 2*secondsPerDay {
		m.next = next
	}
}

// kstDay is the day number (days since 1970-01-01 in KST) of unix time t.
func kstDay(t int64) int64 { return floorDiv(t+kstOffset, secondsPerDay) }

// weekdayOf is the weekday (0 = Sunday) whose episodes a release at unix time
// t carries: the release day begins at 23:00 KST the evening before
// (contract.ReleaseWeekday), so a Monday work's episodes go out on Sunday 23:00.
func weekdayOf(t int64) int {
	return int((kstDay(t+(24-contract.ReleaseHour)*3600) + 4) % 7) // 1970-01-01 was a Thursday
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
