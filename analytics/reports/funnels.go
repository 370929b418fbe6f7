package reports

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"storefront/contract"
)

// funnelKinds are the event kinds an analyst may put in a funnel, each a
// fixed SQL condition on an events row: nothing the client sends reaches
// the SQL text but these names' conditions and a validated number.
var funnelKinds = map[string]string{
	"list":                   "(type = 'page_view' AND route NOT LIKE '/viewer%' AND route NOT LIKE '%/detail/%')",
	"detail":                 "(type = 'view_content' OR (type = 'page_view' AND route LIKE '%/detail/%'))",
	"viewer":                 "(type = 'page_view' AND route LIKE '/viewer%')",
	contract.EvPageView:      "type = 'page_view'",
	contract.EvViewContent:   "type = 'view_content'",
	contract.EvSignup:        "type = 'signup'",
	contract.EvLogin:         "type = 'login'",
	contract.EvCharge:        "type = 'charge'",
	contract.EvPurchase:      "type = 'purchase'",
	contract.EvRental:        "type = 'rental'",
	"purchase_or_rental":     "type IN ('purchase', 'rental')",
	contract.EvCouponUse:     "type = 'coupon_use'",
	contract.EvZzim:          "type = 'dibs'",
	contract.EvReview:        "type = 'review'",
	contract.EvMemberProfile: "type = 'member_profile'",
}

// FunnelChannel is how far the actors of one channel ("" = all) got: Reached[i]
// actors did steps 1..i+1 in order, each within the window of the first.
type FunnelChannel struct {
	Channel    string    `json:"channel"`
	Reached    []uint64  `json:"reached"`
	Conversion []float64 `json:"conversion"`
}

// CustomFunnel is the answer of the analyst-defined funnel.
type CustomFunnel struct {
	contract.Envelope
	From     string          `json:"from"`
	To       string          `json:"to"`
	Steps    []string        `json:"steps"`
	Window   int64           `json:"windowSeconds"`
	Channels []FunnelChannel `json:"channels"`
}

// customFunnel: ?steps=detail,viewer,purchase (2 to 8 kinds of funnelKinds,
// in order) &window=1h (1s to 7 days) &from&to. An actor is a visit (the
// tracking session, else the member, as in funnel_daily); windowFunnel counts
// how many steps it made in order, the first starting the window. Its
// channel is the one of its first step. Events of the same second have no
// order between them (ts has seconds; windowFunnel of 18.16 takes DateTime).
func (rp *Reports) customFunnel(r *http.Request) (any, error) {
	from, to, err := rp.days(r)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	steps := strings.Split(q.Get("steps"), ",")
	if len(steps) < 2 || len(steps) > 8 {
		return nil, badRequest("steps는 쉼표로 구분한 2~8개의 이벤트 종류여야 합니다.")
	}
	conds := make([]string, len(steps))
	for i, s := range steps {
		c, known := funnelKinds[s]
		if !known {
			return nil, badRequest("알 수 없는 이벤트 종류입니다: %q", s)
		}
		conds[i] = c
	}
	window := time.Hour
	if s := q.Get("window"); s != "" {
		if window, err = time.ParseDuration(s); err != nil || window < time.Second || window > 7*24*time.Hour {
			return nil, badRequest("window는 1s에서 168h 사이의 기간이어야 합니다.")
		}
	}
	sec := int64(window / time.Second)
	query := `SELECT ch, level, count() FROM (
  SELECT if(session_id != '', session_id, uid) AS actor, argMinIf(channel, ts, ` + conds[0] + `) AS ch,
         windowFunnel(` + strconv.FormatInt(sec, 10) + `)(ts, ` + strings.Join(conds, ", ") + `) AS level
  FROM events
  WHERE kst_date >= toDate(?) AND kst_date <= toDate(?) AND (uid != '' OR session_id != '') AND (` + strings.Join(conds, " OR ") + `)
  GROUP BY actor
) WHERE level > 0 GROUP BY ch, level ORDER BY ch, level`
	rows, err := rp.ch.Query(r.Context(), query, day(from), day(to))
	if err != nil {
		return nil, fmt.Errorf("custom funnel: %w", err)
	}
	defer rows.Close()
	byChannel := map[string][]uint64{}
	var order []string
	total := make([]uint64, len(steps))
	for rows.Next() {
		var ch string
		var level uint8
		var n uint64
		if err := rows.Scan(&ch, &level, &n); err != nil {
			return nil, fmt.Errorf("custom funnel: %w", err)
		}
		c := byChannel[ch]
		if c == nil {
			c = make([]uint64, len(steps))
			byChannel[ch] = c
			order = append(order, ch)
		}
		// level k means steps 1..k were made: each of them was reached.
		for i := 0; i < int(level) && i < len(steps); i++ {
			c[i] += n
			total[i] += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("custom funnel: %w", err)
	}
	out := CustomFunnel{Envelope: ok(), From: day(from), To: day(to), Steps: steps, Window: sec,
		Channels: []FunnelChannel{funnelChannel("", total)}}
	for _, ch := range order {
		out.Channels = append(out.Channels, funnelChannel(ch, byChannel[ch]))
	}
	return out, nil
}

func funnelChannel(ch string, reached []uint64) FunnelChannel {
	f := FunnelChannel{Channel: ch, Reached: reached, Conversion: make([]float64, len(reached))}
	for i, n := range reached {
		switch {
		case i == 0:
			f.Conversion[i] = 1
		case reached[i-1] > 0:
			f.Conversion[i] = float64(n) / float64(reached[i-1])
		}
	}
	return f
}
