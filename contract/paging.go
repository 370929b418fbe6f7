package contract

// The seed's paged lists come in two shapes; every paged answer is one of the
// types below, so a list's JSON is declared once.

// Paging is the seed's paging block of the edge's lists ("paging":{...}).
type Paging struct {
	CurPage    int `json:"curPage"`
	PageCount  int `json:"pageCount"`
	TotalCount int `json:"totalCount"`
	Size       int `json:"size"`
}

// NewPaging is the block of page (from 1) of size out of total items.
func NewPaging(page, size, total int) Paging {
	return Paging{CurPage: page, TotalCount: total, Size: size, PageCount: pageCount(total, size)}
}

// PagedList is a list with its paging block: "list":[...],"paging":{...}.
// Answers embed it after their header and their own fields, which keeps the
// seed's field order: {"header":...,"keyword":"…","list":[...],"paging":{...}}.
type PagedList[T any] struct {
	List   []T    `json:"list"`
	Paging Paging `json:"paging"`
}

// InlinePagedList is the member lists' shape (Q&A, recently viewed), paging
// fields beside the list: {"header":...,"list":[...],"curPage":N,"pageCount":N,"totalCount":N}.
type InlinePagedList[T any] struct {
	Header     Header `json:"header"`
	List       []T    `json:"list"`
	CurPage    int64  `json:"curPage"`
	PageCount  int    `json:"pageCount"`
	TotalCount int    `json:"totalCount"`
}

// NewInlinePagedList is the 200 answer of page of a list of total items in
// pages of size; a nil list is [] (the seed never sends null).
func NewInlinePagedList[T any](list []T, page int64, size, total int) InlinePagedList[T] {
	if list == nil {
		list = []T{}
	}
	return InlinePagedList[T]{Header: Header{Code: 200}, List: list, CurPage: page, PageCount: pageCount(total, size), TotalCount: total}
}

func pageCount(total, size int) int { return (total + size - 1) / size }
