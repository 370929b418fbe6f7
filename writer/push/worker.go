package push

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/SherClockHolmes/webpush-go"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/writer/auth"
)

// Payload is the notification's JSON, read by the service worker's push
// handler (frontend/app/sw/push.ts).
type Payload struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	URL   string `json:"url"` // the volume's viewer, relative to the store
	Tag   string `json:"tag"` // one notification per volume on the device
}

// ViewerURL is the viewer's address of a volume (the frontend's viewerHref).
func ViewerURL(pid string, no int) string {
	return "/viewer?pid=" + url.QueryEscape(pid) + "&no=" + strconv.Itoa(no)
}

// Worker fans out releases and sends their notifications. Several writers
// may run one each: a release is fanned out by the node whose insert into
// push_releases wins, and deliveries are taken with FOR UPDATE SKIP LOCKED
// under a lease, so no two nodes send the same one at once.
type Worker struct {
	s      *Service
	client *http.Client
	sent   *prometheus.CounterVec
	wake   chan struct{}
}

// Worker makes the service's worker; reg may be nil.
func (s *Service) Worker(reg prometheus.Registerer) *Worker {
	w := &Worker{s: s, wake: make(chan struct{}, 1),
		client: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: s.cfg.Concurrency, IdleConnTimeout: 90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second, ForceAttemptHTTP2: true}},
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "writer_push_notifications_total",
			Help: "Web Push notifications by outcome (sent, retry, gone, failed, withheld: an adult work's for a member who may no longer see it)."}, []string{"result"})}
	if reg != nil {
		_ = reg.Register(w.sent)
	}
	return w
}

// Run works until ctx is done. A batch in flight is finished (sent and
// marked) before Run returns, so a graceful stop sends nothing twice. It
// looks again at the next scheduled release or retry, and at least every
// Poll (for what other nodes or the catalog put on the push tables since);
// it reads push tables only.
func (w *Worker) Run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-w.wake:
		}
		if _, err := w.Once(ctx); err != nil && ctx.Err() == nil {
			w.s.log.Warn("push worker", "err", err)
		}
		t.Reset(w.untilNext(ctx))
	}
}

// untilNext is how long Run may sleep: until the earliest scheduled release
// or delivery retry still ahead, at most Poll.
func (w *Worker) untilNext(ctx context.Context) time.Duration {
	now := w.s.cfg.Now()
	var next *time.Time
	err := w.s.pool.QueryRow(ctx, `SELECT least(
			(SELECT min(release_at) FROM push_schedule WHERE release_at > $1),
			(SELECT min(next_at) FROM push_deliveries WHERE sent_at IS NULL AND failed_at IS NULL AND next_at > $1),
			(SELECT min(next_at) FROM push_notice_deliveries WHERE sent_at IS NULL AND failed_at IS NULL AND next_at > $1))`,
		now).Scan(&next)
	if err != nil || next == nil {
		return w.s.cfg.Poll
	}
	return min(next.Sub(now), w.s.cfg.Poll)
}

// Wake makes Run look now.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Once fans out the releases that are due and sends every due delivery,
// batch after batch; it answers how many notifications were accepted.
func (w *Worker) Once(ctx context.Context) (int, error) {
	if err := w.fanOut(ctx); err != nil {
		return 0, err
	}
	if err := w.fanOutNotices(ctx); err != nil {
		return 0, err
	}
	total := 0
	for _, claim := range []claimFunc{w.claimReleases, w.claimNotices} {
		for ctx.Err() == nil {
			n, claimed, err := w.deliver(ctx, claim)
			total += n
			if err != nil {
				return total, err
			}
			if claimed == 0 {
				break
			}
		}
	}
	return total, nil
}

// fanOut turns each scheduled release that is due into one inbox item for
// each member whose alarm of the work is on or who follows one of its authors
// (an author zzim), and one delivery per web subscription of each of them
// (of an adult work: only members who may see adult works now); a member who
// has both is told once. A release older
// than the window leaves the schedule silently. The schedule (push_schedule,
// kept by the catalog's writes) is read instead of the catalog tables, so
// the timer never reaches them. The schedule rows go, the push_releases rows
// and the deliveries come, in one transaction, up to fanOutBatch volumes a
// statement (a catalog import releases thousands at once). Rows another node
// is fanning out are skipped (SKIP LOCKED); push_releases' key keeps a volume
// that reappears on the schedule from ringing twice, and the inbox's and the
// deliveries' keys keep a member from being told twice.
func (w *Worker) fanOut(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := w.fanOutBatch(ctx)
		if err != nil || n < fanOutBatch {
			return err
		}
	}
	return nil
}

const fanOutBatch = 500

func (w *Worker) fanOutBatch(ctx context.Context) (int, error) {
	now := w.s.cfg.Now()
	var released int
	err := pgx.BeginFunc(ctx, w.s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `WITH due AS (
				DELETE FROM push_schedule s USING (
					SELECT pid, no FROM push_schedule WHERE release_at <= $1
					ORDER BY release_at LIMIT $3 FOR UPDATE SKIP LOCKED) d
				WHERE s.pid = d.pid AND s.no = d.no
				RETURNING s.pid, s.no, s.release_at, s.title, s.adult, s.authors, s.first),
			rel AS (
				INSERT INTO push_releases (pid, no, release_at, fanned_at, recipients, title, adult, authors, first)
				SELECT pid, no, release_at, $1, 0, title, adult, authors, first FROM due WHERE release_at > $2
				ON CONFLICT DO NOTHING RETURNING pid, no, release_at, title, adult, authors, first),
			who AS (
				SELECT rel.pid, rel.no, a.uid FROM rel JOIN alarms a ON a.pid = rel.pid AND a.is_on
				UNION
				SELECT rel.pid, rel.no, z.uid FROM rel
				JOIN zzims z ON z.zzim_type = 'author' AND z.target = ANY(rel.authors::text[])),
			allowed AS (
				SELECT who.uid, rel.pid, rel.no, rel.release_at, rel.title, rel.adult, rel.first FROM who
				JOIN rel ON rel.pid = who.pid AND rel.no = who.no
				JOIN users u ON u.uid = who.uid
				WHERE NOT rel.adult OR `+auth.AdultContentSQL("u", "$1::timestamptz")+`),
			box AS (
				INSERT INTO inbox (uid, pid, no, kind, title, adult, release_at, created_at)
				SELECT uid, pid, no, CASE WHEN first THEN 'work' ELSE 'episode' END, title, adult, release_at, $1 FROM allowed
				ON CONFLICT (uid, pid, no) DO NOTHING),
			ins AS (
				INSERT INTO push_deliveries (pid, no, sub_id, next_at)
				SELECT al.pid, al.no, s.id, $1 FROM allowed al
				JOIN push_subscriptions s ON s.uid = al.uid AND s.channel NOT IN ('AA', 'AO', 'AC', 'IA')
				ON CONFLICT DO NOTHING RETURNING pid, no)
			SELECT pid, no, count(*) FROM ins GROUP BY pid, no
			UNION ALL SELECT '', 0, count(*) FROM due`, now, now.Add(-w.s.cfg.Window), fanOutBatch)
		if err != nil {
			return err
		}
		var pids []string
		var nos []int
		var counts []int64
		for rows.Next() {
			var pid string
			var no int
			var c int64
			if err := rows.Scan(&pid, &no, &c); err != nil {
				return err
			}
			if pid == "" {
				released = int(c)
				continue
			}
			pids, nos, counts = append(pids, pid), append(nos, no), append(counts, c)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(pids) > 0 {
			_, err = tx.Exec(ctx, `UPDATE push_releases r SET recipients = x.c
				FROM unnest($1::text[], $2::int[], $3::bigint[]) AS x(pid, no, c) WHERE r.pid = x.pid AND r.no = x.no`, pids, nos, counts)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("push: fan out releases: %w", err)
	}
	return released, nil
}

// job is one taken delivery: of a volume's release, or (notice != 0) of a
// money notice (a top-up's receipt or pause).
type job struct {
	pid                    string
	no                     int
	notice                 int64
	sub                    int64
	attempts               int
	endpoint, p256dh, auth string
	title, body            string // body: a notice's text
	first                  bool   // the work's first volume: a new work
	// allowed: the release is not an adult work's, or the member may see
	// adult works now; of a notice: the subscription is still the member's.
	allowed bool
}

// message is what the device is sent for the job, and its RFC 8030 topic.
func (j *job) message() (Payload, string) {
	if j.notice != 0 {
		id := strconv.FormatInt(j.notice, 10)
		return Payload{Title: j.title, Body: j.body, URL: NoticeURL, Tag: "money:" + id}, topic("money", id)
	}
	title := j.title
	if title == "" {
		title = "새 회차 알림"
	}
	body := fmt.Sprintf("새 회차 %d화가 공개되었습니다.", j.no)
	if j.first {
		body = "새 작품이 공개되었습니다."
	}
	return Payload{Title: title, Body: body, URL: ViewerURL(j.pid, j.no),
		Tag: "vol:" + j.pid + ":" + strconv.Itoa(j.no)}, topic(j.pid, strconv.Itoa(j.no))
}

// mark queues the update of the job's delivery row; set names its own
// arguments $a and $b, which follow the row's key.
func (j *job) mark(b *pgx.Batch, set string, args ...any) {
	if j.notice != 0 {
		set = strings.NewReplacer("$a", "$3", "$b", "$4").Replace(set)
		b.Queue(`UPDATE push_notice_deliveries SET `+set+` WHERE notice_id = $1 AND sub_id = $2`, append([]any{j.notice, j.sub}, args...)...)
		return
	}
	set = strings.NewReplacer("$a", "$4", "$b", "$5").Replace(set)
	b.Queue(`UPDATE push_deliveries SET `+set+` WHERE pid = $1 AND no = $2 AND sub_id = $3`, append([]any{j.pid, j.no, j.sub}, args...)...)
}

// outcome of one send.
type outcome struct {
	result string // sent, retry, gone, failed
	after  time.Duration
	err    string
}

// claimFunc takes one batch of due deliveries of one kind for the lease.
type claimFunc func(ctx context.Context, now time.Time) ([]job, error)

// claimReleases takes due deliveries of new-volume alarms.
func (w *Worker) claimReleases(ctx context.Context, now time.Time) ([]job, error) {
	rows, err := w.s.pool.Query(ctx, `WITH c AS (
			SELECT pid, no, sub_id FROM push_deliveries
			WHERE sent_at IS NULL AND failed_at IS NULL AND next_at <= $1
			ORDER BY next_at LIMIT $2 FOR UPDATE SKIP LOCKED)
		UPDATE push_deliveries d SET next_at = $3, attempts = d.attempts + 1
		FROM c JOIN push_subscriptions s ON s.id = c.sub_id
		  LEFT JOIN push_releases r ON r.pid = c.pid AND r.no = c.no
		  LEFT JOIN users u ON u.uid = s.uid
		WHERE d.pid = c.pid AND d.no = c.no AND d.sub_id = c.sub_id
		RETURNING d.pid, d.no, d.sub_id, d.attempts, s.endpoint, s.p256dh, s.auth, coalesce(r.title, ''), coalesce(r.first, false),
			NOT coalesce(r.adult, false) OR coalesce(`+auth.AdultContentSQL("u", "$1::timestamptz")+`, false)`,
		now, w.s.cfg.Batch, now.Add(w.s.cfg.Lease))
	if err != nil {
		return nil, fmt.Errorf("push: claim: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (job, error) {
		var j job
		return j, r.Scan(&j.pid, &j.no, &j.sub, &j.attempts, &j.endpoint, &j.p256dh, &j.auth, &j.title, &j.first, &j.allowed)
	})
	if err != nil {
		return nil, fmt.Errorf("push: claim: %w", err)
	}
	return jobs, nil
}

// claimNotices takes due deliveries of money notices.
func (w *Worker) claimNotices(ctx context.Context, now time.Time) ([]job, error) {
	rows, err := w.s.pool.Query(ctx, `WITH c AS (
			SELECT notice_id, sub_id FROM push_notice_deliveries
			WHERE sent_at IS NULL AND failed_at IS NULL AND next_at <= $1
			ORDER BY next_at LIMIT $2 FOR UPDATE SKIP LOCKED)
		UPDATE push_notice_deliveries d SET next_at = $3, attempts = d.attempts + 1
		FROM c JOIN push_subscriptions s ON s.id = c.sub_id JOIN money_notices n ON n.id = c.notice_id
		WHERE d.notice_id = c.notice_id AND d.sub_id = c.sub_id
		RETURNING d.notice_id, d.sub_id, d.attempts, s.endpoint, s.p256dh, s.auth, n.title, n.body, s.uid = n.uid`,
		now, w.s.cfg.Batch, now.Add(w.s.cfg.Lease))
	if err != nil {
		return nil, fmt.Errorf("push: claim notices: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (job, error) {
		var j job
		return j, r.Scan(&j.notice, &j.sub, &j.attempts, &j.endpoint, &j.p256dh, &j.auth, &j.title, &j.body, &j.allowed)
	})
	if err != nil {
		return nil, fmt.Errorf("push: claim notices: %w", err)
	}
	return jobs, nil
}

// deliver takes one batch of due deliveries, sends them and records what
// happened. Sending and recording run on a context that outlives ctx, so a
// stop between the two cannot leave a sent notification unmarked.
func (w *Worker) deliver(ctx context.Context, claim claimFunc) (sent, claimed int, err error) {
	jobs, err := claim(ctx, w.s.cfg.Now())
	if err != nil || len(jobs) == 0 {
		return 0, 0, err
	}
	bg := context.WithoutCancel(ctx)
	outs := make([]outcome, len(jobs))
	sem := make(chan struct{}, w.s.cfg.Concurrency)
	var wg sync.WaitGroup
	for i := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if !jobs[i].allowed {
				// The member's level dropped since the fan-out (issue 30):
				// an adult work's title does not reach their lock screen.
				outs[i] = outcome{result: "withheld", err: "audience: the member may no longer see adult works"}
				if jobs[i].notice != 0 {
					outs[i].err = "audience: the subscription is no longer the member's"
				}
				return
			}
			outs[i] = w.send(bg, &jobs[i])
		}()
	}
	wg.Wait()
	b := &pgx.Batch{}
	now := w.s.cfg.Now()
	for i, j := range jobs {
		o := outs[i]
		if o.result == "retry" && j.attempts >= w.s.cfg.MaxAttempts {
			o.result = "failed"
		}
		w.sent.WithLabelValues(o.result).Inc()
		switch o.result {
		case "sent":
			sent++
			j.mark(b, `sent_at = $a, error = ''`, now)
		case "gone":
			// The browser dropped the subscription: forget the device
			// (its deliveries go with it).
			b.Queue(`DELETE FROM push_subscriptions WHERE id = $1 AND endpoint = $2`, j.sub, j.endpoint)
		case "withheld":
			j.mark(b, `failed_at = $a, error = $b`, now, o.err)
		case "retry":
			j.mark(b, `next_at = $a, error = $b`, now.Add(o.after), o.err)
		default:
			w.s.log.Warn("push: notification given up", "pid", j.pid, "no", j.no, "notice", j.notice, "sub", j.sub, "attempts", j.attempts, "err", o.err)
			j.mark(b, `failed_at = $a, error = $b`, now, o.err)
		}
	}
	if err := w.s.pool.SendBatch(bg, b).Close(); err != nil {
		return sent, len(jobs), fmt.Errorf("push: record outcomes: %w", err)
	}
	return sent, len(jobs), nil
}

// send posts one notification and classifies the push service's answer
// (RFC 8030 §5, §8.3): 2xx accepted; 404/410 the subscription is gone;
// 429 and 5xx (and network errors) retried after Retry-After or backoff;
// any other 4xx is a request the service will never accept.
func (w *Worker) send(ctx context.Context, j *job) outcome {
	p, tp := j.message()
	msg, _ := json.Marshal(p)
	resp, err := webpush.SendNotificationWithContext(ctx, msg, &webpush.Subscription{Endpoint: j.endpoint,
		Keys: webpush.Keys{P256dh: j.p256dh, Auth: j.auth}}, &webpush.Options{
		// webpush-go adds "mailto:" itself unless the subject is an https: URL.
		HTTPClient: w.client, Subscriber: strings.TrimPrefix(w.s.cfg.Subject, "mailto:"), Topic: tp,
		TTL: int(w.s.cfg.TTL / time.Second), Urgency: webpush.UrgencyNormal,
		VAPIDPublicKey: w.s.cfg.PublicKey, VAPIDPrivateKey: w.s.cfg.PrivateKey})
	if err != nil {
		return outcome{result: "retry", after: w.backoff(j.attempts), err: err.Error()}
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return outcome{result: "sent"}
	case c == http.StatusNotFound || c == http.StatusGone:
		return outcome{result: "gone"}
	case c == http.StatusTooManyRequests || c >= 500:
		after := w.backoff(j.attempts)
		if ra, ok := retryAfter(resp.Header.Get("Retry-After"), w.s.cfg.Now()); ok {
			after = min(ra, w.s.cfg.RetryMax)
		}
		return outcome{result: "retry", after: after, err: fmt.Sprintf("%d %s", c, text)}
	default:
		return outcome{result: "failed", err: fmt.Sprintf("%d %s", c, text)}
	}
}

// backoff doubles from RetryBase per attempt, with jitter so that a push
// service that failed thousands at once is not hit by all of them again in
// the same second.
func (w *Worker) backoff(attempts int) time.Duration {
	d := w.s.cfg.RetryBase << min(max(attempts-1, 0), 20)
	if d <= 0 || d > w.s.cfg.RetryMax {
		d = w.s.cfg.RetryMax
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads delay-seconds or an HTTP date (RFC 9110 §10.2.3).
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// topic names the volume (pid, no) or the notice ("money", id) for the push
// service (RFC 8030 §5.4: at most 32 characters of the URL-safe base64
// alphabet): a newer message with the same topic replaces one still waiting
// for an offline device.
func topic(a, b string) string {
	h := sha256.Sum256([]byte(a + "\x00" + b))
	return base64.RawURLEncoding.EncodeToString(h[:24])
}
