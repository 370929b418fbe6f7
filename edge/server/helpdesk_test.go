package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/edge/server"
)

func helpdeskEnv(t *testing.T) *edge {
	t.Helper()
	e := newEnv(t)
	e.put("faq.1", contract.FAQ{ID: 1, CID: "02000", Question: "블루머니 충전은 어떻게 하나요?", Answer: "충전 페이지에서 합니다.", Order: 1})
	e.put("faq.2", contract.FAQ{ID: 2, CID: "02000", Question: "환불은 되나요?", Answer: "7일 안에 됩니다.", Order: 2})
	e.put("faq.3", contract.FAQ{ID: 3, CID: "01000", Question: "개인정보는 어떻게 보관되나요?", Answer: "암호화합니다.", Order: 1})
	e.put("notice.1", contract.Notice{ID: 1, Kind: contract.NoticeGeneral, Title: "서비스 점검 안내", Body: "본문", PostedAt: t0.Add(-2 * time.Hour)})
	e.put("notice.2", contract.Notice{ID: 2, Kind: contract.NoticeGeneral, Title: "이용약관 개정", Body: "본문", PostedAt: t0.Add(-time.Hour)})
	// The writer is unreachable: a helpdesk read answered at all came from the edge.
	g := startEdge(t, e, func(c *server.Config) { c.Now = func() time.Time { return t0 } })
	g.waitReady()
	return g
}

func (g *edge) post(path, contentType, body string) (int, []byte) {
	g.t.Helper()
	req, _ := http.NewRequest("POST", g.url+path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// The seed's helpdesk POSTs (§7) get the answers of the store's GET routes,
// from the edge's memory: faq_list with cid, page and keyword in the URL (or,
// from older builds, in a form or JSON body), notice_list with page.
func TestHelpdeskSeedCallsAnswerFromMemory(t *testing.T) {
	g := helpdeskEnv(t)
	same := func(post string, postStatus int, postBody []byte, get string) {
		t.Helper()
		resp, want := g.get(get)
		if postStatus != resp.StatusCode || string(postBody) != string(want) {
			t.Fatalf("POST %s answered %d %s\nGET %s answers %d %s", post, postStatus, postBody, get, resp.StatusCode, want)
		}
	}
	for _, c := range []struct{ path, ct, body, get string }{
		{server.HelpdeskFAQPath + "?cid=02000&page=1&keyword=", "", "", "/home/api/v1/cs/faq?cid=02000&page=1"},
		{server.HelpdeskFAQPath + "?cid=02000&keyword=%ED%99%98%EB%B6%88", "", "", "/home/api/v1/cs/faq?cid=02000&keyword=%ED%99%98%EB%B6%88"},
		{server.HelpdeskFAQPath, "application/x-www-form-urlencoded", "cid=01000&page=1", "/home/api/v1/cs/faq?cid=01000"},
		{server.HelpdeskFAQPath, "application/json", `{"cid":"02000","page":1,"size":1}`, "/home/api/v1/cs/faq?cid=02000&size=1"},
		{server.HelpdeskNoticePath, "application/x-www-form-urlencoded", "page=1", "/home/api/v1/cs/notices?page=1"},
		{server.HelpdeskNoticePath, "", "", "/home/api/v1/cs/notices"},
		{server.HelpdeskNoticePath, "application/json", `{"page":"2","size":"1"}`, "/home/api/v1/cs/notices?page=2&size=1"},
	} {
		st, b := g.post(c.path, c.ct, c.body)
		if st != 200 {
			t.Fatalf("POST %s %s: %d %s", c.path, c.body, st, b)
		}
		same(c.path+" "+c.body, st, b, c.get)
	}

	var faq struct {
		CID  string         `json:"cid"`
		List []contract.FAQ `json:"list"`
	}
	_, b := g.post(server.HelpdeskFAQPath+"?cid=02000&keyword=%ED%99%98%EB%B6%88", "", "")
	if err := json.Unmarshal(b, &faq); err != nil || faq.CID != "02000" || len(faq.List) != 1 || faq.List[0].ID != 2 {
		t.Fatalf("keyword 환불 in payment: %s", b)
	}
	// Newest notice first, page by page.
	var notices struct {
		List []struct {
			ID int64 `json:"id"`
		} `json:"list"`
	}
	_, b = g.post(server.HelpdeskNoticePath, "application/x-www-form-urlencoded", "page=2&size=1")
	if err := json.Unmarshal(b, &notices); err != nil || len(notices.List) != 1 || notices.List[0].ID != 1 {
		t.Fatalf("notice page 2: %s", b)
	}
}

// Bad parameters or bodies are refused in the envelope, in Korean; a GET of
// the POST-only paths is a 405.
func TestHelpdeskSeedCallsRefuseBadInput(t *testing.T) {
	g := helpdeskEnv(t)
	for _, c := range []struct {
		path, ct, body string
		status         int
	}{
		{server.HelpdeskFAQPath + "?cid=99999", "", "", 400},
		{server.HelpdeskFAQPath + "?page=0", "", "", 400},
		{server.HelpdeskNoticePath, "application/x-www-form-urlencoded", "page=abc", 400},
		{server.HelpdeskNoticePath, "application/json", `{"page":`, 400},
		{server.HelpdeskNoticePath, "application/json", `[1,2]`, 400},
		{server.HelpdeskNoticePath, "application/json", `{"page":{"x":1}}`, 400},
		{server.HelpdeskNoticePath, "application/json", `{"page":1}{"page":2}`, 400},
		{server.HelpdeskFAQPath, "application/x-www-form-urlencoded", "keyword=%00", 400},
		{server.HelpdeskFAQPath, "application/x-www-form-urlencoded", "keyword=%ff", 400},
		{server.HelpdeskFAQPath, "text/plain", "cid=01000", 415},
	} {
		st, b := g.post(c.path, c.ct, c.body)
		var env contract.Envelope
		if st != c.status || json.Unmarshal(b, &env) != nil || env.Header.Code != c.status || !testenv.Korean(env.Header.Message) {
			t.Errorf("POST %s %q: %d %s, want %d in the envelope, in Korean", c.path, c.body, st, b, c.status)
		}
	}
	resp, b := g.get(server.HelpdeskFAQPath)
	if resp.StatusCode != 405 {
		t.Fatalf("GET faq_list: %d %s", resp.StatusCode, b)
	}
}
