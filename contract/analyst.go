package contract

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// AnalystCookie holds the signed analyst token. The writer sets it (HttpOnly,
// SameSite=Strict) when a member whose role is analyst logs in or asks who they
// are, and clears it otherwise; analytics reads it to let the member see
// reports and to log who asked. Analytics has no database of accounts: the
// token is the writer's word that this uid held the analyst role when it was
// made. That is not enough to answer a report: analytics also asks the writer
// (AnalystCheckSubject) whether the member session beside it is still live
// with the role held, so logout and a withdrawn role end access at once.
const AnalystCookie = "sf_analyst"

// StaffCookie is the writer's staff session cookie (writer/staff) and
// MemberSessionCookie its member session cookie (writer/auth): analytics passes
// their values to the writer's check (AnalystCheckSubject), never reads them.
const (
	StaffCookie         = "sf_staff"
	MemberSessionCookie = "sf_session"
)

// RoleAnalyst is the role that opens the reports. Members have RoleMember.
const (
	RoleMember  = "member"
	RoleAnalyst = "analyst"
)

// ErrBadAnalyst is returned for a token that is malformed, forged or expired.
var ErrBadAnalyst = errors.New("invalid analyst token")

// Token: <uid>.<unix expiry>.<base64url HMAC-SHA256(secret, "analyst:" uid "." expiry)>.
// The "analyst:" label keeps a MAC of another token kind from ever matching.

// SignAnalyst makes an analyst token for uid valid until exp.
func SignAnalyst(secret []byte, uid string, exp time.Time) string {
	payload := uid + "." + strconv.FormatInt(exp.Unix(), 10)
	return payload + "." + analystMAC(secret, payload)
}

// VerifyAnalyst checks an analyst token at time now and returns its uid.
func VerifyAnalyst(secret []byte, token string, now time.Time) (string, error) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 || len(token) > 128 {
		return "", ErrBadAnalyst
	}
	payload, mac := token[:i], token[i+1:]
	uid, e, ok := strings.Cut(payload, ".")
	if !ok || uid == "" {
		return "", ErrBadAnalyst
	}
	if _, err := strconv.ParseUint(uid, 10, 63); err != nil {
		return "", ErrBadAnalyst
	}
	exp, err := strconv.ParseInt(e, 10, 64)
	if err != nil || !hmac.Equal([]byte(mac), []byte(analystMAC(secret, payload))) {
		return "", ErrBadAnalyst
	}
	if now.Unix() >= exp {
		return "", ErrBadAnalyst
	}
	return uid, nil
}

func analystMAC(secret []byte, payload string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("analyst:" + payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// AnalystCheckSubject is the NATS request/reply subject on which the writer
// answers whether a request's credentials are, at this moment, an analyst's.
// Analytics asks it for every report: the signed cookie alone outlives a
// logout, a role change or a removal, so it is never enough on its own.
const AnalystCheckSubject = "storefront.analyst.check"

// AnalystCheck is the question: the staff session token (cookie sf_staff),
// or a member's session token (cookie sf_session) with the uid its verified
// analyst cookie names. Staff wins when both are given.
type AnalystCheck struct {
	Staff   string `json:"staff,omitempty"`
	Session string `json:"session,omitempty"`
	UID     string `json:"uid,omitempty"`
}

// AnalystAnswer is the writer's reply: OK with Who (the member's uid, or
// "staff:<id>") for the report audit, or not OK. Error says the writer
// could not tell (its database failed): analytics answers 503, not 401.
type AnalystAnswer struct {
	OK    bool   `json:"ok"`
	Who   string `json:"who,omitempty"`
	Error string `json:"error,omitempty"`
}
