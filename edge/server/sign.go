package server

import (
	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/cache"
)

// hdrSignature is the signature header's name in canonical form, so setting
// it skips fasthttp's normalizing of the name.
var hdrSignature = []byte(contract.HeaderSignature)

// sigVersion is the signature version the request asks for (contract/signature.go).
func sigVersion(ctx *fasthttp.RequestCtx) int {
	return contract.SignatureVersion(ctx.Request.Header.Peek(contract.HeaderSignatureVersion))
}

// sign sets the response signature (contract/signature.go) over the plain
// body, in the version the request asks for, hashing the body.
func (s *Server) sign(ctx *fasthttp.RequestCtx, status int, body []byte) {
	var buf [contract.SignatureLen]byte // stays on the stack: SetCanonical copies
	v := contract.AppendSignatureVersion(buf[:0], sigVersion(ctx), status, ctx.Request.Header.Peek(contract.HeaderRequestToken), body)
	ctx.Response.Header.SetCanonical(hdrSignature, v)
}

// signEntry signs a cached answer without hashing its body: SFS2 from the
// body state kept with the entry, SFS1 without a token from the signature
// kept with it. Only SFS1 with a token hashes the body (old clients).
func (s *Server) signEntry(ctx *fasthttp.RequestCtx, e *cache.Entry) {
	tok := ctx.Request.Header.Peek(contract.HeaderRequestToken)
	switch {
	case sigVersion(ctx) == 2 && e.SigState != nil:
		var buf [contract.SignatureLen]byte // stays on the stack: SetCanonical copies
		ctx.Response.Header.SetCanonical(hdrSignature, e.SigState.AppendSignature(buf[:0], e.Status, tok))
	case sigVersion(ctx) == 1 && len(tok) == 0 && e.SigNoToken != nil:
		ctx.Response.Header.SetCanonical(hdrSignature, e.SigNoToken)
	default:
		s.sign(ctx, e.Status, plainBody(e))
	}
}
