package contract

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// Content URLs. Covers, banners and volume pages are uploaded files after the
// writer's processing (contract/media.go: /media/<id> and
// /content/<pid>/<no>/<ver>/<n>); a volume's ContentBase = /content/<pid>/<no>
// is the prefix of every version of its pages. Pages up to
// Volume.PreviewPages are public; the rest need ?t=<content token> that the
// writer's download-auth answer hands out to entitled readers, bound to the
// volume, so a CDN can check it on the prefix.
const ContentPrefix = "/content/"

// ContentBase returns the base URL of a volume's content.
func ContentBase(pid string, no int) string {
	return ContentPrefix + pid + "/" + strconv.Itoa(no)
}

// SignContent returns a token granting access to volume no of pid until exp.
// Token: <unix exp>.<base64url HMAC-SHA256(secret, pid "/" no "/" exp)>.
func SignContent(secret []byte, pid string, no int, exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	return e + "." + contentMAC(secret, pid, no, e)
}

// VerifyContent checks a content token for pid/no at time now.
func VerifyContent(secret []byte, token, pid string, no int, now time.Time) bool {
	e, mac, ok := strings.Cut(token, ".")
	if !ok {
		return false
	}
	exp, err := strconv.ParseInt(e, 10, 64)
	if err != nil || now.Unix() >= exp {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(contentMAC(secret, pid, no, e)))
}

func contentMAC(secret []byte, pid string, no int, exp string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(pid + "/" + strconv.Itoa(no) + "/" + exp))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
