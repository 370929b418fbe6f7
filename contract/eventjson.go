package contract

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The EVENTS stream carries one TrackedEvent per message, so at the release
// spike every event is encoded once by an edge and decoded once by analytics.
// encoding/json spends most of that time on reflection and on a validity scan
// of the whole input before decoding it. AppendJSON and DecodeEvent do the
// same work by hand for the shape the edge and the writer produce, and hand
// anything else to encoding/json, so the bytes and the decoded value are
// always exactly encoding/json's (FuzzEventJSONMatchesEncodingJSON checks
// both directions).

// AppendJSON appends the JSON encoding of e to dst: the same bytes as
// json.Marshal(e), and its error for a time that JSON cannot carry.
func (e *TrackedEvent) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"v":`...)
	dst = strconv.AppendInt(dst, int64(e.V), 10)
	dst = append(dst, `,"id":`...)
	dst = appendString(dst, e.ID)
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, e.Type)
	dst = append(dst, `,"ts":"`...)
	var err error
	if dst, err = e.Time.AppendText(dst); err != nil {
		// The error json.Marshal gives, wrapping the same cause.
		_, err = json.Marshal(e)
		return dst, err
	}
	dst = append(dst, '"')
	dst = appendField(dst, `,"channel":`, e.Channel)
	dst = appendField(dst, `,"appVersion":`, e.AppVersion)
	dst = appendField(dst, `,"ipHash":`, e.IPHash)
	dst = appendField(dst, `,"uaClass":`, e.UAClass)
	dst = appendField(dst, `,"sessionId":`, e.SessionID)
	dst = appendField(dst, `,"uid":`, e.UID)
	dst = appendField(dst, `,"memberType":`, e.MemberType)
	dst = appendField(dst, `,"url":`, e.URL)
	dst = appendField(dst, `,"route":`, e.Route)
	dst = appendField(dst, `,"referrer":`, e.Referrer)
	dst = appendField(dst, `,"pid":`, e.PID)
	dst = appendField(dst, `,"section":`, e.Section)
	dst = appendField(dst, `,"genreId":`, e.GenreID)
	if e.Vol != 0 {
		dst = append(dst, `,"vol":`...)
		dst = strconv.AppendInt(dst, int64(e.Vol), 10)
	}
	if e.Amount != 0 {
		dst = append(dst, `,"amount":`...)
		dst = strconv.AppendInt(dst, e.Amount, 10)
	}
	dst = appendField(dst, `,"money":`, e.Money)
	if len(e.Props) > 0 {
		keys := make([]string, 0, len(e.Props))
		for k := range e.Props {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, `,"props":{`...)
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			dst = appendString(dst, e.Props[k])
		}
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendField appends an omitempty string field with its name.
func appendField(dst []byte, name, v string) []byte {
	if v == "" {
		return dst
	}
	return appendString(append(dst, name...), v)
}

// appendString appends s as a JSON string the way encoding/json writes it
// (HTML characters escaped). Quotes, backslashes and <, > and & are escaped
// here; a string with a control character, U+2028/U+2029 or invalid UTF-8 is
// left to encoding/json.
func appendString(dst []byte, s string) []byte {
	n0 := len(dst)
	dst = append(dst, '"')
	from := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
				return appendStringSlow(dst[:n0], s)
			}
			i += n
			continue
		}
		var esc string
		switch c {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '<':
			esc = `\u003c`
		case '>':
			esc = `\u003e`
		case '&':
			esc = `\u0026`
		default:
			if c < 0x20 {
				return appendStringSlow(dst[:n0], s)
			}
			i++
			continue
		}
		dst = append(dst, s[from:i]...)
		dst = append(dst, esc...)
		i++
		from = i
	}
	dst = append(dst, s[from:]...)
	return append(dst, '"')
}

func appendStringSlow(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return append(dst, b...)
}

// DecodeEvent decodes one event as json.Unmarshal(data, e) would, into a
// zeroed e. Objects with exactly the field names of TrackedEvent, each at most
// once, with string, integer and props values, are decoded here; anything
// else (other keys, nulls, fractions, bad input) goes to encoding/json, which
// also gives every error.
func DecodeEvent(data []byte, e *TrackedEvent) error {
	*e = TrackedEvent{}
	if decodeEventFast(data, e) {
		return nil
	}
	*e = TrackedEvent{}
	return json.Unmarshal(data, e)
}

// Field bits, to refuse a repeated key (encoding/json merges a repeated
// props object; the slow path keeps that rule).
const (
	fV = 1 << iota
	fID
	fType
	fTS
	fChannel
	fAppVersion
	fIPHash
	fUAClass
	fSessionID
	fUID
	fMemberType
	fURL
	fRoute
	fReferrer
	fPID
	fSection
	fGenreID
	fVol
	fAmount
	fMoney
	fProps
)

// decodeEventFast reports false, with e in any state, for any input it does
// not fully handle.
func decodeEventFast(data []byte, e *TrackedEvent) bool {
	// One allocation for every plain string: the fields are slices of it.
	d := eventDecoder{data: data, str: string(data)}
	if !d.byte('{') {
		return false
	}
	var seen uint32
	if d.peek() == '}' {
		d.i++
		return d.end()
	}
	for {
		from, to, plain := d.stringToken()
		if !plain || !d.byte(':') {
			return false
		}
		var bit uint32
		var dst *string
		switch d.str[from+1 : to-1] {
		case "v":
			n, ok := d.integer(strconv.IntSize)
			if !ok {
				return false
			}
			bit, e.V = fV, int(n)
		case "id":
			bit, dst = fID, &e.ID
		case "type":
			bit, dst = fType, &e.Type
		case "ts":
			from, to, plain := d.stringToken()
			if !plain || e.Time.UnmarshalJSON(d.data[from:to]) != nil {
				return false
			}
			bit = fTS
		case "channel":
			bit, dst = fChannel, &e.Channel
		case "appVersion":
			bit, dst = fAppVersion, &e.AppVersion
		case "ipHash":
			bit, dst = fIPHash, &e.IPHash
		case "uaClass":
			bit, dst = fUAClass, &e.UAClass
		case "sessionId":
			bit, dst = fSessionID, &e.SessionID
		case "uid":
			bit, dst = fUID, &e.UID
		case "memberType":
			bit, dst = fMemberType, &e.MemberType
		case "url":
			bit, dst = fURL, &e.URL
		case "route":
			bit, dst = fRoute, &e.Route
		case "referrer":
			bit, dst = fReferrer, &e.Referrer
		case "pid":
			bit, dst = fPID, &e.PID
		case "section":
			bit, dst = fSection, &e.Section
		case "genreId":
			bit, dst = fGenreID, &e.GenreID
		case "vol":
			n, ok := d.integer(strconv.IntSize)
			if !ok {
				return false
			}
			bit, e.Vol = fVol, int(n)
		case "amount":
			n, ok := d.integer(64)
			if !ok {
				return false
			}
			bit, e.Amount = fAmount, n
		case "money":
			bit, dst = fMoney, &e.Money
		case "props":
			if !d.props(e) {
				return false
			}
			bit = fProps
		default:
			// Another casing of a field name, or a key the struct lacks.
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		if dst != nil {
			s, ok := d.stringValue()
			if !ok {
				return false
			}
			*dst = s
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return d.end()
		default:
			return false
		}
	}
}

type eventDecoder struct {
	data []byte
	str  string // data as a string
	i    int
}

func (d *eventDecoder) skipSpace() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, or 0 at the end.
func (d *eventDecoder) peek() byte {
	d.skipSpace()
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	return 0
}

func (d *eventDecoder) byte(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.i++
	return true
}

// end reports whether only white space follows.
func (d *eventDecoder) end() bool {
	d.skipSpace()
	return d.i == len(d.data)
}

// stringToken moves past the next string and returns its bounds, quotes
// included; plain says it holds no escape and only valid UTF-8, so its bytes
// are its value. to is 0 when there is no well-formed string: a control
// character or an unterminated string.
func (d *eventDecoder) stringToken() (from, to int, plain bool) {
	if d.peek() != '"' {
		return 0, 0, false
	}
	from = d.i
	plain = true
	ascii := true
	for j := d.i + 1; j < len(d.data); j++ {
		switch c := d.data[j]; {
		case c == '"':
			d.i = j + 1
			if !ascii && !utf8.Valid(d.data[from+1:j]) {
				plain = false
			}
			return from, j + 1, plain
		case c == '\\':
			plain = false
			j++
		case c < 0x20:
			return 0, 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return 0, 0, false
}

// stringValue returns the next string value.
func (d *eventDecoder) stringValue() (string, bool) {
	from, to, plain := d.stringToken()
	switch {
	case to == 0:
		return "", false
	case plain:
		return d.str[from+1 : to-1], true
	}
	return unquote(d.data[from+1 : to-1])
}

// unquote decodes the body of a JSON string with escapes or invalid UTF-8
// as encoding/json does: a lone or mismatched surrogate and every invalid
// byte become U+FFFD.
func unquote(s []byte) (string, bool) {
	// A Builder hands its bytes over as the string: one allocation.
	var b strings.Builder
	b.Grow(len(s) + 2*utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			if r+1 >= len(s) {
				return "", false
			}
			switch s[r+1] {
			case '"', '\\', '/':
				b.WriteByte(s[r+1])
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						b.WriteRune(dec)
						r += 6
						continue
					}
					rr = unicode.ReplacementChar
				}
				b.WriteRune(rr)
				continue
			default:
				return "", false
			}
			r += 2
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b.WriteRune(rr)
			r += size
		}
	}
	return b.String(), true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// integer reads a JSON integer that fits a signed integer of bits (no
// fraction, no exponent).
func (d *eventDecoder) integer(bits int) (int64, bool) {
	d.skipSpace()
	neg := d.i < len(d.data) && d.data[d.i] == '-'
	if neg {
		d.i++
	}
	digits := d.i
	limit := uint64(1)<<(bits-1) - 1
	if neg {
		limit++
	}
	var n uint64
	for ; d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9'; d.i++ {
		if n > (limit-uint64(d.data[d.i]-'0'))/10 {
			return 0, false
		}
		n = n*10 + uint64(d.data[d.i]-'0')
	}
	if d.i == digits || d.data[digits] == '0' && d.i-digits > 1 {
		return 0, false
	}
	if d.i < len(d.data) {
		if c := d.data[d.i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}

// props reads a flat object of strings into e.Props.
func (d *eventDecoder) props(e *TrackedEvent) bool {
	if !d.byte('{') {
		return false
	}
	e.Props = map[string]string{}
	if d.peek() == '}' {
		d.i++
		return true
	}
	for {
		k, ok := d.stringValue()
		if !ok || !d.byte(':') {
			return false
		}
		v, ok := d.stringValue()
		if !ok {
			return false
		}
		e.Props[k] = v
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}
