package money_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/writer/money"
)

// A confirm that reached the gateway but never committed here (crash,
// deadlock retry) is credited exactly once: by the next confirm (the
// gateway answers ALREADY_PROCESSED_PAYMENT, the lookup says DONE) or by the
// webhook.
func TestConfirmAfterLostCommit(t *testing.T) {
	t.Parallel()
	p := newGatewayEnv(t, 0)
	const uid = 24
	order, url := p.request(t, uid, 4000)
	red := p.pay(t, url, true)
	p.sb.SetWebhookURL("") // the webhook is delayed
	if _, err := p.gw.Confirm(p.ctx, "earlier-attempt", red.PaymentKey, order, 4000); err != nil {
		t.Fatal(err)
	}
	r := p.confirm(uid, order, red.PaymentKey, 4000).mustOK(t)
	if r["status"] != "done" || p.balance(uid, money.Blue) != 4000 {
		t.Fatalf("confirm after a lost commit: %v, balance %d", r, p.balance(uid, money.Blue))
	}
	// The delayed DONE webhook arrives: nothing more is credited.
	p.sb.SetWebhookURL(p.srv.URL + money.WebhookPath)
	for i := range p.sb.Deliveries() {
		if err := p.sb.Redeliver(i); err != nil {
			t.Fatal(err)
		}
	}
	p.sb.Wait()
	if n := p.int(`SELECT count(*) FROM pg_webhooks`); n == 0 {
		t.Fatal("webhook not received")
	}
	if p.balance(uid, money.Blue) != 4000 {
		t.Fatalf("credited twice: %d", p.balance(uid, money.Blue))
	}
	p.checkLedger()
}

// loseAnswers passes requests on but loses the answer of the first n whose
// path ends with suffix: the gateway acted, the writer never heard.
type loseAnswers struct {
	mu     sync.Mutex
	suffix string
	n      int
}

func (l *loseAnswers) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil && l.n > 0 && strings.HasSuffix(r.URL.Path, l.suffix) {
		l.n--
		res.Body.Close()
		return nil, errors.New("connection reset by peer")
	}
	return res, err
}

// The network loses the gateway's answer to our confirm (and to a cancel):
// the writer looks the payment up by order id (by key) and applies it once.
func TestConfirmNetworkLoss(t *testing.T) {
	t.Parallel()
	lose := &loseAnswers{suffix: "/confirm", n: 1}
	var p *gatewayEnv
	p = newGatewayEnvCfg(t, 0, money.Config{Gateway: &lazyGateway{get: func() money.PaymentGateway {
		return &money.HTTPGateway{BaseURL: p.pgs.URL, SecretKey: testSecret, Client: &http.Client{Transport: lose}}
	}}})
	const uid = 29
	order, url := p.request(t, uid, 6000)
	red := p.pay(t, url, true)
	r := p.confirm(uid, order, red.PaymentKey, 6000).mustOK(t)
	if r["status"] != "done" || p.balance(uid, money.Blue) != 6000 || lose.n != 0 {
		t.Fatalf("confirm with a lost answer: %v, balance %d, lost %d", r, p.balance(uid, money.Blue), 1-lose.n)
	}
	lose.mu.Lock()
	lose.suffix, lose.n = "/cancel", 1
	lose.mu.Unlock()
	r = p.cancel(uid, order, map[string]any{"cancelAmount": 1000}).mustOK(t)
	if r["status"] != "partial_canceled" || p.balance(uid, money.Blue) != 5000 {
		t.Fatalf("cancel with a lost answer: %v, balance %d", r, p.balance(uid, money.Blue))
	}
	p.sb.Wait()
	if p.balance(uid, money.Blue) != 5000 {
		t.Fatalf("webhooks moved the balance to %d", p.balance(uid, money.Blue))
	}
	p.checkLedger()
}

// lazyGateway builds its gateway on first use (the sandbox's URL is known
// only after the env is made).
type lazyGateway struct {
	once sync.Once
	get  func() money.PaymentGateway
	gw   money.PaymentGateway
}

func (l *lazyGateway) g() money.PaymentGateway { l.once.Do(func() { l.gw = l.get() }); return l.gw }

func (l *lazyGateway) Confirm(ctx context.Context, k, pk, o string, a int64) (money.Payment, error) {
	return l.g().Confirm(ctx, k, pk, o, a)
}

func (l *lazyGateway) Payment(ctx context.Context, pk string) (money.Payment, error) {
	return l.g().Payment(ctx, pk)
}

func (l *lazyGateway) PaymentByOrder(ctx context.Context, o string) (money.Payment, error) {
	return l.g().PaymentByOrder(ctx, o)
}

func (l *lazyGateway) Cancel(ctx context.Context, k, pk string, c money.CancelRequest) (money.Payment, error) {
	return l.g().Cancel(ctx, k, pk, c)
}

func (l *lazyGateway) Settlements(ctx context.Context, s, e time.Time, page, size int) ([]money.Settlement, error) {
	return l.g().Settlements(ctx, s, e, page, size)
}
