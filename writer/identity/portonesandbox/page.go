package portonesandbox

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"storefront/writer/internal/standin"
)

var pageTmpl = template.Must(template.New("certification").Parse(`<!doctype html>
<html lang="ko"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<link rel="icon" href="data:,">
<title>본인인증 샌드박스</title>
<h1>본인인증 (샌드박스)</h1>
<p>테스트 본인인증입니다. 실제 인증기관에 조회하지 않습니다.</p>
<form method="post">
<label>이름 <input name="name" autocomplete="name" required></label>
<label>생년월일 <input name="birthDate" type="date" required></label>
<label>휴대폰 번호 <input name="phoneNumber" inputmode="numeric" value="01000000000" required></label>
<fieldset><legend>성별</legend>
<label><input type="radio" name="gender" value="MALE"> 남성</label>
<label><input type="radio" name="gender" value="FEMALE" checked> 여성</label></fieldset>
<button>인증하기</button>
</form>
<form method="post"><input type="hidden" name="cancel" value="1"><button>취소</button></form>
</html>`))

// request is what the SDK call carries (as query parameters of the page).
type request struct {
	storeID, id, channelKey, redirectURL string
}

func (s *Sandbox) request(w http.ResponseWriter, r *http.Request) (request, bool) {
	q := r.URL.Query()
	rq := request{storeID: q.Get("storeId"), id: q.Get("identityVerificationId"), channelKey: q.Get("channelKey"), redirectURL: q.Get("redirectUrl")}
	switch {
	case rq.id == "" || len(rq.id) > 100:
		http.Error(w, "identityVerificationId가 필요합니다.", http.StatusBadRequest)
	case rq.storeID != s.cfg.StoreID:
		http.Error(w, "StoreNotFound: 상점 아이디가 올바르지 않습니다.", http.StatusBadRequest)
	case rq.channelKey != s.cfg.ChannelKey:
		http.Error(w, "ChannelNotFound: 채널 키가 올바르지 않습니다.", http.StatusBadRequest)
	default:
		return rq, true
	}
	return rq, false
}

func (s *Sandbox) page(w http.ResponseWriter, r *http.Request) {
	rq, ok := s.request(w, r)
	if !ok {
		return
	}
	s.open(rq.id, rq.channelKey)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTmpl.Execute(w, nil)
}

var (
	datePattern  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	phonePattern = regexp.MustCompile(`^01\d{8,9}$`)
)

func (s *Sandbox) submit(w http.ResponseWriter, r *http.Request) {
	rq, ok := s.request(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "잘못된 요청입니다.", http.StatusBadRequest)
		return
	}
	back := url.Values{"identityVerificationId": {rq.id}, "identityVerificationTxId": {"sandbox-tx-" + randomHex(6)},
		"transactionType": {"IDENTITY_VERIFICATION"}}
	s.open(rq.id, rq.channelKey)
	if r.PostForm.Get("cancel") != "" {
		back.Set("code", "IDENTITY_VERIFICATION_CANCELLED")
		back.Set("message", "사용자가 본인인증을 취소했습니다.")
		standin.Back(w, r, rq.redirectURL, back)
		return
	}
	p := Person{Name: strings.TrimSpace(r.PostForm.Get("name")), BirthDate: r.PostForm.Get("birthDate"),
		PhoneNumber: strings.ReplaceAll(r.PostForm.Get("phoneNumber"), "-", ""), Gender: r.PostForm.Get("gender")}
	if _, err := time.Parse("2006-01-02", p.BirthDate); p.Name == "" || !datePattern.MatchString(p.BirthDate) || err != nil ||
		!phonePattern.MatchString(p.PhoneNumber) || (p.Gender != "MALE" && p.Gender != "FEMALE") {
		http.Error(w, "이름, 생년월일(YYYY-MM-DD), 휴대폰 번호, 성별을 입력해 주세요.", http.StatusBadRequest)
		return
	}
	iv, changed := s.finish(rq.id, p)
	if !changed {
		back.Set("code", "IdentityVerificationAlreadyVerified")
		back.Set("message", "이미 완료된 본인인증입니다.")
	} else if iv.Failure != nil {
		back.Set("code", "PGProviderError")
		back.Set("message", iv.Failure.Reason)
	}
	s.cfg.Log.Info("identity verification", "id", rq.id, "status", iv.Status)
	standin.Back(w, r, rq.redirectURL, back)
}

// PageURL is the certification page of a sandbox at base for one
// verification: what the browser SDK would open.
func PageURL(base, storeID, id, channelKey, redirectURL string) string {
	q := url.Values{"storeId": {storeID}, "identityVerificationId": {id}, "channelKey": {channelKey}}
	if redirectURL != "" {
		q.Set("redirectUrl", redirectURL)
	}
	return strings.TrimRight(base, "/") + PagePath + "?" + q.Encode()
}

// Certify does what a person does on the certification page at pageURL
// (opens it, fills it with p, submits it) over HTTP, for tests and scripts.
// It does not follow the redirect back to the store.
func Certify(ctx context.Context, pageURL string, p Person) error {
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(req *http.Request) error {
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("portonesandbox: %s: %w", req.Method, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusSeeOther {
			return fmt.Errorf("portonesandbox: %s page: %d %s", req.Method, resp.StatusCode, b)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return err
	}
	if err := do(req); err != nil {
		return err
	}
	if p.PhoneNumber == "" {
		p.PhoneNumber = "01000000000"
	}
	if p.Gender == "" {
		p.Gender = "FEMALE"
	}
	form := url.Values{"name": {p.Name}, "birthDate": {p.BirthDate}, "phoneNumber": {p.PhoneNumber}, "gender": {p.Gender}}
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, pageURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(req)
}
