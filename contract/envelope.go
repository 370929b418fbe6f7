package contract

import (
	"encoding/json"
	"strconv"
)

// Header is the seed's answer header: {"header":{"code":200,"message":""}}.
type Header struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Envelope is an answer with no body beyond its header.
type Envelope struct {
	Header Header `json:"header"`
}

// ErrorBody renders the envelope of an error answer. The HTTP status must agree
// with code.
func ErrorBody(code int, message string) []byte {
	b, _ := json.Marshal(Envelope{Header: Header{Code: code, Message: message}})
	return b
}

// AppendOKHeader appends `"header":{"code":200,"message":""}` so handlers can
// build answers without reflection.
func AppendOKHeader(dst []byte) []byte {
	return append(dst, `"header":{"code":200,"message":""}`...)
}

// AppendHeader appends `"header":{"code":N,"message":"..."}`.
func AppendHeader(dst []byte, code int, message string) []byte {
	dst = append(dst, `"header":{"code":`...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, `,"message":`...)
	m, _ := json.Marshal(message)
	dst = append(dst, m...)
	return append(dst, '}')
}
