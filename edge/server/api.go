package server

import (
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/catalog"
	"storefront/edge/render"
)

// renderFunc renders one answer from a view.
type renderFunc func(v *catalog.View) (int, any)

func bad(msg string) renderFunc {
	return func(*catalog.View) (int, any) {
		return 400, contract.Envelope{Header: contract.Header{Code: 400, Message: msg}}
	}
}

func notFound(msg string) renderFunc {
	return func(*catalog.View) (int, any) {
		return 404, contract.Envelope{Header: contract.Header{Code: 404, Message: msg}}
	}
}

// query reads the request's query arguments with validation.
type query struct {
	args *fasthttp.Args
	err  string
}

func (q *query) str(name, def string) string {
	v := q.args.Peek(name)
	if len(v) == 0 {
		return def
	}
	return string(v)
}

// oneOf reads name, which must be one of allowed (def when absent).
func (q *query) oneOf(name, def string, allowed ...string) string {
	v := q.str(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	if q.err == "" {
		q.err = "항목(" + name + ")의 값은 " + strings.Join(allowed, ", ") + " 중 하나로 입력해 주세요."
	}
	return def
}

// intIn reads an integer in [lo, hi] (def when absent).
func (q *query) intIn(name string, def, lo, hi int) int {
	v := q.args.Peek(name)
	if len(v) == 0 {
		return def
	}
	n, err := strconv.Atoi(string(v))
	if err != nil || n < lo || n > hi {
		if q.err == "" {
			q.err = "항목(" + name + ")의 값은 " + strconv.Itoa(lo) + "~" + strconv.Itoa(hi) + " 사이의 숫자로 입력해 주세요."
		}
		return def
	}
	return n
}

// paging reads page (from 1) and size.
func (q *query) paging(defSize int) (page, size int) {
	return q.intIn("page", 1, 1, 100_000), q.intIn("size", defSize, 1, 100)
}

// route maps a GET under /home/api/v1/ to its renderer; ok is false for paths
// the edge does not serve (they go to a writer).
func (s *Server) route(ctx *fasthttp.RequestCtx) (fn renderFunc, ok bool) {
	rest := string(ctx.Path()[len(APIPrefix):])
	seg := strings.Split(strings.Trim(rest, "/"), "/")
	q := &query{args: ctx.QueryArgs()}
	fn, ok = s.routeSegs(seg, q)
	if ok && q.err != "" {
		return bad(q.err), true
	}
	return fn, ok
}

func (s *Server) routeSegs(seg []string, q *query) (renderFunc, bool) {
	switch seg[0] {
	case "home":
		if len(seg) != 1 {
			return nil, false
		}
		area := q.oneOf("section", "all", "all", "wt", "cm", "eb")
		return func(v *catalog.View) (int, any) { return render.HomePage(v, area) }, true
	case "products":
		if len(seg) < 2 {
			return nil, false
		}
		pid := seg[1]
		if !contract.ValidKeyID(pid) {
			return notFound("작품을 찾을 수 없습니다."), true
		}
		switch {
		case len(seg) == 2:
			return func(v *catalog.View) (int, any) { return render.ProductDetail(v, pid) }, true
		case len(seg) == 3 && seg[2] == "volumes":
			order := q.oneOf("order", render.OrderOld, render.OrderOld, render.OrderLatest)
			page, size := q.intIn("page", 1, 1, 100_000), q.intIn("size", 1000, 1, 1000)
			return func(v *catalog.View) (int, any) { return render.VolumesOf(v, pid, order, page, size) }, true
		case seg[2] == "reviews" && (len(seg) == 3 || len(seg) == 4 && seg[3] == "v2"):
			version := 1
			if len(seg) == 4 {
				version = 2
			}
			buyer := q.oneOf("buyer", "N", "Y", "N") == "Y"
			sortBy := q.oneOf("sort", render.ReviewSortLike, render.ReviewSortLike, render.ReviewSortRecent)
			page, size := q.paging(20)
			return func(v *catalog.View) (int, any) {
				return render.Reviews(v, pid, buyer, sortBy, page, size, version)
			}, true
		case len(seg) == 5 && seg[2] == "volumes" && seg[4] == "media":
			no, err := strconv.Atoi(seg[3])
			if err != nil || no < 1 {
				return notFound("회차 내용을 찾을 수 없습니다."), true
			}
			return func(v *catalog.View) (int, any) { return render.VolumeMediaOf(v, pid, no) }, true
		case len(seg) == 3 && seg[2] == "related":
			code := q.str("code", "")
			return func(v *catalog.View) (int, any) { return render.RelatedOf(v, pid, code) }, true
		}
	}
	return s.routeMore(seg, q)
}
