package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"storefront/contract"
	"storefront/edge/server"
)

// TestAnswersMatchOpenAPI checks real answers of every edge read (and error
// answers) against docs/openapi.yaml.
func TestAnswersMatchOpenAPI(t *testing.T) {
	ctx := context.Background()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(ctx); err != nil {
		t.Fatalf("openapi.yaml is not valid: %v", err)
	}
	e := newEnv(t)
	leakCatalog(e)
	e.put("reviews.nwt", contract.ReviewList{PID: "nwt", Reviews: []contract.Review{{ID: 1, Body: "재밌다", Point: 5, LikeCnt: 3, CreatedAt: t0}}})
	e.put("faq.1", contract.FAQ{ID: 1, CID: "02000", Question: "결제", Answer: "답", Order: 1})
	e.put("notice.2", contract.Notice{ID: 2, Kind: contract.NoticeGeneral, Title: "공지", Body: "본문", PostedAt: t0.Add(-time.Hour)})
	e.put("banner.1", contract.Banner{ID: 1, Place: "home", Title: "배너", ImageURL: "/img/banner/1.svg", LinkURL: "/webtoon"})
	e.put(contract.KeyQuickLinks, contract.QuickLinks{Links: []contract.QuickLink{{Title: "웹툰", IconURL: "/img/icon/wt.svg", LinkURL: "/webtoon"}}})
	g := startEdge(t, e, func(c *server.Config) { c.Now = func() time.Time { return t0 } })
	g.waitReady()
	u, _ := url.Parse(g.url)
	doc.Servers = openapi3.Servers{{URL: g.url}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	paths := append([]string{}, listEndpoints...)
	paths = append(paths,
		"/home/api/v1/products/xwt", // teen state
		"/home/api/v1/products/nwt/volumes?order=latest", "/home/api/v1/products/nwt/reviews", "/home/api/v1/products/nwt/reviews/v2?buyer=Y",
		"/home/api/v1/products/nwt/related?code=TC0011", "/home/api/v1/products/nope", "/home/api/v1/products/xwt/volumes",
		"/home/api/v1/keywords", "/home/api/v1/search/popular", "/home/api/v1/genres", "/home/api/v1/quick-links", "/home/api/v1/cs/faq?cid=02000",
		"/home/api/v1/cs/faq?category=payment", "/home/api/v1/cs/notices", "/home/api/v1/cs/notices/2", "/home/api/v1/cs/notices/99",
		"/home/api/v1/home?section=bad", "/home/api/v1/webtoon/genre/21?sort=bogus", "/home/api/v1/events/bluerun/77",
		"/home/api/v1/comic/heroism/nobody", "/home/api/v1/awards/nosuch", "/home/api/v1/rankings?tab=x",
	)
	for _, p := range paths {
		for _, hdr := range [][]string{nil, {audCookie(2, t0.Add(time.Hour)), "X-Channel: AW", contract.HeaderSignatureVersion + ": 2"}} {
			req, _ := http.NewRequest("GET", g.url+p, nil)
			req.Host = u.Host
			req.Header.Set(contract.HeaderRequestToken, "tok")
			for _, h := range hdr {
				k, v, _ := strings.Cut(h, ": ")
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			validate(t, router, req, resp, body)
		}
	}
	// Tracking answers, and the seed's helpdesk POSTs.
	for _, c := range []struct{ path, body string }{
		{"/home/api/v1/tracking/page-view", `{"curPageUrl":"/webtoon"}`},
		{"/home/api/v1/tracking/page-view", `{}`},
		{"/home/api/v1/tracking/events", `{"events":[{"type":"view_content","pid":"nwt","vol":1}]}`},
		{"/protocol/appapi/mb/helpdesk/faq_list?cid=02000&page=1&keyword=", ``},
		{"/protocol/appapi/mb/helpdesk/faq_list", `{"cid":"02000","page":1}`},
		{"/protocol/appapi/mb/helpdesk/faq_list?cid=1", ``},
		{"/protocol/appapi/mb/helpdesk/notice_list", `{"page":1}`},
		{"/protocol/appapi/mb/helpdesk/notice_list", `{"page":`},
	} {
		req, _ := http.NewRequest("POST", g.url+c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		req.Body = io.NopCloser(strings.NewReader(c.body))
		validate(t, router, req, resp, body)
	}
}

func validate(t *testing.T, router routers.Router, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	route, params, err := router.FindRoute(req)
	if err != nil {
		t.Errorf("%s %s: no route in openapi.yaml: %v", req.Method, req.URL, err)
		return
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s: answer %d does not match openapi.yaml: %v\n%.400s", req.Method, req.URL, resp.StatusCode, err, body)
	}
}
