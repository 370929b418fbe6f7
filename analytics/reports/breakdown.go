package reports

import (
	"fmt"
	"net/http"
	"strconv"

	"storefront/contract"
)

// breakdownKeys are the dimensions of the breakdown report, each the SQL of a
// visit's first page view (first touch): its channel, the host of the page
// that sent the reader (the edge stores the referrer the page reports: the
// outside page on a first load), or a UTM parameter of the landing URL the
// edge stored. Only the host of a referrer is shown: its path and query may
// hold what a reader searched for.
var breakdownKeys = map[string]string{
	"channel":  "argMin(channel, ts)",
	"referrer": "argMinIf(domain(referrer), ts, type = 'page_view')",
	"campaign": "argMinIf(decodeURLComponent(extractURLParameter(url, 'utm_campaign')), ts, type = 'page_view')",
	"source":   "argMinIf(decodeURLComponent(extractURLParameter(url, 'utm_source')), ts, type = 'page_view')",
	"medium":   "argMinIf(decodeURLComponent(extractURLParameter(url, 'utm_medium')), ts, type = 'page_view')",
}

// Keys of visits that have no value: "(none)" (no UTM parameter, no
// referrer: typed or bookmarked) and "(unknown)" (no page view in the range,
// e.g. a purchase in an app screen).
const (
	KeyNone    = "(none)"
	KeyUnknown = "(unknown)"
)

// BreakdownRow is what the visits of one key did in the range.
type BreakdownRow struct {
	Key          string `json:"key"`
	Visits       uint64 `json:"visits"`
	PageViews    uint64 `json:"pageViews"`
	ContentViews uint64 `json:"contentViews"`
	Purchases    uint64 `json:"purchases"`
	Revenue      int64  `json:"revenue"`
}

// Breakdown is the breakdown report.
type Breakdown struct {
	contract.Envelope
	From string         `json:"from"`
	To   string         `json:"to"`
	By   string         `json:"by"`
	Rows []BreakdownRow `json:"rows"`
}

// breakdown: ?by=channel|referrer|campaign|source|medium&from&to&limit=50.
// A visit is a tracking session (else the member, as in the funnels); its key
// is its first page view's in the range; purchases and rentals of the visit
// (the writer's events carry the session) count for that key.
func (rp *Reports) breakdown(r *http.Request) (any, error) {
	from, to, err := rp.days(r)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	by := q.Get("by")
	if by == "" {
		by = "channel"
	}
	key, known := breakdownKeys[by]
	if !known {
		return nil, badRequest("by는 channel, referrer, campaign, source, medium 중 하나여야 합니다.")
	}
	limit := 50
	if s := q.Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > 500 {
			return nil, badRequest("limit은 1에서 500 사이여야 합니다.")
		}
	}
	rows, err := rp.ch.Query(r.Context(), `SELECT multiIf(pv = 0 AND ? != 'channel', ?, k = '', ?, k) AS key,
 count() AS visits, sum(pv), sum(cv), sum(pu), sum(rev)
 FROM (
  SELECT if(session_id != '', session_id, uid) AS actor, `+key+` AS k,
         countIf(type = 'page_view') AS pv, countIf(type = 'view_content') AS cv,
         countIf(type IN ('purchase', 'rental')) AS pu, sumIf(amount, type IN ('purchase', 'rental')) AS rev
  FROM events
  WHERE kst_date >= toDate(?) AND kst_date <= toDate(?) AND (uid != '' OR session_id != '')
    AND type IN ('page_view', 'view_content', 'purchase', 'rental')
  GROUP BY actor
 ) GROUP BY key ORDER BY visits DESC, key LIMIT `+strconv.Itoa(limit), by, KeyUnknown, KeyNone, day(from), day(to))
	if err != nil {
		return nil, fmt.Errorf("breakdown: %w", err)
	}
	defer rows.Close()
	out := Breakdown{Envelope: ok(), From: day(from), To: day(to), By: by, Rows: []BreakdownRow{}}
	for rows.Next() {
		var b BreakdownRow
		if err := rows.Scan(&b.Key, &b.Visits, &b.PageViews, &b.ContentViews, &b.Purchases, &b.Revenue); err != nil {
			return nil, fmt.Errorf("breakdown: %w", err)
		}
		out.Rows = append(out.Rows, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("breakdown: %w", err)
	}
	return out, nil
}
