// Package portonesandbox is a fake of PortOne V2's identity verification
// (본인인증) over real HTTP, so the writer's client (writer/identity) is the
// production code:
//
//   - the certification page stands in for the provider's window that the
//     browser SDK's requestIdentityVerification opens (storeId,
//     identityVerificationId, channelKey, redirectUrl); opening it makes the
//     verification READY, submitting a name, birth date and phone number makes
//     it VERIFIED (or FAILED for a name containing "불일치"), and the browser
//     goes back to redirectUrl with identityVerificationId,
//     identityVerificationTxId and transactionType=IDENTITY_VERIFICATION (and
//     code and message on failure), as the SDK's redirect does;
//   - GET /identity-verifications/{id}?storeId= answers the documented
//     IdentityVerification JSON with Authorization: PortOne <secret>, and the
//     documented errors ({type, message}: UNAUTHORIZED, FORBIDDEN,
//     IDENTITY_VERIFICATION_NOT_FOUND).
//
// The CI it reports is derived from the name, birth date and phone number, so
// the same test person has the same CI on every run, and another person
// another one. Its channel is of type TEST. Test hooks: SetDown makes the API
// answer an error status, Tamper rewrites one stored answer.
//
// Use it in tests through New + Handler (httptest) and in the dev launcher
// through Start. It keeps everything in memory; it is not for production, and
// a live writer refuses to start with it (package doubles).
package portonesandbox

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"storefront/writer/identity"
	"storefront/writer/internal/standin"
)

// Development defaults, matching the writer's IDENTITY_* defaults.
const (
	DefaultSecret     = "sandbox-portone-secret"
	DefaultStoreID    = "store-sandbox-0000"
	DefaultChannelKey = "channel-key-sandbox"
)

// PagePath is the certification page's path.
const PagePath = "/identity-verification"

// Config of a sandbox. Zero values get the defaults.
type Config struct {
	Secret     string
	StoreID    string
	ChannelKey string
	Log        *slog.Logger
	Now        func() time.Time
}

// Sandbox is the fake provider.
type Sandbox struct {
	cfg Config
	mu  sync.Mutex
	ivs map[string]*identity.Verification
	// tamper rewrites the JSON answer of one verification (tests).
	tamper map[string]func(map[string]any)
	down   int
}

// New makes a sandbox.
func New(cfg Config) *Sandbox {
	if cfg.Secret == "" {
		cfg.Secret = DefaultSecret
	}
	if cfg.StoreID == "" {
		cfg.StoreID = DefaultStoreID
	}
	if cfg.ChannelKey == "" {
		cfg.ChannelKey = DefaultChannelKey
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sandbox{cfg: cfg, ivs: map[string]*identity.Verification{}, tamper: map[string]func(map[string]any){}}
}

// Handler serves the API and the certification page.
func (s *Sandbox) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /identity-verifications/{id}", s.get)
	mux.HandleFunc("GET "+PagePath, s.page)
	mux.HandleFunc("POST "+PagePath, s.submit)
	return mux
}

// SetDown makes the API answer status (for example 503) until SetDown(0).
func (s *Sandbox) SetDown(status int) {
	s.mu.Lock()
	s.down = status
	s.mu.Unlock()
}

// Tamper rewrites the answer of verification id with f (tests of a writer
// that must not trust a wrong answer).
func (s *Sandbox) Tamper(id string, f func(map[string]any)) {
	s.mu.Lock()
	s.tamper[id] = f
	s.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, identity.APIError{Type: typ, Message: msg})
}

func (s *Sandbox) get(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down != 0 {
		http.Error(w, "sandbox is down", down)
		return
	}
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "PortOne ")
	if !ok || !hmac.Equal([]byte(auth), []byte(s.cfg.Secret)) {
		fail(w, http.StatusUnauthorized, identity.ErrTypeUnauthorized, "인증 정보가 올바르지 않습니다.")
		return
	}
	if st := r.URL.Query().Get("storeId"); st != "" && st != s.cfg.StoreID {
		fail(w, http.StatusForbidden, identity.ErrTypeForbidden, "접근 권한이 없는 상점 아이디입니다.")
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	iv, found := s.ivs[id]
	var body []byte
	if found {
		body, _ = json.Marshal(iv)
		if f := s.tamper[id]; f != nil {
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			f(m)
			body, _ = json.Marshal(m)
		}
	}
	s.mu.Unlock()
	if !found {
		fail(w, http.StatusNotFound, identity.ErrTypeNotFound, "요청된 본인인증 건이 존재하지 않습니다.")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// Person is what the certification page is filled with.
type Person struct {
	Name        string
	BirthDate   string // YYYY-MM-DD
	PhoneNumber string // digits
	Gender      string // MALE or FEMALE
}

// CI is the sandbox's CI of p: 88 base64 characters like a real CI (a
// 64-byte value), the same for the same person on every run.
func CI(p Person) string {
	m := hmac.New(sha512.New, []byte("portonesandbox-ci"))
	m.Write([]byte(p.Name + "|" + p.BirthDate + "|" + p.PhoneNumber))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func (s *Sandbox) stamp() string { return s.cfg.Now().UTC().Format(time.RFC3339) }

// open records a READY verification (the window was opened) unless the id
// is already known.
func (s *Sandbox) open(id, channelKey string) *identity.Verification {
	s.mu.Lock()
	defer s.mu.Unlock()
	if iv := s.ivs[id]; iv != nil {
		return iv
	}
	now := s.stamp()
	iv := &identity.Verification{Status: identity.StatusReady, ID: id,
		Channel:           &identity.Channel{Type: identity.ChannelTest, ID: "channel-sandbox", Key: channelKey, Name: "본인인증 샌드박스", PgProvider: "DANAL", PgMerchantID: "sandbox"},
		RequestedCustomer: &identity.RequestedCustomer{}, RequestedAt: now, UpdatedAt: now, StatusChangedAt: now, Version: "V2"}
	s.ivs[id] = iv
	return iv
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// finish turns a READY verification into VERIFIED or FAILED; a verification
// already finished stays as it was (the provider refuses to verify an id
// twice).
func (s *Sandbox) finish(id string, p Person) (*identity.Verification, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	iv := s.ivs[id]
	if iv == nil || iv.Status != identity.StatusReady {
		return iv, false
	}
	now := s.stamp()
	iv.UpdatedAt, iv.StatusChangedAt = now, now
	if strings.Contains(p.Name, "불일치") {
		iv.Status = identity.StatusFailed
		iv.Failure = &identity.Failure{Reason: "본인인증 정보가 일치하지 않습니다.", PgCode: "9997", PgMessage: "실명 불일치"}
		return iv, true
	}
	foreigner := false
	ci := CI(p)
	di := hmac.New(sha512.New, []byte(s.cfg.StoreID))
	di.Write([]byte(ci))
	iv.Status = identity.StatusVerified
	iv.RequestedCustomer = nil
	iv.VerifiedCustomer = &identity.VerifiedCustomer{Name: p.Name, Operator: "SKT", PhoneNumber: p.PhoneNumber, BirthDate: p.BirthDate,
		Gender: p.Gender, IsForeigner: &foreigner, CI: ci, DI: base64.StdEncoding.EncodeToString(di.Sum(nil))[:64]}
	iv.VerifiedAt = now
	iv.PgTxID = "sandbox-" + randomHex(8)
	iv.PgRawResponse = "{}"
	return iv, true
}

// Server is a sandbox listening on a port (Start): its URL, and Close.
type Server struct {
	*Sandbox
	*standin.Server
}

// Start serves a sandbox on addr ("127.0.0.1:0" for a free port).
func Start(addr string, cfg Config) (*Server, error) {
	sb := New(cfg)
	h, err := standin.Start(addr, sb.Handler())
	if err != nil {
		return nil, fmt.Errorf("portonesandbox: %w", err)
	}
	return &Server{sb, h}, nil
}
