package contract

import (
	"errors"
	"fmt"
)

// ClientError is an answer other than 200, the one shape every transport
// (the writer's net/http handlers, analytics' reports, the edge's fasthttp
// front door) returns for a refusal: Code is the HTTP status and header.code,
// Msg the Korean sentence the reader sees, Err the cause that is logged and
// never shown. It lives here because the edge may not import writer/*.
type ClientError struct {
	Code int
	Msg  string
	Err  error // logged, never shown
}

func (e *ClientError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Code, e.Msg, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Code, e.Msg)
}

func (e *ClientError) Unwrap() error { return e.Err }

// Body is the envelope of e: {"header":{"code":Code,"message":Msg}}.
func (e *ClientError) Body() []byte { return ErrorBody(e.Code, e.Msg) }

// Errorf makes a ClientError with a client message.
func Errorf(code int, format string, args ...any) *ClientError {
	return &ClientError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// AsClientError finds the ClientError in err's chain.
func AsClientError(err error) (*ClientError, bool) {
	var e *ClientError
	ok := errors.As(err, &e)
	return e, ok
}
