// Package outbox is the writer's transactional outbox: every change readers see
// writes an outbox row in the same PostgreSQL transaction as the change, and the
// Relay publishes the rows to JetStream (catalog documents to the KV bucket,
// business events to the EVENTS stream), at least once. Documents and events
// are two independent lanes, each in commit order: a full EVENTS stream
// (analytics far behind) holds back events, never the catalog.
//
// A row is never lost: it is marked sent only after JetStream acknowledged it.
// Several relays (one per writer node) may run against one database; rows are
// claimed with FOR UPDATE SKIP LOCKED and documents of one key are published
// under a per-key advisory lock, so the last document published for a key is
// always built from the latest committed state.
//
// Wake-ups: the code that commits outbox rows calls its node's Relay.Wake
// after the commit (the writer's services take it as a Changed func), so its
// own relay publishes at once. There is no NOTIFY per row: PostgreSQL commits
// notifying transactions one at a time under a cluster-wide lock, which would
// stop every purchase from sharing an fsync with another. Relays on other
// nodes find rows by polling (Config.Poll); low-rate writers whose changes
// should reach every node's relay at once, or that run outside a writer (the
// admin API, the bulk catalog import), also call Notify in their transaction.
package outbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"storefront/contract"
	"storefront/writer/enrich"
)

// Execer is what the enqueue functions need: a pgx.Tx (the caller's transaction).
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Doc enqueues catalog KV keys (contract key names such as "prod.P1") whose
// documents changed. The relay rebuilds each document from PostgreSQL when it
// publishes; a key whose document no longer exists is deleted from the bucket.
func Doc(ctx context.Context, tx Execer, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx,
		`INSERT INTO outbox (kind, key) SELECT 'kv', k FROM unnest($1::text[]) WITH ORDINALITY AS t(k, i) ORDER BY i`,
		keys); err != nil {
		return fmt.Errorf("enqueue docs %v: %w", keys[:min(len(keys), 3)], err)
	}
	return nil
}

// Channel is the PostgreSQL notification channel relays listen on.
const Channel = "outbox"

// Notify wakes every listening relay when tx commits. Only for low-rate
// writers (catalog admin, imports): a notifying transaction serialises its
// commit with every other notifying transaction in the cluster.
func Notify(ctx context.Context, tx Execer) error {
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, '')`, Channel); err != nil {
		return fmt.Errorf("notify outbox relays: %w", err)
	}
	return nil
}

// NewEventID returns a random id for a business event.
func NewEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Event enqueues a business event for the EVENTS stream (subject
// events.biz.<type>). Missing V, ID and Time are filled in, and so is the
// request enrichment ctx carries (writer/enrich: session id, channel, app
// version, user-agent class, IP hash) wherever ev leaves it empty. ev.ID
// becomes the JetStream message id, so a re-send is dropped by the stream.
func Event(ctx context.Context, tx Execer, ev contract.TrackedEvent) error {
	enrich.From(ctx).Apply(&ev)
	if ev.V == 0 {
		ev.V = contract.EventSchemaVersion
	}
	if ev.ID == "" {
		ev.ID = NewEventID()
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	if err := ev.Validate(); err != nil {
		return fmt.Errorf("enqueue event %s: %w", ev.Type, err)
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("marshal event %s: %w", ev.Type, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO outbox (kind, key, payload) VALUES ('ev', $1, $2)`,
		contract.BizSubject(ev.Type), b); err != nil {
		return fmt.Errorf("enqueue event %s: %w", ev.Type, err)
	}
	return nil
}
