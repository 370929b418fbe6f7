package contract

import (
	"crypto/sha256"
	"encoding/hex"
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
	// HeaderSignature carries the answer's signature. The seed puts it in the
	// authorization header of the answer.
	HeaderSignature = "Authorization"
	// SignaturePrefix starts the signature value.
	SignaturePrefix = "SFS1 "
)

// The signature of an answer is
//
//	"SFS1 " + lowercase hex of SHA-256( decimal status + "\n" + request token + "\n" + body )
//
// It lets the client detect an answer that a proxy or injected script altered or
// made up (the seed's "forged response"). It is an integrity check, not
// authentication: anybody who knows the algorithm can compute it.

var hasherPool = sync.Pool{New: func() any { return sha256.New() }}

// AppendSignature appends the signature value (with prefix) for the answer to dst.
// It does not allocate when dst has room for 69 more bytes.
func AppendSignature(dst []byte, status int, token, body []byte) []byte {
	h := hasherPool.Get().(hash.Hash)
	h.Reset()
	var num [20]byte
	h.Write(strconv.AppendInt(num[:0], int64(status), 10))
	h.Write([]byte{'\n'})
	h.Write(token)
	h.Write([]byte{'\n'})
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	hasherPool.Put(h)
	dst = append(dst, SignaturePrefix...)
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], sum[:])
	return append(dst, hx[:]...)
}

// Signature returns the signature value for an answer.
func Signature(status int, token string, body []byte) string {
	return string(AppendSignature(make([]byte, 0, 69), status, []byte(token), body))
}
