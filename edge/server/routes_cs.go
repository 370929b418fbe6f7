package server

import (
	"slices"
	"strconv"

	"storefront/contract"
	"storefront/edge/catalog"
	"storefront/edge/render"
)

func (s *Server) routeCS(seg []string, q *query, page, size int) (renderFunc, bool) {
	if len(seg) == 0 {
		return nil, false
	}
	switch seg[0] {
	case "faq":
		if len(seg) != 1 {
			return nil, false
		}
		// cid directly, or the seed's category name (privacy, payment, comic, novel, etc).
		cid := q.str("cid", "")
		if c, ok := contract.FAQCategories[q.str("category", "")]; ok {
			cid = c
		}
		if cid != "" && !slices.Contains([]string{"01000", "02000", "03100", "03300", "etc"}, cid) {
			return bad("항목(cid)의 값은 01000, 02000, 03100, 03300, etc 중 하나로 입력해 주세요."), true
		}
		kw := q.str("keyword", "")
		return func(v *catalog.View) (int, any) { return render.FAQPage(v, cid, kw, page, size) }, true
	case "notices":
		switch {
		case len(seg) == 1:
			return func(v *catalog.View) (int, any) { return render.Notices(v, contract.NoticeGeneral, page, size) }, true
		case len(seg) == 2 && seg[1] == "closingprod":
			return func(v *catalog.View) (int, any) { return render.Notices(v, contract.NoticeClosingProd, page, size) }, true
		case len(seg) == 2:
			id, err := strconv.ParseInt(seg[1], 10, 64)
			if err != nil {
				return notFound("공지사항을 찾을 수 없습니다."), true
			}
			return func(v *catalog.View) (int, any) { return render.NoticeDetail(v, id) }, true
		}
	}
	return nil, false
}
