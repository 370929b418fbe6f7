package server

// Fuzz targets for what the edge parses from browsers: request URIs with their
// query parameters, the audience and tracking cookies, the channel and request
// token headers (FuzzEdgeRead), and tracking bodies (FuzzEdgeTracking). They
// run the real handler of a real edge fed by a real JetStream KV; the handler
// is called in-process so the fuzzer can try thousands of requests a second.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/natsutil"
)

var fuzzT0 = time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC) // 12:00 KST

const (
	fuzzAudSecret     = "fuzz-audience-secret"
	fuzzContentSecret = "fuzz-content-secret"
	adultSecretTitle  = "ADULTSECRET작품"
	adultSecretReview = "ADULTREVIEWSECRET"
	hiddenSecretTitle = "HIDDENSECRET작품"
	outsideSecret     = "TOPSECRET-OUTSIDE-STATIC"
)

// fuzzEdge is a running edge with the fuzz catalog.
type fuzzEdge struct {
	s  *Server
	nc *nats.Conn
	js jetstream.JetStream
}

func fuzzProduct(pid, section, title string, age int) contract.Product {
	p := contract.Product{PID: pid, Section: section, Title: title, Summary: "요약 <b>굵게</b>", Provider: "제공사",
		ThumbURL: "/img/cover/" + pid + ".svg", GenreID: "21", Category1: "romance", Unit: "화", Age: age,
		Authors:  []contract.Author{{AuthorID: 1, AuthorName: "김작가", IsWriter: true}},
		Weekdays: []int{int(fuzzT0.In(contract.KST).Weekday())}, ServiceCode: 200, ViewCnt: 100, Keywords: []string{"회귀"},
		RegisteredAt: fuzzT0.Add(-30 * 24 * time.Hour), UpdatedAt: fuzzT0.Add(-time.Hour), Version: 1}
	for i := 1; i <= 3; i++ {
		rel := fuzzT0.Add(-time.Duration(10-i) * 24 * time.Hour)
		if i == 3 {
			rel = fuzzT0.Add(time.Hour) // not released yet by the edge's clock
		}
		p.Volumes = append(p.Volumes, contract.Volume{No: i, Title: strconv.Itoa(i) + "화", ReleaseAt: rel, IsFree: i == 1,
			BuyPrice: 300, BuyPriceOrg: 300, Pages: 5, PreviewPages: 2, ContentBase: contract.ContentBase(pid, i)})
	}
	return p
}

// startFuzzEdge starts NATS and an edge over a small catalog: an ordinary
// webtoon and novel, an adult work, a hidden work and their reviews. Next to
// the static folder lies a file no request may ever read.
func startFuzzEdge(f *testing.F) *fuzzEdge {
	n := testenv.NATS(f)
	nc, err := nats.Connect(n.URL)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	kv, err := natsutil.Ensure(ctx, js, natsutil.Options{})
	if err != nil {
		f.Fatal(err)
	}
	put := func(key string, v any) {
		b, _ := json.Marshal(v)
		if _, err := kv.Put(ctx, key, b); err != nil {
			f.Fatal(err)
		}
	}
	put(contract.ProductKey("fzwt1"), fuzzProduct("fzwt1", contract.SectionWebtoon, "보통작품", 0))
	put(contract.ProductKey("fzeb1"), fuzzProduct("fzeb1", contract.SectionNovel, "보통소설", 15))
	put(contract.ProductKey("fzad1"), fuzzProduct("fzad1", contract.SectionWebtoon, adultSecretTitle, 19))
	hidden := fuzzProduct("fzhid", contract.SectionComic, hiddenSecretTitle, 0)
	hidden.Hidden = true
	put(contract.ProductKey("fzhid"), hidden)
	put(contract.KeyReviews+"fzwt1", contract.ReviewList{PID: "fzwt1", Version: 1, Reviews: []contract.Review{
		{ID: 1, UserName: "ab***", Body: `<img src=x onerror=window.__xss=1>"><script>window.__xss=1</script>`, Point: 10, CreatedAt: fuzzT0}}})
	put(contract.KeyReviews+"fzad1", contract.ReviewList{PID: "fzad1", Version: 1, Reviews: []contract.Review{
		{ID: 2, UserName: "cd***", Body: adultSecretReview, Point: 8, CreatedAt: fuzzT0}}})
	put("keyword.1", contract.Keyword{ID: 1, Name: "회귀", Order: 1, Version: 1})

	root := f.TempDir()
	static := filepath.Join(root, "static")
	for name, body := range map[string]string{
		filepath.Join(static, "index.html"):         "<!doctype html><title>sf</title>",
		filepath.Join(static, "assets", "app.js"):   "console.log(1)",
		filepath.Join(root, "secret.txt"):           outsideSecret,
		filepath.Join(static, "..", "secret2.html"): outsideSecret,
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	s, err := New(ctx, Config{Addr: "127.0.0.1:0", NATSURL: n.URL, StaticDir: static, WriterURL: "", AnalyticsURL: "",
		AudienceSecret: fuzzAudSecret, ContentSecret: fuzzContentSecret, CacheBytes: 8 << 20,
		Now: func() time.Time { return fuzzT0 }}, log)
	if err != nil {
		f.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	f.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			f.Errorf("edge: %v", err)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, _, _, prods := s.store.Stats(); s.synced.Load() && prods >= 4 {
			break
		}
		if time.Now().After(deadline) {
			f.Fatal("edge did not sync the fuzz catalog")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return &fuzzEdge{s: s, nc: nc, js: js}
}

var fuzzRemote = &net.TCPAddr{IP: net.IPv4(203, 0, 113, 7), Port: 50000}

// do runs one request through the edge's handler.
func (e *fuzzEdge) do(method, uri, cookie, channel, token, sigVersion string, body []byte) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(uri)
	req.Header.SetHost("store.example")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	if channel != "" {
		req.Header.Set(contract.HeaderChannel, channel)
	}
	if token != "" {
		req.Header.Set(contract.HeaderRequestToken, token)
	}
	if sigVersion != "" {
		req.Header.Set(contract.HeaderSignatureVersion, sigVersion)
	}
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	ctx := &fasthttp.RequestCtx{}
	ctx.Init(&req, fuzzRemote, nil)
	e.s.handle(ctx)
	return ctx
}

// audience tokens the fuzzer picks from (index 6 = its own string).
func fuzzAudiences() []string {
	sec := []byte(fuzzAudSecret)
	mk := func(level int, exp time.Time) string {
		return contract.SignAudience(sec, contract.Audience{AdultLevel: level, Expires: exp})
	}
	return []string{"", mk(2, fuzzT0.Add(time.Hour)), mk(1, fuzzT0.Add(time.Hour)), mk(3, fuzzT0.Add(time.Hour)),
		mk(2, fuzzT0.Add(-time.Second)), contract.SignAudience([]byte("forged"), contract.Audience{AdultLevel: 2, Expires: fuzzT0.Add(time.Hour)})}
}

// FuzzEdgeRead: any GET or HEAD. Properties:
//   - only 200, 400, 403, 404, 405 or 502 (no writer behind this edge);
//   - every API answer is signed over status, request token and body, in
//     the version asked for (SFS2 with X-Signature-Version: 2, else SFS1);
//   - every refusal (API, picture, content page or static file) is the seed
//     envelope with the same code and a Korean message;
//   - no raw '<' in API JSON (encoding/json escapes it), so stored markup can
//     never be sniffed as HTML;
//   - the teen version (decided here from the cookie and channel) never sees
//     the adult work's title or review, and nobody sees the hidden work;
//   - a content page beyond the preview is served only with a content token
//     for that very volume, and the adult work's pages never to the teen version;
//   - nothing outside the static folder is ever served.
func FuzzEdgeRead(f *testing.F) {
	e := startFuzzEdge(f)
	auds := fuzzAudiences()
	tok := contract.SignContent([]byte(fuzzContentSecret), "fzwt1", 2, fuzzT0.Add(time.Hour))
	for _, u := range []string{
		"/home/api/v1/home", "/home/api/v1/home?section=wt", "/home/api/v1/home?section=../../etc",
		"/home/api/v1/webtoon/genre/all?filter=wff&sort=popular&page=1&size=20",
		"/home/api/v1/webtoon/genre/21?page=-1&size=1000000000000000000000", "/home/api/v1/webtoon/weekday/mon",
		"/home/api/v1/products/fzwt1", "/home/api/v1/products/fzad1", "/home/api/v1/products/fzhid",
		"/home/api/v1/products/fzad1/volumes?order=latest&page=1&size=1000", "/home/api/v1/products/fzwt1/reviews/v2?sort=recent&buyer=Y",
		"/home/api/v1/products/fzad1/reviews", "/home/api/v1/products/fzwt1/related?code=TC0011",
		"/home/api/v1/products/..%2f..%2fetc%2fpasswd", "/home/api/v1/products/%00",
		"/home/api/v1/search?q=ADULTSECRET", "/home/api/v1/search?q=%3Cscript%3E&section=wt", "/home/api/v1/search?q=ㄱㅁ",
		"/home/api/v1/search?q='%20OR%201=1--", "/home/api/v1/rankings?category=wt&tab=daily", "/home/api/v1/keywords/1",
		"/home/api/v1/authors/1/works", "/home/api/v1/cs/faq?cid=01000", "/home/api/v1/events/bluerun",
		"/content/fzwt1/1/1.svg", "/content/fzwt1/2/5.svg?t=" + tok, "/content/fzwt1/2/5.svg?t=" + tok + "x",
		"/content/fzwt1/1/5.svg?t=" + tok, "/content/fzad1/1/1.svg", "/content/fzad1/2/4.svg", "/content/fzeb1/1/1.txt",
		"/content/fzwt1/3/1.svg", "/content/../secret.txt", "/content/fzwt1/1/..%2f..%2f..%2fsecret.txt",
		"/img/cover/fzwt1.svg", "/img/cover/..%2f..%2fsecret.txt", "/img/banner/1.svg", "/img/icon/home.svg",
		"/", "/webtoon/detail/fzad1", "/assets/app.js", "/assets/../../secret.txt", "/..%2fsecret.txt", "/../secret2.html",
		"/index.html", "/join/event.asp", "/healthz",
		// Issue 24 item 8: NUL, control characters and invalid UTF-8 in a path
		// (the writer's routes among them) are refused here, never forwarded.
		"/home/api/v1/charge/%00", "/home/api/v1/charge/%ff/cancel", "/home/api/v1/events/%C0%80/1", "/home/api/v1/products/fz%0Awt1",
		"/content/fzwt1/%00/1.svg", "/img/cover/%ED%A0%80.svg", "/webtoon/detail/%7F", "/protocol/appapi/%00",
	} {
		f.Add(false, u, uint8(0), "", "", "")
		f.Add(true, u, uint8(1), "", "AW", "rt-1234")
		f.Add(false, u, uint8(2), "", "AA", "")
		f.Add(false, u, uint8(0x81), "", "IW", "0123456789abcdef0123456789abcdef")
	}
	f.Add(false, "/home/api/v1/products/fzad1", uint8(6), "sf_aud="+auds[1]+"; sf_aud=x", "IA", "")
	f.Add(false, "/home/api/v1/products/fzad1", uint8(6), `sf_aud="`+auds[1]+`"`, "aa", "\n")
	f.Fuzz(func(t *testing.T, head bool, uri string, aud uint8, rawCookie, channel, reqToken string) {
		method := "GET"
		if head {
			method = "HEAD"
		}
		cookie := ""
		if i := int(aud) % (len(auds) + 1); i < len(auds) {
			if auds[i] != "" {
				cookie = contract.AudienceCookie + "=" + auds[i]
			}
		} else {
			cookie = rawCookie
		}
		// aud's top bit asks for SFS2 (the store's pages), else SFS1 (old clients).
		sigVersion := ""
		if aud&0x80 != 0 {
			sigVersion = "2"
		}
		ctx := e.do(method, uri, cookie, channel, reqToken, sigVersion, nil)
		status := ctx.Response.StatusCode()
		body := ctx.Response.Body()
		path := string(ctx.Path())
		switch status {
		case 200, 400, 403, 404, 405, 502:
		default:
			t.Fatalf("%s %q: status %d %.200s", method, uri, status, body)
		}
		if bytes.Contains(body, []byte(outsideSecret)) || bytes.Contains(body, []byte(hiddenSecretTitle)) {
			t.Fatalf("%s %q served a secret: %.200s", method, uri, body)
		}
		// Teen or adult, decided here from what the request carried.
		adult := false
		if v := ctx.Request.Header.Cookie(contract.AudienceCookie); len(v) > 0 {
			a, err := contract.VerifyAudience([]byte(fuzzAudSecret), string(v), fuzzT0)
			ch := string(ctx.Request.Header.Peek(contract.HeaderChannel))
			adult = err == nil && a.AdultLevel == 2 && ch != "AA" && ch != "IA" && ch != "aa" && ch != "ia"
		}
		if status != 200 && !head {
			var env contract.Envelope
			if err := json.Unmarshal(body, &env); err != nil || env.Header.Code != status {
				t.Fatalf("%q: %d is not its envelope: %.200s", uri, status, body)
			}
			if !testenv.Korean(env.Header.Message) {
				t.Fatalf("%q: %d message %q is not Korean", uri, status, env.Header.Message)
			}
		}
		if strings.HasPrefix(path, APIPrefix) && !head {
			if bytes.IndexByte(body, '<') >= 0 {
				t.Fatalf("%q: raw '<' in a JSON answer: %.300s", uri, body)
			}
			tok := string(ctx.Request.Header.Peek(contract.HeaderRequestToken))
			want := contract.Signature(status, tok, body)
			if sigVersion == "2" {
				want = contract.SignatureV2(status, tok, body)
			}
			if got := string(ctx.Response.Header.Peek(contract.HeaderSignature)); got != want {
				t.Fatalf("%q: signature %q, want %q", uri, got, want)
			}
			if !adult && (bytes.Contains(body, []byte(adultSecretTitle)) || bytes.Contains(body, []byte(adultSecretReview))) {
				t.Fatalf("teen version of %q (cookie %q channel %q) shows the adult work: %.300s", uri, cookie, channel, body)
			}
		}
		// The fuzz catalog has no processed content: nothing under
		// /content/ exists (the edge draws no pages of its own), whatever
		// the path, token or audience.
		if strings.HasPrefix(path, contract.ContentPrefix) && status == 200 {
			t.Fatalf("%q served a page that was never processed: %.100s", uri, body)
		}
	})
}

// FuzzEdgeTracking: any body to the two tracking endpoints. Properties: 200
// only with every event published (one per returned id, nothing else) and
// each published event valid, of a browser type, without a uid, stamped with
// the edge's time; anything else is a 400 envelope with a Korean message and
// publishes nothing.
func FuzzEdgeTracking(f *testing.F) {
	e := startFuzzEdge(f)
	var mu sync.Mutex
	got := map[string]contract.TrackedEvent{}
	received := 0 // events published, not ids: a page may send one id twice
	var bad []string
	sub, err := e.nc.Subscribe(contract.EventsSubjectPrefix+">", func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		contract.EachEventLine(m.Data, func(line []byte) {
			var ev contract.TrackedEvent
			if err := json.Unmarshal(line, &ev); err != nil {
				bad = append(bad, "undecodable: "+string(line))
				return
			}
			got[ev.ID] = ev
			received++
		})
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := e.nc.Flush(); err != nil { // the server knows the subscription before the first event
		f.Fatal(err)
	}
	auds := fuzzAudiences()
	for _, c := range []struct {
		batch bool
		body  string
	}{
		{false, `{"curPageUrl":"/webtoon/weekday/mon","referrer":"https://search.example/"}`},
		{false, `{"curPageUrl":"/webtoon/detail/fzwt1","pid":"fzwt1","uid":"42","type":"purchase"}`},
		{false, `{"curPageUrl":""}`},
		{false, `{"curPageUrl":"/x","pid":"../../etc"}`},
		{false, `not json`},
		{true, `{"events":[{"type":"page_view","curPageUrl":"/"},{"type":"view_content","pid":"fzwt1","vol":2,"props":{"a":"b"}}]}`},
		{true, `{"events":[{"type":"purchase","curPageUrl":"/"}]}`},
		{true, `{"events":[]}`},
		{true, `{"events":[{"type":"member_profile","props":{"gender":"F","age":"20"}}],"uid":"1"}`},
		{true, `{"events":[` + strings.Repeat(`{"type":"page_view","curPageUrl":"/"},`, 100) + `{"type":"page_view","curPageUrl":"/"}]}`},
		{true, `{"events":[{"type":"page_view","curPageUrl":"/` + strings.Repeat("a", 2100) + `"}]}`},
	} {
		f.Add(c.batch, []byte(c.body), uint8(0), "")
		f.Add(c.batch, []byte(c.body), uint8(1), "sf_sid=0123456789abcdef0123")
	}
	browser := map[string]bool{contract.EvPageView: true, contract.EvViewContent: true}
	published := 0
	f.Fuzz(func(t *testing.T, batch bool, body []byte, aud uint8, extraCookie string) {
		path := "/home/api/v1/tracking/page-view"
		if batch {
			path = "/home/api/v1/tracking/events"
		}
		cookie := extraCookie
		if a := auds[int(aud)%len(auds)]; a != "" {
			cookie = contract.AudienceCookie + "=" + a + "; " + extraCookie
		}
		mu.Lock()
		before := received
		mu.Unlock()
		ctx := e.do("POST", path, cookie, "AW", "", "", body)
		status := ctx.Response.StatusCode()
		var ans struct {
			Header   contract.Header `json:"header"`
			EventID  string          `json:"event_id"`
			EventIDs []string        `json:"event_ids"`
		}
		if err := json.Unmarshal(ctx.Response.Body(), &ans); err != nil || ans.Header.Code != status {
			t.Fatalf("answer %d is not its envelope: %s", status, ctx.Response.Body())
		}
		if status != 200 {
			if status != 400 || !testenv.Korean(ans.Header.Message) {
				t.Fatalf("%q: status %d %s", body, status, ctx.Response.Body())
			}
			time.Sleep(time.Millisecond)
			mu.Lock()
			n := received
			mu.Unlock()
			if n != before {
				t.Fatalf("refused %q but %d events were published", body, n-before)
			}
			return
		}
		ids := ans.EventIDs
		if !batch {
			ids = []string{ans.EventID}
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			n, b := received, bad
			mu.Unlock()
			if len(b) > 0 {
				t.Fatalf("published: %v", b)
			}
			if n == before+len(ids) {
				break
			}
			if n > before+len(ids) || time.Now().After(deadline) {
				t.Fatalf("%q answered %d ids, %d events arrived", body, len(ids), n-before)
			}
			time.Sleep(200 * time.Microsecond)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			ev, ok := got[id]
			if !ok {
				t.Fatalf("event %s answered but not published", id)
			}
			if err := ev.Validate(); err != nil || !browser[ev.Type] || ev.UID != "" || !ev.Time.Equal(fuzzT0) ||
				(ev.MemberType != "visitor" && ev.MemberType != "member" && ev.MemberType != "adult") {
				t.Fatalf("published a bad browser event %+v (%v) from %q", ev, err, body)
			}
		}
		// Keep the stream small in long runs.
		if published += len(ids); published > 20000 {
			published = 0
			if st, err := e.js.Stream(context.Background(), contract.EventsStream); err == nil {
				_ = st.Purge(context.Background())
			}
		}
	})
}
