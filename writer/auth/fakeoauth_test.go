package auth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"storefront/writer/auth"
)

// fakeProvider is a local OAuth2 provider speaking real HTTP: /authorize
// redirects back with a code (as if the user agreed), /token checks the
// client secret, redirect URI and PKCE verifier, /me answers the profile in
// Kakao's or Naver's shape.
type fakeProvider struct {
	srv    *httptest.Server
	kind   string // kakao or naver
	userID string
	mu     sync.Mutex
	codes  map[string]codeGrant
	tokens map[string]string
}

type codeGrant struct {
	redirect, challenge string
}

func newFakeProvider(t *testing.T, kind, userID string) *fakeProvider {
	f := &fakeProvider{kind: kind, userID: userID, codes: map[string]codeGrant{}, tokens: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "cid" || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "bad authorize request", 400)
			return
		}
		code := fmt.Sprintf("code-%d", len(f.codes)+1)
		f.mu.Lock()
		f.codes[code] = codeGrant{redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge")}
		f.mu.Unlock()
		u, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {code}, "state": {q.Get("state")}}
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		g, ok := f.codes[r.PostForm.Get("code")]
		delete(f.codes, r.PostForm.Get("code"))
		f.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || r.PostForm.Get("client_secret") != "secret" || r.PostForm.Get("redirect_uri") != g.redirect ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		tok := "at-" + r.PostForm.Get("code")
		f.mu.Lock()
		f.tokens[tok] = f.userID
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "bearer", "expires_in": 3600})
	})
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		id, ok := f.tokens[r.Header.Get("Authorization")[len("Bearer "):]]
		f.mu.Unlock()
		if !ok {
			http.Error(w, "unauthorized", 401)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if f.kind == "naver" {
			_ = json.NewEncoder(w).Encode(map[string]any{"resultcode": "00", "message": "success", "response": map[string]any{"id": id, "email": "n@example.com"}})
			return
		}
		_, _ = fmt.Fprintf(w, `{"id":%s,"kakao_account":{"email":"k@example.com"}}`, id)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProvider) provider() auth.Provider {
	return auth.Provider{ClientID: "cid", ClientSecret: "secret", AuthURL: f.srv.URL + "/authorize",
		TokenURL: f.srv.URL + "/token", ProfileURL: f.srv.URL + "/me"}
}
