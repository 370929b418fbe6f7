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
	f.Fuzz(func(t *testing.T, target, ctype string, body []byte) {
		p, err := httpapi.ReadParams(request("POST", target, ctype, body))
		if err != nil {
			clientError(t, err, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
			return
		}
		if len(body) > limit {
			t.Fatalf("%d bytes accepted over the %d limit", len(body), limit)
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
