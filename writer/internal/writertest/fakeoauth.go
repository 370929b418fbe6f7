package writertest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"storefront/writer/auth"
)

// OAuthProvider is a local OAuth2 social login provider speaking real HTTP
// (the writer's auth tests and the OpenAPI contract test share it):
// /authorize redirects back with a code (as if the user agreed), /token checks
// the client secret, redirect URI and PKCE verifier, /me answers the profile
// in Kakao's or Naver's shape.
type OAuthProvider struct {
	URL    string
	srv    *httptest.Server
	kind   string // kakao or naver
	userID string
	mu     sync.Mutex
	next   int
	codes  map[string]codeGrant
	tokens map[string]string
	// tokenFail and profileFail, when set, are the statuses /token and /me
	// answer with (a provider failing on its side).
	tokenFail, profileFail int
}

// Fail makes /token answer tokenStatus and /me answer profileStatus from now
// on (0 = answer normally).
func (f *OAuthProvider) Fail(tokenStatus, profileStatus int) {
	f.mu.Lock()
	f.tokenFail, f.profileFail = tokenStatus, profileStatus
	f.mu.Unlock()
}

type codeGrant struct {
	redirect, challenge string
}

// NewOAuthProvider starts a fake provider of kind (kakao or naver) whose
// every login is the user userID; it stops when the test ends.
func NewOAuthProvider(t testing.TB, kind, userID string) *OAuthProvider {
	t.Helper()
	f := &OAuthProvider{kind: kind, userID: userID, codes: map[string]codeGrant{}, tokens: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "cid" || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "bad authorize request", 400)
			return
		}
		f.mu.Lock()
		f.next++
		code := fmt.Sprintf("code-%d", f.next)
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
		if st := f.tokenFail; st != 0 {
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st)
			_, _ = w.Write([]byte(`{"error":"server_error"}`))
			return
		}
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
		id, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		fail := f.profileFail
		f.mu.Unlock()
		if fail != 0 {
			http.Error(w, "profile failed", fail)
			return
		}
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
	f.URL = f.srv.URL
	return f
}

// Close stops the provider (a provider outage).
func (f *OAuthProvider) Close() { f.srv.Close() }

// Provider is the writer's configuration of this provider (client id cid,
// secret secret).
func (f *OAuthProvider) Provider() auth.Provider {
	return auth.Provider{ClientID: "cid", ClientSecret: "secret", AuthURL: f.URL + "/authorize",
		TokenURL: f.URL + "/token", ProfileURL: f.URL + "/me"}
}
