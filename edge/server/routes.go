package server

import (
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
		return s.routeProduct(seg, q)
	}
	return s.routeMore(seg, q)
}
