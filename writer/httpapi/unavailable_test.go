package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"storefront/writer/httpapi"
)

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// downErr is the error pgx gives when PostgreSQL is not running.
func downErr(t *testing.T) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", closedPort(t)))
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	return fmt.Errorf("session: %w", err)
}

func TestUnavailableClassifiesDatabaseOutages(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"server not running", downErr(t), true},
		{"shutting down (57P01)", fmt.Errorf("lock wallet: %w", &pgconn.PgError{Code: "57P01"}), true},
		{"starting up (57P03)", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure (08006)", &pgconn.PgError{Code: "08006"}, true},
		{"connection lost mid-statement", fmt.Errorf("apply purchase: %w", io.ErrUnexpectedEOF), true},
		{"closed connection", fmt.Errorf("x: %w", pgconn.ErrConnClosed), true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"check violation", &pgconn.PgError{Code: "23514"}, false},
		{"our bug", errors.New("nil map"), false},
		{"nil", nil, false},
	} {
		if got := httpapi.Unavailable(c.err); got != c.want {
			t.Errorf("%s: Unavailable(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// A request that fails because PostgreSQL is down answers a 503 envelope, not
// a 500: the client should retry, nothing is wrong with the request or us.
func TestWriteErrorDatabaseDownIs503(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		err  error
		want int
	}{{downErr(t), 503}, {errors.New("a bug"), 500}} {
		w := httptest.NewRecorder()
		httpapi.WriteError(w, httptest.NewRequest("POST", "/home/api/v1/purchases", nil), log, c.err)
		var env struct {
			Header struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"header"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
			t.Fatalf("%v: body %s", err, w.Body)
		}
		if w.Code != c.want || env.Header.Code != c.want || env.Header.Message == "" {
			t.Errorf("%v: %d %s, want %d envelope", c.err, w.Code, w.Body, c.want)
		}
	}
}
