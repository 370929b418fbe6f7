package trackbundle

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/natsutil"
)

func eventsJS(t *testing.T, ensure bool) (jetstream.JetStream, jetstream.Stream) {
	t.Helper()
	js := testenv.JetStream(t)
	if !ensure {
		return js, nil
	}
	if _, err := natsutil.Ensure(context.Background(), js, natsutil.Options{EventsMaxBytes: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(context.Background(), contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	return js, st
}

// publishWhileBusy holds the Bundler's only slot (a publish awaiting its ack)
// while calls queue, then frees it, and returns each call's error.
func publishWhileBusy(t *testing.T, b *Bundler, calls [][]byte) []error {
	t.Helper()
	b.slots <- struct{}{}
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = b.Publish(context.Background(), c) }()
	}
	// The first call waits in run for the slot, the others in the queue.
	for deadline := time.Now().Add(5 * time.Second); len(b.in) < len(calls)-1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d calls queued", len(b.in), len(calls)-1)
		}
	}
	<-b.slots
	wg.Wait()
	return errs
}

func bodies(t *testing.T, st jetstream.Stream) [][]byte {
	t.Helper()
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := st.GetMsg(context.Background(), seq)
		if err != nil {
			t.Fatal(err)
		}
		if m.Subject != contract.TrackBundleSubject {
			t.Fatalf("message on %s", m.Subject)
		}
		out = append(out, m.Data)
	}
	return out
}

// Calls arriving while the publishes in flight await their acks leave
// together, one message, one line per event, and each call returns once it
// is acked.
func TestBundlerGathersCallsWhilePublishesAwaitAcks(t *testing.T) {
	js, st := eventsJS(t, true)
	b := New(js, Options{InFlight: 1})
	t.Cleanup(b.Close)
	var calls [][]byte
	for i := range 50 {
		calls = append(calls, fmt.Appendf(nil, `{"v":1,"id":"call-%02d-a"}`+"\n"+`{"v":1,"id":"call-%02d-b"}`, i, i))
	}
	for i, err := range publishWhileBusy(t, b, calls) {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	got := bodies(t, st)
	if len(got) != 1 {
		t.Fatalf("%d messages, want the 50 calls in one", len(got))
	}
	if b.Messages.Load() != 1 || b.Calls.Load() != 50 {
		t.Fatalf("counted %d messages of %d calls, want 1 of 50", b.Messages.Load(), b.Calls.Load())
	}
	var lines []string
	contract.EachEventLine(got[0], func(l []byte) { lines = append(lines, string(l)) })
	if len(lines) != 100 {
		t.Fatalf("%d events in the bundle, want 100", len(lines))
	}
	for _, c := range calls {
		if !bytes.Contains(got[0], c) {
			t.Fatalf("call %s missing or split in the bundle", c)
		}
	}

	// An idle bundler sends a call at once, alone.
	if err := b.Publish(context.Background(), []byte(`{"v":1,"id":"alone-0000"}`)); err != nil {
		t.Fatal(err)
	}
	if got := bodies(t, st); len(got) != 2 || string(got[1]) != `{"v":1,"id":"alone-0000"}` {
		t.Fatalf("idle call: %q", got[1:])
	}
}

// A message never exceeds MaxBytes: calls that do not fit go in the next one,
// and a call larger than a message is refused.
func TestBundlerKeepsMessagesUnderMaxBytes(t *testing.T) {
	js, st := eventsJS(t, true)
	b := New(js, Options{InFlight: 1, MaxBytes: 100})
	t.Cleanup(b.Close)
	call := bytes.Repeat([]byte("x"), 45) // two fit (45+1+45), three do not
	for i, err := range publishWhileBusy(t, b, [][]byte{call, call, call, call, call}) {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	total := 0
	for _, m := range bodies(t, st) {
		if len(m) > 100 {
			t.Fatalf("message of %d bytes", len(m))
		}
		total += bytes.Count(m, call)
	}
	if total != 5 {
		t.Fatalf("%d calls stored, want 5", total)
	}
	if err := b.Publish(context.Background(), bytes.Repeat([]byte("x"), 101)); err == nil {
		t.Fatal("a call larger than a message was accepted")
	}
}

// A publish JetStream does not ack fails every call it holds: the edge answers
// 503 and the page sends the events again.
func TestBundlerFailsCallsWithoutAck(t *testing.T) {
	js, _ := eventsJS(t, false) // no EVENTS stream: nobody acks
	b := New(js, Options{AckWait: 500 * time.Millisecond})
	t.Cleanup(b.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.Publish(ctx, []byte(`{"v":1,"id":"lost-0000"}`)); err == nil {
		t.Fatal("publish without a stream succeeded")
	}
	b.Close()
	if err := b.Publish(ctx, []byte(`{"v":1,"id":"late-0000"}`)); err == nil {
		t.Fatal("publish after Close succeeded")
	}
}

// A call whose caller stopped waiting (its request timed out, so the page
// will send the events again, marked as a retry) is not published later: a
// late first try could otherwise land after its retry.
func TestBundlerDropsCallsWhoseCallerGaveUp(t *testing.T) {
	js, st := eventsJS(t, true)
	b := New(js, Options{InFlight: 1})
	t.Cleanup(b.Close)
	b.slots <- struct{}{} // a publish in flight
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := b.Publish(ctx, []byte(`{"v":1,"id":"gave-up-0000"}`)); err == nil {
		t.Fatal("a call that timed out reported success")
	}
	done := make(chan error, 1)
	go func() { done <- b.Publish(context.Background(), []byte(`{"v":1,"id":"waited-0000"}`)) }()
	for deadline := time.Now().Add(5 * time.Second); len(b.in) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("second call never queued")
		}
	}
	<-b.slots
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := bodies(t, st); len(got) != 1 || string(got[0]) != `{"v":1,"id":"waited-0000"}` {
		t.Fatalf("stream holds %q, want only the call that waited", got)
	}
}
