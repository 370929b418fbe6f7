package reports

import (
	"bytes"
	"encoding/csv"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// table is a report as rows for CSV: the effective parameters (they name the
// file), the column names (the JSON fields' names) and the rows.
type table struct {
	params [][2]string
	cols   []string
	rows   [][]string
}

// tabular is an answer that can be exported (?format=csv).
type tabular interface{ table() table }

func u(n uint64) string  { return strconv.FormatUint(n, 10) }
func i(n int64) string   { return strconv.FormatInt(n, 10) }
func f(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

func (t Traffic) table() table {
	tb := table{params: [][2]string{{"at", t.At.Format(time.RFC3339)}, {"step", strconv.FormatInt(t.Step/60, 10) + "m"}},
		cols: []string{"t", "pageViews", "contentViews", "purchases", "revenue"}}
	if t.PID != "" {
		tb.params = append(tb.params, [2]string{"pid", t.PID})
	}
	for _, p := range t.Points {
		tb.rows = append(tb.rows, []string{p.T.UTC().Format(time.RFC3339), u(p.PageViews), u(p.ContentViews), u(p.Purchases), i(p.Revenue)})
	}
	return tb
}

func (t TopWorks) table() table {
	tb := table{params: [][2]string{{"from", t.From}, {"to", t.To}, {"by", t.By}},
		cols: []string{"rank", "pid", "section", "genreId", "views", "purchases", "rentals", "revenue"}}
	for n, w := range t.Works {
		tb.rows = append(tb.rows, []string{strconv.Itoa(n + 1), w.PID, w.Section, w.GenreID, u(w.Views), u(w.Purchases), u(w.Rentals), i(w.Revenue)})
	}
	return tb
}

func (t Funnel) table() table {
	tb := table{params: [][2]string{{"from", t.From}, {"to", t.To}}, cols: []string{"step", "reached", "through", "conversion"}}
	for _, s := range t.Steps {
		tb.rows = append(tb.rows, []string{s.Step, u(s.Reached), u(s.Through), f(s.Conversion)})
	}
	return tb
}

func (t Revenue) table() table {
	tb := table{params: [][2]string{{"from", t.From}, {"to", t.To}},
		cols: []string{"channel", "charges", "chargeAmount", "purchases", "purchaseAmount", "rentals", "rentalAmount"}}
	for _, c := range t.Channels {
		tb.rows = append(tb.rows, []string{c.Channel, u(c.Charges), i(c.ChargeAmount), u(c.Purchases), i(c.PurchaseAmount), u(c.Rentals), i(c.RentalAmount)})
	}
	return tb
}

// The daily rows, then the range's by channel (day "range") and its total
// (day "range", channel and member type empty).
func (t ActiveUsersReport) table() table {
	tb := table{params: [][2]string{{"from", t.From}, {"to", t.To}}, cols: []string{"day", "channel", "memberType", "users"}}
	for _, a := range t.Daily {
		tb.rows = append(tb.rows, []string{a.Day, a.Channel, a.MemberType, u(a.Users)})
	}
	for _, a := range t.RangeUsers {
		tb.rows = append(tb.rows, []string{"range", a.Channel, a.MemberType, u(a.Users)})
	}
	tb.rows = append(tb.rows, []string{"range", "", "", u(t.Total)})
	return tb
}

// Channel rows, then each week's total (channel "all").
func (t Retention) table() table {
	tb := table{params: [][2]string{{"from", t.From}, {"to", t.To}, {"cohort", t.Cohort}}, cols: []string{"week", "channel", "members"}}
	if t.Channel != "" {
		tb.params = append(tb.params, [2]string{"channel", t.Channel})
	}
	for k := 1; k <= RetentionWeeks; k++ {
		tb.cols = append(tb.cols, "week"+strconv.Itoa(k))
	}
	tb.cols = append(tb.cols, "elapsedWeeks")
	add := func(c CohortRow, ch string) {
		row := []string{c.Week, ch, u(c.Members)}
		for _, n := range c.Retained {
			row = append(row, u(n))
		}
		tb.rows = append(tb.rows, append(row, strconv.Itoa(c.Elapsed)))
	}
	for _, c := range t.Rows {
		add(c, c.Channel)
	}
	for _, c := range t.Totals {
		add(c, "all")
	}
	return tb
}

// One row per channel and step (channel "all" first).
func (t CustomFunnel) table() table {
	tb := table{params: [][2]string{{"from", t.From}, {"to", t.To}, {"steps", strings.Join(t.Steps, "-")}, {"window", strconv.FormatInt(t.Window, 10) + "s"}},
		cols: []string{"channel", "step", "kind", "reached", "conversion"}}
	for _, c := range t.Channels {
		ch := c.Channel
		if ch == "" {
			ch = "all"
		}
		for n, k := range t.Steps {
			tb.rows = append(tb.rows, []string{ch, strconv.Itoa(n + 1), k, u(c.Reached[n]), f(c.Conversion[n])})
		}
	}
	return tb
}

func (t Breakdown) table() table {
	tb := table{params: [][2]string{{"from", t.From}, {"to", t.To}, {"by", t.By}},
		cols: []string{t.By, "visits", "pageViews", "contentViews", "purchases", "revenue"}}
	for _, r := range t.Rows {
		tb.rows = append(tb.rows, []string{r.Key, u(r.Visits), u(r.PageViews), u(r.ContentViews), u(r.Purchases), i(r.Revenue)})
	}
	return tb
}

// csvFile renders tb: a UTF-8 byte order mark (spreadsheets then read Korean
// keys right), the header and the rows.
func csvFile(tb table) []byte {
	var b bytes.Buffer
	b.WriteString("\ufeff")
	w := csv.NewWriter(&b)
	_ = w.Write(tb.cols)
	_ = w.WriteAll(tb.rows) // a bytes.Buffer does not fail
	return b.Bytes()
}

// fileName is report_key-value_..., the answer's effective parameters first,
// then any other the request gave (but format), each made safe for a file name.
func fileName(report string, tb table, q url.Values) string {
	parts := []string{report}
	seen := map[string]bool{"format": true}
	for _, p := range tb.params {
		parts = append(parts, p[0]+"-"+safe(p[1]))
		seen[p[0]] = true
	}
	var rest []string
	for k := range q {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, safe(k)+"-"+safe(q.Get(k)))
	}
	return strings.Join(parts, "_") + ".csv"
}

func safe(s string) string {
	b := []byte(s)
	for n, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[n] = '_'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}
