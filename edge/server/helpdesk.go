package server

import (
	"bytes"
	"encoding/json"
	"mime"
	"strconv"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"storefront/edge/cache"
)

// The seed's helpdesk reads (§7) are POSTs: faq_list with cid, page and
// keyword in the URL, notice_list with page. App builds that send them get the
// same answers as the store's GET routes (cs/faq, cs/notices), from memory and
// the same cache; qna_list is a member's list and stays with the writers.
const (
	HelpdeskFAQPath    = "/protocol/appapi/mb/helpdesk/faq_list"
	HelpdeskNoticePath = "/protocol/appapi/mb/helpdesk/notice_list"
)

// Refusals of a helpdesk call's body.
const (
	msgBadForm     = "요청 형식(form)이 올바르지 않습니다."
	msgBadField    = "항목의 형식이 올바르지 않습니다."
	msgUnsupported = "지원하지 않는 요청 형식입니다."
)

// serveHelpdesk answers the seed's helpdesk POSTs; false for other paths.
func (s *Server) serveHelpdesk(ctx *fasthttp.RequestCtx) bool {
	var kind string
	switch string(ctx.Path()) {
	case HelpdeskFAQPath:
		kind = "faq"
	case HelpdeskNoticePath:
		kind = "notices"
	default:
		return false
	}
	if !ctx.IsPost() {
		s.writeError(ctx, fasthttp.StatusMethodNotAllowed, msgMethodNotAllowed)
		return true
	}
	args, code, msg := helpdeskArgs(ctx)
	if code != 0 {
		s.writeError(ctx, code, msg)
		return true
	}
	defer fasthttp.ReleaseArgs(args)
	q := &query{args: args}
	page, size := q.paging(defaultPageSize)
	fn, _ := s.routeCS([]string{kind}, q, page, size)
	if q.err != "" {
		fn = bad(q.err)
	}
	now := s.cfg.Now()
	teen := s.teen(ctx, now)
	// The key holds the parameters in the order sent, like a GET's URI does.
	key := make([]byte, 0, 64+len(ctx.Path()))
	if teen {
		key = append(key, 't')
	} else {
		key = append(key, 'a')
	}
	key = append(key, "POST "...)
	key = append(key, ctx.Path()...)
	key = append(key, '?')
	key = args.AppendBytes(key)
	if e := s.cache.Get(key, now.UnixNano()); e != nil {
		s.writeEntry(ctx, e)
		return true
	}
	sk := string(key)
	v, _, _ := s.flight.Do(sk, func() (any, error) { return s.render(ctx, string(ctx.Path()), sk, fn, now, teen), nil })
	s.writeEntry(ctx, v.(*cache.Entry))
	return true
}

// helpdeskArgs gathers the call's parameters: the query string, then a form
// or JSON-object body (old app builds send either). A body that does not
// parse is refused (code and message), never half read.
func helpdeskArgs(ctx *fasthttp.RequestCtx) (a *fasthttp.Args, code int, msg string) {
	a = fasthttp.AcquireArgs()
	ctx.QueryArgs().CopyTo(a)
	body := bytes.TrimSpace(ctx.PostBody())
	if len(body) == 0 {
		return a, 0, ""
	}
	ct, _, _ := mime.ParseMediaType(string(ctx.Request.Header.ContentType()))
	switch ct {
	case "application/json":
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil || dec.More() {
			fasthttp.ReleaseArgs(a)
			return nil, 400, msgBadJSON
		}
		for k, v := range m {
			switch x := v.(type) {
			case string:
				a.Set(k, x)
			case json.Number:
				a.Set(k, x.String())
			case nil:
			default:
				fasthttp.ReleaseArgs(a)
				return nil, 400, msgBadField
			}
		}
	case "application/x-www-form-urlencoded", "":
		var form fasthttp.Args
		form.ParseBytes(body)
		bad := false
		form.VisitAll(func(k, v []byte) {
			if !validForm(k) || !validForm(v) {
				bad = true
			}
			a.SetBytesKV(k, v)
		})
		if bad {
			fasthttp.ReleaseArgs(a)
			return nil, 400, msgBadForm
		}
	default:
		fasthttp.ReleaseArgs(a)
		return nil, fasthttp.StatusUnsupportedMediaType, msgUnsupported + " (" + strconv.Quote(ct) + ")"
	}
	return a, 0, ""
}

// validForm refuses decoded form text that is not UTF-8 or holds a NUL.
func validForm(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}
