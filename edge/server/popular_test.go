package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/contract"
)

type popularAnswer struct {
	Header contract.Header `json:"header"`
	List   []struct {
		Rank    int    `json:"rank"`
		Keyword string `json:"keyword"`
	} `json:"list"`
	ComputedAt *time.Time `json:"computedAt"`
}

func (a popularAnswer) keywords() string {
	var ks []string
	for i, it := range a.List {
		if it.Rank != i+1 {
			ks = append(ks, fmt.Sprintf("rank%d!", it.Rank))
		}
		ks = append(ks, it.Keyword)
	}
	return strings.Join(ks, " ")
}

// TestPopularSearchesServedPerAudience: the edge serves analytics' popular
// keywords from memory; audiences that may not see adult works (visitors,
// unverified members) do not get keywords marked adult, and the next keywords
// fill their places; a new document replaces the answer.
func TestPopularSearchesServedPerAudience(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("p1", contract.SectionWebtoon, "나 혼자 레벨업"))
	g := startEdge(t, e)
	g.waitReady()

	const path = "/home/api/v1/search/popular"
	var a popularAnswer
	g.getJSON(path, 200, &a)
	if a.Header.Code != 200 || len(a.List) != 0 || a.ComputedAt != nil {
		t.Fatalf("before analytics computed any: %+v", a)
	}

	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	doc := contract.PopularSearches{Window: 86400, ComputedAt: at}
	for i := 1; i <= 12; i++ {
		doc.Items = append(doc.Items, contract.PopularSearch{Keyword: fmt.Sprintf("k%02d", i), Rank: i, Searchers: 100 - i, Adult: i == 2 || i == 5})
	}
	e.put(contract.KeyPopularSearches, doc)

	adult := audCookie(2, time.Now().Add(time.Hour))
	unverified := audCookie(0, time.Now().Add(time.Hour))
	eventually(t, "popular keywords", func() bool {
		g.getJSON(path, 200, &a, adult)
		return len(a.List) > 0
	})
	if got, want := a.keywords(), "k01 k02 k03 k04 k05 k06 k07 k08 k09 k10"; got != want {
		t.Errorf("adult: %q, want %q", got, want)
	}
	if a.ComputedAt == nil || !a.ComputedAt.Equal(at) {
		t.Errorf("computedAt %v", a.ComputedAt)
	}
	for name, hdr := range map[string][]string{"visitor": nil, "unverified member": {unverified}} {
		var b popularAnswer
		g.getJSON(path, 200, &b, hdr...)
		if got, want := b.keywords(), "k01 k03 k04 k06 k07 k08 k09 k10 k11 k12"; got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}

	// The next computation: the answers follow (their cached bodies are dropped).
	e.put(contract.KeyPopularSearches, contract.PopularSearches{Items: []contract.PopularSearch{{Keyword: "새 검색어", Rank: 1, Searchers: 9}}, ComputedAt: at.Add(time.Minute)})
	eventually(t, "the new keywords", func() bool {
		var b popularAnswer
		g.getJSON(path, 200, &b)
		return b.keywords() == "새 검색어"
	})
}

// TestSearchEventCarriesTopHit: a search event keeps only the keyword, in the
// counted form, and the edge adds the keyword's top hit for an audience that
// sees every work (what analytics' adult rule reads), whatever the page said
// and whoever searched. A missing or overlong keyword is refused and nothing
// is published.
func TestSearchEventCarriesTopHit(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("solo", contract.SectionWebtoon, "나 혼자 레벨업"))
	e.putProduct(product("xnight", contract.SectionWebtoon, "밤의 비밀", func(p *contract.Product) { p.Age = 19 }))
	g := startEdge(t, e)
	g.waitReady()
	ctx := context.Background()
	stream, err := e.js.Stream(ctx, contract.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	last := func() contract.TrackedEvent {
		t.Helper()
		m, err := stream.GetLastMsgForSubject(ctx, contract.TrackBundleSubject)
		if err != nil {
			t.Fatal(err)
		}
		var ev contract.TrackedEvent
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	post := func(body string) (int, []byte) {
		resp, err := http.Post(g.url+"/home/api/v1/tracking/events", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, readAll(t, resp)
	}
	for _, c := range []struct{ body, q, top string }{
		{`{"events":[{"type":"search","props":{"q":"  나  혼자 ","top":"forged","extra":"x"}}]}`, "나 혼자", "solo"},
		{`{"events":[{"type":"search","props":{"q":"ㄴㅎㅈ"}}]}`, "ㄴㅎㅈ", "solo"},
		// A visitor's search (who sees no adult work) still records the adult top hit.
		{`{"events":[{"type":"search","props":{"q":"밤의"}}]}`, "밤의", "xnight"},
		{`{"events":[{"type":"search","props":{"q":"없는 작품 제목"}}]}`, "없는 작품 제목", ""},
	} {
		if code, raw := post(c.body); code != 200 {
			t.Fatalf("%s: %d %s", c.body, code, raw)
		}
		ev := last()
		want := map[string]string{contract.PropSearchQuery: c.q}
		if c.top != "" {
			want[contract.PropSearchTop] = c.top
		}
		if ev.Type != contract.EvSearch || fmt.Sprint(ev.Props) != fmt.Sprint(want) || ev.SessionID == "" {
			t.Errorf("%s: event %+v, want props %v", c.body, ev, want)
		}
	}

	info, _ := stream.Info(ctx)
	before := info.State.Msgs
	for _, bad := range []string{
		`{"events":[{"type":"search"}]}`,
		`{"events":[{"type":"search","props":{"q":"   "}}]}`,
		`{"events":[{"type":"search","props":{"q":"` + strings.Repeat("가", 51) + `"}}]}`,
	} {
		code, raw := post(bad)
		var env contract.Envelope
		if code != 400 || json.Unmarshal(raw, &env) != nil || env.Header.Code != 400 || env.Header.Message != "검색어는 1~50자로 입력해 주세요." {
			t.Errorf("%s: %d %s", bad, code, raw)
		}
	}
	info, _ = stream.Info(ctx)
	if info.State.Msgs != before {
		t.Errorf("refused searches published %d messages", info.State.Msgs-before)
	}
}
