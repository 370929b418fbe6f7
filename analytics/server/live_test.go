package server_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"storefront/analytics/server"
)

// A live analytics node refuses the development secret of the analyst cookie
// (anyone could sign themselves an analyst with it).
func TestLiveModeRefusesTheDevAnalystSecret(t *testing.T) {
	_, err := server.New(context.Background(), server.Config{CookieMode: "live", ClickHouseURL: "clickhouse://127.0.0.1:1/x"}, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "ANALYST_SECRET") {
		t.Fatalf("live analytics with the dev secret: %v", err)
	}
}
