package server

import (
	"bytes"
	"testing"

	"storefront/contract"
	"storefront/edge/cache"
)

// signedCtx signs e for a request with the given headers (name, value pairs).
func signedCtx(s *Server, e *cache.Entry, headers ...string) string {
	ctx := benchRequest("/home/api/v1/home", headers...)
	s.signEntry(ctx, e)
	return string(ctx.Response.Header.Peek(contract.HeaderSignature))
}

// A cached answer is signed in the version the request asks for: SFS2 from
// the state kept with the body, SFS1 (old clients) as before, with or without
// a token; an entry made without that state still signs correctly.
func TestSignEntryVersions(t *testing.T) {
	var s Server
	body := bytes.Repeat([]byte(`{"header":{"code":200,"message":""}}`), 300)
	e := cache.NewPlainEntry(200, body, 0, nil)
	bare := *e
	e.Sign()
	tok := "0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		e       *cache.Entry
		headers []string
		want    string
	}{
		{e, []string{contract.HeaderRequestToken, tok, contract.HeaderSignatureVersion, "2"}, contract.SignatureV2(200, tok, body)},
		{e, []string{contract.HeaderSignatureVersion, "2"}, contract.SignatureV2(200, "", body)},
		{e, []string{contract.HeaderRequestToken, tok}, contract.Signature(200, tok, body)},
		{e, nil, contract.Signature(200, "", body)},
		{e, []string{contract.HeaderRequestToken, tok, contract.HeaderSignatureVersion, "3"}, contract.Signature(200, tok, body)},
		{&bare, []string{contract.HeaderRequestToken, tok, contract.HeaderSignatureVersion, "2"}, contract.SignatureV2(200, tok, body)},
		{&bare, []string{contract.HeaderRequestToken, tok}, contract.Signature(200, tok, body)},
	} {
		if got := signedCtx(&s, c.e, c.headers...); got != c.want {
			t.Errorf("%v (state %v): %s, want %s", c.headers, c.e.SigState != nil, got, c.want)
		}
	}
}

func TestSignEntryDoesNotAllocate(t *testing.T) {
	var s Server
	e := cache.NewPlainEntry(200, bytes.Repeat([]byte("x"), 10000), 0, nil)
	e.Sign()
	for _, h := range [][]string{
		{contract.HeaderRequestToken, "token", contract.HeaderSignatureVersion, "2"},
		{contract.HeaderRequestToken, "token"},
	} {
		ctx := benchRequest("/home/api/v1/home", h...)
		if allocs := testing.AllocsPerRun(100, func() {
			ctx.Response.Reset()
			s.signEntry(ctx, e)
		}); allocs != 0 {
			t.Fatalf("%v: %v allocations per signature", h, allocs)
		}
	}
}
