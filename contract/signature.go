package contract

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"sync"
)

// Request and response headers of the seed's HTTP helper (§7).
const (
	// HeaderChannel carries the client's channel code (AO AC AA AW IA IW).
	HeaderChannel = "X-Channel"
	// HeaderRequestToken carries a random token the client makes per request.
	HeaderRequestToken = "X-Request-Token"
	// HeaderSignatureVersion is how a client asks for a signature version:
	// "2" asks for SFS2. Without it (old app builds, old pages) or with any
	// other value the answer carries SFS1, as it always did.
	HeaderSignatureVersion = "X-Signature-Version"
	// HeaderSignature carries the answer's signature. The seed puts it in the
	// authorization header of the answer.
	HeaderSignature = "Authorization"
	// SignaturePrefix starts an SFS1 signature value.
	SignaturePrefix = "SFS1 "
	// SignaturePrefixV2 starts an SFS2 signature value.
	SignaturePrefixV2 = "SFS2 "
	// SignatureLen is the length of a signature value of either version.
	SignatureLen = len(SignaturePrefix) + 2*sha256.Size
)

// The signature of an answer lets the client detect an answer that a proxy or
// injected script altered or made up (the seed's "forged response"). It is an
// integrity check, not authentication: anybody who knows the algorithm can
// compute it. Both versions hash the HTTP status, the request's token and the
// plain body (before any Content-Encoding):
//
// SFS1, the seed's:
//
//	"SFS1 " + hex( SHA-256( status "\n" token "\n" body ) )
//
// SFS2, asked for with "X-Signature-Version: 2":
//
//	"SFS2 " + hex( SHA-256( hex(SHA-256(body)) "\n" status "\n" token ) )
//
// where hex is lowercase and status decimal. SFS1 hashes the whole body on
// every request (every request of the store's pages carries a fresh token), so
// its cost grows with the body: 14 µs for a 20 KB list. In SFS2 the body is
// hashed once; its hex digest is 64 bytes, exactly one SHA-256 block, so the
// hash state after it (BodyState) is kept with a cached body and a request
// costs one SHA-256 block over status and token, whatever the body's size.

// SignatureVersion returns the version a request asks for with the value of
// its HeaderSignatureVersion: 2 for "2", else 1.
func SignatureVersion(v []byte) int {
	if len(v) == 1 && v[0] == '2' {
		return 2
	}
	return 1
}

// signer holds a hash and every buffer handed to it, pooled, so that nothing
// escapes per signature: the functions below allocate nothing when dst has
// room for SignatureLen more bytes.
type signer struct {
	h     hash.Hash
	state encoding.BinaryUnmarshaler
	num   [24]byte
	sum   [sha256.Size]byte
	hex   [2 * sha256.Size]byte
	// tail gathers "\n" status "\n" token for one Write: each Write of
	// crypto/sha256 has a cost of its own, of the order of the block's.
	tail [128]byte
}

var signers = sync.Pool{New: func() any {
	h := sha256.New()
	return &signer{h: h, state: h.(encoding.BinaryUnmarshaler)}
}}

var newline = []byte{'\n'}

func (s *signer) status(status int) []byte { return strconv.AppendInt(s.num[:0], int64(status), 10) }

// finish appends prefix and the hex of the hash's sum to dst.
func (s *signer) finish(dst []byte, prefix string) []byte {
	s.h.Sum(s.sum[:0])
	hex.Encode(s.hex[:], s.sum[:])
	dst = append(dst, prefix...)
	return append(dst, s.hex[:]...)
}

// bodyHex leaves the hex SHA-256 of body in s.hex.
func (s *signer) bodyHex(body []byte) {
	s.h.Reset()
	s.h.Write(body)
	s.h.Sum(s.sum[:0])
	hex.Encode(s.hex[:], s.sum[:])
}

// AppendSignature appends the SFS1 signature value (with prefix) for the answer to dst.
func AppendSignature(dst []byte, status int, token, body []byte) []byte {
	s := signers.Get().(*signer)
	s.h.Reset()
	s.h.Write(s.status(status))
	s.h.Write(newline)
	s.h.Write(token)
	s.h.Write(newline)
	s.h.Write(body)
	dst = s.finish(dst, SignaturePrefix)
	signers.Put(s)
	return dst
}

// Signature returns the SFS1 signature value for an answer.
func Signature(status int, token string, body []byte) string {
	return string(AppendSignature(make([]byte, 0, SignatureLen), status, []byte(token), body))
}

// AppendSignatureV2 appends the SFS2 signature value for the answer to dst,
// hashing the body: for an answer signed once (a forwarded call). A body
// answered many times keeps its BodyState instead.
func AppendSignatureV2(dst []byte, status int, token, body []byte) []byte {
	s := signers.Get().(*signer)
	s.bodyHex(body)
	s.h.Reset()
	s.h.Write(s.hex[:])
	dst = s.finishV2(dst, status, token)
	signers.Put(s)
	return dst
}

// finishV2 hashes status and token after the body part already in s.h.
func (s *signer) finishV2(dst []byte, status int, token []byte) []byte {
	t := append(s.tail[:0], '\n')
	t = strconv.AppendInt(t, int64(status), 10)
	t = append(t, '\n')
	if len(t)+len(token) <= len(s.tail) {
		s.h.Write(append(t, token...))
	} else {
		s.h.Write(t)
		s.h.Write(token)
	}
	return s.finish(dst, SignaturePrefixV2)
}

// SignatureV2 returns the SFS2 signature value for an answer.
func SignatureV2(status int, token string, body []byte) string {
	return string(AppendSignatureV2(make([]byte, 0, SignatureLen), status, []byte(token), body))
}

// AppendSignatureVersion appends the signature of the given version (as
// SignatureVersion returns it) to dst.
func AppendSignatureVersion(dst []byte, version, status int, token, body []byte) []byte {
	if version == 2 {
		return AppendSignatureV2(dst, status, token, body)
	}
	return AppendSignature(dst, status, token, body)
}

// BodyState is the SHA-256 state after the body part of an SFS2 signature
// (the hex digest of the body, one whole block), in the form crypto/sha256
// marshals it. Made once per cached body; signing from it costs one block.
// The zero value is not valid; use NewBodyState.
type BodyState []byte

// NewBodyState hashes body for SFS2 signatures of it.
func NewBodyState(body []byte) BodyState {
	s := signers.Get().(*signer)
	defer signers.Put(s)
	s.bodyHex(body)
	s.h.Reset()
	s.h.Write(s.hex[:])
	st, err := s.h.(encoding.BinaryAppender).AppendBinary(make([]byte, 0, 128))
	if err != nil {
		// crypto/sha256 always marshals its state; this is a broken toolchain.
		panic(fmt.Sprintf("cannot marshal SHA-256 state: %v", err))
	}
	return st
}

// AppendSignature appends the SFS2 signature of the body st was made from,
// for status and token, to dst. It allocates nothing when dst has room.
func (st BodyState) AppendSignature(dst []byte, status int, token []byte) []byte {
	s := signers.Get().(*signer)
	if err := s.state.UnmarshalBinary(st); err != nil {
		panic(fmt.Sprintf("cannot restore SHA-256 state: %v", err)) // not made by NewBodyState
	}
	dst = s.finishV2(dst, status, token)
	signers.Put(s)
	return dst
}
