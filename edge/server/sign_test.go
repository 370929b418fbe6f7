package server

import (
	"bytes"
	"strings"
	"testing"

	"storefront/contract"
)

func TestSignerAgreesWithContract(t *testing.T) {
	for _, c := range []struct {
		status      int
		token, body string
	}{{200, "", ""}, {200, "abc", `{"header":{"code":200,"message":""}}`}, {404, "x-y-z", strings.Repeat("가", 5000)}, {502, "t", "\n\n"}} {
		sg := signers.Get().(*signer)
		got := string(sg.value(c.status, []byte(c.token), []byte(c.body)))
		signers.Put(sg)
		if want := contract.Signature(c.status, c.token, []byte(c.body)); got != want {
			t.Errorf("%+v: %s, want %s", c, got, want)
		}
	}
}

func TestSignerDoesNotAllocate(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 10000)
	tok := []byte("token")
	allocs := testing.AllocsPerRun(100, func() {
		sg := signers.Get().(*signer)
		sg.value(200, tok, body)
		signers.Put(sg)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per signature", allocs)
	}
}
