package contract_test

// Fuzz targets for every decoder and verifier of the contract package. The
// seed corpus (f.Add) runs with every `go test`; scripts/fuzz.sh fuzzes them.
// Each target asserts properties, not just "no panic": verifiers accept only
// what the signer produced, decoders round-trip what they accept.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"storefront/contract"
)

var fuzzNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// FuzzVerifyAudience: a token the verifier accepts is exactly the token the
// signer makes for what it returns (so nothing but the secret's holder can make
// one), a signed token round-trips, and changing any one byte of a signed
// token, or verifying it with another secret or after its expiry, fails.
func FuzzVerifyAudience(f *testing.F) {
	secret := []byte("dev-audience-secret")
	valid := contract.SignAudience(secret, contract.Audience{AdultLevel: 2, Expires: fuzzNow.Add(time.Hour)})
	f.Add(valid, uint8(2), int64(3600), 0, byte(1))
	f.Add(contract.SignAudience(secret, contract.Audience{AdultLevel: 0, Expires: fuzzNow.Add(-time.Second)}), uint8(0), int64(-1), 5, byte(0x80))
	f.Add("", uint8(1), int64(0), 0, byte(0))
	f.Add("AQIAAAAAaW5B", uint8(3), int64(1), 10, byte(7))
	f.Add(strings.Repeat("A", 56), uint8(4), int64(1<<40), 55, byte(0xff))
	f.Add(valid+"=", uint8(2), int64(60), 56, byte('A'))
	f.Add(strings.ReplaceAll(valid, "-", "+"), uint8(1), int64(60), 3, byte('/'))
	f.Fuzz(func(t *testing.T, token string, level uint8, ttl int64, pos int, flip byte) {
		// Any string: accepted only if it is the canonical signed token.
		if a, err := contract.VerifyAudience(secret, token, fuzzNow); err == nil {
			if a.AdultLevel < 0 || a.AdultLevel > 3 || !a.Expires.After(fuzzNow) {
				t.Fatalf("accepted %q with level %d expiring %v", token, a.AdultLevel, a.Expires)
			}
			if re := contract.SignAudience(secret, a); re != token {
				t.Fatalf("accepted %q, but the signer makes %q for %+v", token, re, a)
			}
		}
		// A signed token round-trips while it is valid.
		lvl := int(level % 4)
		exp := fuzzNow.Add(time.Duration(ttl%(1<<33)) * time.Second)
		tok := contract.SignAudience(secret, contract.Audience{AdultLevel: lvl, Expires: exp})
		a, err := contract.VerifyAudience(secret, tok, fuzzNow)
		if exp.After(fuzzNow) {
			if err != nil || a.AdultLevel != lvl || a.Expires.Unix() != exp.Unix() {
				t.Fatalf("round trip of level %d exp %v: %+v, %v", lvl, exp, a, err)
			}
		} else if err == nil {
			t.Fatalf("expired token (exp %v) accepted", exp)
		}
		if _, err := contract.VerifyAudience([]byte("another-secret"), tok, fuzzNow); err == nil {
			t.Fatal("token accepted with another secret")
		}
		// One byte changed: never accepted.
		if flip != 0 && pos >= 0 {
			b := []byte(tok)
			b[pos%len(b)] ^= flip
			if _, err := contract.VerifyAudience(secret, string(b), fuzzNow); err == nil {
				t.Fatalf("modified token %q accepted (original %q)", b, tok)
			}
		}
	})
}

// FuzzVerifyContent: content tokens grant exactly one volume of one work until
// their expiry. Accepted tokens are canonical for what they grant; a token for
// one volume never opens another volume, another work or the same volume after
// expiry; a changed byte never verifies.
func FuzzVerifyContent(f *testing.F) {
	secret := []byte("dev-content-secret")
	f.Add(contract.SignContent(secret, "wt0001", 3, fuzzNow.Add(time.Hour)), "wt0001", 3, int64(1800), 0, byte(1))
	f.Add("", "", 0, int64(0), 0, byte(0))
	f.Add("1900000000.", "wt0001", 1, int64(-5), 3, byte(0x20))
	f.Add("+1900000000.abc", "a/1", 2, int64(10), 1, byte('/'))
	f.Add("99999999999999999999.x", "cm0042", -1, int64(1<<40), 11, byte('.'))
	f.Add(contract.SignContent(secret, "eb0007", 12, fuzzNow.Add(time.Minute))+"A", "eb0007", 12, int64(1), 40, byte(0x41))
	f.Fuzz(func(t *testing.T, token, pid string, no int, ttl int64, pos int, flip byte) {
		if contract.VerifyContent(secret, token, pid, no, fuzzNow) {
			e, _, _ := strings.Cut(token, ".")
			exp, err := strconv.ParseInt(e, 10, 64)
			if err != nil || exp <= fuzzNow.Unix() {
				t.Fatalf("accepted %q whose expiry %q is not in the future", token, e)
			}
			if re := contract.SignContent(secret, pid, no, time.Unix(exp, 0)); re != token {
				t.Fatalf("accepted %q for %s/%d, but the signer makes %q", token, pid, no, re)
			}
		}
		exp := fuzzNow.Add(time.Duration(ttl%(1<<33)) * time.Second)
		tok := contract.SignContent(secret, pid, no, exp)
		ok := contract.VerifyContent(secret, tok, pid, no, fuzzNow)
		if ok != exp.After(fuzzNow) {
			t.Fatalf("token for %s/%d exp %v: verify %v", pid, no, exp, ok)
		}
		if !exp.After(fuzzNow) {
			return
		}
		if contract.VerifyContent(secret, tok, pid, no+1, fuzzNow) || contract.VerifyContent(secret, tok, pid+"x", no, fuzzNow) {
			t.Fatalf("token for %s/%d opens another volume or work", pid, no)
		}
		if contract.VerifyContent(secret, tok, pid, no, exp) || contract.VerifyContent([]byte("x"), tok, pid, no, fuzzNow) {
			t.Fatal("token accepted at its expiry or with another secret")
		}
		if flip != 0 && pos >= 0 {
			b := []byte(tok)
			i := pos % len(b)
			b[i] ^= flip
			if contract.VerifyContent(secret, string(b), pid, no, fuzzNow) {
				t.Fatalf("modified token %q accepted (original %q)", b, tok)
			}
		}
	})
}

// FuzzSignature: the zero-allocation signer agrees with an independent
// computation of the formula the page checks, and any change of status, token
// or body changes the signature.
func FuzzSignature(f *testing.F) {
	f.Add(200, "b3f1c2a9", []byte(`{"header":{"code":200,"message":""}}`))
	f.Add(404, "", []byte(`{"header":{"code":404,"message":"not found"}}`))
	f.Add(-1, "\n", []byte("\n"))
	f.Add(0, "토큰", []byte{0xff, 0x00})
	f.Fuzz(func(t *testing.T, status int, token string, body []byte) {
		sum := sha256.Sum256([]byte(strconv.Itoa(status) + "\n" + token + "\n" + string(body)))
		want := contract.SignaturePrefix + hex.EncodeToString(sum[:])
		if got := contract.Signature(status, token, body); got != want {
			t.Fatalf("Signature = %s, want %s", got, want)
		}
		if got := contract.AppendSignature([]byte("x"), status, []byte(token), body); string(got) != "x"+want {
			t.Fatalf("AppendSignature = %s", got)
		}
		if contract.Signature(status+1, token, body) == want ||
			contract.Signature(status, token, append(bytes.Clone(body), 'x')) == want ||
			(!strings.Contains(token, "\n") && contract.Signature(status, token+"x", body) == want) {
			t.Fatal("a changed answer kept its signature")
		}
	})
}

// FuzzSignatureV2: SFS2 agrees with an independent computation of its
// formula, whether signed from the body or from the state kept with a cached
// body; any change of status, token or body changes it; version 1 is still
// SFS1 and only "2" asks for SFS2.
func FuzzSignatureV2(f *testing.F) {
	f.Add(200, "0123456789abcdef0123456789abcdef", []byte(`{"header":{"code":200,"message":""}}`))
	f.Add(404, "", []byte{})
	f.Add(-1, "\n", []byte("\n"))
	f.Add(0, strings.Repeat("긴토큰", 40), bytes.Repeat([]byte{0xff, 0x00}, 5000))
	f.Fuzz(func(t *testing.T, status int, token string, body []byte) {
		d := sha256.Sum256(body)
		sum := sha256.Sum256([]byte(hex.EncodeToString(d[:]) + "\n" + strconv.Itoa(status) + "\n" + token))
		want := contract.SignaturePrefixV2 + hex.EncodeToString(sum[:])
		if got := contract.SignatureV2(status, token, body); got != want {
			t.Fatalf("SignatureV2 = %s, want %s", got, want)
		}
		st := contract.NewBodyState(body)
		if got := st.AppendSignature([]byte("x"), status, []byte(token)); string(got) != "x"+want {
			t.Fatalf("BodyState.AppendSignature = %s, want x%s", got, want)
		}
		// The state is not consumed: a second request signs from it again.
		if got := st.AppendSignature(nil, status, []byte(token)); string(got) != want {
			t.Fatalf("second signature from one state = %s", got)
		}
		if got := contract.AppendSignatureVersion(nil, 2, status, []byte(token), body); string(got) != want {
			t.Fatalf("version 2 = %s", got)
		}
		if got, v1 := contract.AppendSignatureVersion(nil, 1, status, []byte(token), body), contract.Signature(status, token, body); string(got) != v1 || v1 == want {
			t.Fatalf("version 1 = %s, want %s", got, v1)
		}
		if contract.SignatureV2(status+1, token, body) == want ||
			contract.SignatureV2(status, token, append(bytes.Clone(body), 'x')) == want ||
			contract.SignatureV2(status, token+"x", body) == want ||
			string(st.AppendSignature(nil, status, []byte(token+"x"))) == want {
			t.Fatal("a changed answer kept its signature")
		}
		if v := contract.SignatureVersion([]byte(token)); (v == 2) != (token == "2") {
			t.Fatalf("SignatureVersion(%q) = %d", token, v)
		}
	})
}

// FuzzTrackedEvent: the event schema. Whatever decodes and validates encodes
// and decodes to the same event, which still validates; validation bounds the
// fields every consumer relies on.
func FuzzTrackedEvent(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"0190f2a4-7b1c-7d3e-8f00-123456789abc","type":"page_view","ts":"2026-11-20T12:00:00Z","channel":"AW","url":"/webtoon/weekday/mon"}`))
	f.Add([]byte(`{"v":1,"id":"x","type":"purchase","ts":"2026-11-20T12:00:00.123456789+09:00","uid":"42","amount":300,"money":"blue","props":{"k":"v"}}`))
	f.Add([]byte(`{"v":2,"id":"x","type":"page_view","ts":"2026-11-20T12:00:00Z"}`))
	f.Add([]byte(`{"v":1,"id":"","type":"","ts":"0001-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"v":1,"id":"a","type":"b","ts":"2026-11-20T12:00:00Z","vol":-9223372036854775808,"props":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"v":1e3}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var ev contract.TrackedEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return
		}
		if err := ev.Validate(); err != nil {
			return
		}
		if ev.V < 1 || ev.V > contract.EventSchemaVersion || ev.ID == "" || len(ev.ID) > 64 || ev.Type == "" || len(ev.Type) > 32 || ev.Time.IsZero() {
			t.Fatalf("invalid event validated: %+v", ev)
		}
		b, err := json.Marshal(&ev)
		if err != nil {
			// Only a time outside years 0..9999 cannot be encoded; it must not validate.
			t.Fatalf("validated event does not encode: %v (%+v)", err, ev)
		}
		var back contract.TrackedEvent
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decode %s: %v", b, err)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("round-tripped event no longer validates: %v", err)
		}
		if !back.Time.Equal(ev.Time) {
			t.Fatalf("time %v came back as %v", ev.Time, back.Time)
		}
		back.Time, ev.Time = time.Time{}, time.Time{}
		if len(ev.Props) == 0 && len(back.Props) == 0 {
			back.Props, ev.Props = nil, nil
		}
		if !reflect.DeepEqual(normalizeUTF8(ev), back) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", ev, back)
		}
	})
}

// validUTF8 is what encoding/json does to a string it encodes: each byte that
// is not part of valid UTF-8 becomes U+FFFD.
func validUTF8(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s) // RuneError for a stray byte
		b.WriteRune(r)
		s = s[n:]
	}
	return b.String()
}

// normalizeUTF8 is what encoding/json does to strings on the way out: invalid
// UTF-8 becomes U+FFFD.
func normalizeUTF8(ev contract.TrackedEvent) contract.TrackedEvent {
	fix := func(s *string) { *s = validUTF8(*s) }
	for _, s := range []*string{&ev.ID, &ev.Type, &ev.Channel, &ev.AppVersion, &ev.IPHash, &ev.UAClass, &ev.SessionID,
		&ev.UID, &ev.MemberType, &ev.URL, &ev.Route, &ev.Referrer, &ev.PID, &ev.Section, &ev.GenreID, &ev.Money} {
		fix(s)
	}
	if ev.Props != nil {
		p := make(map[string]string, len(ev.Props))
		for k, v := range ev.Props {
			p[validUTF8(k)] = validUTF8(v)
		}
		ev.Props = p
	}
	return ev
}

// FuzzEnvelope: every error envelope is valid JSON in the seed's shape carrying
// the code and (UTF-8-cleaned) message it was made from; the appended header is
// the same JSON.
func FuzzEnvelope(f *testing.F) {
	f.Add(400, "pid is required")
	f.Add(500, "일시적인 오류입니다.")
	f.Add(403, `"}},{"header":{"code":200`)
	f.Add(-1, "\x00\xff<script>\u2028")
	f.Fuzz(func(t *testing.T, code int, msg string) {
		want := contract.Envelope{Header: contract.Header{Code: code, Message: validUTF8(msg)}}
		for _, b := range [][]byte{contract.ErrorBody(code, msg), append(append([]byte("{"), contract.AppendHeader(nil, code, msg)...), '}')} {
			var got contract.Envelope
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil || dec.More() {
				t.Fatalf("envelope %s does not decode: %v", b, err)
			}
			if got != want {
				t.Fatalf("envelope %s decodes to %+v, want %+v", b, got, want)
			}
			if !utf8.Valid(b) || bytes.Contains(b, []byte("<")) {
				t.Fatalf("envelope %q is not valid UTF-8 or carries a raw '<'", b)
			}
		}
	})
}

// FuzzValidKeyID: an accepted id is 1 to 128 of [A-Za-z0-9_-], so it is safe
// as a NATS subject token, a KV key part, a URL path segment and a file name.
func FuzzValidKeyID(f *testing.F) {
	for _, s := range []string{"wt0001", "", "..", "a.b", "a/b", "a*", ">", "한글", strings.Repeat("a", 129), "A_z-9", "%2e%2e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if !contract.ValidKeyID(id) {
			return
		}
		if len(id) == 0 || len(id) > 128 || strings.ContainsAny(id, "./\\*> \t\r\n%") || id == ".." {
			t.Fatalf("accepted %q", id)
		}
		for _, r := range id {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
				t.Fatalf("accepted %q with %q", id, r)
			}
		}
	})
}
