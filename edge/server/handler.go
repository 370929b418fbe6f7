package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/cache"
	"storefront/edge/catalog"
	"storefront/edge/proxy"
)

// APIPrefix is where the edge's own reads live (with the writer's member calls).
const APIPrefix = "/home/api/v1/"

// forwardPrefixes always go to a writer. Only the writer's admin API is
// forwarded, so admin screens of the SPA (/admin/analytics) load from the edge.
var forwardPrefixes = [][]byte{[]byte("/protocol/"), []byte("/api/"), []byte("/iam/"), []byte("/admin/api/"), []byte("/pc/api/")}

// analyticsPrefix goes to analytics nodes: the reports API.
var analyticsPrefix = []byte("/analytics/api/")

var (
	apiPrefix  = []byte(APIPrefix)
	contPrefix = []byte(contract.ContentPrefix)
	ctJSON     = []byte("application/json; charset=utf-8")
)

var (
	hdrNosniff  = []byte("X-Content-Type-Options")
	valNosniff  = []byte("nosniff")
	hdrReferrer = []byte("Referrer-Policy")
	valReferrer = []byte("strict-origin-when-cross-origin")
)

// handle answers every request; whatever answered it, the browser is told
// not to sniff types (a JSON answer or an SVG must never run as a page) and
// to send only the origin to other sites.
func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	start := ctx.Time()
	if start.IsZero() {
		start = time.Now() // a RequestCtx not made by fasthttp's server
	}
	class := s.dispatch(ctx)
	h := &ctx.Response.Header
	h.SetCanonical(hdrNosniff, valNosniff)
	h.SetCanonical(hdrReferrer, valReferrer)
	s.m.latency.Observe(class, time.Since(start))
	s.m.countAnswer(ctx.Response.StatusCode())
}

// dispatch answers the request and returns its route class (for latency).
func (s *Server) dispatch(ctx *fasthttp.RequestCtx) routeClass {
	path := ctx.Path()
	if !cleanPath(path) {
		s.writeError(ctx, fasthttp.StatusBadRequest, msgBadPath)
		return classRefused
	}
	switch {
	case bytes.HasPrefix(path, apiPrefix):
		if ctx.IsGet() || ctx.IsHead() {
			return s.serveAPI(ctx)
		}
		if ctx.IsPost() && s.serveTracking(ctx, path[len(apiPrefix):]) {
			return classTracking
		}
		s.forward(ctx)
		return classForwarded
	case string(path) == "/healthz" || string(path) == "/readyz":
		// The balancers' checks; /metrics only on the operators' listener
		// (Config.OpsAddr): it falls through to the SPA's 404 here.
		s.ops(ctx)
		return classOps
	case string(path) == "/metrics":
		s.writeError(ctx, fasthttp.StatusNotFound, msgNotFound)
		return classRefused
	case bytes.HasPrefix(path, mediaPrefix):
		s.serveMedia(ctx)
		return classContent
	case bytes.HasPrefix(path, contPrefix):
		s.serveContent(ctx)
		return classContent
	case bytes.HasPrefix(path, analyticsPrefix):
		s.forwardTo(ctx, s.analytics)
		return classForwarded
	}
	if s.serveHelpdesk(ctx) {
		return classAPI
	}
	for _, p := range forwardPrefixes {
		if bytes.HasPrefix(path, p) {
			s.forward(ctx)
			return classForwarded
		}
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		s.writeError(ctx, fasthttp.StatusMethodNotAllowed, msgMethodNotAllowed)
		return classRefused
	}
	s.m.requests.WithLabelValues("static").Inc()
	if !s.servePage(ctx) {
		s.static.Serve(ctx)
	}
	return classStatic
}

var keyPool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// serveAPI answers a read from the cache or renders it; a path the edge does
// not serve goes to a writer (classForwarded).
func (s *Server) serveAPI(ctx *fasthttp.RequestCtx) routeClass {
	now := s.cfg.Now()
	teen := s.teen(ctx, now)
	if s.serveComments(ctx, teen) {
		return classAPI
	}
	kp := keyPool.Get().(*[]byte)
	key := (*kp)[:0]
	if teen {
		key = append(key, 't')
	} else {
		key = append(key, 'a')
	}
	key = append(key, ctx.RequestURI()...)
	if e, stale := s.cache.GetStale(key, now.UnixNano()); e != nil {
		if !stale || s.renderBehind(ctx, key, e, now) {
			*kp = key
			keyPool.Put(kp)
			s.writeEntry(ctx, e)
			return classAPI
		}
	}
	if e := s.takeAhead(key, now); e != nil {
		*kp = key
		keyPool.Put(kp)
		s.writeEntry(ctx, e)
		return classAPI
	}
	fn, ok := s.route(ctx)
	if !ok {
		*kp = key
		keyPool.Put(kp)
		s.forward(ctx)
		return classForwarded
	}
	// One render per key at a time: at a release instant thousands of readers
	// miss the same list together.
	sk := string(key)
	v, _, _ := s.flight.Do(sk, func() (any, error) { return s.render(ctx, string(ctx.Path()), sk, fn, now, teen), nil })
	e := v.(*cache.Entry)
	if !e.Valid(now.UnixNano()) {
		e = s.render(ctx, string(ctx.Path()), sk, fn, now, teen)
	}
	*kp = key
	keyPool.Put(kp)
	s.writeEntry(ctx, e)
	return classAPI
}

// renderBehind decides for e, a cached answer out of date only by soft
// tags (list counters): while it went stale less than Config.StaleRender
// ago it is served, and one background render replaces it (true);
// after that the reader renders or waits for the render under way (false).
// Background renders run one at a time: on the edge's one core every
// runnable render is a time slice a reader waits behind, and a stale list
// is already what readers see for up to CountersRefresh.
func (s *Server) renderBehind(ctx *fasthttp.RequestCtx, key []byte, e *cache.Entry, now time.Time) bool {
	n := now.UnixNano()
	if n-e.StaleSince(n) >= int64(s.cfg.StaleRender) {
		return false
	}
	s.staleServed.Add(1)
	sk := string(key)
	if _, busy := s.behind.LoadOrStore(sk, true); busy {
		return true
	}
	// The request is copied: fasthttp reuses ctx once the answer is written.
	var rc fasthttp.RequestCtx
	ctx.Request.CopyTo(&rc.Request)
	teen := sk[0] == 't'
	s.compressing.Add(1)
	go func() {
		defer s.compressing.Done()
		defer s.behind.Delete(sk)
		s.renderSem <- struct{}{}
		defer func() { <-s.renderSem }()
		fn, ok := s.route(&rc)
		if !ok {
			return
		}
		c, cancel := context.WithTimeout(context.Background(), s.cfg.MediaTimeout)
		defer cancel()
		now := s.cfg.Now()
		s.flight.Do(sk, func() (any, error) { return s.render(c, string(rc.Path()), sk, fn, now, teen), nil })
	}()
	return true
}

// render builds, caches and returns the answer of fn.
func (s *Server) render(ctx context.Context, path, key string, fn renderFunc, now time.Time, teen bool) *cache.Entry {
	e, ok := s.build(ctx, path, fn, now, teen)
	if !ok {
		// Only for the requests that waited with this one: the next asks
		// the bucket again.
		return e
	}
	s.cache.Set([]byte(key), e)
	s.clocked.note(key, e.Until)
	if e.NeedsCompression() {
		s.compressLater(key, e)
	}
	return e
}

// build renders the answer of fn at now; false when it must not be cached
// (the volume pages could not be read).
func (s *Server) build(ctx context.Context, path string, fn renderFunc, now time.Time, teen bool) (*cache.Entry, bool) {
	var status int
	var body any
	refs, until, perr := s.readPaged(ctx, now, teen, func(v *catalog.View) { status, body = fn(v) })
	if perr != nil {
		s.log.Warn("read volume pages", "path", path, "err", perr)
		status, body = 503, contract.Envelope{Header: contract.Header{Code: 503, Message: msgPagesUnavailable}}
	}
	b, err := json.Marshal(body)
	if err != nil {
		s.log.Error("render answer", "path", path, "err", err)
		status, b = 500, contract.ErrorBody(500, "일시적인 오류입니다.")
	}
	e := cache.NewPlainEntry(status, b, until, refs)
	e.Sign()
	return e, perr == nil
}

// compressLater adds the gzip and brotli variants off the request path, so a
// fresh answer (right after a release or an update) goes out at once, plain.
// At most one compression per core runs; the rest wait their turn.
func (s *Server) compressLater(key string, e *cache.Entry) {
	s.compressing.Add(1)
	go func() {
		defer s.compressing.Done()
		s.compressSem <- struct{}{}
		defer func() { <-s.compressSem }()
		c := e.Compressed()
		if !e.Valid(s.cfg.Now().UnixNano()) {
			return
		}
		// Ristretto applies new keys asynchronously and refuses a second
		// "new" Set of a key it has not stored yet: let the plain Set land
		// first, so this one is an update.
		s.cache.Wait()
		s.cache.Set([]byte(key), c)
	}()
}

// writeEntry writes a rendered answer: the best encoding the client takes and
// the signature over the plain body, from what the entry keeps of it.
func (s *Server) writeEntry(ctx *fasthttp.RequestCtx, e *cache.Entry) {
	ctx.SetStatusCode(e.Status)
	h := &ctx.Response.Header
	h.SetContentTypeBytes(ctJSON)
	h.Set("Cache-Control", "no-store")
	h.Set("Vary", "Accept-Encoding, Cookie, X-Channel")
	setEncodedBody(ctx, e)
	s.signEntry(ctx, e)
}

// setEncodedBody sends a cached body in the best encoding the client takes.
func setEncodedBody(ctx *fasthttp.RequestCtx, e *cache.Entry) {
	h := &ctx.Response.Header
	switch {
	case e.Brotli != nil && ctx.Request.Header.HasAcceptEncoding("br"):
		h.Set("Content-Encoding", "br")
		setCachedBody(ctx, e.Brotli)
	case e.Gzip != nil && ctx.Request.Header.HasAcceptEncoding("gzip"):
		h.Set("Content-Encoding", "gzip")
		setCachedBody(ctx, e.Gzip)
	default:
		setCachedBody(ctx, plainBody(e))
	}
}

// plainBody is e's plain body, restored from its gzip variant when e was
// held compressed only (an answer rendered ahead): only for the clients
// that take neither compression, and old signatures over a token.
func plainBody(e *cache.Entry) []byte {
	if e.Body != nil {
		return e.Body
	}
	p, err := e.WithPlain()
	if err != nil {
		return nil // our own gzip: never corrupt
	}
	return p.Body
}

// msgBadPath refuses a path no route takes: control characters or invalid
// UTF-8 once decoded (GET /home/api/v1/charge/%00 was forwarded and became a
// 500 at the writer, issue 24 item 8).
const msgBadPath = "요청 주소에 쓸 수 없는 문자가 있습니다."

// cleanPath reports whether a decoded path is valid UTF-8 without control
// characters. It allocates nothing (every request passes here).
func cleanPath(p []byte) bool {
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(p)
}

// msgMethodNotAllowed refuses a method the path does not take (405).
const msgMethodNotAllowed = "허용되지 않는 요청 방식입니다."

// msgNotFound answers a path the readers' origin does not serve.
const msgNotFound = "요청한 주소를 찾을 수 없습니다."

// fail answers err: a contract.ClientError (the one client-error shape of
// every transport) with its own status and message, anything else as a 500
// that is logged. It is the edge's one mapping from errors to statuses.
func (s *Server) fail(ctx *fasthttp.RequestCtx, err error) {
	if e, ok := contract.AsClientError(err); ok {
		s.writeError(ctx, e.Code, e.Msg)
		return
	}
	s.log.Error("request failed", "path", string(ctx.Path()), "err", err)
	s.writeError(ctx, fasthttp.StatusInternalServerError, "일시적인 오류입니다.")
}

// writeError writes the envelope of an error with the same HTTP status, signed.
func (s *Server) writeError(ctx *fasthttp.RequestCtx, code int, msg string) {
	b := contract.ErrorBody(code, msg)
	ctx.Response.Reset()
	ctx.SetStatusCode(code)
	ctx.Response.Header.SetContentTypeBytes(ctJSON)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.SetBody(b)
	s.sign(ctx, code, b)
}

// transportError answers what fasthttp refuses before any handler runs (a
// body over MaxRequestBodySize, headers over the read buffer, a read timeout,
// a malformed request) in the seed's envelope like every other refusal; its
// own answers are plain text, and a too-large body was a 400.
func (s *Server) transportError(ctx *fasthttp.RequestCtx, err error) {
	code, msg := fasthttp.StatusBadRequest, "잘못된 요청입니다."
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		code, msg = fasthttp.StatusRequestEntityTooLarge, "요청 본문이 너무 큽니다."
	case errors.As(err, &small):
		code, msg = fasthttp.StatusRequestHeaderFieldsTooLarge, "요청 헤더가 너무 큽니다."
	case errors.As(err, &ne) && ne.Timeout():
		code, msg = fasthttp.StatusRequestTimeout, "요청 시간이 초과되었습니다. 다시 시도해 주세요."
	}
	s.writeError(ctx, code, msg)
}

// writeJSON writes an uncached answer, signed.
func (s *Server) writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.writeError(ctx, 500, "일시적인 오류입니다.")
		return
	}
	ctx.SetStatusCode(status)
	ctx.Response.Header.SetContentTypeBytes(ctJSON)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.SetBody(b)
	s.sign(ctx, status, b)
}

// forward passes the call to a writer and signs its answer (a writer signs
// too; the edge's signature over the same body and token is the same value,
// and it covers writers that did not sign).
func (s *Server) forward(ctx *fasthttp.RequestCtx) { s.forwardTo(ctx, s.proxy) }

// forwardTo passes the call to a node of p and signs its answer.
func (s *Server) forwardTo(ctx *fasthttp.RequestCtx, p *proxy.Proxy) {
	if err := p.Forward(ctx); err != nil {
		s.m.forwarded.WithLabelValues("error").Inc()
		s.log.Warn("forward failed", "path", string(ctx.Path()), "err", err)
		s.writeError(ctx, fasthttp.StatusBadGateway, "서비스에 일시적인 문제가 있습니다. 잠시 후 다시 시도해 주세요.")
		return
	}
	s.m.forwarded.WithLabelValues("ok").Inc()
	body := ctx.Response.Body()
	if len(ctx.Response.Header.ContentEncoding()) > 0 {
		// The signature is over the plain body; decode what a writer compressed anyway.
		if plain, err := ctx.Response.BodyUncompressed(); err == nil {
			ctx.Response.Header.Del("Content-Encoding")
			ctx.Response.SetBody(plain)
			body = ctx.Response.Body()
		}
	}
	s.sign(ctx, ctx.Response.StatusCode(), body)
}
