package httpapi

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrUnavailable is the answer when the database cannot be reached: the client
// may retry (with the same Idempotency-Key for money calls).
var ErrUnavailable = &Error{Code: http.StatusServiceUnavailable, Msg: "일시적으로 서비스를 이용할 수 없습니다. 잠시 후 다시 시도해 주세요."}

// Unavailable reports whether err means PostgreSQL could not be reached or
// went away under the request (stopped, restarting, connection lost), as
// opposed to a fault of the request or of our code. Such errors answer 503:
// a PostgreSQL restart is an outage the client should ride out, not a bug.
// The outcome of a write that fails this way may be unknown (the commit may
// have landed before the connection broke); money calls are idempotent by key,
// so the client's retry finds out.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 08: connection exception; 57P01-57P03: shutting down, crashed,
		// starting up; 57014 and 55P03: the writer's statement_timeout or
		// lock_timeout ran out (something holds a lock or the database is
		// overloaded: the client retries, rather than waiting on).
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" ||
			pe.Code == "57014" || pe.Code == "55P03"
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	// The server closed the connection in the middle of a statement.
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, pgconn.ErrConnClosed) ||
		pgconn.SafeToRetry(err)
}
