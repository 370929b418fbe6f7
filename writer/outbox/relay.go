package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
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
	return c
}

// DefaultPoll is the poll interval when Config.Poll is zero. An empty poll
// is one indexed read, so a short interval costs little and bounds how long a
// row committed without a wake-up for this relay waits.
const DefaultPoll = 250 * time.Millisecond

// Relay publishes outbox rows. Run it once per writer node.
type Relay struct {
	pool   *pgxpool.Pool
	js     jetstream.JetStream
	build  Builder
	cfg    Config
	log    *slog.Logger
	wake   chan struct{}
	sent   prometheus.Counter
	failed prometheus.Counter
}

// New makes a relay. reg may be nil.
func New(pool *pgxpool.Pool, js jetstream.JetStream, build Builder, cfg Config, log *slog.Logger, reg prometheus.Registerer) *Relay {
	r := &Relay{
		pool: pool, js: js, build: build, cfg: cfg.withDefaults(), log: log,
		wake: make(chan struct{}, 1),
		sent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "writer_outbox_sent_total", Help: "Outbox rows published and marked sent."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "writer_outbox_failures_total", Help: "Relay batches that failed and were retried."}),
	}
	if reg != nil {
		reg.MustRegister(r.sent, r.failed)
	}
	return r
}

// Wake makes the relay look for rows now. Call it after every commit that
// wrote outbox rows on this node; it never blocks (wake-ups coalesce).
func (r *Relay) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run publishes rows until ctx is done. It returns nil on a clean stop.
func (r *Relay) Run(ctx context.Context) error {
	go r.listen(ctx)
	poll := time.NewTicker(r.cfg.Poll)
	defer poll.Stop()
	purge := time.NewTicker(time.Minute)
	defer purge.Stop()
	backoff := 50 * time.Millisecond
	for {
		n, err := r.Once(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			r.failed.Inc()
			r.log.Warn("outbox relay batch failed; rows kept for retry", "err", err, "retry_in", backoff)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, r.cfg.MaxBackoff)
			continue
		}
		backoff = 50 * time.Millisecond
		if n >= r.cfg.Batch {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.wake:
		case <-poll.C:
		case <-purge.C:
			if _, err := r.pool.Exec(ctx, `DELETE FROM outbox WHERE sent_at < now() - make_interval(secs => $1)`, r.cfg.Keep.Seconds()); err != nil {
				r.log.Warn("purge sent outbox rows", "err", err)
			}
		}
	}
}

// listen turns notifications on Channel (sent by Notify from low-rate
// writers such as the admin API and imports) into wake-ups, so such a change
// is published within milliseconds even when its own node cannot.
func (r *Relay) listen(ctx context.Context) {
	for ctx.Err() == nil {
		err := func() error {
			conn, err := r.pool.Acquire(ctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
				return err
			}
			defer func() {
				// The connection goes back to the pool: stop listening on it.
				c, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				_, _ = conn.Exec(c, "UNLISTEN "+Channel)
			}()
			for {
				if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
					return err
				}
				r.Wake()
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
}

// Once claims one batch of pending rows, publishes it and marks it sent, all in
// one transaction: if anything fails the transaction rolls back and the rows
// stay pending. It returns how many rows it handled.
func (r *Relay) Once(ctx context.Context) (int, error) {
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin relay tx: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	rs, err := tx.Query(ctx, `SELECT id, kind, key, payload FROM outbox WHERE sent_at IS NULL
		ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, r.cfg.Batch)
	if err != nil {
		return 0, fmt.Errorf("claim outbox rows: %w", err)
	}
	var rows []row
	for rs.Next() {
		var x row
		if err := rs.Scan(&x.id, &x.kind, &x.key, &x.payload); err != nil {
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
		if _, err := tx.Exec(ctx, `SELECT count(pg_advisory_xact_lock(h)) FROM
			(SELECT hashtextextended(k, 0) h FROM unnest($1::text[]) k ORDER BY 1) s`, keys); err != nil {
			return 0, fmt.Errorf("lock outbox keys: %w", err)
		}
		if docs, err = r.build(ctx, tx, keys); err != nil {
			return 0, fmt.Errorf("build documents: %w", err)
		}
	}
	refused, err := r.publish(ctx, rows, docs)
	if err != nil {
		return 0, err
	}
	for id, reason := range refused {
		r.log.Error("JetStream refused an outbox row for good; marked with the error", "id", id, "err", reason)
		if _, err := tx.Exec(ctx, `UPDATE outbox SET error = $2 WHERE id = $1`, id, reason); err != nil {
			return 0, fmt.Errorf("mark refused outbox row: %w", err)
		}
	}
	ids := make([]int64, len(rows))
	for i, x := range rows {
		ids[i] = x.id
	}
	if _, err := tx.Exec(ctx, `UPDATE outbox SET sent_at = now() WHERE id = ANY($1)`, ids); err != nil {
		return 0, fmt.Errorf("mark outbox rows sent: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		// Published but not marked: the rows go out again, which is harmless
		// (documents are idempotent, events carry a message id).
		return 0, fmt.Errorf("commit relay tx: %w", err)
	}
	r.sent.Add(float64(len(rows)))
	return len(rows), nil
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

// publish sends the batch and waits for every ack. It returns the rows
// JetStream refused for good (id -> reason); any other failure is an error and
// the whole batch is retried.
func (r *Relay) publish(ctx context.Context, rows []row, docs map[string][]byte) (map[int64]string, error) {
	refused := map[int64]string{}
	futures := make([]jetstream.PubAckFuture, 0, len(rows))
	futureRow := make([]int64, 0, len(rows))
	done := map[string]bool{}
	for _, x := range rows {
		var msg *nats.Msg
		var opts []jetstream.PublishOpt
		switch x.kind {
		case "kv":
			if done[x.key] {
				continue
			}
			done[x.key] = true
			msg = &nats.Msg{Subject: "$KV." + contract.CatalogBucket + "." + x.key}
			if b, ok := docs[x.key]; ok {
				msg.Data = b
			} else {
				msg.Header = nats.Header{"KV-Operation": []string{"DEL"}}
			}
		case "ev":
			var ev struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(x.payload, &ev); err != nil || ev.ID == "" {
				// A row that can never be published would block the outbox.
				r.log.Error("dropping malformed outbox event", "id", x.id, "err", err)
				continue
			}
			msg = &nats.Msg{Subject: x.key, Data: x.payload}
			opts = append(opts, jetstream.WithMsgID(ev.ID))
		default:
			r.log.Error("dropping outbox row of unknown kind", "id", x.id, "kind", x.kind)
			continue
		}
		f, err := r.js.PublishMsgAsync(msg, opts...)
		if err != nil {
			if permanent(err) {
				refused[x.id] = err.Error()
				continue
			}
			return nil, fmt.Errorf("publish %s: %w", msg.Subject, err)
		}
		futures = append(futures, f)
		futureRow = append(futureRow, x.id)
	}
	timer := time.NewTimer(r.cfg.AckTimeout)
	defer timer.Stop()
	for i, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			if permanent(err) {
				refused[futureRow[i]] = err.Error()
				continue
			}
			return nil, fmt.Errorf("publish %s: %w", f.Msg().Subject, err)
		case <-timer.C:
			return nil, errors.New("publish: no JetStream ack within timeout")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return refused, nil
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
