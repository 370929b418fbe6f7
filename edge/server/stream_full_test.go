package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/edge/server"
)

// A full EVENTS stream (analytics far behind) refuses new events: the edge
// answers 503 and the page keeps its batch, and nothing already accepted is
// dropped to make room. Once analytics acked the backlog the page's re-sent
// event (same id) is accepted.
func TestFullEventsStreamAnswers503AndKeepsOldEvents(t *testing.T) {
	n := testenv.NATS(t)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// The edge creates the stream with its configured (tiny) size.
	g := startEdge(t, &env{t: t, nats: n, nc: nc, js: js}, func(c *server.Config) { c.Events.MaxBytes = 16 << 10 })
	ctx := context.Background()
	stream, err := js.Stream(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := stream.CachedInfo().Config; cfg.MaxBytes != 16<<10 || cfg.Discard != jetstream.DiscardNew || cfg.Retention != jetstream.InterestPolicy {
		t.Fatalf("stream made by the edge: %+v", cfg)
	}

	post := func(id string, i int) (int, contract.Envelope) {
		t.Helper()
		body := fmt.Sprintf(`{"id":%q,"curPageUrl":"https://store.example/webtoon/detail/P%05d"}`, id, i)
		resp, err := http.Post(g.url+"/home/api/v1/tracking/page-view", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var env contract.Envelope
		raw := readAll(t, resp)
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatalf("answer %d is not an envelope: %s", resp.StatusCode, raw)
		}
		return resp.StatusCode, env
	}
	var accepted []string
	var refusedID string
	for i := 0; i < 500 && refusedID == ""; i++ {
		id := fmt.Sprintf("0192f1e4-7c3a-7d2e-9a51-%012d", i)
		switch st, env := post(id, i); {
		case st == 200:
			accepted = append(accepted, id)
		case st == 503 && env.Header.Code == 503 && env.Header.Message != "":
			refusedID = id
		default:
			t.Fatalf("page view %d: %d %+v", i, st, env)
		}
	}
	if refusedID == "" || len(accepted) == 0 {
		t.Fatalf("%d accepted, refused %q: the stream never filled", len(accepted), refusedID)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.FirstSeq != 1 || info.State.Msgs != uint64(len(accepted)) {
		t.Fatalf("%d accepted; stream first seq %d with %d messages: accepted events were dropped", len(accepted), info.State.FirstSeq, info.State.Msgs)
	}
	first, err := stream.GetMsg(ctx, 1)
	var ev contract.TrackedEvent
	if err != nil || json.Unmarshal(first.Data, &ev) != nil || ev.ID != accepted[0] {
		t.Fatalf("first event: %v %s", err, first.Data)
	}

	// Analytics catches up (acks after its insert): the events leave the
	// stream and the page's retry of the refused event goes in.
	cons, err := js.Consumer(ctx, contract.EventsStream, contract.AnalyticsConsumer)
	if err != nil {
		t.Fatalf("analytics consumer: %v", err)
	}
	for acked := 0; acked < len(accepted); {
		batch, err := cons.Fetch(100, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for m := range batch.Messages() {
			if err := m.DoubleAck(ctx); err != nil {
				t.Fatal(err)
			}
			got++
		}
		if got == 0 {
			t.Fatalf("analytics got %d of %d events", acked, len(accepted))
		}
		acked += got
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st, env := post(refusedID, len(accepted))
		if st == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("re-sent page view after the backlog was processed: %d %+v", st, env)
		}
	}
}
