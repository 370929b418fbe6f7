package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"storefront/writer/httpapi"
)

// The decoding refusals reach the browser: they are Korean and say what is wrong.
func TestDecodeMessages(t *testing.T) {
	var v struct {
		PID string `json:"pid"`
		Vol int    `json:"vol"`
	}
	for name, c := range map[string]struct {
		body, want string
		code       int
	}{
		"unknown field": {`{"pid":"p1","price":0}`, `알 수 없는 항목입니다. ("price")`, 400},
		"wrong type":    {`{"vol":"2"}`, "항목(vol)의 형식이 올바르지 않습니다.", 400},
		"malformed":     {`{"pid":`, "요청 형식(JSON)이 올바르지 않습니다.", 400},
		"trailing":      {`{"pid":"p1"} {}`, "JSON 뒤에 남은 데이터가 있습니다", 400},
		"empty":         {``, "요청 내용이 비어 있습니다.", 400},
		"too large":     {`{"pid":"` + strings.Repeat("x", 2*limit) + `"}`, "요청 내용이 너무 큽니다.", 413},
	} {
		err := httpapi.DecodeJSON(request(http.MethodPost, "/", "application/json", []byte(c.body)), &v)
		e, ok := err.(*httpapi.Error)
		if !ok || e.Code != c.code || !strings.Contains(e.Msg, c.want) {
			t.Errorf("%s: %v, want %d %q", name, err, c.code, c.want)
		}
	}
	_, err := httpapi.ReadParams(request(http.MethodPost, "/", "text/plain", []byte("pid=p1")))
	if e, ok := err.(*httpapi.Error); !ok || e.Code != 415 || !strings.Contains(e.Msg, "지원하지 않는 요청 형식입니다.") {
		t.Errorf("text/plain: %v", err)
	}
	p, err := httpapi.ReadParams(request(http.MethodPost, "/", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Require("pid"); err == nil || !strings.Contains(err.Error(), "필수 항목(pid)이 없습니다.") {
		t.Errorf("require: %v", err)
	}
}
