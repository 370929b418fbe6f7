package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/edge/server"
)

func TestCatalogDocumentIsServedAndUpdated(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 300; i++ {
		e.putProduct(product(fmt.Sprintf("p%03d", i), contract.SectionWebtoon, fmt.Sprintf("작품 %d", i)))
	}
	g := startEdge(t, e)
	g.waitReady()
	// Ready means the initial sync is complete: every document is there at once.
	for _, pid := range []string{"p000", "p150", "p299"} {
		var d struct {
			Header   contract.Header `json:"header"`
			ProdInfo struct {
				PID   string `json:"pid"`
				Title string `json:"title"`
			} `json:"prodInfo"`
			VolList []struct {
				No int `json:"no"`
			} `json:"volList"`
		}
		g.getJSON("/home/api/v1/products/"+pid, 200, &d)
		if d.Header.Code != 200 || d.ProdInfo.PID != pid || len(d.VolList) != 3 {
			t.Fatalf("detail %s: %+v", pid, d)
		}
	}
	e.putProduct(product("p001", contract.SectionWebtoon, "새 제목", func(p *contract.Product) { p.Version = 2 }))
	eventually(t, "renamed title served", func() bool {
		_, b := g.get("/home/api/v1/products/p001")
		return bytes.Contains(b, []byte(`"title":"새 제목"`))
	})
	// A new work appears in the home sections.
	e.putProduct(product("new1", contract.SectionWebtoon, "신작 하나", func(p *contract.Product) { p.ViewCnt = 1 << 40 }))
	eventually(t, "new work on home", func() bool {
		_, b := g.get("/home/api/v1/home?section=wt")
		return bytes.Contains(b, []byte(`"pid":"new1"`))
	})
	// Deleting it removes it.
	if err := e.kv.Delete(context.Background(), contract.ProductKey("new1")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "deleted work gone", func() bool {
		resp, _ := g.get("/home/api/v1/products/new1")
		return resp.StatusCode == 404
	})
}

func TestNotReadyBeforeInitialSync(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("a1", contract.SectionComic, "만화"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := server.New(ctx, server.Config{Addr: "127.0.0.1:0", NATSURL: e.nats.URL, StaticDir: t.TempDir()}, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	// Not running yet: nothing synced, so /readyz must say no once it serves.
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() { cancel(); <-done }()
	g := &edge{t: t, srv: srv, url: "http://" + srv.Addr()}
	g.waitReady()
	_, b := g.get("/readyz")
	if !bytes.Contains(b, []byte("catalog_products 1")) {
		t.Fatalf("readyz: %s", b)
	}
}

func TestPageViewIsPublishedAfterAck(t *testing.T) {
	e := newEnv(t)
	g := startEdge(t, e)
	g.waitReady()
	body := `{"curPageUrl":"https://store.example/webtoon/best","uid":"someone-else"}`
	req, _ := http.NewRequest("POST", g.url+"/home/api/v1/tracking/page-view", strings.NewReader(body))
	req.Header.Set(contract.HeaderChannel, "AW")
	req.Header.Set(server.HeaderAppVersion, "6.1.0")
	req.Header.Set("User-Agent", "Mozilla/5.0 (Linux; Android 14) Chrome/130 Mobile Safari/537.36")
	req.Header.Set(contract.HeaderRequestToken, "tok123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Header  contract.Header `json:"header"`
		EventID string          `json:"event_id"`
	}
	raw := readAll(t, resp)
	if resp.StatusCode != 200 || json.Unmarshal(raw, &ans) != nil || ans.EventID == "" {
		t.Fatalf("page-view: %d %s", resp.StatusCode, raw)
	}
	if got, want := resp.Header.Get("Authorization"), contract.Signature(200, "tok123", raw); got != want {
		t.Fatalf("signature %q, want %q", got, want)
	}
	var sid string
	for _, c := range resp.Cookies() {
		if c.Name == "sf_sid" {
			sid = c.Value
		}
	}
	if sid == "" {
		t.Fatal("no session cookie handed out")
	}
	// Answered after the ack: the message is in the stream right now.
	ctx := context.Background()
	msg, err := e.js.Stream(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := msg.GetLastMsgForSubject(ctx, contract.TrackBundleSubject)
	if err != nil {
		t.Fatalf("no page view in the stream: %v", err)
	}
	if m.Header.Get(contract.HeaderEventRetry) != "" {
		t.Fatal("a first try is marked as a retry")
	}
	var ev contract.TrackedEvent
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		t.Fatal(err)
	}
	if err := ev.Validate(); err != nil {
		t.Fatal(err)
	}
	if ev.ID != ans.EventID || ev.Type != contract.EvPageView || ev.URL != "https://store.example/webtoon/best" ||
		ev.Channel != "AW" || ev.AppVersion != "6.1.0" || ev.UAClass != "android-web" || ev.SessionID != sid ||
		len(ev.IPHash) != 32 || ev.UID != "" || ev.MemberType != "visitor" || time.Since(ev.Time) > time.Minute {
		t.Fatalf("event not enriched as expected: %+v", ev)
	}
	if strings.Contains(ev.IPHash, "127.0.0.1") {
		t.Fatal("raw IP in event")
	}

	// Batch: every event acked, ids returned in order.
	batch := `{"events":[{"type":"page_view","url":"/comic"},{"type":"view_content","pid":"p1","vol":3}]}`
	resp, err = http.Post(g.url+"/home/api/v1/tracking/events", "application/json", strings.NewReader(batch))
	if err != nil {
		t.Fatal(err)
	}
	var bans struct {
		EventIDs []string `json:"event_ids"`
	}
	raw = readAll(t, resp)
	if resp.StatusCode != 200 || json.Unmarshal(raw, &bans) != nil || len(bans.EventIDs) != 2 {
		t.Fatalf("batch: %d %s", resp.StatusCode, raw)
	}
	// One call's events travel together, one JSON per line, in call order.
	m, err = msg.GetLastMsgForSubject(ctx, contract.TrackBundleSubject)
	var inBundle []string
	if err == nil {
		contract.EachEventLine(m.Data, func(line []byte) {
			var ev contract.TrackedEvent
			if json.Unmarshal(line, &ev) == nil {
				inBundle = append(inBundle, ev.ID)
			}
		})
	}
	if !slices.Equal(inBundle, bans.EventIDs) {
		t.Fatalf("bundle holds %v, want %v (%v)", inBundle, bans.EventIDs, err)
	}

	// The page's own ids are kept. Its first try goes in a bundle; when it
	// sends the batch again (it never saw the answer) it marks the events as
	// retried: they go alone with Nats-Msg-Id = event id, so the stream drops
	// a second retry, and marked, so analytics checks them against what it
	// stored (analytics/server's edge test shows them counted once).
	before0, _ := msg.Info(ctx)
	const id = "0192f1e4-7c3a-7d2e-9a51-3f6b2c1d0e9f"
	for i, body := range []string{
		`{"events":[{"id":"` + id + `","type":"page_view","url":"/novel"}]}`,
		`{"events":[{"id":"` + id + `","type":"page_view","url":"/novel","retry":true}]}`,
		`{"events":[{"id":"` + id + `","type":"page_view","url":"/novel","retry":true}]}`,
	} {
		resp, err = http.Post(g.url+"/home/api/v1/tracking/events", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw = readAll(t, resp)
		if resp.StatusCode != 200 || !strings.Contains(string(raw), `"event_ids":["`+id+`"]`) {
			t.Fatalf("batch with ids, try %d: %d %s", i, resp.StatusCode, raw)
		}
	}
	after0, _ := msg.Info(ctx)
	if after0.State.Msgs != before0.State.Msgs+2 {
		t.Fatalf("first try and two retries stored %d messages, want 2", after0.State.Msgs-before0.State.Msgs)
	}
	m, err = msg.GetLastMsgForSubject(ctx, contract.TrackSubject(contract.EvPageView))
	if err != nil || m.Header.Get(jetstream.MsgIDHeader) != id || m.Header.Get(contract.HeaderEventRetry) == "" ||
		!strings.Contains(string(m.Data), id) {
		t.Fatalf("retried event: %v %v", err, m)
	}

	// Bad input: 400 envelope, nothing published.
	info, _ := msg.Info(ctx)
	before := info.State.Msgs
	for _, bad := range []struct{ path, body string }{
		{"/home/api/v1/tracking/page-view", `{`},
		{"/home/api/v1/tracking/page-view", `{}`},
		{"/home/api/v1/tracking/events", `{"events":[{"type":"purchase","url":"/"}]}`},
		// the profile comes from the writer, which knows the member
		{"/home/api/v1/tracking/events", `{"events":[{"type":"member_profile","url":"/","props":{"gender":"F"}}]}`},
		{"/home/api/v1/tracking/events", `{"events":[]}`},
		{"/home/api/v1/tracking/events", `{"events":[{"type":"page_view","url":"/","id":"short"}]}`},
		{"/home/api/v1/tracking/events", `{"events":[{"type":"page_view","url":"/","id":"has spaces in the id!"}]}`},
	} {
		resp, err := http.Post(g.url+bad.path, "application/json", strings.NewReader(bad.body))
		if err != nil {
			t.Fatal(err)
		}
		var env contract.Envelope
		raw := readAll(t, resp)
		if resp.StatusCode != 400 || json.Unmarshal(raw, &env) != nil || env.Header.Code != 400 || env.Header.Message == "" {
			t.Fatalf("%s %s: %d %s", bad.path, bad.body, resp.StatusCode, raw)
		}
	}
	info, _ = msg.Info(ctx)
	if info.State.Msgs != before {
		t.Fatalf("bad input published events: %d -> %d", before, info.State.Msgs)
	}
}

func TestPageViewFailsWhenJetStreamIsDown(t *testing.T) {
	e := newEnv(t)
	g := startEdge(t, e, func(c *server.Config) { c.PublishTimeout = 500 * time.Millisecond })
	g.waitReady()
	e.nats.Stop()
	resp, err := http.Post(g.url+"/home/api/v1/tracking/page-view", "application/json", strings.NewReader(`{"curPageUrl":"/"}`))
	if err != nil {
		t.Fatal(err)
	}
	raw := readAll(t, resp)
	if resp.StatusCode != 503 || bytes.Contains(raw, []byte("event_id")) {
		t.Fatalf("want 503 without event id, got %d %s", resp.StatusCode, raw)
	}
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
