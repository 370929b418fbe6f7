package staff

import (
	"crypto/subtle"
	"fmt"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
)

// TOTP as authenticator apps expect it (RFC 6238 with its defaults): SHA-1,
// 6 digits, 30-second steps. One step either side is accepted for clock
// drift; a step once accepted is never accepted again (totp_last_step).
const (
	totpPeriod = 30
	totpSkew   = 1
)

var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// NewTOTPSecret makes a random secret for login and returns it in base32 with
// its otpauth:// URI (what an authenticator app's QR code holds).
func NewTOTPSecret(login string) (secret, uri string, err error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: "Storefront Staff", AccountName: login, Period: totpPeriod,
		SecretSize: 20, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return "", "", fmt.Errorf("cannot make a TOTP secret: %w", err)
	}
	return k.Secret(), k.URL(), nil
}

// TOTPCode is the code of secret at t (what the app shows).
func TOTPCode(secret string, t time.Time) (string, error) {
	return stepCode(secret, t.Unix()/totpPeriod, totpOpts.Digits)
}

// stepCode is RFC 6238's TOTP value of time step step: RFC 4226's HOTP
// (HMAC-SHA-1, dynamic truncation) over the step as the counter.
func stepCode(secret string, step int64, digits otp.Digits) (string, error) {
	return hotp.GenerateCodeCustom(secret, uint64(step), hotp.ValidateOpts{Digits: digits, Algorithm: otp.AlgorithmSHA1})
}

// checkTOTP returns the time step code matches at now, within the skew, and
// later than last (a code is good once); ok false otherwise.
func checkTOTP(secret, code string, now time.Time, last int64) (step int64, ok bool) {
	if len(code) != int(totpOpts.Digits) {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	for s := cur - totpSkew; s <= cur+totpSkew; s++ {
		if s <= last {
			continue
		}
		want, err := stepCode(secret, s, totpOpts.Digits)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}
