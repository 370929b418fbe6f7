package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// A writer signs what a direct caller asks for: SFS2 with
// "X-Signature-Version: 2", SFS1 without it (old clients), nothing without a
// request token (the edge signs what it forwards itself).
func TestSignVersions(t *testing.T) {
	body := `{"header":{"code":409,"message":"이미 구매한 작품입니다."}}`
	srv := httptest.NewServer(httpapi.Sign(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(409)
		io.WriteString(w, body)
	})))
	defer srv.Close()
	for _, c := range []struct {
		token, version, want string
	}{
		{"tok", "2", contract.SignatureV2(409, "tok", []byte(body))},
		{"tok", "", contract.Signature(409, "tok", []byte(body))},
		{"tok", "1", contract.Signature(409, "tok", []byte(body))},
		{"", "2", ""},
	} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if c.token != "" {
			req.Header.Set(contract.HeaderRequestToken, c.token)
		}
		if c.version != "" {
			req.Header.Set(contract.HeaderSignatureVersion, c.version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != body || resp.StatusCode != 409 {
			t.Fatalf("answer %d %s", resp.StatusCode, b)
		}
		if got := resp.Header.Get(contract.HeaderSignature); got != c.want {
			t.Errorf("token %q version %q: %q, want %q", c.token, c.version, got, c.want)
		}
	}
}
