package push_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"storefront/contract"
	"storefront/writer/push"
)

// followers makes n members who follow author (an author zzim, as the
// detail page and the author page make it), each with a web subscription of
// the fake; it answers their endpoints.
func (w *world) followers(n int, author int64) []string {
	w.t.Helper()
	ctx := context.Background()
	tag := fmt.Sprintf("f%d-%d", author, time.Now().UnixNano())
	rows, err := w.pool.Query(ctx, `INSERT INTO users (login_type, login_id, bid)
		SELECT 'N', $1 || g, $1 || 'b' || g FROM generate_series(1, $2) g RETURNING uid`, tag, n)
	if err != nil {
		w.t.Fatal(err)
	}
	var uids []int64
	for rows.Next() {
		var u int64
		_ = rows.Scan(&u)
		uids = append(uids, u)
	}
	if rows.Err() != nil {
		w.t.Fatal(rows.Err())
	}
	var eps, keys, auths []string
	for range uids {
		s, err := w.f.NewSubscription(push.DevPublicKey)
		if err != nil {
			w.t.Fatal(err)
		}
		eps, keys, auths = append(eps, s.Endpoint), append(keys, s.Keys.P256dh), append(auths, s.Keys.Auth)
	}
	w.exec(`INSERT INTO push_subscriptions (uid, endpoint, p256dh, auth, channel, created_at, updated_at)
		SELECT u, e, k, a, '', now(), now() FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS x(u, e, k, a)`,
		uids, eps, keys, auths)
	w.follow(author, eps...)
	return eps
}

// follow makes the members owning endpoints follow author.
func (w *world) follow(author int64, eps ...string) {
	w.t.Helper()
	w.exec(`INSERT INTO zzims (uid, zzim_type, target, created_at)
		SELECT uid, 'author', $2, now() FROM push_subscriptions WHERE endpoint = ANY($1) ON CONFLICT DO NOTHING`, eps, fmt.Sprint(author))
}

// byAuthor gives pid the author (the admin API's write, which keeps the
// push schedule's authors).
func (w *world) byAuthor(pid string, author int64, name string) {
	w.t.Helper()
	w.edit(pid, func(p *contract.Product) {
		p.Authors = []contract.Author{{AuthorID: author, AuthorName: name, IsWriter: true}}
	})
}

// inboxOf answers the inbox rows of the member owning endpoint as
// "pid/no/kind" strings.
func (w *world) inboxOf(ep string) []string {
	w.t.Helper()
	rows, err := w.pool.Query(context.Background(), `SELECT i.pid || '/' || i.no || '/' || i.kind FROM inbox i
		JOIN push_subscriptions s ON s.uid = i.uid WHERE s.endpoint = $1 ORDER BY i.id`, ep)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

// once runs one pass of several workers at the same time (writer nodes side
// by side), then answers.
func once(t *testing.T, wks ...*push.Worker) {
	t.Helper()
	var wg sync.WaitGroup
	for _, wk := range wks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := wk.Once(context.Background()); err != nil {
				t.Errorf("worker: %v", err)
			}
		}()
	}
	wg.Wait()
}

// TestFollowersToldOnceOfNewEpisode (issue 34 item 3): the followers of a
// work's author get one inbox item and one Web Push for a new episode at its
// release instant (a scheduled episode says nothing before), however many
// writer nodes look and however often (a node started again looks at the
// same tables); a follower who also has the work's alarm on is told once;
// a follower of another author and a member who follows nobody get nothing.
func TestFollowersToldOnceOfNewEpisode(t *testing.T) {
	w := newWorld(t)
	w.release("W1", 1, w.clk.now().Add(-48*time.Hour)) // long out: the work is not new
	w.byAuthor("W1", 501, "따를 작가")
	w.byAuthor("W2", 502, "다른 작가")
	fans := w.followers(30, 501)
	both := w.members(5, "W1", true, "")
	w.follow(501, both...)
	others := w.followers(5, 502)
	nobody := w.members(3, "W2", false, "")
	w.release("W1", 2, w.clk.now().Add(time.Hour)) // scheduled

	workers := func() []*push.Worker {
		return []*push.Worker{w.service(nil).Worker(nil), w.service(nil).Worker(nil), w.service(nil).Worker(nil)}
	}
	once(t, workers()...)
	if n := w.count(`SELECT count(*) FROM inbox`); n != 0 || w.f.Requests() != 0 {
		t.Fatalf("before the release: %d inbox items, %d notifications", n, w.f.Requests())
	}
	w.clk.move(time.Hour)
	for range 3 { // three nodes, started again twice
		once(t, workers()...)
	}
	for _, ep := range append(append([]string{}, fans...), both...) {
		if got := w.inboxOf(ep); len(got) != 1 || got[0] != "W1/2/episode" {
			t.Fatalf("%s: inbox %v, want [W1/2/episode]", ep, got)
		}
		if got := len(w.f.Messages(ep)); got != 1 {
			t.Fatalf("%s: %d notifications, want 1", ep, got)
		}
	}
	for _, ep := range append(append([]string{}, others...), nobody...) {
		if got := w.inboxOf(ep); len(got) != 0 || len(w.f.Messages(ep)) != 0 {
			t.Fatalf("%s (not a follower): inbox %v, %d notifications", ep, got, len(w.f.Messages(ep)))
		}
	}
	if got := len(w.f.Messages("")); got != len(fans)+len(both) {
		t.Fatalf("%d notifications, want %d", got, len(fans)+len(both))
	}
	p := payload(t, w.f.Messages(fans[0])[0])
	if p.Title != "푸시 작품" || p.Body != "새 회차 2화가 공개되었습니다." || p.URL != "/viewer?pid=W1&no=2" {
		t.Fatalf("payload %+v", p)
	}
}

// TestFollowersToldOfNewWork: an author's new work (its first volume
// released) reaches the author's followers as a new work, with the work's
// title, in the inbox and by Web Push.
func TestFollowersToldOfNewWork(t *testing.T) {
	w := newWorld(t)
	fans := w.followers(3, 601)
	w.exec(`INSERT INTO works (pid, section, title) VALUES ('N1', 'WT', '신작')`)
	w.edit("N1", func(p *contract.Product) {
		p.Authors = []contract.Author{{AuthorID: 601, AuthorName: "신작 작가", IsWriter: true}}
		p.Volumes = []contract.Volume{{No: 1, ReleaseAt: w.clk.now().Add(time.Minute)}, {No: 2, ReleaseAt: w.clk.now().Add(time.Minute)}}
	})
	w.clk.move(time.Minute)
	once(t, w.service(nil).Worker(nil))
	for _, ep := range fans {
		if got := w.inboxOf(ep); len(got) != 2 || got[0] != "N1/1/work" && got[1] != "N1/1/work" {
			t.Fatalf("%s: inbox %v, want N1/1/work and N1/2/episode", ep, got)
		}
	}
	var sawWork bool
	for _, m := range w.f.Messages(fans[0]) {
		if p := payload(t, m); p.URL == "/viewer?pid=N1&no=1" {
			sawWork = p.Body == "새 작품이 공개되었습니다." && p.Title == "신작"
		}
	}
	if !sawWork {
		t.Fatalf("no new-work notification: %v", w.f.Messages(fans[0]))
	}
}

// TestAdultWorkToldOnlyToAdultFollowers (issue 34's audience rule, as
// issue 30's for alarms): an adult work's new episode reaches, in the inbox
// and by push, only the followers who may see adult works now; a follower
// never verified, a minor and an adult with the 19 toggle off are told
// nothing, while the author's work for everyone reaches all of them.
func TestAdultWorkToldOnlyToAdultFollowers(t *testing.T) {
	w := newWorld(t)
	w.exec(`INSERT INTO works (pid, section, title, age) VALUES ('X1', 'WT', '성인 작품', 19)`)
	w.release("X1", 1, w.clk.now().Add(-48*time.Hour))
	w.release("W1", 1, w.clk.now().Add(-48*time.Hour))
	w.byAuthor("X1", 701, "작가")
	w.byAuthor("W1", 701, "작가")
	adult := w.followers(1, 701)
	w.setLevel(asAdult, adult...)
	unverified := w.followers(1, 701)
	minor := w.followers(1, 701)
	w.setLevel(asMinor, minor...)
	toggledOff := w.followers(1, 701)
	w.setLevel(asToggledOff, toggledOff...)
	w.release("X1", 2, w.clk.now())
	w.release("W1", 2, w.clk.now())
	once(t, w.service(nil).Worker(nil))
	if got := w.inboxOf(adult[0]); len(got) != 2 || len(w.f.Messages(adult[0])) != 2 {
		t.Fatalf("adult follower: inbox %v, %d notifications; want both works", got, len(w.f.Messages(adult[0])))
	}
	for name, eps := range map[string][]string{"never verified": unverified, "minor": minor, "toggle off": toggledOff} {
		if got := w.inboxOf(eps[0]); len(got) != 1 || got[0] != "W1/2/episode" {
			t.Errorf("%s: inbox %v, want only the work for everyone", name, got)
		}
		for _, m := range w.f.Messages(eps[0]) {
			if p := payload(t, m); p.Title == "성인 작품" {
				t.Errorf("%s: the adult work's notification reached them", name)
			}
		}
	}
}
