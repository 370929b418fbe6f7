package server

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"sync"

	"github.com/valyala/fasthttp"

	"storefront/contract"
)

// signer computes contract.AppendSignature's value without allocating: the
// hash state and every buffer handed to it live in one pooled object, so
// nothing escapes per call. sign_test.go checks it against the contract.
type signer struct {
	h   hash.Hash
	num [24]byte
	sum [sha256.Size]byte
	out [len(contract.SignaturePrefix) + 2*sha256.Size]byte
}

var signers = sync.Pool{New: func() any { return &signer{h: sha256.New()} }}

var newline = []byte{'\n'}

// value returns the signature header value; valid until the signer is put back.
func (s *signer) value(status int, token, body []byte) []byte {
	s.h.Reset()
	s.h.Write(strconv.AppendInt(s.num[:0], int64(status), 10))
	s.h.Write(newline)
	s.h.Write(token)
	s.h.Write(newline)
	s.h.Write(body)
	s.h.Sum(s.sum[:0])
	n := copy(s.out[:], contract.SignaturePrefix)
	hex.Encode(s.out[n:], s.sum[:])
	return s.out[:]
}

// sign sets the response signature (contract/signature.go) over the plain body.
func (s *Server) sign(ctx *fasthttp.RequestCtx, status int, body []byte) {
	sg := signers.Get().(*signer)
	ctx.Response.Header.SetBytesV(contract.HeaderSignature, sg.value(status, ctx.Request.Header.Peek(contract.HeaderRequestToken), body))
	signers.Put(sg)
}
