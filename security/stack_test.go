// Package security holds the black-box security checks of issue 9 that span
// services: each test starts the real writer and edge (and analytics where it
// matters) in-process against real PostgreSQL, NATS JetStream and ClickHouse,
// and attacks them through the edge, the one origin browsers reach. Checks
// that live inside one service are tested there; SECURITY.md at the
// repository root maps every check to its test.
package security

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/devstack/testenv"
	edgeserver "storefront/edge/server"
	"storefront/writer/media"
	"storefront/writer/money/tosssandbox"
	writerserver "storefront/writer/server"
)

const adminToken = "sec-admin-token"

// clock is the stack's movable clock (writer and edge share it).
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// stack is a writer and an edge over fresh dependencies.
type stack struct {
	t          *testing.T
	edgeURL    string
	edgeAddr   string
	writerAddr string
	pool       *pgxpool.Pool
	clock      *clock
}

type options struct {
	writer func(*writerserver.Config)
	edge   func(*edgeserver.Config)
}

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// startStack starts writer and edge with the Toss sandbox as payment gateway
// and the works of addCatalog, and waits until the edge serves them.
func startStack(t *testing.T, o options) *stack {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	nats := testenv.NATS(t)
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	// Pages come from the content store through processing, as in
	// production: writer and edge share a folder.
	content := t.TempDir()
	wcfg := writerserver.Config{Addr: "127.0.0.1:0", DatabaseURL: testenv.PostgresURL(t), NATSURL: nats.URL,
		AdminToken: adminToken, PaymentSandbox: true, RelayPoll: 100 * time.Millisecond, Now: clk.Now, ContentStoreURL: content,
		Identity: writerserver.IdentityConfig{Sandbox: true}}
	if o.writer != nil {
		o.writer(&wcfg)
	}
	w, err := writerserver.New(ctx, wcfg, quietLog())
	if err != nil {
		cancel()
		t.Fatalf("writer: %v", err)
	}
	ecfg := edgeserver.Config{Addr: "127.0.0.1:0", NATSURL: nats.URL, WriterURL: "http://" + w.Addr(), StaticDir: t.TempDir(), Now: clk.Now,
		ContentStoreURL: content}
	if o.edge != nil {
		o.edge(&ecfg)
	}
	e, err := edgeserver.New(ctx, ecfg, quietLog())
	if err != nil {
		cancel()
		t.Fatalf("edge: %v", err)
	}
	done := make(chan error, 2)
	for _, run := range []func(context.Context) error{w.Run, e.Run} {
		go func() { done <- run(ctx) }()
	}
	t.Cleanup(func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("service stopped with %v", err)
			}
		}
	})
	s := &stack{t: t, edgeURL: "http://" + e.Addr(), edgeAddr: e.Addr(), writerAddr: w.Addr(), pool: w.Pool(), clock: clk}
	s.addCatalog(w.Media())
	return s
}

// The catalog every test uses: an ordinary paid webtoon and an adult one.
const (
	paidWork  = "secwt1"
	adultWork = "secad1"
	adultName = "성인전용비밀작품"
)

func (s *stack) addCatalog(svc *media.Service) {
	s.t.Helper()
	now := s.clock.Now()
	vols := func(pid string) []contract.Volume {
		var v []contract.Volume
		for i := 1; i <= 3; i++ {
			v = append(v, contract.Volume{No: i, Title: fmt.Sprintf("%d화", i), ReleaseAt: now.Add(-time.Duration(10-i) * time.Hour),
				IsFree: i == 1, BuyPrice: 300, BuyPriceOrg: 300, RentPrice: 100, RentPriceOrg: 100, Pages: 5, PreviewPages: 2})
		}
		return v
	}
	for _, p := range []contract.Product{
		{PID: paidWork, Section: contract.SectionWebtoon, Title: "보안 점검 웹툰", GenreID: "21", Unit: "화", ServiceCode: 200, Volumes: vols(paidWork)},
		{PID: adultWork, Section: contract.SectionWebtoon, Title: adultName, GenreID: "12", Unit: "화", Age: 19, ServiceCode: 200, Volumes: vols(adultWork)},
	} {
		if st, b := s.admin("POST", "/admin/api/v1/works", p); st != 201 {
			s.t.Fatalf("add work %s: %d %s", p.PID, st, b)
		}
	}
	// Five pages for every volume, uploaded and processed (encoded once).
	var pages [][]byte
	for i := range 5 {
		img := image.NewRGBA(image.Rect(0, 0, 120, 160))
		for y := range 160 {
			for x := range 120 {
				img.Set(x, y, color.RGBA{uint8(x * 2), uint8(y), uint8(i * 50), 255})
			}
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, nil); err != nil {
			s.t.Fatal(err)
		}
		pages = append(pages, b.Bytes())
	}
	var targets []media.Volume
	for _, pid := range []string{paidWork, adultWork} {
		for no := 1; no <= 3; no++ {
			targets = append(targets, media.Volume{PID: pid, No: no})
		}
	}
	if _, err := svc.EnqueueVolumes(context.Background(), pages, targets); err != nil {
		s.t.Fatalf("pages: %v", err)
	}
	s.eventually("the edge serves the catalog and its pages", func() error {
		var pending int
		if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM media_jobs WHERE state <> 'done'`).Scan(&pending); err != nil || pending > 0 {
			return fmt.Errorf("%d media jobs not done (%v)", pending, err)
		}
		// The adult work's answer depends on the audience secret a test
		// gives the edge: it must be there, in whichever version.
		for _, pid := range []string{paidWork, adultWork} {
			var d struct {
				VolList []struct{ MediaBase string } `json:"volList"`
			}
			st, b := s.adultVisitor().get("/home/api/v1/products/" + pid)
			if st != 200 || json.Unmarshal(b, &d) != nil || !bytes.Contains(b, []byte(`"volList"`)) {
				return fmt.Errorf("%s: %d %.200s", pid, st, b)
			}
			for _, v := range d.VolList {
				if v.MediaBase == "" {
					return fmt.Errorf("%s: a volume without pages yet", pid)
				}
			}
		}
		return nil
	})
}

// adultVisitor is a visitor with the adult version's audience cookie.
func (s *stack) adultVisitor() *client {
	c := s.visitor()
	c.headers = map[string]string{"Cookie": contract.AudienceCookie + "=" + contract.SignAudience([]byte("dev-audience-secret"),
		contract.Audience{AdultLevel: 2, Expires: s.clock.Now().Add(time.Hour)})}
	return c
}

// pageURL is page n of volume no of pid: under its processed version's base.
func (s *stack) pageURL(pid string, no, n int) string {
	s.t.Helper()
	var m struct {
		Base string `json:"base"`
	}
	st, b := s.adultVisitor().get(fmt.Sprintf("/home/api/v1/products/%s/volumes/%d/media", pid, no))
	if st != 200 || json.Unmarshal(b, &m) != nil || m.Base == "" {
		s.t.Fatalf("manifest of %s/%d: %d %.200s", pid, no, st, b)
	}
	return fmt.Sprintf("%s/%d", m.Base, n)
}

func (s *stack) admin(method, path string, body any) (int, []byte) {
	s.t.Helper()
	c := s.visitor()
	c.headers = map[string]string{"Authorization": "Bearer " + adminToken}
	return c.do(method, path, body)
}

// eventually retries check until it succeeds or 20 s pass.
func (s *stack) eventually(what string, check func() error) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// client is a browser through the edge: a cookie jar, no redirects followed.
type client struct {
	t       *testing.T
	base    string
	http    *http.Client
	headers map[string]string
	uid     string
}

func (s *stack) visitor() *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: s.t, base: s.edgeURL, http: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// member signs a new member up through the edge.
func (s *stack) member(email string) *client {
	s.t.Helper()
	c := s.visitor()
	st, b := c.do("POST", "/home/api/v1/auth/signup", map[string]any{"email": email, "password": "correct horse"})
	if st != 201 {
		s.t.Fatalf("signup %s: %d %s", email, st, b)
	}
	var m struct {
		AuthInfo struct{ UID string } `json:"authInfo"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.AuthInfo.UID == "" {
		s.t.Fatalf("signup answer: %s", b)
	}
	c.uid = m.AuthInfo.UID
	return c
}

// form is an url-encoded body.
type form string

func (c *client) req(method, path string, body any) *http.Response {
	c.t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ct = strings.NewReader(b), "application/json"
	case []byte:
		rd, ct = bytes.NewReader(b), "application/json"
	case form:
		rd, ct = strings.NewReader(string(b)), "application/x-www-form-urlencoded"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd, ct = bytes.NewReader(j), "application/json"
	}
	r, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	for k, v := range c.headers {
		r.Header.Set(k, v)
	}
	resp, err := c.http.Do(r)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func (c *client) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	resp := c.req(method, path, body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (c *client) get(path string) (int, []byte) { c.t.Helper(); return c.do("GET", path, nil) }

// with returns a copy of c sending extra headers (same cookie jar).
func (c *client) with(h map[string]string) *client {
	d := *c
	d.headers = map[string]string{}
	for k, v := range c.headers {
		d.headers[k] = v
	}
	for k, v := range h {
		d.headers[k] = v
	}
	return &d
}

// cookie returns the jar's cookie for the edge.
func (c *client) cookie(name string) string {
	u, _ := url.Parse(c.base)
	for _, k := range c.http.Jar.Cookies(u) {
		if k.Name == name {
			return k.Value
		}
	}
	return ""
}

// envelope checks that b is the seed's error envelope with code.
func envelope(t *testing.T, what string, status int, b []byte, want int) {
	t.Helper()
	var e contract.Envelope
	if status != want || json.Unmarshal(b, &e) != nil || e.Header.Code != want {
		t.Errorf("%s: %d %.300s, want a %d envelope", what, status, b, want)
	}
}

// count runs a count query on the writer's database.
func (s *stack) count(sql string, args ...any) int {
	s.t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// fingerprint digests every table a member's actions write, for "nothing
// changed" checks.
func (s *stack) fingerprint() string {
	s.t.Helper()
	return testenv.TableFingerprint(s.t, context.Background(), s.pool, "users", "zzims", "alarms", "reviews", "recent_views", "interest_genres", "qna", "award_votes",
		"wallets", "ledger", "purchases", "entitlements", "charges", "works", "volumes")
}

// charge puts amount of blue money into c's wallet through the real charge
// flow: order, the Toss sandbox's checkout approval, confirm.
func (c *client) charge(amount int) {
	c.t.Helper()
	k := c.with(map[string]string{"Idempotency-Key": fmt.Sprintf("charge-%s-%d", c.uid, time.Now().UnixNano())})
	st, b := k.do("POST", "/home/api/v1/charge/requests", map[string]any{"amount": amount, "successUrl": "/ok", "failUrl": "/fail"})
	if st != 200 {
		c.t.Fatalf("charge request: %d %s", st, b)
	}
	var ch struct{ OrderID, CheckoutURL string }
	if err := json.Unmarshal(b, &ch); err != nil || ch.CheckoutURL == "" {
		c.t.Fatalf("charge answer: %s", b)
	}
	red, err := tosssandbox.Pay(context.Background(), ch.CheckoutURL, true)
	if err != nil {
		c.t.Fatal(err)
	}
	k = c.with(map[string]string{"Idempotency-Key": "confirm-" + ch.OrderID})
	if st, b := k.do("POST", "/home/api/v1/charge/confirm", map[string]any{"orderId": ch.OrderID, "paymentKey": red.PaymentKey, "amount": amount}); st != 200 {
		c.t.Fatalf("confirm: %d %s", st, b)
	}
}
