package outbox

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"
)

// TooLargeError is a catalog document larger than NATS accepts (see
// natsutil.CatalogValueLimit). The relay could never publish it: the change
// that made it must be refused to its author, not committed.
type TooLargeError struct {
	Key       string // the document's KV key, e.g. "prod.P1"
	Size, Max int    // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("document %s is %d bytes, more than the %d NATS accepts", e.Key, e.Size, e.Max)
}

// CheckDocs builds, with build and inside tx, every catalog document tx has
// enqueued so far (its own outbox rows of kind kv, found by their xmin), as
// the relay will build them after the commit (with what the builder returns
// beside them: a work's volume pages), and returns a *TooLargeError
// for the largest one over max bytes. max <= 0 or a nil build checks nothing.
//
// For low-rate writers (the admin API): it rebuilds each changed document
// once more, and reads the pending outbox rows to find its own.
func CheckDocs(ctx context.Context, tx pgx.Tx, build Builder, max int) error {
	if max <= 0 || build == nil {
		return nil
	}
	// pg_current_xact_id() assigns this transaction its id if it has none
	// yet (it wrote nothing), which costs nothing here: a change that reaches
	// this point has written rows.
	rows, err := tx.Query(ctx, `SELECT DISTINCT key FROM outbox
		WHERE sent_at IS NULL AND kind = 'kv' AND xmin = pg_current_xact_id()::xid`)
	if err != nil {
		return fmt.Errorf("list enqueued documents: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("list enqueued documents: %w", err)
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	docs, err := build(ctx, tx, keys)
	if err != nil {
		return fmt.Errorf("build enqueued documents: %w", err)
	}
	// Every document the keys make, not only the keys': a work is its head
	// and its volume pages (catalog.BuildProducts), each one KV value.
	all := make([]string, 0, len(docs))
	for k := range docs {
		all = append(all, k)
	}
	sort.Strings(all)
	var worst *TooLargeError
	for _, k := range all {
		if n := len(docs[k]); n > max && (worst == nil || n > worst.Size) {
			worst = &TooLargeError{Key: k, Size: n, Max: max}
		}
	}
	if worst != nil {
		return worst
	}
	return nil
}
