package server

import (
	"strconv"

	"storefront/contract"
	"storefront/edge/catalog"
	"storefront/edge/render"
)

// routeProduct serves /products/{pid}/...: a work's detail, its volumes,
// reviews, a volume's pages and related works.
func (s *Server) routeProduct(seg []string, q *query) (renderFunc, bool) {
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
		// The answer is made of the version's manifest, an object of the
		// content store: read it before rendering under the catalog's lock.
		s.prefetchManifest(pid, no)
		return func(v *catalog.View) (int, any) { return render.VolumeMediaOf(v, pid, no, s.cachedManifest) }, true
	case len(seg) == 3 && seg[2] == "related":
		code := q.str("code", "")
		return func(v *catalog.View) (int, any) { return render.RelatedOf(v, pid, code) }, true
	}
	return nil, false
}
