package money

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pipeTx is a transaction on one pooled connection whose BEGIN travels in the
// same round trip as its first statements (the wallet lock) and whose COMMIT
// in the same round trip as its writes: a purchase waits for two round trips
// to the database instead of four, and the server wakes up half as often.
// Each round trip is a pipeline with one Sync, so a failing statement makes
// the server skip the rest, COMMIT included; the transaction is then rolled
// back by inPipeTx.
//
// It satisfies pgx.Tx for the operations' code, which runs statements on it
// between the two round trips.
type pipeTx struct {
	conn  *pgx.Conn
	begun bool
}

var _ pgx.Tx = (*pipeTx)(nil)

// queueBegin adds BEGIN in front of the first batch of the transaction.
func (t *pipeTx) queueBegin(b *pgx.Batch) {
	if !t.begun {
		b.Queue("BEGIN")
		t.begun = true
	}
}

// begin starts the transaction if no batch did yet.
func (t *pipeTx) begin(ctx context.Context) error {
	if t.begun {
		return nil
	}
	t.begun = true
	if _, err := t.conn.Exec(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return nil
}

func (t *pipeTx) Begin(context.Context) (pgx.Tx, error) {
	return nil, errors.New("money: no nested transactions in a money operation")
}

func (t *pipeTx) Commit(ctx context.Context) error {
	tag, err := t.conn.Exec(ctx, "COMMIT")
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if tag.String() != "COMMIT" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

func (t *pipeTx) Rollback(ctx context.Context) error {
	if _, err := t.conn.Exec(ctx, "ROLLBACK"); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

func (t *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.conn.CopyFrom(ctx, table, cols, src)
}

func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.conn.SendBatch(ctx, b)
}

func (t *pipeTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (t *pipeTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Prepare(ctx, name, sql)
}

func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.conn.Exec(ctx, sql, args...)
}

func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.conn.Query(ctx, sql, args...)
}

func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.conn.QueryRow(ctx, sql, args...)
}

func (t *pipeTx) Conn() *pgx.Conn { return t.conn }

// inPipeTx runs fn on a pipeTx. fn sends BEGIN with its first batch (or
// calls begin) and may end the transaction itself by queuing COMMIT with its
// last writes; a transaction fn left open is committed when fn succeeded and
// rolled back otherwise. Serialization failures and deadlocks are retried,
// so fn must be safe to run again.
func (s *Service) inPipeTx(ctx context.Context, fn func(tx *pipeTx) error) error {
	var err error
	for attempt := 0; attempt < 8; attempt++ {
		err = s.pipeTxOnce(ctx, fn)
		if !retryable(err) {
			return err
		}
		s.log.Debug("money: retrying transaction", "attempt", attempt, "err", err)
	}
	return err
}

func (s *Service) pipeTxOnce(ctx context.Context, fn func(tx *pipeTx) error) (err error) {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	// A connection released inside a transaction is closed by the pool, so
	// a failed ROLLBACK cannot leak a transaction to the next user.
	defer pc.Release()
	tx := &pipeTx{conn: pc.Conn()}
	err = fn(tx)
	if !tx.begun || pc.Conn().PgConn().TxStatus() == 'I' {
		return err
	}
	if err != nil {
		if rerr := tx.Rollback(context.WithoutCancel(ctx)); rerr != nil {
			s.log.Debug("money: rollback failed", "err", rerr)
		}
		return err
	}
	return tx.Commit(ctx)
}
