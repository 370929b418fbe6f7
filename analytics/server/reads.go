package server

import (
	"context"
	"errors"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// retryingConn is a ClickHouse connection that asks again, up to readTries
// times and after a pause, a call that failed on the connection (not an error
// the server answered with). A replica that is stopping resets the pooled
// connections to it, and more than one may be taken before the pool dials
// afresh and finds the next replica of the URL that answers. It wraps the
// reads of reports and rankings (they change nothing, so asking again is
// safe) and the opening of the reports' audit INSERT (PrepareBatch writes
// nothing before Send; a stopping replica must not turn the audit row into a
// refused report: the replica drill met that 503). Not for calls that write
// when they fail halfway.
type retryingConn struct{ driver.Conn }

const readTries = 4

// again reports whether a read that failed with err on try (from 1) is
// worth another, after waiting a little longer each time.
func again(ctx context.Context, try int, err error) bool {
	var ex *clickhouse.Exception
	if err == nil || try >= readTries || errors.As(err, &ex) {
		return false
	}
	t := time.NewTimer(time.Duration(try) * 100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (c retryingConn) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	for try := 1; ; try++ {
		rows, err := c.Conn.Query(ctx, query, args...)
		if !again(ctx, try, err) {
			return rows, err
		}
	}
}

func (c retryingConn) QueryRow(ctx context.Context, query string, args ...any) driver.Row {
	for try := 1; ; try++ {
		row := c.Conn.QueryRow(ctx, query, args...)
		if !again(ctx, try, row.Err()) {
			return row
		}
	}
}

func (c retryingConn) Select(ctx context.Context, dest any, query string, args ...any) error {
	for try := 1; ; try++ {
		err := c.Conn.Select(ctx, dest, query, args...)
		if !again(ctx, try, err) {
			return err
		}
	}
}

func (c retryingConn) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	for try := 1; ; try++ {
		b, err := c.Conn.PrepareBatch(ctx, query, opts...)
		if !again(ctx, try, err) {
			return b, err
		}
	}
}
