package staff

import (
	"encoding/base32"
	"testing"
	"time"

	"github.com/pquerna/otp"
)

// RFC 6238 appendix B, SHA-1: the ASCII secret "12345678901234567890", 30 s
// steps, 8 digits. A 6-digit code is the same value mod 10^6 (RFC 4226
// truncation), which is what authenticator apps show.
var rfc6238 = []struct {
	unix int64
	code string
}{
	{59, "94287082"},
	{1111111109, "07081804"},
	{1111111111, "14050471"},
	{1234567890, "89005924"},
	{2000000000, "69279037"},
	{20000000000, "65353130"},
}

var rfcSecret = base32.StdEncoding.EncodeToString([]byte("12345678901234567890"))

func TestTOTPMatchesRFC6238Vectors(t *testing.T) {
	for _, v := range rfc6238 {
		got, err := stepCode(rfcSecret, v.unix/totpPeriod, otp.DigitsEight)
		if err != nil {
			t.Fatal(err)
		}
		if got != v.code {
			t.Errorf("T=%d: code %s, RFC 6238 says %s", v.unix, got, v.code)
		}
		six, err := TOTPCode(rfcSecret, time.Unix(v.unix, 0))
		if err != nil {
			t.Fatal(err)
		}
		if six != v.code[2:] {
			t.Errorf("T=%d: 6-digit code %s, want %s", v.unix, six, v.code[2:])
		}
	}
}

func TestTOTPCheckWindowAndReplay(t *testing.T) {
	now := time.Unix(1111111111, 0)
	step := now.Unix() / totpPeriod
	code := func(d int64) string {
		c, err := stepCode(rfcSecret, step+d, otp.DigitsSix)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, d := range []int64{-1, 0, 1} {
		if s, ok := checkTOTP(rfcSecret, code(d), now, 0); !ok || s != step+d {
			t.Errorf("code of step %+d refused (ok %v, step %d)", d, ok, s)
		}
	}
	for _, d := range []int64{-2, 2} {
		if _, ok := checkTOTP(rfcSecret, code(d), now, 0); ok {
			t.Errorf("code of step %+d accepted: only one step of drift is allowed", d)
		}
	}
	if _, ok := checkTOTP(rfcSecret, code(0), now, step); ok {
		t.Error("a code whose step was already used is accepted again (replay)")
	}
	if _, ok := checkTOTP(rfcSecret, code(-1), now, step); ok {
		t.Error("an older code is accepted after a newer one was used")
	}
	for _, bad := range []string{"", "12345", "1234567", "abcdef"} {
		if _, ok := checkTOTP(rfcSecret, bad, now, 0); ok {
			t.Errorf("code %q accepted", bad)
		}
	}
}
