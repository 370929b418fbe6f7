package reports

import (
	"fmt"
	"net/http"
	"time"

	"storefront/contract"
)

// RetentionWeeks is how many weeks after its first the retention report follows a cohort.
const RetentionWeeks = 8

// channels are the seed's channel codes (§3), the breakdowns' and filters' values.
var channels = []string{"AO", "AC", "AA", "AW", "IA", "IW"}

func channelParam(r *http.Request) (string, error) {
	ch := r.URL.Query().Get("channel")
	if ch == "" {
		return "", nil
	}
	for _, c := range channels {
		if ch == c {
			return ch, nil
		}
	}
	return "", badRequest("channel은 AO, AC, AA, AW, IA, IW 중 하나여야 합니다.")
}

// Members' reads: a viewer page view, given to the member whose writer
// events (login, sign-up, purchase...) carried the same tracking session.
// Page views come from the edge with the session only; the writer's events
// have both, so the session is the join. A session seen with several members
// (a shared device) is given to the last of them.
const readsSQL = `SELECT member AS uid, week, channel, ts FROM (
    SELECT session_id, toMonday(kst_date) AS week, channel, ts FROM events
    WHERE type = 'page_view' AND route LIKE '/viewer%' AND session_id != '' AND kst_date <= toDate(?)
  ) ANY INNER JOIN (
    SELECT session_id, argMax(uid, ts) AS member FROM events
    WHERE uid != '' AND session_id != '' AND kst_date <= toDate(?) GROUP BY session_id
  ) USING session_id`

// CohortRow is one cohort: the members whose first read (or sign-up) fell in
// Week (a KST Monday), on Channel ("" = every channel), and how many of them
// read again in each of the RetentionWeeks weeks after it. Elapsed is how many
// of those weeks have begun by now: later ones are 0 because they have not
// happened, not because nobody came back.
type CohortRow struct {
	Week     string   `json:"week"`
	Channel  string   `json:"channel"`
	Members  uint64   `json:"members"`
	Retained []uint64 `json:"retained"`
	Elapsed  int      `json:"elapsedWeeks"`
}

// Retention is the retention report.
type Retention struct {
	contract.Envelope
	Cohort  string      `json:"cohort"`
	From    string      `json:"from"`
	To      string      `json:"to"`
	Channel string      `json:"channel,omitempty"`
	Rows    []CohortRow `json:"rows"`
	Totals  []CohortRow `json:"totals"`
}

// retention: ?from&to (cohorts whose week starts from the Monday of from up
// to to), cohort=first-read|signup, channel=AO|... (the channel of the first
// read, or of the sign-up).
func (rp *Reports) retention(r *http.Request) (any, error) {
	from, to, err := rp.days(r)
	if err != nil {
		return nil, err
	}
	kind := r.URL.Query().Get("cohort")
	if kind == "" {
		kind = "first-read"
	}
	ch, err := channelParam(r)
	if err != nil {
		return nil, err
	}
	from = monday(from)
	// Reads up to 8 weeks after the last cohort's week.
	until := day(monday(to).AddDate(0, 0, 7*(RetentionWeeks+1)-1))
	weeks := ""
	for k := 1; k <= RetentionWeeks; k++ {
		weeks += fmt.Sprintf(", sum(has(weeks, cohort + %d))", 7*k)
	}
	var q string
	var args []any
	switch kind {
	case "first-read":
		// The first read of all time, not of the range: a member who read
		// before from is not new in from's week.
		q = `SELECT toString(cohort), ch, count()` + weeks + ` FROM (
  SELECT uid, min(week) AS cohort, argMin(channel, ts) AS ch, groupUniqArray(week) AS weeks FROM (` + readsSQL + `) GROUP BY uid
) WHERE cohort >= toDate(?) AND cohort <= toDate(?) AND (? = '' OR ch = ?)
GROUP BY cohort, ch ORDER BY cohort, ch`
		args = []any{until, until, day(from), day(to), ch, ch}
	case "signup":
		q = `SELECT toString(cohort), ch, count()` + weeks + ` FROM (
  SELECT uid, cohort, ch, weeks FROM (
    SELECT uid, min(toMonday(kst_date)) AS cohort, argMin(channel, ts) AS ch FROM events
    WHERE type = 'signup' AND uid != '' AND kst_date >= toDate(?) AND kst_date <= toDate(?) GROUP BY uid
  ) ANY LEFT JOIN (
    SELECT uid, groupUniqArray(week) AS weeks FROM (` + readsSQL + `) GROUP BY uid
  ) USING uid
) WHERE (? = '' OR ch = ?)
GROUP BY cohort, ch ORDER BY cohort, ch`
		args = []any{day(from), day(to), until, until, ch, ch}
	default:
		return nil, badRequest("cohort는 first-read 또는 signup이어야 합니다.")
	}
	rows, err := rp.ch.Query(r.Context(), q, args...)
	if err != nil {
		return nil, fmt.Errorf("retention: %w", err)
	}
	defer rows.Close()
	now := rp.now()
	out := Retention{Envelope: ok(), Cohort: kind, From: day(from), To: day(to), Channel: ch, Rows: []CohortRow{}, Totals: []CohortRow{}}
	total := map[string]*CohortRow{}
	for rows.Next() {
		c := CohortRow{Retained: make([]uint64, RetentionWeeks)}
		dest := []any{&c.Week, &c.Channel, &c.Members}
		for i := range c.Retained {
			dest = append(dest, &c.Retained[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("retention: %w", err)
		}
		c.Elapsed = elapsedWeeks(c.Week, now)
		out.Rows = append(out.Rows, c)
		// Each member has one cohort channel, so channels add up.
		t := total[c.Week]
		if t == nil {
			t = &CohortRow{Week: c.Week, Retained: make([]uint64, RetentionWeeks), Elapsed: c.Elapsed}
			total[c.Week] = t
			out.Totals = append(out.Totals, CohortRow{Week: c.Week})
		}
		t.Members += c.Members
		for i, n := range c.Retained {
			t.Retained[i] += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("retention: %w", err)
	}
	for i := range out.Totals {
		out.Totals[i] = *total[out.Totals[i].Week]
	}
	return out, nil
}

// monday is the Monday of t's week (t a day at UTC midnight, as days() gives).
func monday(t time.Time) time.Time {
	return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
}

// elapsedWeeks is how many of the weeks after the cohort's week have begun at now (KST).
func elapsedWeeks(week string, now time.Time) int {
	w, err := time.Parse(time.DateOnly, week)
	if err != nil {
		return 0
	}
	k := now.In(contract.KST)
	today := time.Date(k.Year(), k.Month(), k.Day(), 0, 0, 0, 0, time.UTC)
	n := int(today.Sub(w).Hours()/24) / 7
	return min(max(n, 0), RetentionWeeks)
}
