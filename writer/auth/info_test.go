package auth_test

import (
	"testing"

	"storefront/writer/auth"
)

// Seed §3 for every login type, including F and M, which no sign-up path of
// ours creates but stored accounts may carry: the display name is the email
// for N, F and M, else the uid; S gets the upper-cased first letter of its
// id as login prefix, D gets "D".
func TestAuthInfoRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		loginType, id, email string
		name, prefix         string
	}{
		{"N", "a@example.com", "a@example.com", "a@example.com", ""},
		{"F", "fb_1", "f@example.com", "f@example.com", ""},
		{"M", "m_1", "m@example.com", "m@example.com", ""},
		{"S", "kakao_77", "k@example.com", "42", "K"},
		{"S", "naver_x", "", "42", "N"},
		{"D", "D0042", "", "42", "D"},
	} {
		u := &auth.User{UID: 42, LoginType: c.loginType, LoginID: c.id, Email: c.email, BID: "b"}
		ai := u.Info()
		if ai.DisplayName != c.name || ai.LoginPrefix != c.prefix || ai.UID != "42" || ai.LoginType != c.loginType || ai.ID != c.id {
			t.Errorf("%s %s: %+v, want name %q prefix %q", c.loginType, c.id, ai, c.name, c.prefix)
		}
	}
}
