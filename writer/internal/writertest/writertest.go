// Package writertest starts what writer tests need: a migrated PostgreSQL
// database, a private JetStream server, and a running writer server.
package writertest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/devstack"
	"storefront/devstack/testenv"
	"storefront/natsutil"
	"storefront/writer/migrations"
)

// Log is a quiet logger for tests (LOG_LEVEL=debug to see more).
func Log() *slog.Logger {
	lv := slog.LevelWarn
	if os.Getenv("LOG_LEVEL") == "debug" {
		lv = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))
}

// Pool returns a pool on a fresh, migrated database.
func Pool(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	url := testenv.PostgresURL(t)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := migrations.Up(context.Background(), pool, Log()); err != nil {
		t.Fatal(err)
	}
	return pool, url
}

// JS starts a private NATS with the stream and bucket ensured.
func JS(t testing.TB) (*devstack.NATS, jetstream.JetStream, jetstream.KeyValue) {
	t.Helper()
	n := testenv.NATS(t)
	nc, err := natsutil.Connect(n.URL, natsutil.Auth{}, "test", Log())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := natsutil.Ensure(context.Background(), js, natsutil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vols, err := js.KeyValue(context.Background(), contract.VolumesBucket)
	if err != nil {
		t.Fatal(err)
	}
	volumeBuckets.Store(kv, vols)
	t.Cleanup(func() { volumeBuckets.Delete(kv) })
	return n, js, kv
}

// WaitKV polls key until ok accepts its value or the timeout passes.
func WaitKV(t testing.TB, kv jetstream.KeyValue, key string, timeout time.Duration, ok func([]byte) bool) []byte {
	t.Helper()
	timeout = slack(timeout)
	deadline := time.Now().Add(timeout)
	var last []byte
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		e, err := kv.Get(ctx, key)
		cancel()
		if err == nil {
			last = e.Value()
			if ok(last) {
				return last
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("kv %s did not reach the expected value within %s; last: %.300s", key, timeout, last)
	return nil
}

// Eventually polls cond.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout = slack(timeout)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// Client is an HTTP client against a base URL with optional bearer token.
type Client struct {
	T       testing.TB
	Base    string
	Token   string
	HTTP    *http.Client
	Headers map[string]string
}

// Do sends a request and returns status and body. body may be a string, []byte
// or a value marshalled as JSON.
func (c *Client) Do(method, path string, body any) (int, []byte) {
	c.T.Helper()
	resp, b := c.Req(method, path, body)
	return resp.StatusCode, b
}

// Cookie returns the jar's cookie name for the base URL, or nil.
func (c *Client) Cookie(name string) *http.Cookie {
	if c.HTTP == nil || c.HTTP.Jar == nil {
		return nil
	}
	u, _ := url.Parse(c.Base)
	for _, k := range c.HTTP.Jar.Cookies(u) {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Req is Do returning the whole response (body already read).
func (c *Client) Req(method, path string, body any) (*http.Response, []byte) {
	c.T.Helper()
	var rd io.Reader
	ct := "application/json"
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = strings.NewReader(string(b))
	case Form:
		rd = strings.NewReader(string(b))
		ct = "application/x-www-form-urlencoded"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.T.Fatal(err)
		}
		rd = strings.NewReader(string(j))
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		c.T.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", ct)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// Form is an url-encoded body.
type Form string

// Message returns header.message of the envelope body.
func Message(t testing.TB, body []byte) string {
	t.Helper()
	var e struct {
		Header struct {
			Message string `json:"message"`
		} `json:"header"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("answer is not an envelope: %s", body)
	}
	return e.Header.Message
}

// Code reads header.code of an envelope.
func Code(t testing.TB, body []byte) int {
	t.Helper()
	var e struct {
		Header struct {
			Code int `json:"code"`
		} `json:"header"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("answer is not an envelope: %s", body)
	}
	return e.Header.Code
}

// slack widens waits: the whole team's suites share two cores, and a wait
// ends as soon as its condition holds, so a generous limit costs nothing.
func slack(d time.Duration) time.Duration { return 4 * d }
