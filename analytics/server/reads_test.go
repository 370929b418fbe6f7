package server

import (
	"context"
	"io"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// flakyConn fails its first calls as a connection reset by a stopping
// replica does, or with the error the server answered.
type flakyConn struct {
	driver.Conn
	fails int
	err   error
	calls int
}

func (c *flakyConn) PrepareBatch(context.Context, string, ...driver.PrepareBatchOption) (driver.Batch, error) {
	c.calls++
	if c.calls <= c.fails {
		return nil, c.err
	}
	return nil, nil
}

func (c *flakyConn) Select(context.Context, any, string, ...any) error {
	c.calls++
	if c.calls <= c.fails {
		return c.err
	}
	return nil
}

func TestRetryingConnAsksAgainOnlyAfterConnectionErrors(t *testing.T) {
	ctx := context.Background()
	reset := io.ErrUnexpectedEOF
	answered := &clickhouse.Exception{Code: 60, Message: "Table default.nope doesn't exist"}
	for _, tc := range []struct {
		name      string
		fails     int
		err       error
		wantCalls int
		wantErr   bool
	}{
		{"reset twice then answered", 2, reset, 3, false},
		{"reset on every try gives up", 10, reset, readTries, true},
		{"the server's own error is not asked again", 1, answered, 1, true},
	} {
		t.Run("select "+tc.name, func(t *testing.T) {
			c := &flakyConn{fails: tc.fails, err: tc.err}
			err := retryingConn{c}.Select(ctx, nil, "SELECT 1")
			if (err != nil) != tc.wantErr || c.calls != tc.wantCalls {
				t.Fatalf("err %v after %d calls, want error %v after %d", err, c.calls, tc.wantErr, tc.wantCalls)
			}
		})
		// The reports' audit insert goes through PrepareBatch: a stopping
		// replica must not refuse the report (503) when the next one answers.
		t.Run("prepare batch "+tc.name, func(t *testing.T) {
			c := &flakyConn{fails: tc.fails, err: tc.err}
			_, err := retryingConn{c}.PrepareBatch(ctx, "INSERT INTO report_audit")
			if (err != nil) != tc.wantErr || c.calls != tc.wantCalls {
				t.Fatalf("err %v after %d calls, want error %v after %d", err, c.calls, tc.wantErr, tc.wantCalls)
			}
		})
	}
}
