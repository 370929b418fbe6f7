package contract_test

import (
	"encoding/json"
	"testing"

	"storefront/contract"
)

type pagedItem struct {
	PID string `json:"pid"`
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The shared paged types answer byte for byte what the hand-declared
// envelopes they replace answered (issue 20): the reference structs below are
// those envelopes as they were.
func TestPagedListsAnswerAsTheHandDeclaredEnvelopes(t *testing.T) {
	items := []pagedItem{{"p1"}, {"p2"}}
	pg := contract.NewPaging(2, 2, 5)
	oldPaging := struct {
		CurPage    int `json:"curPage"`
		PageCount  int `json:"pageCount"`
		TotalCount int `json:"totalCount"`
		Size       int `json:"size"`
	}{2, 3, 5, 2}
	ok := contract.Header{Code: 200}

	// edge/render: a list with a field of its own before list and paging.
	old := struct {
		Header  contract.Header `json:"header"`
		Keyword string          `json:"keyword"`
		List    []pagedItem     `json:"list"`
		Paging  any             `json:"paging"`
	}{ok, "검색", items, oldPaging}
	now := struct {
		Header  contract.Header `json:"header"`
		Keyword string          `json:"keyword"`
		contract.PagedList[pagedItem]
	}{ok, "검색", contract.PagedList[pagedItem]{List: items, Paging: pg}}
	if o, n := marshal(t, old), marshal(t, now); o != n {
		t.Errorf("edge list:\n got %s\nwant %s", n, o)
	}

	// writer/member (Q&A, recently viewed): paging fields beside the list,
	// an empty list as [].
	type header200 struct {
		Header contract.Header `json:"header"`
	}
	for _, c := range []struct {
		list        []pagedItem
		page        int64
		size, total int
		wantList    []pagedItem
		wantPageCnt int
	}{
		{items, 2, 10, 12, items, 2},
		{nil, 1, 20, 0, []pagedItem{}, 0},
	} {
		old := struct {
			header200
			List       []pagedItem `json:"list"`
			CurPage    int64       `json:"curPage"`
			PageCount  int         `json:"pageCount"`
			TotalCount int         `json:"totalCount"`
		}{header200{ok}, c.wantList, c.page, c.wantPageCnt, c.total}
		if o, n := marshal(t, old), marshal(t, contract.NewInlinePagedList(c.list, c.page, c.size, c.total)); o != n {
			t.Errorf("member list:\n got %s\nwant %s", n, o)
		}
	}
}
