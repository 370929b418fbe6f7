package auth_test

import (
	"net/url"
	"strings"
	"testing"

	"storefront/devstack/testenv"
	"storefront/writer/auth"
	"storefront/writer/internal/writertest"
	"storefront/writer/server"
)

func TestSocialLogin(t *testing.T) {
	t.Parallel()
	kakao := newFakeProvider(t, "kakao", "4242")
	naver := newFakeProvider(t, "naver", "nv-abc")
	e := start(t, func(c *server.Config) {
		c.Providers = map[string]auth.Provider{"kakao": kakao.provider(), "naver": naver.provider()}
	})
	login := func(b *writertest.Client, provider string) me {
		t.Helper()
		resp, _ := b.Req("GET", "/home/api/v1/auth/oauth/"+provider+"/start?url=/novel", nil)
		if resp.StatusCode != 302 {
			t.Fatalf("start: %d", resp.StatusCode)
		}
		// The browser follows: provider authorize page -> our callback -> return url.
		r2, err := b.HTTP.Get(resp.Header.Get("Location"))
		if err != nil || r2.StatusCode != 302 {
			t.Fatalf("authorize: %v %v", r2, err)
		}
		r2.Body.Close()
		cb := r2.Header.Get("Location")
		if !strings.HasPrefix(cb, e.Base+"/home/api/v1/auth/oauth/"+provider+"/callback?") {
			t.Fatalf("provider redirected to %s", cb)
		}
		r3, err := b.HTTP.Get(cb)
		if err != nil {
			t.Fatal(err)
		}
		r3.Body.Close()
		if r3.StatusCode != 302 || r3.Header.Get("Location") != "/novel" {
			t.Fatalf("callback: %d %s", r3.StatusCode, r3.Header.Get("Location"))
		}
		return getMe(t, b)
	}
	m := login(e.Browser(), "kakao")
	if m.AuthInfo.LoginType != "S" || m.AuthInfo.ID != "kakao_4242" || m.AuthInfo.LoginPrefix != "K" || m.AuthInfo.AuthType != "kakao" || m.AuthInfo.DisplayName != m.AuthInfo.UID {
		t.Fatalf("kakao auth info: %+v", m.AuthInfo)
	}
	again := login(e.Browser(), "kakao")
	if again.AuthInfo.UID != m.AuthInfo.UID {
		t.Fatalf("second kakao login made another member")
	}
	n := login(e.Browser(), "naver")
	if n.AuthInfo.ID != "naver_nv-abc" || n.AuthInfo.LoginPrefix != "N" || n.AuthInfo.UID == m.AuthInfo.UID {
		t.Fatalf("naver auth info: %+v", n.AuthInfo)
	}
	// A callback whose state is not the session's is refused.
	b := e.Browser()
	st, body := b.Do("GET", "/home/api/v1/auth/oauth/kakao/callback?code=x&state=forged", nil)
	if st != 400 || writertest.Code(t, body) != 400 || !strings.Contains(writertest.Message(t, body), "다시 로그인해 주세요.") {
		t.Fatalf("forged state: %d %s", st, body)
	}
	if st, _ := b.Do("GET", "/home/api/v1/auth/oauth/facebook/start", nil); st != 404 {
		t.Fatalf("unknown provider: %d", st)
	}
}

// A provider failing on its side (5xx from its token or profile endpoint,
// or gone) is a bad gateway for the member, in Korean; the provider refusing
// the code or the token (4xx) is a failed login to retry (401). Nobody is
// logged in either way.
func TestSocialLoginProviderFailures(t *testing.T) {
	t.Parallel()
	kakao := newFakeProvider(t, "kakao", "4242")
	e := start(t, func(c *server.Config) {
		c.Providers = map[string]auth.Provider{"kakao": kakao.provider()}
	})
	callback := func(tokenStatus, profileStatus int, down bool) (int, []byte) {
		t.Helper()
		b := e.Browser()
		resp, _ := b.Req("GET", "/home/api/v1/auth/oauth/kakao/start?url=/novel", nil)
		r2, err := b.HTTP.Get(resp.Header.Get("Location"))
		if err != nil || r2.StatusCode != 302 {
			t.Fatalf("authorize: %v %v", r2, err)
		}
		r2.Body.Close()
		kakao.Fail(tokenStatus, profileStatus)
		defer kakao.Fail(0, 0)
		if down {
			kakao.Close()
		}
		cb, _ := url.Parse(r2.Header.Get("Location"))
		st, body := b.Do("GET", cb.RequestURI(), nil)
		if m := getMe(t, b); m.AuthInfo != nil {
			t.Fatalf("logged in after a failed callback: %+v", m.AuthInfo)
		}
		return st, body
	}
	for _, c := range []struct {
		name           string
		token, profile int
		down           bool
		want           int
	}{
		{"token endpoint 500", 500, 0, false, 502},
		{"token endpoint 503", 503, 0, false, 502},
		{"token refused 400", 400, 0, false, 401},
		{"profile endpoint 500", 0, 500, false, 502},
		{"profile refused 401", 0, 401, false, 401},
		{"provider gone", 0, 0, true, 502},
	} {
		st, body := callback(c.token, c.profile, c.down)
		if st != c.want || writertest.Code(t, body) != c.want || !testenv.Korean(writertest.Message(t, body)) {
			t.Errorf("%s: %d %s, want %d with a Korean message", c.name, st, body, c.want)
		}
	}
}
