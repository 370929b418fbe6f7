package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"storefront/contract"
)

// Input rules every route shares (issue 24 items 8, 10, 12): what a reader
// sends is text PostgreSQL can store (valid UTF-8, no NUL, which PostgreSQL
// refuses with an error that used to become a 500), every field comes once
// (a second uid after the session's own was silently ignored, and another
// parser could pick the other one), and a route that takes no body takes
// none (a malformed body used to be ignored and the call acted).

// Messages of the shared input refusals.
const (
	msgBadText   = "요청에 쓸 수 없는 문자가 있습니다. (UTF-8이 아니거나 NUL 문자)"
	msgBadPath   = "요청 주소에 쓸 수 없는 문자가 있습니다."
	msgNoBody    = "이 요청에는 본문을 보낼 수 없습니다."
	msgRepeated  = "같은 항목(%s)이 두 번 이상 있습니다."
	noBodyLimit  = 4 << 10
	bigObjectLen = 16
)

// CleanText reports whether s is valid UTF-8 without NUL.
func CleanText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// Guard refuses, before any route runs, a request whose path or query holds
// what no route accepts: invalid UTF-8 or control characters in the decoded
// path (GET /home/api/v1/charge/%00 reached PostgreSQL and answered 500),
// invalid UTF-8 or NUL in a query key or value, and a query key given more
// than once (?uid=<own>&uid=<other> passed the uid check on the first and
// left the second to whoever read it). 400 in the envelope; nothing runs.
func Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkTarget(r.URL); err != nil {
			writeEnvelope(w, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func checkTarget(u *url.URL) *Error {
	for _, c := range []byte(u.Path) {
		if c < 0x20 || c == 0x7f {
			return BadRequest(msgBadPath)
		}
	}
	if !utf8.ValidString(u.Path) {
		return BadRequest(msgBadPath)
	}
	if u.RawQuery == "" {
		return nil
	}
	q, _ := url.ParseQuery(u.RawQuery)
	for k, vs := range q {
		if !CleanText(k) {
			return BadRequest(msgBadText)
		}
		if len(vs) > 1 {
			return BadRequest(msgRepeated, k)
		}
		if !CleanText(vs[0]) {
			return BadRequest(msgBadText)
		}
	}
	return nil
}

func writeEnvelope(w http.ResponseWriter, e *Error) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.Code)
	_, _ = w.Write(contract.ErrorBody(e.Code, e.Msg))
}

// NoBody marks a route that takes no body: an empty one (or only white
// space) and the empty JSON object {} pass, anything else is a 400 before the
// handler runs, so a malformed, array, deeply nested or non-UTF-8 body never
// claims a bonus or toggles a like.
func NoBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(io.LimitReader(r.Body, noBodyLimit+1))
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			writeEnvelope(w, ErrTooLarge)
			return
		case err != nil:
			writeEnvelope(w, BadRequest("요청 내용을 읽을 수 없습니다."))
			return
		}
		b = bytes.TrimSpace(b)
		if len(b) > 0 && !isEmptyObject(b) {
			writeEnvelope(w, BadRequest(msgNoBody))
			return
		}
		r.Body = http.NoBody
		next.ServeHTTP(w, r)
	})
}

func isEmptyObject(b []byte) bool {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	return len(bytes.TrimSpace(b[1:len(b)-1])) == 0
}

// CheckJSON checks what a JSON body's decoder lets through: the body is
// valid UTF-8 (Go's decoder would turn bad bytes into U+FFFD), no string or
// key holds NUL (\u0000), and no object names a key twice (Go keeps the last
// value, other readers the first: {"uid":"<own>","uid":"<other>"}). One
// pass, no copies of the body; it does not fail on malformed JSON, which the
// decoder refuses after it.
func CheckJSON(b []byte) error {
	if !utf8.Valid(b) {
		return BadRequest(msgBadText)
	}
	// Small bodies (every money call) stay within these arrays: no heap.
	var frameBuf [8]jsonFrame
	var keyBuf [16][]byte
	frames := frameBuf[:0] // one per open object or array
	keys := keyBuf[:0]     // the keys of the open objects, innermost last
	expectKey := false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			frames = append(frames, jsonFrame{object: true, first: len(keys)})
			expectKey = true
		case '[':
			frames = append(frames, jsonFrame{first: len(keys)})
			expectKey = false
		case '}', ']':
			if n := len(frames); n > 0 {
				keys = keys[:frames[n-1].first]
				frames = frames[:n-1]
			}
			expectKey = false
		case ',':
			expectKey = len(frames) > 0 && frames[len(frames)-1].object
		case '"':
			j, escaped := i+1, false
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					escaped = true
					if j+5 < len(b) && b[j+1] == 'u' && string(b[j+2:j+6]) == "0000" {
						return BadRequest(msgBadText)
					}
					j += 2
					continue
				}
				j++
			}
			if expectKey && len(frames) > 0 {
				end := min(j, len(b))
				key := b[i+1 : end]
				if escaped {
					var s string
					if json.Unmarshal(b[i:min(j+1, len(b))], &s) == nil {
						key = []byte(s)
					}
				}
				f := &frames[len(frames)-1]
				if f.seen != nil {
					if _, dup := f.seen[string(key)]; dup {
						return BadRequest(msgRepeated, string(key))
					}
					f.seen[string(key)] = struct{}{}
				} else {
					for _, k := range keys[f.first:] {
						if bytes.Equal(k, key) {
							return BadRequest(msgRepeated, string(key))
						}
					}
					keys = append(keys, key)
					// Large objects switch to a set, so a body of many
					// keys costs linear time, not quadratic.
					if len(keys)-f.first > bigObjectLen {
						f.seen = make(map[string]struct{}, 2*bigObjectLen)
						for _, k := range keys[f.first:] {
							f.seen[string(k)] = struct{}{}
						}
					}
				}
				expectKey = false
			}
			i = j
		}
	}
	return nil
}

type jsonFrame struct {
	object bool
	first  int // index in keys of this object's first key
	seen   map[string]struct{}
}

// CheckForm refuses repeated fields and text PostgreSQL cannot store in a
// form body, and a field the query string already gave.
func CheckForm(vals url.Values, query url.Values) error {
	for k, vs := range vals {
		if !CleanText(k) {
			return BadRequest(msgBadText)
		}
		if len(vs) > 1 || query.Has(k) {
			return BadRequest(msgRepeated, k)
		}
		if !CleanText(vs[0]) {
			return BadRequest(msgBadText)
		}
	}
	return nil
}
