package server_test

import (
	"bytes"
	"testing"

	"storefront/contract"
)

// A comic read right to left (contract.Product.RightToLeft) says so in its
// detail's prodInfo, which the viewer turns its pages by; a work read left
// to right does not name the field at all.
func TestDetailServesRightToLeft(t *testing.T) {
	e := newEnv(t)
	e.putProduct(product("rtl1", contract.SectionComic, "오른쪽부터 읽는 만화", func(p *contract.Product) { p.RightToLeft = true }))
	e.putProduct(product("ltr1", contract.SectionComic, "왼쪽부터 읽는 만화"))
	g := startEdge(t, e)
	g.waitReady()

	var d struct {
		ProdInfo struct {
			RightToLeft *bool `json:"rightToLeft"`
		} `json:"prodInfo"`
	}
	g.getJSON("/home/api/v1/products/rtl1", 200, &d)
	if d.ProdInfo.RightToLeft == nil || !*d.ProdInfo.RightToLeft {
		t.Fatalf("rtl1 prodInfo.rightToLeft = %v, want true", d.ProdInfo.RightToLeft)
	}
	if _, b := g.get("/home/api/v1/products/ltr1"); bytes.Contains(b, []byte(`"rightToLeft"`)) {
		t.Fatalf("ltr1 names rightToLeft: %s", b)
	}
}
