package httpapi_test

// Fuzz targets for the writer's strict JSON and form decoding. Every bad body
// must end as a 4xx *httpapi.Error (never a panic, never a 5xx), and what is
// accepted round-trips.

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"storefront/devstack/testenv"
	"storefront/writer/httpapi"
)

// limit is the body limit used in the targets: small, so the fuzzer reaches it.
const limit = 512

func request(method, target, ctype string, body []byte) *http.Request {
	r := httptest.NewRequest(method, "/", strings.NewReader(string(body)))
	if u, err := url.ParseRequestURI(target); err == nil {
		r.URL = u
	}
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, limit)
	return r
}

// clientError checks err is an *httpapi.Error with a 4xx code in allowed.
func clientError(t *testing.T, err error, allowed ...int) {
	t.Helper()
	var e *httpapi.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *httpapi.Error: it would be a 500", err, err)
	}
	// Readers see the message: it is Korean (field names may stay Latin).
	if !testenv.Korean(e.Msg) {
		t.Fatalf("error message %q is not Korean", e.Msg)
	}
	for _, c := range allowed {
		if e.Code == c {
			return
		}
	}
	t.Fatalf("error code %d (%s), want one of %v", e.Code, e.Msg, allowed)
}

// fuzzBody has the field kinds the writer's bodies use.
type fuzzBody struct {
	Email     string            `json:"email"`
	Password  string            `json:"password"`
	SaveLogin bool              `json:"saveLogin"`
	Point     int               `json:"point"`
	Vol       *int              `json:"vol"`
	Genres    []string          `json:"genres"`
	Props     map[string]string `json:"props"`
}

func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"email":"a@example.com","password":"correct horse","saveLogin":true}`))
	f.Add([]byte(`{"point":10,"vol":3,"genres":["21","05"]}`))
	f.Add([]byte(`{"email":"a@example.com"} {"email":"b@example.com"}`))
	f.Add([]byte(`{"uid":"7"}`))
	f.Add([]byte(`{"point":"10"}`))
	f.Add([]byte(`{"point":1e400}`))
	f.Add([]byte(`{"props":{"a":1}}`))
	f.Add([]byte(``))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"email":"` + strings.Repeat("x", 600) + `"}`))
	f.Add([]byte("{\"email\":\"\xff\"}"))
	// Issue 24 items 8 to 12: NUL, keys twice (plain, escaped, nested), deep nesting.
	f.Add([]byte(`{"email":"a\u0000b"}`))
	f.Add([]byte(`{"email":"a\\u0000b"}`))
	f.Add([]byte(`{"email":"a","email":"b"}`))
	f.Add([]byte(`{"email":"a","\u0065mail":"b"}`))
	f.Add([]byte(`{"props":{"a":"1","a":"2"}}`))
	f.Add([]byte(`{"props":{"a":"1"},"genres":["a","a"],"password":"p"}`))
	f.Add([]byte(strings.Repeat(`{"props":`, 10001) + strings.Repeat("}", 10001)))
	f.Fuzz(func(t *testing.T, body []byte) {
		var v fuzzBody
		err := httpapi.DecodeJSON(request("POST", "/", "application/json", body), &v)
		if err != nil {
			clientError(t, err, http.StatusBadRequest, http.StatusRequestEntityTooLarge)
			if len(body) <= limit {
				var e *httpapi.Error
				if errors.As(err, &e) && e.Code == http.StatusRequestEntityTooLarge {
					t.Fatalf("%d bytes refused as too large", len(body))
				}
			}
			return
		}
		if len(body) > limit {
			t.Fatalf("%d bytes accepted over the %d limit", len(body), limit)
		}
		// Accepted: text PostgreSQL can store, every key once.
		if !utf8.Valid(body) {
			t.Fatalf("invalid UTF-8 accepted: %q", body)
		}
		for _, s := range append([]string{v.Email, v.Password}, v.Genres...) {
			if strings.IndexByte(s, 0) >= 0 {
				t.Fatalf("NUL accepted: %q", body)
			}
		}
		for k, x := range v.Props {
			if strings.IndexByte(k+x, 0) >= 0 {
				t.Fatalf("NUL accepted: %q", body)
			}
		}
		if k := repeatedKey(body); k != "" {
			t.Fatalf("key %q twice accepted: %q", k, body)
		}
		// Accepted: strict decoding agrees with encoding/json and round-trips.
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back fuzzBody
		if err := httpapi.DecodeJSON(request("POST", "/", "application/json", b), &back); err != nil && len(b) <= limit {
			t.Fatalf("re-encoded body %s refused: %v", b, err)
		}
		if len(b) <= limit && !reflect.DeepEqual(v, back) {
			t.Fatalf("round trip changed %+v into %+v", v, back)
		}
	})
}

func FuzzReadParams(f *testing.F) {
	f.Add("/?uid=7", "application/x-www-form-urlencoded", []byte("uid=7&section=%EC%9B%B9%ED%88%B0&zzim_type=prod&pid=wt0001"))
	f.Add("/", "application/json", []byte(`{"uid":7,"pid":"wt0001","idxs":[1,2,3],"isAlarm":true,"x":null}`))
	f.Add("/", "application/json; charset=utf-8", []byte(`{"idxs":[{"a":1}]}`))
	f.Add("/", "application/json", []byte(`{"a":{"b":1}}`))
	f.Add("/", "", []byte("a=%zz"))
	f.Add("/", "text/plain", []byte("a=1"))
	f.Add("/?a=1&a=2", "multipart/form-data; boundary=x", []byte(""))
	f.Add("/", "application/json", []byte(`[1,2]`))
	f.Add("/", "application/json", []byte(`{"n":12345678901234567890123}`))
	// Issue 24 items 8 and 12: a field twice (form, JSON, query and body), NUL, bad UTF-8.
	f.Add("/", "application/x-www-form-urlencoded", []byte("uid=7&uid=8"))
	f.Add("/?uid=7", "application/x-www-form-urlencoded", []byte("uid=7"))
	f.Add("/?pid=a", "application/json", []byte(`{"pid":"a"}`))
	f.Add("/", "application/json", []byte(`{"uid":"7","uid":"8"}`))
	f.Add("/", "", []byte("a=%00"))
	f.Add("/", "", []byte("a=%ff"))
	f.Add("/", "application/json", []byte(`{"a":"\u0000"}`))
	f.Add("/", "application/json", []byte(`{"a":"1"} {"a":"2"}`))
	f.Fuzz(func(t *testing.T, target, ctype string, body []byte) {
		r := request("POST", target, ctype, body)
		query := r.URL.Query()
		p, err := httpapi.ReadParams(r)
		if err != nil {
			clientError(t, err, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
			return
		}
		if len(body) > limit {
			t.Fatalf("%d bytes accepted over the %d limit", len(body), limit)
		}
		// Accepted: every body value is text PostgreSQL can store, and no
		// field of the body was also in the query or twice in a form.
		if vals, err := url.ParseQuery(string(body)); err == nil && !strings.Contains(ctype, "json") {
			for k, vs := range vals {
				if len(vs) > 1 || query.Has(k) {
					t.Fatalf("field %q repeated but accepted: %q ? %q", k, target, body)
				}
			}
		}
		for k, v := range p {
			if query.Has(k) {
				continue // the query's own text is the writer's Guard's to check
			}
			if !httpapi.CleanText(k) || !httpapi.CleanText(v) {
				t.Fatalf("field %q=%q accepted: %q", k, v, body)
			}
		}
		for k := range p {
			if _, err := p.Require(k); err != nil {
				clientError(t, err, http.StatusBadRequest)
			}
			if _, err := p.Int(k, 0); err != nil {
				clientError(t, err, http.StatusBadRequest)
			}
		}
		// Form round trip: the same values sent as a form read back the same.
		form := url.Values{}
		for k, v := range p {
			if !httpapi.CleanText(k) || !httpapi.CleanText(v) {
				// Only the query's text can be unclean here, and the
				// Guard refuses such a request before any handler reads it.
				return
			}
			form.Set(k, v)
		}
		q, err := httpapi.ReadParams(request("POST", "/", "application/x-www-form-urlencoded", []byte(form.Encode())))
		if err != nil {
			if len(form.Encode()) > limit {
				return
			}
			t.Fatalf("form %q refused: %v", form.Encode(), err)
		}
		if len(p) > 0 || len(q) > 0 {
			if !reflect.DeepEqual(p, q) {
				t.Fatalf("form round trip changed %v into %v", p, q)
			}
		}
	})
}

// repeatedKey is an independent check of CheckJSON: the first key an object
// of body names twice (after unescaping), by the standard decoder's tokens.
func repeatedKey(body []byte) string {
	dec := json.NewDecoder(strings.NewReader(string(body)))
	type frame struct {
		object  bool
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		top := func() *frame {
			if len(stack) == 0 {
				return nil
			}
			return stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if f := top(); f != nil && f.object {
					f.wantKey = true
				}
				stack = append(stack, &frame{object: true, keys: map[string]bool{}, wantKey: true})
				continue
			case '[':
				if f := top(); f != nil && f.object {
					f.wantKey = true
				}
				stack = append(stack, &frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
				continue
			}
		case string:
			if f := top(); f != nil && f.object && f.wantKey {
				if f.keys[v] {
					return v
				}
				f.keys[v] = true
				f.wantKey = false
				continue
			}
		}
		if f := top(); f != nil && f.object {
			f.wantKey = true
		}
	}
}
