package contract

import (
	"testing"
	"time"
)

// A bundle written by AppendEventLine reads back, event by event, with
// EachEventLine; empty lines are skipped.
func TestEventLinesRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC)
	var body []byte
	var want []string
	for _, id := range []string{"line-a-0123456789", "line-b-0123456789", "line-c-0123456789"} {
		ev := &TrackedEvent{V: EventSchemaVersion, ID: id, Type: EvPageView, Time: at, URL: "/webtoon\n?x=줄"}
		var err error
		if body, err = AppendEventLine(body, ev); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	body = append(append([]byte("\n"), body...), '\n', '\n')
	var got []string
	EachEventLine(body, func(line []byte) {
		var ev TrackedEvent
		if err := DecodeEvent(line, &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, ev.ID)
	})
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("read %v, want %v", got, want)
	}
}
