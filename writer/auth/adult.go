package auth

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
)

// AdultVerifier checks that a name and birth date belong to a real person
// (the identity verification agencies of Korea; a third party).
type AdultVerifier interface {
	Verify(ctx context.Context, name string, birth time.Time) (RealName, error)
}

// RealName is a verification result.
type RealName struct {
	OK     bool   // the name and birth date belong to a real person
	Reason string // why not
}

// ErrVerifierDown means the agency could not be reached; nothing is changed.
var ErrVerifierDown = errors.New("identity verification unavailable")

// Sandbox is the local verifier for development and tests. It accepts names
// of 2 to 20 letters, except names containing "불일치" or "mismatch" (the
// sandbox's way to simulate a real-name mismatch) and "장애" (agency down).
type Sandbox struct{}

// Verify implements AdultVerifier.
func (Sandbox) Verify(_ context.Context, name string, _ time.Time) (RealName, error) {
	if strings.Contains(name, "장애") {
		return RealName{}, ErrVerifierDown
	}
	n := 0
	for _, r := range name {
		if !unicode.IsLetter(r) && r != ' ' {
			return RealName{Reason: "name must be letters"}, nil
		}
		n++
	}
	if n < 2 || n > 20 {
		return RealName{Reason: "name must be 2-20 letters"}, nil
	}
	if strings.Contains(name, "불일치") || strings.Contains(strings.ToLower(name), "mismatch") {
		return RealName{Reason: "real-name check failed"}, nil
	}
	return RealName{OK: true}, nil
}
