package outbox

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/contract"
)

// Builder rebuilds catalog documents for keys inside the relay's transaction.
// A key missing from the answer has no document any more and is deleted from
// the bucket.
type Builder func(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error)

// Config tunes a Relay. Zero values get defaults.
type Config struct {
	// Batch is how many rows one transaction claims (default 500).
	Batch int
	// Poll is how often the relay looks for rows nobody woke it for: rows
	// committed by other nodes whose relays could not publish them, or by
	// processes without a relay (default 250ms).
	Poll time.Duration
	// AckTimeout bounds the wait for JetStream acknowledgements (default 5s).
	AckTimeout time.Duration
	// MaxBackoff caps the wait between retries while NATS or PostgreSQL fail (default 2s).
	MaxBackoff time.Duration
	// Keep is how long sent rows stay for inspection before they are purged (default 1h).
	Keep time.Duration
	// ListenPool is where the relay LISTENs for Notify: a direct connection
	// to PostgreSQL. Through a transaction pooler (PgBouncer) a LISTEN lasts
	// one transaction, so the writer gives its direct pool here. nil = the
	// relay's pool.
	ListenPool *pgxpool.Pool
	// ListenCheck is how long the listening connection may stay silent
	// before the relay checks that its server still answers (default 30s).
	// A server that froze or was cut off by the network (the old primary of
	// a switchover that nobody killed) never breaks the connection, and a
	// LISTEN on it would wait for ever.
	ListenCheck time.Duration
}

func (c Config) withDefaults() Config {
	if c.Batch <= 0 {
		c.Batch = 500
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.AckTimeout <= 0 {
		c.AckTimeout = 5 * time.Second
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 2 * time.Second
	}
	if c.Keep <= 0 {
		c.Keep = time.Hour
	}
	if c.ListenCheck <= 0 {
		c.ListenCheck = 30 * time.Second
	}
	return c
}

// DefaultPoll is the poll interval when Config.Poll is zero. An empty poll
// is one indexed read, so a short interval costs little and bounds how long a
// row committed without a wake-up for this relay waits.
const DefaultPoll = 250 * time.Millisecond

// Relay publishes outbox rows. Run it once per writer node.
//
// Documents and events go out in two lanes, each claiming, publishing and
// retrying only rows of its own kind with its own backoff: a full EVENTS stream
// (analytics far behind, see analytics/README.md "Stream sizing") keeps event
// rows waiting but never the catalog documents the edges serve.
type Relay struct {
	pool   *pgxpool.Pool
	js     jetstream.JetStream
	build  Builder
	cfg    Config
	log    *slog.Logger
	lanes  [2]*lane
	sent   prometheus.Counter
	failed prometheus.Counter
	// refused counts rows JetStream refused for good (a document over the
	// bucket's value size): each is a change readers never see, so an
	// alert fires on any (deploy/monitoring, OutboxRowRefused).
	refused *prometheus.CounterVec
	// kv is the catalog bucket, where planPages reads the heads published
	// before, and pages the volumes bucket's stream (buckets).
	kvMu  sync.Mutex
	kv    jetstream.KeyValue
	pages jetstream.Stream
}

// lane is the rows of one outbox kind.
type lane struct {
	kind string // outbox.kind: "kv" (catalog documents) or "ev" (business events)
	name string // for logs
	wake chan struct{}
}

// New makes a relay. reg may be nil.
func New(pool *pgxpool.Pool, js jetstream.JetStream, build Builder, cfg Config, log *slog.Logger, reg prometheus.Registerer) *Relay {
	r := &Relay{
		pool: pool, js: js, build: build, cfg: cfg.withDefaults(), log: log,
		lanes: [2]*lane{
			{kind: "kv", name: "documents", wake: make(chan struct{}, 1)},
			{kind: "ev", name: "events", wake: make(chan struct{}, 1)},
		},
		sent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "writer_outbox_sent_total", Help: "Outbox rows published and marked sent."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "writer_outbox_failures_total", Help: "Relay batches that failed and were retried."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "writer_outbox_refused_total",
			Help: "Outbox rows JetStream refused for good (too large, malformed) and marked with the error: changes that never reached the edges, by kind (kv: catalog documents, ev: business events)."},
			[]string{"kind"}),
	}
	for _, l := range r.lanes {
		r.refused.WithLabelValues(l.kind) // every kind shows 0 from the start, so rate() sees the first refusal
	}
	if reg != nil {
		reg.MustRegister(r.sent, r.failed, r.refused, pendingCollector{r})
	}
	return r
}

// Refused is the counter of rows of kind ("kv", "ev") refused for good.
func (r *Relay) Refused(kind string) prometheus.Counter { return r.refused.WithLabelValues(kind) }

// Wake makes the relay look for rows now. Call it after every commit that
// wrote outbox rows on this node; it never blocks (wake-ups coalesce). Both
// lanes look: a lane with nothing of its kind pending pays one indexed read.
func (r *Relay) Wake() {
	for _, l := range r.lanes {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// Run publishes rows until ctx is done. It returns nil on a clean stop.
func (r *Relay) Run(ctx context.Context) error {
	go r.listen(ctx)
	var wg sync.WaitGroup
	for _, l := range r.lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.runLane(ctx, l)
		}()
	}
	purge := time.NewTicker(time.Minute)
	defer purge.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return nil
		case <-purge.C:
			if _, err := r.pool.Exec(ctx, `DELETE FROM outbox WHERE sent_at < now() - make_interval(secs => $1)`, r.cfg.Keep.Seconds()); err != nil && ctx.Err() == nil {
				r.log.Warn("purge sent outbox rows", "err", err)
			}
		}
	}
}

// runLane publishes one lane's rows until ctx is done: at once on a wake-up,
// otherwise at each poll, batch after batch while full batches come back,
// with backoff while publishing fails.
func (r *Relay) runLane(ctx context.Context, l *lane) {
	poll := time.NewTicker(r.cfg.Poll)
	defer poll.Stop()
	const firstBackoff = 50 * time.Millisecond
	backoff := firstBackoff
	for {
		n, err := r.once(ctx, l)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			r.failed.Inc()
			r.log.Warn("outbox relay batch failed; rows kept for retry", "lane", l.name, "sent", n, "err", err, "retry_in", backoff)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, r.cfg.MaxBackoff)
			continue
		}
		backoff = firstBackoff
		if n >= r.cfg.Batch {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		case <-poll.C:
		}
	}
}

// listenPingTimeout bounds the check of a silent listening connection.
const listenPingTimeout = 5 * time.Second

// listen turns notifications on Channel (sent by Notify from low-rate
// writers such as the admin API and imports) into wake-ups, so such a change
// is published within milliseconds even when its own node cannot.
func (r *Relay) listen(ctx context.Context) {
	for ctx.Err() == nil {
		err := func() error {
			pool := r.pool
			if r.cfg.ListenPool != nil {
				pool = r.cfg.ListenPool
			}
			conn, err := pool.Acquire(ctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
				return err
			}
			// A notification sent before this LISTEN (the relay just started,
			// or the listening connection was lost and is back) reached no
			// one: look once now, so its rows do not wait for the next poll.
			r.Wake()
			defer func() {
				// The connection goes back to the pool: stop listening on it.
				c, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				_, _ = conn.Exec(c, "UNLISTEN "+Channel)
			}()
			for {
				wctx, cancel := context.WithTimeout(ctx, r.cfg.ListenCheck)
				_, err := conn.Conn().WaitForNotification(wctx)
				cancel()
				switch {
				case err == nil:
					r.Wake()
					continue
				case ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded):
					return err
				}
				// Silent for ListenCheck: does the server still answer? LISTEN
				// again is the ping (a no-op for a listening session, and
				// pg_stat_activity keeps showing what this connection is for).
				pctx, cancel := context.WithTimeout(ctx, listenPingTimeout)
				_, err = conn.Exec(pctx, "LISTEN "+Channel)
				cancel()
				if err != nil {
					// Not back to the pool for someone else to wait on.
					cctx, cancel := context.WithTimeout(context.Background(), time.Second)
					_ = conn.Conn().Close(cctx)
					cancel()
					return fmt.Errorf("listening connection does not answer: %w", err)
				}
			}
		}()
		if ctx.Err() != nil {
			return
		}
		r.log.Debug("outbox listen failed; polling meanwhile", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

type row struct {
	id      int64
	kind    string
	key     string
	payload []byte
	audit   *int64 // the staff_audit row of the change that wrote it, if any
}

// AuditHeader names, on a published message, the staff_audit row of the
// staff change that caused it (writer/staff): consumers can tell who.
const AuditHeader = "Sf-Audit-Id"

func setAudit(m *nats.Msg, id *int64) {
	if id == nil {
		return
	}
	if m.Header == nil {
		m.Header = nats.Header{}
	}
	m.Header.Set(AuditHeader, strconv.FormatInt(*id, 10))
}

// Once handles one batch of pending documents and then one batch of pending
// events (the lanes Run drives separately). It returns how many rows it
// handled; the error joins the lanes' failures, and a failing lane does not
// stop the other.
func (r *Relay) Once(ctx context.Context) (int, error) {
	var total int
	var errs []error
	for _, l := range r.lanes {
		n, err := r.once(ctx, l)
		total += n
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", l.name, err))
		}
	}
	return total, errors.Join(errs...)
}

// once claims one batch of the lane's pending rows, publishes it and marks
// what JetStream acknowledged (or refused for good) as sent, in one
// transaction. Rows whose publish failed otherwise stay pending and the error
// is returned with the count of rows handled: acknowledged rows are not held
// back by the others (an acknowledged event is not sent again, so a stream
// refusing events for longer than its duplicate window stores none twice). If
// the transaction fails, every row stays pending.
func (r *Relay) once(ctx context.Context, l *lane) (int, error) {
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin relay tx: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	rs, err := tx.Query(ctx, `SELECT id, kind, key, payload, audit_id FROM outbox WHERE sent_at IS NULL AND kind = $2
		ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, r.cfg.Batch, l.kind)
	if err != nil {
		return 0, fmt.Errorf("claim outbox rows: %w", err)
	}
	var rows []row
	for rs.Next() {
		var x row
		if err := rs.Scan(&x.id, &x.kind, &x.key, &x.payload, &x.audit); err != nil {
			rs.Close()
			return 0, fmt.Errorf("scan outbox row: %w", err)
		}
		rows = append(rows, x)
	}
	if err := rs.Err(); err != nil {
		return 0, fmt.Errorf("claim outbox rows: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	var keys []string
	seen := map[string]bool{}
	for _, x := range rows {
		if x.kind == "kv" && !seen[x.key] {
			seen[x.key] = true
			keys = append(keys, x.key)
		}
	}
	var docs map[string][]byte
	if len(keys) > 0 {
		// Serialise per key across relays, always locking in one order so two
		// relays never deadlock: the relay that publishes last builds last.
		// A work's counters and its document share one lock (lockName), so
		// the later of the two in the bucket is never the older.
		locks := make([]string, len(keys))
		for i, k := range keys {
			locks[i] = lockName(k)
		}
		if _, err := tx.Exec(ctx, `SELECT count(pg_advisory_xact_lock(h)) FROM
			(SELECT DISTINCT hashtextextended(k, 0) h FROM unnest($1::text[]) k ORDER BY 1) s`, locks); err != nil {
			return 0, fmt.Errorf("lock outbox keys: %w", err)
		}
		if docs, err = r.build(ctx, tx, keys); err != nil {
			return 0, fmt.Errorf("build documents: %w", err)
		}
	}
	res := r.publish(ctx, rows, docs)
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	for id, reason := range res.refused {
		r.log.Error("outbox row refused for good; marked with the error", "id", id, "lane", l.name, "err", reason)
		if _, err := tx.Exec(ctx, `UPDATE outbox SET error = $2 WHERE id = $1`, id, reason); err != nil {
			return 0, fmt.Errorf("mark refused outbox row: %w", err)
		}
	}
	if len(res.done) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE outbox SET sent_at = now() WHERE id = ANY($1)`, res.done); err != nil {
			return 0, fmt.Errorf("mark outbox rows sent: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		// Published but not marked: the rows go out again, which is harmless
		// (documents are idempotent, events carry a message id).
		return 0, fmt.Errorf("commit relay tx: %w", err)
	}
	r.sent.Add(float64(len(res.done)))
	r.refused.WithLabelValues(l.kind).Add(float64(len(res.refused)))
	return len(res.done), res.err
}

// lockName is the advisory lock a document is built under: its key, except
// that a work's counters (stat.<pid>) take the work's (prod.<pid>): both
// carry the counters, and an edge applies whichever comes later.
func lockName(key string) string {
	if pid, ok := strings.CutPrefix(key, contract.KeyStat); ok {
		return contract.KeyProduct + pid
	}
	return key
}

// permanent reports whether JetStream refused a message for good (too big,
// malformed): retrying cannot help.
func permanent(err error) bool {
	var je jetstream.JetStreamError
	if errors.Is(err, nats.ErrMaxPayload) {
		return true
	}
	if errors.As(err, &je) && je.APIError() != nil {
		return je.APIError().Code == 400
	}
	return false
}

// published is what became of a batch.
type published struct {
	// done: rows to mark sent: acknowledged, refused for good, or never
	// publishable.
	done []int64
	// refused: the rows of done that carry an error (id -> reason).
	refused map[int64]string
	// err: the first other failure; the rows it touched are not in done and
	// stay pending.
	err error
}

// message is one JetStream publish and what became of it.
type message struct {
	msg  *nats.Msg
	opts []jetstream.PublishOpt
	ids  []int64 // outbox rows it settles (none for a volume page)
	f    jetstream.PubAckFuture
	// Outcome: acked, or err (nil with !acked: not sent or no ack yet).
	acked bool
	err   error
	// pages must be stored before this head is published; stale are page
	// keys its work no longer has, deleted once it is acked.
	pages []*message
	stale []string
}

// pageWindow is how many volume pages the relay has in flight at most.
const pageWindow = 1000

// errNotSent marks messages a batch did not get to publish.
var errNotSent = errors.New("not published: an earlier publish of the batch failed")

// publish sends the batch and waits for the acks. A document key that occurs
// in several rows is published once and its outcome applies to all of them.
//
// A work's head (prod.<pid>) names volume pages the builder returned beside
// it (vols.<pid>.<i>, contract.SplitVolumes). Pages go to their own bucket
// first, and a head goes out only once JetStream has stored every page it
// names: an edge that sees a head can always get its pages. A head whose
// page failed stays pending with its rows (a page refused for good refuses
// the head's rows with the page's reason). Pages whose hash the head
// already in the bucket names for the same index are not sent again, so a
// rename of a 10,000-episode work is one head; pages past a shrunk work's
// last one (or all of a deleted work's) are deleted after its head.
func (r *Relay) publish(ctx context.Context, rows []row, docs map[string][]byte) published {
	res := published{refused: map[int64]string{}}
	settle := func(ids []int64, reason string) {
		res.done = append(res.done, ids...)
		if reason != "" {
			for _, id := range ids {
				res.refused[id] = reason
			}
		}
	}
	var msgs []*message
	byKey := map[string]*message{}
	for _, x := range rows {
		switch x.kind {
		case "kv":
			if m, ok := byKey[x.key]; ok {
				// Rows merge into the latest state: the latest author names it.
				m.ids = append(m.ids, x.id)
				setAudit(m.msg, x.audit)
				continue
			}
			m := &message{msg: &nats.Msg{Subject: contract.KVSubject(x.key)}, ids: []int64{x.id}}
			if b, ok := docs[x.key]; ok {
				m.msg.Data = b
			} else {
				m.msg.Header = nats.Header{"KV-Operation": []string{"DEL"}}
			}
			setAudit(m.msg, x.audit)
			byKey[x.key] = m
			msgs = append(msgs, m)
		case "ev":
			var ev struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(x.payload, &ev); err != nil || ev.ID == "" {
				// A row that can never be published would block the outbox.
				settle([]int64{x.id}, fmt.Sprintf("malformed event (no id): %v", err))
				continue
			}
			m := &nats.Msg{Subject: x.key, Data: x.payload}
			setAudit(m, x.audit)
			msgs = append(msgs, &message{msg: m,
				opts: []jetstream.PublishOpt{jetstream.WithMsgID(ev.ID)}, ids: []int64{x.id}})
		default:
			settle([]int64{x.id}, "unknown outbox kind "+x.kind)
		}
	}
	pages := r.planPages(ctx, byKey, docs)
	// In windows: a batch of long works is tens of thousands of pages, and
	// more than the connection's async in-flight limit (4,000) stalls each
	// publish past it until acks arrive, failing the batch when they are slow.
	for i := 0; i < len(pages); i += pageWindow {
		if err := r.send(ctx, pages[i:min(i+pageWindow, len(pages))]); err != nil {
			res.err = err
			return res
		}
	}
	var ready []*message
	for _, m := range msgs {
		blocked := false
		for _, pg := range m.pages {
			switch {
			case pg.acked:
			case permanent(pg.err):
				settle(m.ids, fmt.Sprintf("volume page %s: %v", pg.msg.Subject, pg.err))
				blocked = true
			default:
				if res.err == nil {
					res.err = fmt.Errorf("publish %s: %w", pg.msg.Subject, cmp.Or(pg.err, errNotSent))
				}
				blocked = true
			}
			if blocked {
				break
			}
		}
		if !blocked {
			ready = append(ready, m)
		}
	}
	if err := r.send(ctx, ready); err != nil {
		res.err = err
		return res
	}
	var stale []*message
	for _, m := range ready {
		switch {
		case m.acked:
			settle(m.ids, "")
			for _, k := range m.stale {
				stale = append(stale, &message{msg: &nats.Msg{Subject: contract.KVSubject(k),
					Header: nats.Header{"KV-Operation": []string{"DEL"}}}})
			}
		case permanent(m.err):
			settle(m.ids, m.err.Error())
		case res.err == nil && m.err != nil:
			res.err = fmt.Errorf("publish %s: %w", m.msg.Subject, m.err)
		}
	}
	if len(stale) > 0 {
		// A page no head names is never read: one left behind by a failure
		// here costs bucket bytes, not correctness.
		if err := r.send(ctx, stale); err != nil {
			res.err = cmp.Or(res.err, err)
			return res
		}
		for _, m := range stale {
			if !m.acked {
				r.log.Warn("stale volume page not deleted; harmless, no head names it", "subject", m.msg.Subject, "err", m.err)
			}
		}
	}
	return res
}

// send publishes msgs asynchronously and waits for their acks up to
// AckTimeout, recording each one's outcome. It returns an error only when
// ctx ended (outcomes are then incomplete).
func (r *Relay) send(ctx context.Context, msgs []*message) error {
	var sent []*message
	for i, m := range msgs {
		f, err := r.js.PublishMsgAsync(m.msg, m.opts...)
		if err != nil {
			m.err = err
			if permanent(err) {
				continue
			}
			// The connection takes no more now: the rest waits for the next try.
			for _, rest := range msgs[i+1:] {
				rest.err = errNotSent
			}
			break
		}
		m.f = f
		sent = append(sent, m)
	}
	timer := time.NewTimer(r.cfg.AckTimeout)
	defer timer.Stop()
	timedOut := false
	for _, m := range sent {
		select {
		case <-m.f.Ok():
			m.acked = true
		case m.err = <-m.f.Err():
		default:
			if timedOut {
				// Only collect what has arrived; the rest stays pending.
				m.err = errNoAck
				continue
			}
			select {
			case <-m.f.Ok():
				m.acked = true
			case m.err = <-m.f.Err():
			case <-timer.C:
				timedOut = true
				m.err = errNoAck
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// errNoAck: JetStream did not acknowledge within AckTimeout.
var errNoAck = errors.New("no JetStream ack within timeout")

// planPages attaches to each head being published the page documents docs
// holds for it that the bucket does not already hold, and the page keys to
// delete after it: those the head in the bucket names beyond the new head's
// pages (all of them when the head is deleted). The head in the bucket is
// the truth of what pages were stored (pages are stored before their head),
// so a NATS that lost its data gets every page again; a head that cannot be
// read or is of the inline shape (CatalogSchema 1) leaves every page to send.
// It returns the page messages in a stable order.
func (r *Relay) planPages(ctx context.Context, heads map[string]*message, docs map[string][]byte) []*message {
	var keys []string
	for k := range heads {
		if strings.HasPrefix(k, contract.KeyProduct) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	prev := r.previousHeads(ctx, keys)
	var out []*message
	for _, k := range keys {
		m := heads[k]
		pid := strings.TrimPrefix(k, contract.KeyProduct)
		old := prev[k]
		var next *contract.VolumeIndex
		if m.msg.Data != nil {
			var h struct {
				VolumeIndex *contract.VolumeIndex `json:"volumeIndex"`
			}
			if err := json.Unmarshal(m.msg.Data, &h); err == nil {
				next = h.VolumeIndex
			}
		}
		have := map[int]string{}
		if old != nil {
			for _, ref := range old.Pages {
				have[ref.Index] = ref.Hash
			}
		}
		want := map[int]bool{}
		if next != nil {
			for _, ref := range next.Pages {
				want[ref.Index] = true
				if have[ref.Index] == ref.Hash {
					continue
				}
				pk := contract.VolumePageKey(pid, ref.Index)
				if b, ok := docs[pk]; ok {
					pg := &message{msg: &nats.Msg{Subject: contract.KVSubject(pk), Data: b}}
					m.pages = append(m.pages, pg)
					out = append(out, pg)
				}
			}
		}
		if old != nil {
			for _, ref := range old.Pages {
				if !want[ref.Index] {
					m.stale = append(m.stale, contract.VolumePageKey(pid, ref.Index))
				}
			}
		}
	}
	return out
}

// previousHeads reads the heads of keys now in the catalog bucket (their
// VolumeIndex; nil when absent, unreadable or inline) and which of its pages
// the volumes bucket holds: two requests per work, 32 works at once, so a
// relay batch of 500 works waits for about 2 x 500/32 round trips.
func (r *Relay) previousHeads(ctx context.Context, keys []string) map[string]*contract.VolumeIndex {
	out := make(map[string]*contract.VolumeIndex, len(keys))
	// With NATS unreachable every get would wait for its own timeout: the
	// whole read is bounded, and a head not read in time gets every page.
	ctx, cancel := context.WithTimeout(ctx, r.cfg.AckTimeout)
	defer cancel()
	kv, pages, err := r.buckets(ctx)
	if err != nil {
		r.log.Debug("catalog buckets unreadable; sending every volume page", "err", err)
		return out
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for _, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			e, err := kv.Get(ctx, k)
			if err != nil {
				return
			}
			var h struct {
				VolumeIndex *contract.VolumeIndex `json:"volumeIndex"`
			}
			if json.Unmarshal(e.Value(), &h) != nil || h.VolumeIndex == nil {
				return
			}
			if len(h.VolumeIndex.Pages) > 0 {
				// Which of the pages it names the volumes bucket holds: one
				// request per work, so a bucket of pages that lost its data
				// (or was restored older than the heads) gets them again.
				pid := strings.TrimPrefix(k, contract.KeyProduct)
				info, err := pages.Info(ctx, jetstream.WithSubjectFilter(contract.KVSubject(contract.KeyVolumePage+pid+".>")))
				if err != nil {
					return
				}
				held := h.VolumeIndex.Pages[:0]
				for _, ref := range h.VolumeIndex.Pages {
					if info.State.Subjects[contract.KVSubject(contract.VolumePageKey(pid, ref.Index))] > 0 {
						held = append(held, ref)
					}
				}
				h.VolumeIndex.Pages = held
			}
			mu.Lock()
			out[k] = h.VolumeIndex
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// buckets are the catalog bucket and the stream of the volumes bucket,
// looked up once.
func (r *Relay) buckets(ctx context.Context) (jetstream.KeyValue, jetstream.Stream, error) {
	r.kvMu.Lock()
	defer r.kvMu.Unlock()
	if r.kv != nil {
		return r.kv, r.pages, nil
	}
	kv, err := r.js.KeyValue(ctx, contract.CatalogBucket)
	if err != nil {
		return nil, nil, err
	}
	pages, err := r.js.Stream(ctx, "KV_"+contract.VolumesBucket)
	if err != nil {
		return nil, nil, err
	}
	r.kv, r.pages = kv, pages
	return kv, pages, nil
}

// Pending counts rows not yet sent.
func (r *Relay) Pending(ctx context.Context) (int64, error) {
	var n int64
	err := r.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE sent_at IS NULL`).Scan(&n)
	return n, err
}

// Route dispatches keys to builders by key prefix (contract.KeyProduct, ...).
// Keys of no route get no document, which deletes them from the bucket.
func Route(routes map[string]Builder) Builder {
	return func(ctx context.Context, tx pgx.Tx, keys []string) (map[string][]byte, error) {
		groups := map[string][]string{}
		for _, k := range keys {
			for p := range routes {
				if strings.HasPrefix(k, p) {
					groups[p] = append(groups[p], k)
					break
				}
			}
		}
		out := make(map[string][]byte, len(keys))
		for p, ks := range groups {
			docs, err := routes[p](ctx, tx, ks)
			if err != nil {
				return nil, err
			}
			for k, v := range docs {
				out[k] = v
			}
		}
		return out, nil
	}
}
