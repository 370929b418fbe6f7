package standin_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"storefront/writer/internal/standin"
)

func TestStartServesUntilClose(t *testing.T) {
	s, err := standin.Start("127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "here "+r.URL.Path) }))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "here /x" {
		t.Fatalf("%q", b)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(s.URL + "/x"); err == nil {
		t.Fatal("still serving after Close")
	}
	if _, err := standin.Start("127.0.0.1:-1", http.NotFoundHandler()); err == nil {
		t.Fatal("a bad address accepted")
	}
}

func TestBack(t *testing.T) {
	q := url.Values{"code": {"X"}, "message": {"취소 & 끝"}}
	for target, want := range map[string]string{
		"https://store.example/back":     "https://store.example/back?code=X&message=%EC%B7%A8%EC%86%8C+%26+%EB%81%9D",
		"https://store.example/back?a=1": "https://store.example/back?a=1&code=X&message=%EC%B7%A8%EC%86%8C+%26+%EB%81%9D",
	} {
		rec := httptest.NewRecorder()
		standin.Back(rec, httptest.NewRequest("POST", "/w", nil), target, q)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Errorf("%s: %d %q", target, rec.Code, rec.Header().Get("Location"))
		}
	}
	rec := httptest.NewRecorder()
	standin.Back(rec, httptest.NewRequest("POST", "/w", nil), "", q)
	var got map[string]string
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &got) != nil || got["code"] != "X" || got["message"] != "취소 & 끝" {
		t.Fatalf("no target: %d %s", rec.Code, rec.Body)
	}
}
