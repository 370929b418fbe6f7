package reports

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"storefront/contract"
)

// ReleaseTimes tells when a volume was (or will be) released, from the
// catalog: the live view marks opens of volumes released in the last day as
// new-volume opens. Nil: no volume is marked.
type ReleaseTimes func(ctx context.Context, pid string, no int) (time.Time, bool)

// NewVolumeAge is how recent a release is still a new volume.
const NewVolumeAge = 24 * time.Hour

// LiveSecond is one second of the live view.
type LiveSecond struct {
	T            time.Time `json:"t"`
	PageViews    uint64    `json:"pageViews"`
	ContentViews uint64    `json:"contentViews"`
	Opens        uint64    `json:"opens"`
	Purchases    uint64    `json:"purchases"`
	Revenue      int64     `json:"revenue"`
}

// LiveWork is a work's figures over the live window.
type LiveWork struct {
	PID       string `json:"pid"`
	Views     uint64 `json:"views"`
	Opens     uint64 `json:"opens"`
	Purchases uint64 `json:"purchases"`
	Revenue   int64  `json:"revenue"`
}

// LiveVolume is the viewer opens of one volume over the live window.
type LiveVolume struct {
	PID      string     `json:"pid"`
	No       int32      `json:"no"`
	Opens    uint64     `json:"opens"`
	New      bool       `json:"new"`
	Released *time.Time `json:"releasedAt,omitempty"`
}

// Live is the live release view: the last minutes, second by second.
type Live struct {
	contract.Envelope
	Now      time.Time    `json:"now"`
	Minutes  int          `json:"minutes"`
	Seconds  []LiveSecond `json:"seconds"`
	Totals   LiveSecond   `json:"totals"`
	Works    []LiveWork   `json:"topWorks"`
	Volumes  []LiveVolume `json:"topVolumes"`
	NewOpens uint64       `json:"newVolumeOpens"`
}

// live: ?minutes=5 (1 to 60). Readers per second are the page views and
// detail views of each second; the window ends at the current second (the
// last seconds fill as ingestion catches up: about its batch age, 200 ms,
// more under load). Reads only live_seconds and live_volume_minute.
func (rp *Reports) live(r *http.Request) (any, error) {
	minutes := 5
	if s := r.URL.Query().Get("minutes"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 60 {
			return nil, badRequest("minutes는 1에서 60 사이여야 합니다.")
		}
		minutes = n
	}
	now := rp.now().UTC().Truncate(time.Second)
	from := now.Add(-time.Duration(minutes) * time.Minute).Add(time.Second)
	ctx := r.Context()
	out := Live{Envelope: ok(), Now: now, Minutes: minutes, Works: []LiveWork{}, Volumes: []LiveVolume{}}
	rows, err := rp.ch.Query(ctx, `SELECT second, sum(page_views), sum(content_views), sum(opens), sum(purchases), sum(revenue)
 FROM live_seconds WHERE second >= ? AND second <= ? GROUP BY second ORDER BY second`, from, now)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	got := map[int64]LiveSecond{}
	for rows.Next() {
		var s LiveSecond
		if err := rows.Scan(&s.T, &s.PageViews, &s.ContentViews, &s.Opens, &s.Purchases, &s.Revenue); err != nil {
			rows.Close()
			return nil, fmt.Errorf("live: %w", err)
		}
		got[s.T.Unix()] = s
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	for t := from; !t.After(now); t = t.Add(time.Second) {
		s := got[t.Unix()]
		s.T = t
		out.Seconds = append(out.Seconds, s)
		out.Totals.PageViews += s.PageViews
		out.Totals.ContentViews += s.ContentViews
		out.Totals.Opens += s.Opens
		out.Totals.Purchases += s.Purchases
		out.Totals.Revenue += s.Revenue
	}
	out.Totals.T = from
	// The minute rollup: whole minutes from the window's first.
	first := from.Truncate(time.Minute)
	rows, err = rp.ch.Query(ctx, `SELECT work, sum(views) AS v, sum(opens) AS o, sum(purchases) AS p, sum(revenue)
 FROM live_volume_minute WHERE minute >= ? AND minute <= ? GROUP BY work ORDER BY v + o + 10 * p DESC, work LIMIT 10`, first, now)
	if err != nil {
		return nil, fmt.Errorf("live works: %w", err)
	}
	for rows.Next() {
		var w LiveWork
		if err := rows.Scan(&w.PID, &w.Views, &w.Opens, &w.Purchases, &w.Revenue); err != nil {
			rows.Close()
			return nil, fmt.Errorf("live works: %w", err)
		}
		out.Works = append(out.Works, w)
	}
	rows.Close()
	rows, err = rp.ch.Query(ctx, `SELECT work, volume, sum(opens) AS o FROM live_volume_minute
 WHERE minute >= ? AND minute <= ? AND volume > 0 GROUP BY work, volume HAVING o > 0 ORDER BY o DESC, work, volume LIMIT 50`, first, now)
	if err != nil {
		return nil, fmt.Errorf("live volumes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v LiveVolume
		if err := rows.Scan(&v.PID, &v.No, &v.Opens); err != nil {
			return nil, fmt.Errorf("live volumes: %w", err)
		}
		if rp.Releases != nil {
			if at, known := rp.Releases(ctx, v.PID, int(v.No)); known {
				v.Released = &at
				v.New = !at.After(now) && now.Sub(at) <= NewVolumeAge
			}
		}
		if v.New {
			out.NewOpens += v.Opens
		}
		out.Volumes = append(out.Volumes, v)
	}
	return out, rows.Err()
}
