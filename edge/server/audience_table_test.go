package server_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"storefront/edge/server"
)

// TestAudienceTable runs contract/cases/audience.json (the table the
// frontend's gate is run against too) against the edge's real answers: on
// each channel and adult level an adult work's detail is the 19 placeholder
// (pid, section and age only: no cover, no summary, no volumes) exactly where
// the table says adult content is not shown, and lists carry adult works
// exactly where it is (a genre list, an author's works, search).
func TestAudienceTable(t *testing.T) {
	b, err := os.ReadFile("../../contract/cases/audience.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []struct {
			Channel      string `json:"channel"`
			Level        int    `json:"level"`
			AdultContent bool   `json:"adultContent"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	leakCatalog(e)
	g := startEdge(t, e, func(c *server.Config) { c.Now = func() time.Time { return t0 } })
	g.waitReady()
	exp := t0.Add(time.Hour)
	for _, c := range table.Cases {
		h := []string{"X-Channel: " + c.Channel}
		if c.Level > 0 { // a visitor has no audience token: level 0
			h = append(h, audCookie(c.Level, exp))
		}
		name := c.Channel + " level " + strconv.Itoa(c.Level)
		var d struct {
			Gated    bool `json:"adultVerificationNeeded"`
			ProdInfo struct {
				PID, ThumbURL, Summary, Title string
				Age                           int
			} `json:"prodInfo"`
			VolList []json.RawMessage `json:"volList"`
		}
		g.getJSON("/home/api/v1/products/xwt", 200, &d, h...)
		if d.Gated == c.AdultContent {
			t.Errorf("%s: adultVerificationNeeded %v, table says adult content %v", name, d.Gated, c.AdultContent)
		}
		if d.Gated && (d.ProdInfo.ThumbURL != "" || d.ProdInfo.Summary != "" || d.ProdInfo.Title != "" || len(d.VolList) > 0 || d.ProdInfo.PID != "xwt" || d.ProdInfo.Age != 19) {
			t.Errorf("%s: the placeholder shows more than pid, section and age: %+v, %d volumes", name, d.ProdInfo, len(d.VolList))
		}
		_, list := g.get("/home/api/v1/webtoon/genre/21", h...)
		if hasAdult(list) != c.AdultContent {
			t.Errorf("%s: list shows adult works %v, table says %v", name, hasAdult(list), c.AdultContent)
		}
		// The author page (issue 34 item 3) lists author 7's works: the
		// ordinary ones always, the adult ones where the table says.
		_, works := g.get("/home/api/v1/authors/7/works?size=50", h...)
		if !bytes.Contains(works, []byte(`"pid":"nwt"`)) {
			t.Errorf("%s: the author's works miss the ordinary work: %s", name, works)
		}
		if hasAdult(works) != c.AdultContent {
			t.Errorf("%s: the author's works show adult works %v, table says %v", name, hasAdult(works), c.AdultContent)
		}
		// Search answers by title, by initial consonants and by a title one
		// jamo off alike: "ㄱㅁ" (귀멸) and "귀 멸" hit every adult and
		// ordinary work of the catalog, "웹툰 귀멜" (a typo hit) the webtoons.
		for _, q := range []string{"%E3%84%B1%E3%85%81", "%EA%B7%80%20%EB%A9%B8", "%EC%9B%B9%ED%88%B0%20%EA%B7%80%EB%A9%9C"} {
			_, found := g.get("/home/api/v1/search?size=50&q="+q, h...)
			if !bytes.Contains(found, []byte(`"pid":"nwt"`)) {
				t.Errorf("%s: search %s misses the ordinary work: %s", name, q, found)
			}
			if hasAdult(found) != c.AdultContent {
				t.Errorf("%s: search %s shows adult works %v, table says %v", name, q, hasAdult(found), c.AdultContent)
			}
		}
		// Popular searches: a keyword whose top hit is an adult work names it.
		_, popular := g.get("/home/api/v1/search/popular", h...)
		if !bytes.Contains(popular, []byte(`"보통 웹툰"`)) || bytes.Contains(popular, []byte(`"성인 웹툰"`)) != c.AdultContent {
			t.Errorf("%s: popular searches %s, table says adult content %v", name, popular, c.AdultContent)
		}
	}
}
