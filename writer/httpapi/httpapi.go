// Package httpapi holds the writer's HTTP conventions: handlers return errors,
// errors become the seed's envelope with an agreeing status, bodies are decoded
// strictly and bounded, answers are signed.
//
// The client-facing message of an Error is kept apart from the logged cause;
// only internal errors (5xx) are logged.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"storefront/contract"
)

// Error is an answer other than 200: Code is the HTTP status and header.code.
// It is contract.ClientError, the shape the edge and analytics answer in too.
type Error = contract.ClientError

// Errorf makes an Error with a client message.
func Errorf(code int, format string, args ...any) *Error {
	return contract.Errorf(code, format, args...)
}

// Common errors.
var (
	ErrUnauthorized = &Error{Code: http.StatusUnauthorized, Msg: "로그인이 필요한 서비스입니다."}
	ErrForbidden    = &Error{Code: http.StatusForbidden, Msg: "접근 권한이 없습니다."}
	ErrNotFound     = &Error{Code: http.StatusNotFound, Msg: "요청한 정보를 찾을 수 없습니다."}
	ErrTooLarge     = &Error{Code: http.StatusRequestEntityTooLarge, Msg: "요청 내용이 너무 큽니다."}
)

// BadRequest is a 400 with msg.
func BadRequest(format string, args ...any) *Error {
	return Errorf(http.StatusBadRequest, format, args...)
}

// HandlerFunc is a handler that returns its error.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Wrap turns h into an http.Handler writing errors as envelopes.
func Wrap(log *slog.Logger, h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Inner muxes (behind the session middleware) match on a copy of the
		// request: hand the matched pattern back to Metrics.
		if p, ok := r.Context().Value(patternKey{}).(*string); ok {
			*p = r.Pattern
		}
		if err := h(w, r); err != nil {
			WriteError(w, r, log, err)
		}
	})
}

// WriteError writes err as an envelope. It is the writer's one mapping from
// errors to statuses: a ClientError keeps its own, everything else is an
// outage (503) or our fault (500) and is logged.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var e *Error
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &e):
		if e.Code >= 500 {
			log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		}
	case errors.As(err, &mbe):
		e = ErrTooLarge
	case r.Context().Err() != nil && errors.Is(err, r.Context().Err()):
		// The client went away or its deadline passed: nobody reads the
		// answer, and nothing of ours is broken.
		e = &Error{Code: http.StatusServiceUnavailable, Msg: "요청이 취소되었습니다.", Err: err}
	case Unavailable(err):
		// PostgreSQL down or restarting: the client retries (money calls with
		// the same key).
		log.Warn("request failed: database unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		e = &Error{Code: ErrUnavailable.Code, Msg: ErrUnavailable.Msg, Err: err}
	default:
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		e = &Error{Code: http.StatusInternalServerError, Msg: "일시적인 오류입니다. 잠시 후 다시 시도해 주세요.", Err: err}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.Code)
	_, _ = w.Write(e.Body())
}

// JSON writes v with status 200.
func JSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshal answer: %w", err)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

// Mux is where a package registers its routes: *http.ServeMux, or a wrapper
// that also records the patterns (the server lists them for the OpenAPI
// contract test).
type Mux interface {
	Handle(pattern string, handler http.Handler)
}

// OK is the plain success envelope.
var OK = contract.Envelope{Header: contract.Header{Code: 200, Message: ""}}

// Header200 is embedded into answers: {"header":{"code":200,"message":""}, ...}.
type Header200 struct {
	Header contract.Header `json:"header"`
}

// H200 returns the OK header for embedding.
func H200() Header200 { return Header200{Header: contract.Header{Code: 200}} }

// DecodeJSON decodes a JSON body into v strictly: unknown fields, trailing data,
// wrong types and malformed JSON are 400, oversized bodies 413.
//
// The body must also pass CheckJSON (UTF-8, no NUL, no key twice).
func DecodeJSON(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return decodeErr(err)
	}
	return DecodeJSONBytes(body, v)
}

// DecodeJSONRequired is DecodeJSON where the named top-level fields must be
// present and not null: a zero value decoded from an absent field is not a
// choice the caller made.
func DecodeJSONRequired(r *http.Request, v any, required ...string) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return decodeErr(err)
	}
	if err := DecodeJSONBytes(body, v); err != nil {
		return err
	}
	return RequireFields(body, required...)
}

// RequireFields checks that a JSON object body names each field with a
// value other than null (400 otherwise).
func RequireFields(body []byte, required ...string) error {
	if len(required) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return BadRequest("요청 형식(JSON)이 올바르지 않습니다.")
	}
	for _, f := range required {
		if v, ok := m[f]; !ok || string(bytes.TrimSpace(v)) == "null" {
			return BadRequest("필수 항목(%s)이 없습니다.", f)
		}
	}
	return nil
}

// DecodeJSONBytes is DecodeJSON of a body already read.
func DecodeJSONBytes(body []byte, v any) error {
	if err := CheckJSON(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeErr(err)
	}
	if dec.More() {
		return BadRequest("요청 형식(JSON)이 올바르지 않습니다. (JSON 뒤에 남은 데이터가 있습니다)")
	}
	return nil
}

func decodeErr(err error) error {
	var mbe *http.MaxBytesError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return ErrTooLarge
	case errors.As(err, &te):
		return BadRequest("항목(%s)의 형식이 올바르지 않습니다.", te.Field)
	case errors.Is(err, io.EOF):
		return BadRequest("요청 내용이 비어 있습니다.")
	}
	return BadRequest("%s", JSONSyntaxMessage(err))
}

// JSONSyntaxMessage is the reader-facing message of a JSON decoding error
// other than a type mismatch: an unknown field keeps its name (a developer
// needs it), anything else says only that the JSON is malformed.
func JSONSyntaxMessage(err error) string {
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Sprintf("알 수 없는 항목입니다. (%s)", name)
	}
	return "요청 형식(JSON)이 올바르지 않습니다."
}

// Params reads the seed's payloads, which come form-encoded (user-get-info,
// old app builds) or as a JSON object of scalars.
type Params map[string]string

// ReadParams parses a form or a JSON object body plus the query string.
// Each field comes once: twice in the form, in the JSON object, or in both
// the query and the body is a 400 (the writer's Guard refuses it twice in the
// query), as is text PostgreSQL cannot store (CleanText).
func ReadParams(r *http.Request) (Params, error) {
	p := Params{}
	query := r.URL.Query()
	for k, v := range query {
		p[k] = v[0]
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, decodeErr(err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return p, nil
	}
	switch ct {
	case "application/json":
		if err := CheckJSON(body); err != nil {
			return nil, err
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil || m == nil {
			return nil, BadRequest("요청 형식(JSON)이 올바르지 않습니다.")
		}
		if dec.More() {
			return nil, BadRequest("요청 형식(JSON)이 올바르지 않습니다. (JSON 뒤에 남은 데이터가 있습니다)")
		}
		for k, v := range m {
			if query.Has(k) {
				return nil, BadRequest(msgRepeated, k)
			}
			switch x := v.(type) {
			case string:
				p[k] = x
			case json.Number:
				p[k] = x.String()
			case bool:
				p[k] = strconv.FormatBool(x)
			case nil:
			case []any:
				parts := make([]string, 0, len(x))
				for _, e := range x {
					switch y := e.(type) {
					case string:
						parts = append(parts, y)
					case json.Number:
						parts = append(parts, y.String())
					default:
						return nil, BadRequest("항목(%s)의 형식이 올바르지 않습니다.", k)
					}
				}
				p[k] = strings.Join(parts, ",")
			default:
				return nil, BadRequest("항목(%s)의 형식이 올바르지 않습니다.", k)
			}
		}
	case "application/x-www-form-urlencoded", "":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, BadRequest("요청 형식(form)이 올바르지 않습니다.")
		}
		if err := CheckForm(vals, query); err != nil {
			return nil, err
		}
		for k, v := range vals {
			p[k] = v[0]
		}
	default:
		return nil, Errorf(http.StatusUnsupportedMediaType, "지원하지 않는 요청 형식입니다. (%s)", ct)
	}
	return p, nil
}

// Channel is the request's channel from the X-Channel header (any case, as
// the edge reads it), "" for a browser without one. The header is the only
// source: a seed payload's channel (zzim-list, user-get-info) or a query's is
// never what decides which works a reader sees, as the edge decides every
// read by the header alone (SECURITY.md). An unknown code is a 400.
func Channel(r *http.Request) (string, error) {
	c := strings.ToUpper(r.Header.Get(contract.HeaderChannel))
	if !KnownChannel(c) {
		return "", BadRequest("알 수 없는 채널입니다. (X-Channel)")
	}
	return c, nil
}

// KnownChannel reports whether c is one of the seed's channel codes (or
// empty: a browser).
func KnownChannel(c string) bool {
	switch c {
	case "", "AO", "AC", "AA", "AW", "IA", "IW":
		return true
	}
	return false
}

// Require returns the trimmed value of a required field.
func (p Params) Require(name string) (string, error) {
	v := strings.TrimSpace(p[name])
	if v == "" {
		return "", BadRequest("필수 항목(%s)이 없습니다.", name)
	}
	return v, nil
}

// Int parses an optional integer field (def when absent).
func (p Params) Int(name string, def int64) (int64, error) {
	v := strings.TrimSpace(p[name])
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, BadRequest("항목(%s)은 정수여야 합니다.", name)
	}
	return n, nil
}

// Limit bounds request bodies to n bytes.
func Limit(n int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, n)
		h.ServeHTTP(w, r)
	})
}

// signWriter buffers an answer so it can be signed.
type signWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (s *signWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *signWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.buf.Write(b)
}

// Sign adds the seed's response signature, in the version the request asks
// for (contract/signature.go), when the request carries a request token (the
// edge signs what it forwards itself; a direct caller gets it here).
func Sign(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := r.Header.Get(contract.HeaderRequestToken)
		if tok == "" {
			h.ServeHTTP(w, r)
			return
		}
		sw := &signWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		v := contract.SignatureVersion([]byte(r.Header.Get(contract.HeaderSignatureVersion)))
		w.Header().Set(contract.HeaderSignature, string(contract.AppendSignatureVersion(nil, v, sw.status, []byte(tok), sw.buf.Bytes())))
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(sw.status)
		_, _ = w.Write(sw.buf.Bytes())
	})
}

// statusWriter remembers the status of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

type patternKey struct{}

// Metrics counts answers by route pattern and status and times them.
func Metrics(reg prometheus.Registerer, h http.Handler) http.Handler {
	reqs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "writer_http_requests_total",
		Help: "HTTP answers by route pattern and status."}, []string{"route", "code"})
	dur := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "writer_http_request_seconds",
		Help: "HTTP answer time by route pattern.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}, []string{"route"})
	reg.MustRegister(reqs, dur)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		var inner string
		r = r.WithContext(context.WithValue(r.Context(), patternKey{}, &inner))
		h.ServeHTTP(sw, r)
		route := inner
		if route == "" {
			route = r.Pattern
		}
		if route == "" {
			route = "unmatched"
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		reqs.WithLabelValues(route, strconv.Itoa(sw.status)).Inc()
		dur.WithLabelValues(route).Observe(time.Since(t0).Seconds())
	})
}
