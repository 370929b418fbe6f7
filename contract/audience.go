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

// TeenVersion reports whether the teen version applies (seed §4): the channel is
// not an adult channel, or the adult level is 1 or 3. Level 0 (unverified) also
// never sees adult works.
func TeenVersion(adultLevel int, adultChannel bool) bool {
	if !adultChannel {
		return true
	}
	return adultLevel != 2
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
