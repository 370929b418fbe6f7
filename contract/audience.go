package contract

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// AudienceCookie is the cookie holding the signed audience token. The writer sets
// it at login, logout, adult verification and 19-toggle changes; the edge reads it
// to choose between the teen and the adult variant of every answer without asking
// the origin.
const AudienceCookie = "sf_aud"

// Audience is what the edge needs to know about the reader.
type Audience struct {
	// AdultLevel is the seed's derived adult level 0..3 (§4).
	AdultLevel int
	// Expires is when the token stops being valid.
	Expires time.Time
}

// TeenVersion reports whether the teen version of the store applies (seed §4):
// the channel is not an adult channel, or the adult level is 1 (a minor, or an
// outside-link visitor) or 3 (an adult with the 19 toggle off). At level 0 on
// an adult channel the store is not the teen version: its adult entry points
// (the 19 toggle, the verification prompt) are there. Whether an adult work
// itself is shown is AdultContent, a different question.
func TeenVersion(adultLevel int, adultChannel bool) bool {
	return !adultChannel || adultLevel == 1 || adultLevel == 3
}

// AdultContent reports whether an adult work's page, cover, summary and
// volumes may reach the reader (seed §6: level 2, an adult with the 19
// toggle on, on an adult channel). The edge renders its two variants of every
// answer by it and the writer sells adult works and lists them in zzim and
// recently viewed by it; an unverified visitor (level 0) never sees one.
// Rules: contract/cases/audience.json, also run by the frontend.
func AdultContent(adultLevel int, adultChannel bool) bool {
	return adultChannel && adultLevel == 2
}

// What the adult gate of a 19 work offers a reader who may not see it (seed
// §5: verification is asked only of readers who are not adult).
const (
	GateNone     = "none"     // the work is shown
	GateLogin    = "login"    // a visitor: log in, then verify
	GateVerify   = "verify"   // a member never verified: 성인 인증하기
	GateTeen     = "teen"     // a verified minor: not available
	GateToggle   = "toggle"   // an adult with the 19 toggle off: turn it on
	GateNotInApp = "notInApp" // the store apps (AA, IA): not available in this app
)

// AdultGate is the gate of an adult work for a reader: the writer's refusals
// say it, and the frontend's gate (its copy, run against the same table)
// offers it.
func AdultGate(adultChannel, login bool, adultLevel int) string {
	switch {
	case !adultChannel:
		return GateNotInApp
	case AdultContent(adultLevel, adultChannel):
		return GateNone
	case !login:
		return GateLogin
	case adultLevel == 3:
		return GateToggle
	case adultLevel == 1:
		return GateTeen
	}
	return GateVerify
}

// AdultChannel reports whether a channel (the X-Channel header) may show adult
// works. The store apps (AA Google Play, IA App Store) may not, by their
// stores' rules; web (AW, IW), the complete Android build (AC) and one-store
// (AO) may. No header means a browser: web. The edge decides the version of
// every answer by it and the writer refuses to sell adult works by it, so both
// ask here.
func AdultChannel(ch string) bool {
	return !strings.EqualFold(ch, "AA") && !strings.EqualFold(ch, "IA")
}

// Token layout: base64url( 1 byte version | 1 byte level | 8 bytes unix expiry | 32 bytes HMAC-SHA256 ).
const audienceRaw = 1 + 1 + 8 + sha256.Size

// ErrBadAudience is returned for a token that is malformed, forged or expired.
var ErrBadAudience = errors.New("invalid audience token")

// SignAudience makes a token for a with the shared secret.
func SignAudience(secret []byte, a Audience) string {
	var raw [audienceRaw]byte
	raw[0] = 1
	raw[1] = byte(a.AdultLevel)
	binary.BigEndian.PutUint64(raw[2:10], uint64(a.Expires.Unix()))
	m := hmac.New(sha256.New, secret)
	m.Write(raw[:10])
	m.Sum(raw[10:10])
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

// VerifyAudience checks a token against the secret and the time now.
func VerifyAudience(secret []byte, token string, now time.Time) (Audience, error) {
	var raw [audienceRaw]byte
	// Exactly the signer's 56 characters: the decoder skips CR and LF, so a
	// token with line breaks added would otherwise verify too.
	if len(token) != base64.RawURLEncoding.EncodedLen(audienceRaw) {
		return Audience{}, ErrBadAudience
	}
	if n, err := base64.RawURLEncoding.Decode(raw[:], []byte(token)); err != nil || n != audienceRaw {
		return Audience{}, ErrBadAudience
	}
	if raw[0] != 1 || raw[1] > 3 {
		return Audience{}, ErrBadAudience
	}
	m := hmac.New(sha256.New, secret)
	m.Write(raw[:10])
	var want [sha256.Size]byte
	if !hmac.Equal(m.Sum(want[:0]), raw[10:]) {
		return Audience{}, ErrBadAudience
	}
	exp := time.Unix(int64(binary.BigEndian.Uint64(raw[2:10])), 0)
	if !now.Before(exp) {
		return Audience{}, ErrBadAudience
	}
	return Audience{AdultLevel: int(raw[1]), Expires: exp}, nil
}
