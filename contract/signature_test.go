package contract_test

import (
	"bytes"
	"testing"

	"storefront/contract"
)

// A request signed from a cached body's state, or either version from the
// body, allocates nothing when the destination has room: the edge's cached
// hit must stay at 0 allocations.
func TestSignaturesDoNotAllocate(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 10000)
	tok := []byte("0123456789abcdef0123456789abcdef")
	st := contract.NewBodyState(body)
	var buf [contract.SignatureLen]byte
	for name, fn := range map[string]func(){
		"state": func() { st.AppendSignature(buf[:0], 200, tok) },
		"v1":    func() { contract.AppendSignature(buf[:0], 200, tok, body) },
		"v2":    func() { contract.AppendSignatureV2(buf[:0], 200, tok, body) },
	} {
		if allocs := testing.AllocsPerRun(100, fn); allocs != 0 {
			t.Errorf("%s: %v allocations per signature", name, allocs)
		}
	}
}

// Known values (computed with Python's hashlib) that the frontend's and k6's checks are tested against
// (frontend/app/utils/http.test.ts).
func TestSignatureKnownValues(t *testing.T) {
	body := []byte(`{"header":{"code":200,"message":""}}`)
	if got, want := contract.Signature(200, "abc", body), "SFS1 2a7fdc15543201f8bf32050772a0a34c28f68180085066376ab0238a9565c189"; got != want {
		t.Errorf("SFS1 %s, want %s", got, want)
	}
	if got, want := contract.SignatureV2(200, "abc", body), "SFS2 14ad78488de0b809124bfc98cf29180e52a6367d2aededd4b54e4e71b1955639"; got != want {
		t.Errorf("SFS2 %s, want %s", got, want)
	}
}

// BenchmarkSignFromState is the per-request work of an SFS2 cached answer.
func BenchmarkSignFromState(b *testing.B) {
	st := contract.NewBodyState(bytes.Repeat([]byte("x"), 20000))
	tok := []byte("0123456789abcdef0123456789abcdef")
	var buf [contract.SignatureLen]byte
	b.ReportAllocs()
	for b.Loop() {
		st.AppendSignature(buf[:0], 200, tok)
	}
}
