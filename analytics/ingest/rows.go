package ingest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"storefront/contract"
)

// insertEvents names its columns: clickhouse-go v2 needs that against 18.16.
const insertEvents = `INSERT INTO events (id, v, type, ts, ts_ms, kst_date, channel, app_version, ip_hash, ua_class,
 session_id, uid, member_type, url, route, referrer, pid, section, genre_id, vol, amount, money,
 props_keys, props_values, subject, stream_seq, ingested_at)`

const insertDead = `INSERT INTO events_dead (received_at, subject, stream_seq, deliveries, error, payload)`

// row is one event ready for the events table.
type row struct {
	ev      contract.TrackedEvent
	subject string
	seq     uint64
}

// columns holds a batch column by column: appending whole columns is far cheaper
// in clickhouse-go than row by row.
type columns struct {
	id, typ, channel, appVersion, ipHash, uaClass, session, uid, memberType []string
	url, route, referrer, pid, section, genre, money, subject               []string
	v                                                                       []uint8
	ts, kstDate, ingested                                                   []time.Time
	tsMS                                                                    []uint16
	vol                                                                     []int32
	amount                                                                  []int64
	propsK, propsV                                                          [][]string
	seq                                                                     []uint64
}

func kstDate(t time.Time) time.Time {
	k := t.In(contract.KST)
	return time.Date(k.Year(), k.Month(), k.Day(), 0, 0, 0, 0, time.UTC)
}

func (c *columns) add(r row, now time.Time) {
	e := &r.ev
	ts := e.Time.UTC()
	c.id = append(c.id, e.ID)
	c.v = append(c.v, uint8(e.V))
	c.typ = append(c.typ, e.Type)
	c.ts = append(c.ts, ts.Truncate(time.Second))
	c.tsMS = append(c.tsMS, uint16(ts.Nanosecond()/int(time.Millisecond)))
	c.kstDate = append(c.kstDate, kstDate(ts))
	c.channel = append(c.channel, e.Channel)
	c.appVersion = append(c.appVersion, e.AppVersion)
	c.ipHash = append(c.ipHash, e.IPHash)
	c.uaClass = append(c.uaClass, e.UAClass)
	c.session = append(c.session, e.SessionID)
	c.uid = append(c.uid, e.UID)
	c.memberType = append(c.memberType, e.MemberType)
	c.url = append(c.url, e.URL)
	c.route = append(c.route, RouteOf(e))
	c.referrer = append(c.referrer, e.Referrer)
	c.pid = append(c.pid, e.PID)
	c.section = append(c.section, e.Section)
	c.genre = append(c.genre, e.GenreID)
	c.vol = append(c.vol, int32(e.Vol))
	c.amount = append(c.amount, e.Amount)
	c.money = append(c.money, e.Money)
	keys := make([]string, 0, len(e.Props))
	for k := range e.Props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = e.Props[k]
	}
	c.propsK = append(c.propsK, keys)
	c.propsV = append(c.propsV, vals)
	c.subject = append(c.subject, r.subject)
	c.seq = append(c.seq, r.seq)
	c.ingested = append(c.ingested, now)
}

// RouteOf is the route of an event: the one it carries, else the path of its
// URL (pages send only curPageUrl) with a work's id in a detail path replaced
// by {pid}, so page views group by screen and the funnel finds its steps.
func RouteOf(e *contract.TrackedEvent) string {
	if e.Route != "" || e.URL == "" {
		return e.Route
	}
	p := e.URL
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j:]
		} else {
			p = "/"
		}
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if p == "" {
		p = "/"
	}
	if seg := strings.Split(p, "/"); len(seg) >= 4 && seg[2] == "detail" && seg[3] != "" {
		p = "/" + seg[1] + "/detail/{pid}"
	}
	if len(p) > 256 {
		p = p[:256]
	}
	return p
}

func (c *columns) appendTo(b driver.Batch) error {
	cols := []any{c.id, c.v, c.typ, c.ts, c.tsMS, c.kstDate, c.channel, c.appVersion, c.ipHash, c.uaClass,
		c.session, c.uid, c.memberType, c.url, c.route, c.referrer, c.pid, c.section, c.genre, c.vol, c.amount, c.money,
		c.propsK, c.propsV, c.subject, c.seq, c.ingested}
	for i, col := range cols {
		if err := b.Column(i).Append(col); err != nil {
			return fmt.Errorf("append column %d: %w", i, err)
		}
	}
	return nil
}

// InsertEvents writes events straight into the events table as one batch,
// bypassing JetStream. It is for tests, benchmarks and backfills, not for the
// ingestion path: it neither deduplicates nor acks anything.
func InsertEvents(ctx context.Context, conn driver.Conn, evs []contract.TrackedEvent, now time.Time) error {
	var cols columns
	for _, e := range evs {
		cols.add(row{ev: e, subject: contract.TrackSubject(e.Type)}, now.UTC().Truncate(time.Second))
	}
	b, err := conn.PrepareBatch(ctx, insertEvents)
	if err != nil {
		return fmt.Errorf("prepare events insert: %w", err)
	}
	if err := cols.appendTo(b); err != nil {
		_ = b.Abort()
		return err
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("insert %d events: %w", len(evs), err)
	}
	return nil
}
