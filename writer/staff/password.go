package staff

import (
	"net/http"
	"unicode/utf8"

	"storefront/writer/auth"
	"storefront/writer/httpapi"
)

// Staff passwords are argon2id hashes (writer/auth's parameters and PHC
// format, shared with members).
func hashPassword(pw string) (string, error) { return auth.HashPassword(pw) }

func checkPassword(hash, pw string) bool {
	ok, err := auth.CheckPassword(hash, pw)
	return err == nil && ok
}

// minPassword: with a second factor, length is the rule that matters (NIST
// SP 800-63B asks at least 8; staff hold more than one reader's account).
const minPassword = 12

func checkNewPassword(pw string) error {
	if n := utf8.RuneCountInString(pw); n < minPassword || n > 200 {
		return httpapi.Errorf(http.StatusBadRequest, "비밀번호는 %d자 이상 200자 이하여야 합니다.", minPassword)
	}
	return nil
}
