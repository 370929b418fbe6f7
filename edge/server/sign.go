package server

import (
	"sync"

	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/cache"
)

// sigBuf is a pooled destination for a signature value, so that setting the
// header allocates nothing (fasthttp copies the value).
type sigBuf struct{ b [contract.SignatureLen]byte }

var sigBufs = sync.Pool{New: func() any { return new(sigBuf) }}

// sigVersion is the signature version the request asks for (contract/signature.go).
func sigVersion(ctx *fasthttp.RequestCtx) int {
	return contract.SignatureVersion(ctx.Request.Header.Peek(contract.HeaderSignatureVersion))
}

// sign sets the response signature (contract/signature.go) over the plain
// body, in the version the request asks for, hashing the body.
func (s *Server) sign(ctx *fasthttp.RequestCtx, status int, body []byte) {
	sb := sigBufs.Get().(*sigBuf)
	v := contract.AppendSignatureVersion(sb.b[:0], sigVersion(ctx), status, ctx.Request.Header.Peek(contract.HeaderRequestToken), body)
	ctx.Response.Header.SetBytesV(contract.HeaderSignature, v)
	sigBufs.Put(sb)
}

// signEntry signs a cached answer without hashing its body: SFS2 from the
// body state kept with the entry, SFS1 without a token from the signature
// kept with it. Only SFS1 with a token hashes the body (old clients).
func (s *Server) signEntry(ctx *fasthttp.RequestCtx, e *cache.Entry) {
	tok := ctx.Request.Header.Peek(contract.HeaderRequestToken)
	switch {
	case sigVersion(ctx) == 2 && e.SigState != nil:
		sb := sigBufs.Get().(*sigBuf)
		ctx.Response.Header.SetBytesV(contract.HeaderSignature, e.SigState.AppendSignature(sb.b[:0], e.Status, tok))
		sigBufs.Put(sb)
	case sigVersion(ctx) == 1 && len(tok) == 0 && e.SigNoToken != nil:
		ctx.Response.Header.SetBytesV(contract.HeaderSignature, e.SigNoToken)
	default:
		s.sign(ctx, e.Status, e.Body)
	}
}
