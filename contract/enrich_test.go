package contract_test

import (
	"strings"
	"testing"

	"storefront/contract"
)

func TestEnrich(t *testing.T) {
	salt := []byte("s")
	e := contract.Enrich(salt, "aw", "6.1.0", "203.0.113.7", "Mozilla/5.0 (iPhone)", "0f1e2d3c4b5a6978")
	want := contract.Enrichment{Channel: "AW", AppVersion: "6.1.0", IPHash: contract.IPHash(salt, "203.0.113.7"),
		UAClass: "android-web", SessionID: "0f1e2d3c4b5a6978"}
	if e != want {
		t.Fatalf("got %+v, want %+v", e, want)
	}
	if h := contract.IPHash([]byte("other"), "203.0.113.7"); h == e.IPHash || len(h) != 32 {
		t.Fatalf("hash %q must be 32 hex digits and depend on the salt", h)
	}
	for _, bad := range []string{"", "short", strings.Repeat("a", 65), "0f1e2d3c 4b5a6978", "0f1e2d3c4b5a6978;x"} {
		if e := contract.Enrich(salt, "", "", "", "", bad); e.SessionID != "" {
			t.Errorf("session %q accepted", bad)
		}
	}
	e = contract.Enrich(salt, "AWAWAWAWAW", strings.Repeat("9", 100), "", "Googlebot/2.1", "")
	if len(e.Channel) != 8 || len(e.AppVersion) != 32 || e.IPHash != "" || e.UAClass != "bot" {
		t.Fatalf("bounds: %+v", e)
	}
	// Apply fills only what the producer left empty.
	ev := contract.TrackedEvent{Channel: "IA"}
	want.Apply(&ev)
	if ev.Channel != "IA" || ev.SessionID != want.SessionID || ev.IPHash != want.IPHash || ev.UAClass != want.UAClass {
		t.Fatalf("applied: %+v", ev)
	}
}
