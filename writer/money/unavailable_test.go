package money_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/writer/money"
)

// With PostgreSQL down (a restart, an outage) money calls answer a clean 503
// envelope, never a 500: the client retries with the same Idempotency-Key.
// The fault drill drills/postgres_test.go checks the same under load with a
// real restart.
func TestDatabaseDownIs503(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	pool, err := pgxpool.New(context.Background(), fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	svc := money.New(pool, money.Config{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	mux := http.NewServeMux()
	svc.Routes(mux, func(*http.Request) (int64, bool) { return 7, true })
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/home/api/v1/purchases", `{"pid":"P1","vols":[1],"buyType":"B"}`},
		{"GET", "/home/api/v1/wallet", ""},
	} {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(money.IdempotencyHeader, "drill-key")
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		var env struct {
			Header struct {
				Code int `json:"code"`
			} `json:"header"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &env)
		if w.Code != 503 || env.Header.Code != 503 {
			t.Errorf("%s %s with the database down: %d %s, want a 503 envelope", c.method, c.path, w.Code, w.Body)
		}
	}
}
