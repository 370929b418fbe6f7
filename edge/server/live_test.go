package server_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"storefront/edge/server"
)

// A live edge refuses the development secrets it shares with the writer.
func TestLiveModeRefusesDevelopmentSecrets(t *testing.T) {
	_, err := server.New(context.Background(), server.Config{CookieMode: "live", ContentSecret: "mine"}, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "AUDIENCE_SECRET") || !strings.Contains(err.Error(), "TRACK_IP_SALT") ||
		strings.Contains(err.Error(), "CONTENT_SECRET") {
		t.Fatalf("live edge with dev secrets: %v", err)
	}
}
