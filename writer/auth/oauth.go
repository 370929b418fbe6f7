package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/oauth2"

	"storefront/svc"
	"storefront/writer/httpapi"
)

// Provider is one OAuth2 social login. Endpoints are configurable so tests and
// staging point them at a fake provider.
type Provider struct {
	ClientID     string
	ClientSecret string
	AuthURL      string
	TokenURL     string
	ProfileURL   string
	// RedirectURL is our callback as registered with the provider; empty
	// derives it from the request (host + /home/api/v1/auth/oauth/<name>/callback).
	RedirectURL string
	Scopes      []string
}

// DefaultProviders returns Kakao and Naver from env (KAKAO_CLIENT_ID,
// KAKAO_CLIENT_SECRET, KAKAO_AUTH_URL, KAKAO_TOKEN_URL, KAKAO_PROFILE_URL,
// KAKAO_REDIRECT_URL and the same with NAVER_), defaulting to the real
// endpoints. A provider without client id is left out.
func DefaultProviders() map[string]Provider {
	out := map[string]Provider{}
	for name, def := range map[string]Provider{
		"kakao": {AuthURL: "https://kauth.kakao.com/oauth/authorize", TokenURL: "https://kauth.kakao.com/oauth/token",
			ProfileURL: "https://kapi.kakao.com/v2/user/me"},
		"naver": {AuthURL: "https://nid.naver.com/oauth2.0/authorize", TokenURL: "https://nid.naver.com/oauth2.0/token",
			ProfileURL: "https://openapi.naver.com/v1/nid/me"},
	} {
		env := strings.ToUpper(name) + "_"
		p := Provider{
			ClientID:     svc.Env(env+"CLIENT_ID", ""),
			ClientSecret: svc.Env(env+"CLIENT_SECRET", ""),
			AuthURL:      svc.Env(env+"AUTH_URL", def.AuthURL),
			TokenURL:     svc.Env(env+"TOKEN_URL", def.TokenURL),
			ProfileURL:   svc.Env(env+"PROFILE_URL", def.ProfileURL),
			RedirectURL:  svc.Env(env+"REDIRECT_URL", ""),
		}
		if p.ClientID != "" {
			out[name] = p
		}
	}
	return out
}

func (a *Auth) oauthConfig(r *http.Request, name string, p Provider) *oauth2.Config {
	redirect := p.RedirectURL
	if redirect == "" {
		scheme := "http"
		if a.secure(r) {
			scheme = "https"
		}
		host := r.Host
		if fh := r.Header.Get("X-Forwarded-Host"); fh != "" {
			host = fh
		}
		redirect = scheme + "://" + host + Prefix + "oauth/" + name + "/callback"
	}
	return &oauth2.Config{
		ClientID: p.ClientID, ClientSecret: p.ClientSecret, RedirectURL: redirect, Scopes: p.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: p.AuthURL, TokenURL: p.TokenURL, AuthStyle: oauth2.AuthStyleInParams},
	}
}

// oauthStart redirects to the provider's authorize page with state and PKCE
// kept in the session.
func (a *Auth) oauthStart(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("provider")
	p, ok := a.cfg.Providers[name]
	if !ok {
		return errUnknownProvider
	}
	ctx := r.Context()
	state, verifier := randomToken(24), oauth2.GenerateVerifier()
	a.sm.Put(ctx, "oauth_state", state)
	a.sm.Put(ctx, "oauth_verifier", verifier)
	a.sm.Put(ctx, "oauth_provider", name)
	a.sm.Put(ctx, "oauth_return", safeReturn(r.URL.Query().Get("url")))
	http.Redirect(w, r, a.oauthConfig(r, name, p).AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)), http.StatusFound)
	return nil
}

var errUnknownProvider = httpapi.Errorf(404, "지원하지 않는 로그인 방식입니다.")

// providerDown is the answer when the social login provider cannot be
// reached or fails on its side (5xx, timeout, an answer we cannot read): a
// bad gateway, as for the payment gateway, not the member's fault (401) nor
// ours (500).
func providerDown(name string, err error) error {
	return &httpapi.Error{Code: http.StatusBadGateway, Msg: "소셜 로그인 서비스에 일시적인 문제가 있습니다. 잠시 후 다시 시도해 주세요.",
		Err: fmt.Errorf("oauth provider %s: %w", name, err)}
}

// oauthCallback exchanges the code, reads the profile, finds or creates the
// member and logs them in.
func (a *Auth) oauthCallback(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("provider")
	p, ok := a.cfg.Providers[name]
	if !ok {
		return errUnknownProvider
	}
	ctx := r.Context()
	q := r.URL.Query()
	state := a.sm.PopString(ctx, "oauth_state")
	verifier := a.sm.PopString(ctx, "oauth_verifier")
	ret := a.sm.PopString(ctx, "oauth_return")
	if a.sm.PopString(ctx, "oauth_provider") != name || state == "" || q.Get("state") != state {
		return httpapi.Errorf(400, "로그인 요청이 만료되었거나 올바르지 않습니다. 다시 로그인해 주세요.")
	}
	if e := q.Get("error"); e != "" {
		http.Redirect(w, r, "/nuxgin?url="+url.QueryEscape(safeReturn(ret)), http.StatusFound)
		return nil
	}
	code := q.Get("code")
	if code == "" {
		return httpapi.Errorf(400, "인증 코드(code)가 필요합니다.")
	}
	cctx := context.WithValue(ctx, oauth2.HTTPClient, a.cfg.HTTPClient)
	tok, err := a.oauthConfig(r, name, p).Exchange(cctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		// The provider refusing the code (expired, used, forged: a 4xx
		// answer) is the member's to retry; anything else is the provider's.
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
			return httpapi.Errorf(401, "소셜 로그인에 실패했습니다. 다시 시도해 주세요.")
		}
		return providerDown(name, fmt.Errorf("exchange code: %w", err))
	}
	id, email, err := a.profile(cctx, p, tok)
	if err != nil {
		var he *httpapi.Error
		if errors.As(err, &he) {
			return err
		}
		return providerDown(name, err)
	}
	u, err := a.socialUser(ctx, name, id, email)
	if err != nil {
		return err
	}
	if err := a.startSession(ctx, w, r, u, "login"); err != nil {
		return err
	}
	http.Redirect(w, r, safeReturn(ret), http.StatusFound)
	return nil
}

// profile reads the user id (and email if given) from Kakao's
// {"id":123,"kakao_account":{"email":..}} or Naver's
// {"resultcode":"00","response":{"id":"..","email":..}}.
func (a *Auth) profile(ctx context.Context, p Provider, tok *oauth2.Token) (string, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.ProfileURL, nil)
	if err != nil {
		return "", "", fmt.Errorf("profile request: %w", err)
	}
	tok.SetAuthHeader(req)
	resp, err := a.cfg.HTTPClient.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("profile: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", "", fmt.Errorf("profile: %w", err)
	}
	if resp.StatusCode >= 500 {
		return "", "", fmt.Errorf("profile: status %d", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return "", "", httpapi.Errorf(401, "소셜 계정 정보를 가져오지 못했습니다. 다시 시도해 주세요.")
	}
	var pr struct {
		ID      json.RawMessage `json:"id"`
		Account struct {
			Email string `json:"email"`
		} `json:"kakao_account"`
		Response struct {
			ID    string `json:"id"`
			Email string `json:"email"`
		} `json:"response"`
	}
	if err := json.Unmarshal(body, &pr); err != nil {
		return "", "", fmt.Errorf("profile answer: %w", err)
	}
	id, email := strings.Trim(string(pr.ID), `"`), pr.Account.Email
	if pr.Response.ID != "" {
		id, email = pr.Response.ID, pr.Response.Email
	}
	if id == "" || id == "null" {
		return "", "", fmt.Errorf("profile answer without id")
	}
	if _, err := strconv.ParseFloat(id, 64); err != nil && strings.ContainsAny(id, " /") {
		return "", "", fmt.Errorf("profile id %q malformed", id)
	}
	return id, email, nil
}
