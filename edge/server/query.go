package server

import (
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
)

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
