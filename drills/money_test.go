package drills

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/writer/money/tosssandbox"
)

const volPrice = 100 // won per volume in the drills' work

// member is a signed-up reader with money, with its own cookie jar.
type member struct {
	idx     int
	email   string
	uid     int64
	c       *http.Client
	charged int64 // blue money charged
	bonus   int64 // first-charge mileage
}

// shop is the work and the members of a purchase drill.
type shop struct {
	base    string // the edge the clients talk to
	pid     string
	vols    int
	members []*member
	// busy counts purchase calls under way, so a fault can be timed to
	// land in the middle of one.
	busy atomic.Int64
	// events, when set, counts the work's purchase events by purchase id
	// somewhere else than EVENTS (on a cluster analytics consumes them, and
	// the interest-retention stream drops what every consumer acknowledged),
	// once it holds at least want of them; where names the place.
	events func(t *testing.T, ctx context.Context, want int) (counts map[int64]int, where string)
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// openShop creates, through the edge, a work of vols paid volumes (all
// released) and signs up n members who each charge amount through the
// writer's payment-gateway sandbox.
func openShop(t *testing.T, ctx context.Context, base string, n, vols int, amount int64) *shop {
	t.Helper()
	s := &shop{base: base, pid: "drill" + randomID(), vols: vols}
	now := time.Now().UTC()
	var vl []map[string]any
	for k := 1; k <= vols; k++ {
		vl = append(vl, map[string]any{"no": k, "title": fmt.Sprintf("%d화", k),
			"releaseAt": now.Add(-time.Duration(vols-k+1) * time.Hour).Format(time.RFC3339),
			"buyPrice":  volPrice, "rentPrice": volPrice / 2, "pages": 3, "previewPages": 1})
	}
	work := map[string]any{"pid": s.pid, "section": "WT", "title": "장애 훈련 " + s.pid, "summary": "fault drill",
		"provider": "drills", "genreId": "21", "category1": "romance", "authors": []map[string]string{{"authorName": "drill"}},
		"weekdays": []int{1}, "updateCycle": "weekly", "unit": "화", "rentDays": 3, "volumes": vl}
	if st, b, err := admin(ctx, base, "POST", "/admin/api/v1/works", work); err != nil || st != 201 {
		t.Fatalf("create the drill's work: %d %s %v", st, short(b), err)
	}
	for i := range n {
		s.members = append(s.members, s.signup(t, ctx, i, amount))
	}
	return s
}

func (s *shop) signup(t *testing.T, ctx context.Context, i int, amount int64) *member {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	m := &member{idx: i, email: fmt.Sprintf("drill-%s-%d@drills.test", s.pid, i), c: &http.Client{Jar: jar, Timeout: 15 * time.Second}}
	st, b, _, err := call(ctx, m.c, "POST", s.base+"/home/api/v1/auth/signup", map[string]string{"email": m.email, "password": "drill-password-1"}, nil)
	if err != nil || st != 201 {
		t.Fatalf("sign up %s: %d %s %v", m.email, st, short(b), err)
	}
	var su struct {
		AuthInfo struct {
			UID string `json:"uid"`
		} `json:"authInfo"`
	}
	if err := json.Unmarshal(b, &su); err != nil {
		t.Fatalf("sign-up answer: %v: %s", err, short(b))
	}
	if m.uid, err = strconv.ParseInt(su.AuthInfo.UID, 10, 64); err != nil {
		t.Fatalf("sign-up uid %q: %v", su.AuthInfo.UID, err)
	}
	// Charge: request, approve at the sandbox's checkout, confirm.
	key := func(what string) map[string]string { return map[string]string{"Idempotency-Key": what + "-" + m.email} }
	st, b, _, err = call(ctx, m.c, "POST", s.base+"/home/api/v1/charge/requests", map[string]any{"amount": amount}, key("charge"))
	if err != nil || st != 200 {
		t.Fatalf("charge request: %d %s %v", st, short(b), err)
	}
	var order struct {
		OrderID     string `json:"orderId"`
		CheckoutURL string `json:"checkoutUrl"`
	}
	if err := json.Unmarshal(b, &order); err != nil || order.CheckoutURL == "" {
		t.Fatalf("charge request answer: %v %s", err, short(b))
	}
	checkout := order.CheckoutURL
	if !strings.HasPrefix(checkout, "http") {
		checkout = s.base + checkout
	}
	red, err := tosssandbox.Pay(ctx, checkout, true)
	if err != nil {
		t.Fatalf("approve at the sandbox: %v", err)
	}
	st, b, _, err = call(ctx, m.c, "POST", s.base+"/home/api/v1/charge/confirm",
		map[string]any{"orderId": order.OrderID, "paymentKey": red.PaymentKey, "amount": amount}, key("confirm"))
	if err != nil || st != 200 {
		t.Fatalf("charge confirm: %d %s %v", st, short(b), err)
	}
	var conf struct {
		Status string `json:"status"`
		Bonus  int64  `json:"bonus"`
	}
	if err := json.Unmarshal(b, &conf); err != nil || conf.Status != "done" {
		t.Fatalf("charge not done: %v %s", err, short(b))
	}
	m.charged, m.bonus = amount, conf.Bonus
	return m
}

// buy is one purchase call of a drill: member m buys volume vol with key.
type buy struct {
	seq      int
	m        *member
	vol      int
	key      string
	start    time.Time
	end      time.Time
	status   int
	code     int
	body     []byte
	replayed bool
	err      error
}

// purchaseAnswer is the part of a purchase answer the drills check.
type purchaseAnswer struct {
	PurchaseID int64  `json:"purchaseId"`
	PID        string `json:"pid"`
	Vols       []int  `json:"vols"`
	Amount     int64  `json:"amount"`
}

// buyOne sends the purchase of b (fresh or retried with its key).
func (s *shop) buyOne(ctx context.Context, b buy) buy {
	s.busy.Add(1)
	defer s.busy.Add(-1)
	b.start = time.Now()
	var h http.Header
	b.status, b.body, h, b.err = call(ctx, b.m.c, "POST", s.base+"/home/api/v1/purchases",
		map[string]any{"pid": s.pid, "vols": []int{b.vol}, "buyType": "B"}, map[string]string{"Idempotency-Key": b.key})
	b.end = time.Now()
	b.code = headerCode(b.body)
	b.replayed = h.Get("Idempotent-Replayed") == "true"
	return b
}

// plan returns the seq-th purchase of a drill: members in turn, each buying
// its next volume under a key of its own.
func (s *shop) plan(seq int) buy {
	m := s.members[seq%len(s.members)]
	vol := seq/len(s.members) + 1
	return buy{seq: seq, m: m, vol: vol, key: fmt.Sprintf("drill-%d-%d", m.uid, vol)}
}

// settled is the definitive answer of one key after the drill.
type settled struct {
	first   buy // the call made during the drill
	last    buy // the answer that settled it (first when it was 200)
	answer  purchaseAnswer
	retries int
}

// settle asks every purchase of the drill whose answer was not 200 again with
// the same key until it has a definitive answer, as a client must; a 200 of
// the drill is asked once more and must be replayed identically.
func (s *shop) settle(t *testing.T, ctx context.Context, buys []buy) []settled {
	t.Helper()
	out := make([]settled, 0, len(buys))
	var badReplays int
	for _, b := range buys {
		st := settled{first: b, last: b}
		if b.status == 200 {
			again := s.buyOne(ctx, b)
			if again.status != 200 || !again.replayed || string(again.body) != string(b.body) {
				badReplays++
				if badReplays <= 5 {
					t.Errorf("purchase %s answered 200 during the drill but now %d (replayed %v): %s", b.key, again.status, again.replayed, short(again.body))
				}
			}
		} else {
			deadline := time.Now().Add(60 * time.Second)
			for {
				st.retries++
				st.last = s.buyOne(ctx, b)
				if st.last.status == 200 || (st.last.status >= 400 && st.last.status < 500) || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		if st.last.status != 200 {
			t.Errorf("purchase %s did not settle to 200: %d %v %s", b.key, st.last.status, st.last.err, short(st.last.body))
			continue
		}
		if err := json.Unmarshal(st.last.body, &st.answer); err != nil || st.answer.PurchaseID == 0 {
			t.Errorf("purchase %s answer: %v %s", b.key, err, short(st.last.body))
			continue
		}
		if st.answer.PID != s.pid || !slices.Equal(st.answer.Vols, []int{b.vol}) || st.answer.Amount != volPrice {
			t.Errorf("purchase %s answered %+v, want volume %d of %s for %d", b.key, st.answer, b.vol, s.pid, volPrice)
		}
		out = append(out, st)
	}
	return out
}

// reconcile checks the database and the EVENTS stream against the settled
// answers: each purchase whole (purchase row, entitlement, ledger rows, stored
// answer, one business event) or absent, nothing else, and every wallet equal
// to its ledger and to what its member was charged minus what it spent.
func (s *shop) reconcile(t *testing.T, ctx context.Context, dbURL, natsURL string, done []settled) {
	t.Helper()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	byID := map[int64]settled{}
	spent := map[int64]int64{}
	for _, st := range done {
		if _, dup := byID[st.answer.PurchaseID]; dup {
			t.Errorf("purchase id %d answered for two keys", st.answer.PurchaseID)
		}
		byID[st.answer.PurchaseID] = st
		spent[st.first.m.uid] += st.answer.Amount
	}
	problems := 0
	report := func(format string, args ...any) {
		problems++
		if problems <= 20 {
			t.Errorf(format, args...)
		}
	}

	// purchases: exactly the answered ones.
	rows, err := pool.Query(ctx, `SELECT id, uid, vols, amount FROM purchases WHERE pid = $1`, s.pid)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for rows.Next() {
		var id, uid, amount int64
		var vols []int32
		if err := rows.Scan(&id, &uid, &vols, &amount); err != nil {
			t.Fatal(err)
		}
		seen[id] = true
		st, ok := byID[id]
		switch {
		case !ok:
			report("purchase row %d (uid %d, vols %v) has no answered key: a purchase nobody was told about", id, uid, vols)
		case uid != st.first.m.uid || len(vols) != 1 || int(vols[0]) != st.first.vol || amount != st.answer.Amount:
			report("purchase row %d is uid %d vols %v amount %d; the answer said %+v for uid %d", id, uid, vols, amount, st.answer, st.first.m.uid)
		}
	}
	rows.Close()
	for id, st := range byID {
		if !seen[id] {
			report("purchase %d answered 200 to key %s is not in the database", id, st.first.key)
		}
	}

	// entitlements: one per purchase, owned for good.
	ents := map[[2]int64]string{}
	rows, err = pool.Query(ctx, `SELECT uid, vol, kind FROM entitlements WHERE pid = $1`, s.pid)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var uid int64
		var vol int32
		var kind string
		if err := rows.Scan(&uid, &vol, &kind); err != nil {
			t.Fatal(err)
		}
		ents[[2]int64{uid, int64(vol)}] = kind
	}
	rows.Close()
	for _, st := range byID {
		if k := ents[[2]int64{st.first.m.uid, int64(st.first.vol)}]; k != "B" {
			report("purchase %d (uid %d vol %d) has entitlement %q, want B", st.answer.PurchaseID, st.first.m.uid, st.first.vol, k)
		}
	}
	if len(ents) != len(byID) {
		report("%d entitlements for %d purchases", len(ents), len(byID))
	}

	// ledger: each purchase's rows take exactly its amount; no other purchase rows.
	// The shop's members only: drills sharing a database (the cluster's)
	// have members and purchases of their own.
	uids := make([]int64, len(s.members))
	for i, m := range s.members {
		uids[i] = m.uid
	}
	rows, err = pool.Query(ctx, `SELECT ref, sum(delta) FROM ledger WHERE reason = 'purchase' AND uid = ANY($1) GROUP BY ref`, uids)
	if err != nil {
		t.Fatal(err)
	}
	refs := map[int64]int64{}
	for rows.Next() {
		var ref string
		var sum int64
		if err := rows.Scan(&ref, &sum); err != nil {
			t.Fatal(err)
		}
		id, err := strconv.ParseInt(strings.TrimPrefix(ref, "purchase:"), 10, 64)
		if err != nil {
			report("ledger ref %q", ref)
			continue
		}
		refs[id] = sum
	}
	rows.Close()
	for id, st := range byID {
		if refs[id] != -st.answer.Amount {
			report("purchase %d took %d from the ledger, want %d", id, -refs[id], st.answer.Amount)
		}
	}
	for id := range refs {
		if _, ok := byID[id]; !ok {
			report("ledger rows of purchase %d, which nobody was answered", id)
		}
	}

	// stored answers: every key is the purchase it answered.
	var keys int
	rows, err = pool.Query(ctx, `SELECT uid, key, status, body FROM money_idempotency WHERE op = 'purchase' AND uid = ANY($1)`, uids)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]settled{}
	for _, st := range done {
		byKey[fmt.Sprint(st.first.m.uid, "/", st.first.key)] = st
	}
	for rows.Next() {
		var uid int64
		var key string
		var status int
		var body []byte
		if err := rows.Scan(&uid, &key, &status, &body); err != nil {
			t.Fatal(err)
		}
		keys++
		var a purchaseAnswer
		_ = json.Unmarshal(body, &a)
		st, ok := byKey[fmt.Sprint(uid, "/", key)]
		if !ok || status != 200 || a.PurchaseID != st.answer.PurchaseID {
			report("stored answer of key %s (uid %d): %d purchase %d", key, uid, status, a.PurchaseID)
		}
	}
	rows.Close()
	if keys != len(done) {
		report("%d stored purchase answers for %d keys", keys, len(done))
	}

	// wallets: balance = ledger sum = charged + bonus - spent.
	for _, m := range s.members {
		var blue, mileage, other, lblue, lmileage, lother int64
		err := pool.QueryRow(ctx, `SELECT w.blue, w.mileage, w.android + w.ios,
				coalesce((SELECT sum(delta) FROM ledger WHERE uid = w.uid AND money = 'blue'), 0),
				coalesce((SELECT sum(delta) FROM ledger WHERE uid = w.uid AND money = 'mileage'), 0),
				coalesce((SELECT sum(delta) FROM ledger WHERE uid = w.uid AND money IN ('android', 'ios')), 0)
			FROM wallets w WHERE w.uid = $1`, m.uid).Scan(&blue, &mileage, &other, &lblue, &lmileage, &lother)
		if err != nil {
			t.Fatalf("wallet of %d: %v", m.uid, err)
		}
		if blue != lblue || mileage != lmileage || other != lother {
			report("wallet %d: balances blue %d mileage %d other %d, ledger sums %d %d %d", m.uid, blue, mileage, other, lblue, lmileage, lother)
		}
		if want := m.charged + m.bonus - spent[m.uid]; blue+mileage != want || other != 0 {
			report("wallet %d holds %d (+%d app money), want charged %d + bonus %d - spent %d = %d",
				m.uid, blue+mileage, other, m.charged, m.bonus, spent[m.uid], want)
		}
	}

	// business events: after the relay caught up, one purchase event per purchase.
	waitOutboxDrained(t, ctx, pool, 60*time.Second)
	var events map[int64]int
	where := "EVENTS"
	if s.events != nil {
		events, where = s.events(t, ctx, len(byID))
	} else {
		events = purchaseEvents(t, ctx, natsURL, s.pid)
	}
	for id := range byID {
		if n := events[id]; n != 1 {
			report("purchase %d has %d purchase events in %s, want 1", id, n, where)
		}
	}
	for id, n := range events {
		if _, ok := byID[id]; !ok {
			report("%d purchase events for unknown purchase %d", n, id)
		}
	}
	if problems > 0 {
		t.Errorf("reconciliation: %d problems", problems)
	}
}

// purchaseEvents counts the purchase events of work pid in EVENTS by purchase id.
func purchaseEvents(t *testing.T, ctx context.Context, url, pid string) map[int64]int {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	subject := contract.BizSubject(contract.EvPurchase)
	stream, err := js.Stream(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		t.Fatal(err)
	}
	total := int(info.State.Subjects[subject])
	cons, err := js.OrderedConsumer(ctx, contract.EventsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]int{}
	for got := 0; got < total; {
		batch, err := cons.Fetch(min(500, total-got), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for msg := range batch.Messages() {
			n++
			var ev contract.TrackedEvent
			if err := json.Unmarshal(msg.Data(), &ev); err != nil {
				t.Fatalf("purchase event: %v", err)
			}
			if ev.PID != pid {
				continue
			}
			id, _ := strconv.ParseInt(ev.Props["purchaseId"], 10, 64)
			out[id]++
		}
		if n == 0 {
			t.Fatalf("read %d of %d purchase events, then nothing", got, total)
		}
		got += n
	}
	return out
}

// answers counts a drill's purchase calls by their answer during the run.
type answers struct {
	ok      int         // 200
	clean   map[int]int // clean error envelopes by status (HTTP status = header.code)
	bad     int         // anything else: another status, a transport error
	slowest time.Duration
}

// countAnswers tallies buys, taking the statuses in clean (502, 503) as clean
// error answers when their envelope agrees; every other answer that is not
// 200 is a test error (the first ten are shown).
func countAnswers(t *testing.T, buys []buy, clean ...int) answers {
	t.Helper()
	a := answers{clean: map[int]int{}}
	for _, b := range buys {
		a.slowest = max(a.slowest, b.end.Sub(b.start))
		switch {
		case b.err == nil && b.status == 200:
			a.ok++
		case b.err == nil && b.status == b.code && slices.Contains(clean, b.status):
			a.clean[b.status]++
		default:
			a.bad++
			if a.bad <= 10 {
				t.Errorf("purchase %s at %s (took %s): %d %v %s", b.key, b.start.Format("15:04:05.000"),
					b.end.Sub(b.start).Round(time.Millisecond), b.status, b.err, short(b.body))
			}
		}
	}
	return a
}

// committedBehindError counts the settled purchases whose call during the
// drill got an error answer although it had committed (the retry with its
// key was answered from the stored answer).
func committedBehindError(done []settled) int {
	n := 0
	for _, st := range done {
		if st.first.status != 200 && st.last.replayed {
			n++
		}
	}
	return n
}
