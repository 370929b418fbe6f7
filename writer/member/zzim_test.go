package member_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
	"storefront/writer/internal/writertest"
)

type zzimList struct {
	ZzimList []struct {
		ID  int64  `json:"id"`
		PID string `json:"pid"`
	} `json:"zzimList"`
}

const zz = "/protocol/appapi/mb/user/info/"

func TestZzim(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	addWork(t, e, "N1", "EB", 0)
	addWork(t, e, "A1", "WT", 19)
	m := newMember(t, e, "zzim@example.com")
	product(t, e, "W1", func(contract.Product) bool { return true })
	rev := prodRevision(t, e, "W1")
	st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "section", "웹툰", "zzim_type", "prod", "pid", "W1"))
	if st != 200 || writertest.Code(t, body) != 200 {
		t.Fatalf("zzim-add: %d %s", st, body)
	}
	idx := decode[struct{ Idx int64 }](t, body).Idx
	if idx == 0 {
		t.Fatalf("no idx: %s", body)
	}
	// Adding again answers the same entry and counts once.
	_, body = m.Do("POST", zz+"zzim-add", map[string]any{"uid": m.uid, "section": "웹툰", "zzim_type": "prod", "pid": "W1"})
	if decode[struct{ Idx int64 }](t, body).Idx != idx {
		t.Fatalf("second add made a new entry: %s", body)
	}
	// The count goes out as the work's small counters document; the work's
	// own document (every volume) is not published again (issue 35).
	if got := stat(t, e, "W1", func(s contract.ProductStat) bool { return s.ZzimCount == 1 }); got.PID != "W1" {
		t.Fatalf("stat doc: %+v", got)
	}
	if r := prodRevision(t, e, "W1"); r != rev {
		t.Fatalf("a zzim republished the work: revision %d -> %d", rev, r)
	}
	for _, pid := range []string{"N1", "A1"} {
		if st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "zzim_type", "prod", "pid", pid)); st != 200 {
			t.Fatalf("add %s: %d %s", pid, st, body)
		}
	}
	list := func(f writertest.Form) []string {
		st, body := m.Do("POST", zz+"zzim-list", f)
		if st != 200 {
			t.Fatalf("zzim-list: %d %s", st, body)
		}
		var out []string
		for _, z := range decode[zzimList](t, body).ZzimList {
			out = append(out, z.PID)
		}
		return out
	}
	// Unverified member: the adult work stays out even if the payload claims level 2.
	if got := list(form("uid", m.uid, "adultLevel", "2", "channel", "AW")); strings.Join(got, ",") != "N1,W1" {
		t.Fatalf("zzim-list all: %v", got)
	}
	if got := list(form("uid", m.uid, "section", "소설")); strings.Join(got, ",") != "N1" {
		t.Fatalf("zzim-list novels: %v", got)
	}
	// Authors.
	if st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "zzim_type", "author", "pid", "77")); st != 200 {
		t.Fatalf("author add: %d %s", st, body)
	}
	if got := list(form("uid", m.uid, "zzim_type", "author")); strings.Join(got, ",") != "77" {
		t.Fatalf("author list: %v", got)
	}

	// Bad input: 4xx envelope, nothing changed.
	other := newMember(t, e, "other@example.com")
	before := e.Count(`SELECT count(*) FROM zzims`)
	visitor := e.Browser()
	for _, tc := range []struct {
		name string
		c    *writertest.Client
		path string
		body any
		want int
	}{
		{"other uid", other.Client, "zzim-add", form("uid", m.uid, "zzim_type", "prod", "pid", "W1"), 403},
		{"other uid del", other.Client, "zzim-del", form("uid", m.uid, "idxs", fmt.Sprint(idx), "zzim_type", "prod"), 403},
		{"other uid list", other.Client, "zzim-list", form("uid", m.uid), 403},
		{"visitor", visitor, "zzim-add", form("pid", "W1"), 401},
		{"missing pid", m.Client, "zzim-add", form("uid", m.uid, "zzim_type", "prod"), 400},
		{"unknown pid", m.Client, "zzim-add", form("uid", m.uid, "pid", "NOPE"), 404},
		{"bad type", m.Client, "zzim-add", form("uid", m.uid, "zzim_type", "x", "pid", "W1"), 400},
		{"section mismatch", m.Client, "zzim-add", form("uid", m.uid, "section", "소설", "pid", "W1"), 400},
		{"unknown author", m.Client, "zzim-add", form("uid", m.uid, "zzim_type", "author", "pid", "999"), 404},
		{"malformed json", m.Client, "zzim-add", `{"uid":`, 400},
		{"wrong type", m.Client, "zzim-add", `{"uid":"` + m.uid + `","pid":{"a":1}}`, 400},
		{"oversized", m.Client, "zzim-add", `{"pid":"` + strings.Repeat("x", 2<<20) + `"}`, 413},
		{"bad idxs", m.Client, "zzim-del", form("uid", m.uid, "idxs", "a,b"), 400},
		{"no idxs", m.Client, "zzim-del", form("uid", m.uid), 400},
		{"bad level", m.Client, "zzim-list", form("uid", m.uid, "adultLevel", "x"), 400},
	} {
		st, body := tc.c.Do("POST", zz+tc.path, tc.body)
		if st != tc.want || writertest.Code(t, body) != tc.want {
			t.Errorf("%s: %d %.200s, want %d", tc.name, st, body, tc.want)
		}
		// Readers see the message: Korean, and for some cases these words.
		wantMessage(t, tc.name, body, map[string]string{
			"other uid":        "로그인한 회원의 요청이 아닙니다.",
			"visitor":          "로그인이 필요한 서비스입니다.",
			"missing pid":      "필수 항목(pid)이 없습니다.",
			"unknown pid":      "작품을 찾을 수 없습니다.",
			"bad type":         "찜 종류(zzim_type)",
			"section mismatch": "작품의 분류(section)와 맞지 않습니다.",
			"unknown author":   "작가를 찾을 수 없습니다.",
			"oversized":        "요청 내용이 너무 큽니다.",
			"bad idxs":         "찜 번호(idxs)가 올바르지 않습니다.",
		}[tc.name])
	}
	if after := e.Count(`SELECT count(*) FROM zzims`); after != before {
		t.Fatalf("bad input changed zzim entries: %d -> %d", before, after)
	}
	// Another member's idx is not theirs to delete.
	other.Do("POST", zz+"zzim-del", form("uid", other.uid, "idxs", fmt.Sprint(idx)))
	if e.Count(`SELECT count(*) FROM zzims WHERE idx = $1`, idx) != 1 {
		t.Fatal("a member deleted another member's zzim entry")
	}
	if st, body := m.Do("POST", zz+"zzim-delete", map[string]any{"uid": m.uid, "idxs": []int64{idx}, "zzim_type": "prod"}); st != 200 {
		t.Fatalf("zzim-del: %d %s", st, body)
	}
	if got := list(form("uid", m.uid)); strings.Join(got, ",") != "N1" {
		t.Fatalf("after delete: %v", got)
	}
	stat(t, e, "W1", func(s contract.ProductStat) bool { return s.ZzimCount == 0 })
	// Business events reached EVENTS.
	cons, err := e.JS.OrderedConsumer(context.Background(), contract.EventsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{contract.BizSubject(contract.EvZzim)}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	writertest.Eventually(t, 5*time.Second, "zzim events", func() bool {
		b, err := cons.FetchNoWait(100)
		if err == nil {
			for range b.Messages() {
				n++
			}
		}
		return n >= 5
	})
}

func TestAlarmSet(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	m := newMember(t, e, "alarm@example.com")
	isAlarm := func(f writertest.Form) bool {
		st, body := m.Do("POST", zz+"alarm-set", f)
		if st != 200 {
			t.Fatalf("alarm-set: %d %s", st, body)
		}
		return decode[struct{ IsAlarm bool }](t, body).IsAlarm
	}
	// purchases/status carries the member's alarm state, which the detail
	// page shows after a reload (the edge's cached detail is false for everyone).
	statusAlarm := func(who member) bool {
		t.Helper()
		st, body := who.Do("GET", "/home/api/v1/purchases/status?pid=W1", nil)
		on := decode[struct{ IsAlarm *bool }](t, body).IsAlarm
		if st != 200 || on == nil {
			t.Fatalf("status without isAlarm: %d %s", st, body)
		}
		return *on
	}
	if statusAlarm(m) {
		t.Fatal("status: alarm on before any alarm-set")
	}
	if !isAlarm(form("uid", m.uid, "pid", "W1", "isAlarm", "Y")) || !statusAlarm(m) {
		t.Fatal("explicit alarm on not applied or not in status")
	}
	if isAlarm(form("uid", m.uid, "pid", "W1", "isAlarm", "N")) || statusAlarm(m) {
		t.Fatal("explicit alarm off not applied or not in status")
	}
	if !isAlarm(form("uid", m.uid, "pid", "W1")) || !statusAlarm(m) {
		t.Fatal("toggle did not turn the alarm on")
	}
	// Another member's alarm is theirs alone.
	if other := newMember(t, e, "alarm-other@example.com"); statusAlarm(other) {
		t.Fatal("status: another member sees this member's alarm")
	}
	if st, _ := m.Do("POST", zz+"alarm-set", form("uid", m.uid, "pid", "W1", "isAlarm", "maybe")); st != 400 {
		t.Fatalf("bad value: %d", st)
	}
	if st, _ := m.Do("POST", zz+"alarm-set", form("uid", "1", "pid", "W1")); st != 403 {
		t.Fatalf("other uid: %d", st)
	}
}

// The X-Channel header decides what a reader sees, never a channel in the
// payload or the query (issue 24 item 7): a verified adult with the 19 toggle
// on, reading in the Play Store app (AA, a teen-version channel), who writes
// channel=AW into zzim-list's payload or recently viewed's query still gets
// no adult work; on the web (AW header) the same member gets them.
func TestHeaderChannelRulesOverPayloadChannel(t *testing.T) {
	t.Parallel()
	e := writertest.StartWriter(t, nil)
	addWork(t, e, "W1", "WT", 0)
	addWork(t, e, "A1", "WT", 19)
	m := newMember(t, e, "channel@example.com")
	if st, body := m.VerifyAdult("홍길동", "1990-01-02"); st != 200 {
		t.Fatalf("verify: %d %s", st, body)
	}
	if st, body := m.Do("PUT", "/home/api/v1/auth/adult/toggle", map[string]any{"on": true}); st != 200 {
		t.Fatalf("toggle: %d %s", st, body)
	}
	for _, pid := range []string{"W1", "A1"} {
		if st, body := m.Do("POST", zz+"zzim-add", form("uid", m.uid, "zzim_type", "prod", "pid", pid)); st != 200 {
			t.Fatalf("zzim-add %s: %d %s", pid, st, body)
		}
		if st, body := m.Do("POST", "/home/api/v1/users/recent", map[string]any{"pid": pid, "vol": 1}); st != 200 {
			t.Fatalf("recent %s: %d %s", pid, st, body)
		}
	}
	as := func(channel string) {
		if channel == "" {
			m.Headers = nil
			return
		}
		m.Headers = map[string]string{"X-Channel": channel}
	}
	zzim := func(f writertest.Form) string {
		t.Helper()
		st, body := m.Do("POST", zz+"zzim-list", f)
		if st != 200 {
			t.Fatalf("zzim-list: %d %s", st, body)
		}
		var out []string
		for _, z := range decode[zzimList](t, body).ZzimList {
			out = append(out, z.PID)
		}
		return strings.Join(out, ",")
	}
	recent := func(query string) string {
		t.Helper()
		st, body := m.Do("GET", "/home/api/v1/users/recent?page=1"+query, nil)
		if st != 200 {
			t.Fatalf("recent: %d %s", st, body)
		}
		var out []string
		for _, it := range decode[struct{ List []struct{ PID string } }](t, body).List {
			out = append(out, it.PID)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct{ header, payload, want string }{
		{"AA", "AW", "W1"}, {"aa", "AW", "W1"}, {"IA", "IW", "W1"}, {"AA", "", "W1"},
		{"AW", "AA", "A1,W1"}, {"", "IA", "A1,W1"}, {"AC", "", "A1,W1"},
	} {
		as(c.header)
		if got := zzim(form("uid", m.uid, "adultLevel", "2", "channel", c.payload, "section", "all")); got != c.want {
			t.Errorf("zzim-list X-Channel %q, payload channel %q: %s, want %s", c.header, c.payload, got, c.want)
		}
		// JSON, as the page sends it.
		if got := zzim(writertest.Form("")); got != c.want {
			t.Errorf("zzim-list X-Channel %q without payload: %s, want %s", c.header, got, c.want)
		}
		q := ""
		if c.payload != "" {
			q = "&channel=" + c.payload
		}
		// recent lists newest first: A1 was viewed last.
		want := map[string]string{"W1": "W1", "A1,W1": "A1,W1"}[c.want]
		if got := recent(q); got != want {
			t.Errorf("recent X-Channel %q, query channel %q: %s, want %s", c.header, c.payload, got, want)
		}
	}
	// Unknown channels are refused, in the header or the payload, and list nothing.
	for _, c := range []struct {
		header string
		f      writertest.Form
	}{{"XX", form("uid", m.uid)}, {"AA", form("uid", m.uid, "channel", "ZZ")}} {
		as(c.header)
		if st, body := m.Do("POST", zz+"zzim-list", c.f); st != 400 || writertest.Code(t, body) != 400 {
			t.Errorf("zzim-list X-Channel %q %s: %d %s", c.header, c.f, st, body)
		}
	}
	as("AA")
	if st, body := m.Do("GET", "/home/api/v1/users/recent?channel=QQ", nil); st != 400 {
		t.Errorf("recent with an unknown query channel: %d %s", st, body)
	}
	as("")
}
