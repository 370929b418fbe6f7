// Package pushtest is a fake Web Push service for tests: the browsers' push
// services (FCM, Mozilla, Apple) cannot be reached from a test, so this one
// speaks their protocol over HTTP. It hands out subscriptions whose private
// keys it keeps, and for each POST to an endpoint it checks what a real push
// service checks and what a browser needs to read the message:
//
//   - RFC 8030: TTL present; Urgency and Topic well-formed; 201 Created with
//     a Location on acceptance.
//   - RFC 8292 (VAPID): Authorization "vapid t=<JWT>, k=<key>", the JWT
//     signed ES256 by k, aud the endpoint's origin, exp in the future and at
//     most 24 h ahead, sub present; k the applicationServerKey the
//     subscription was made with (a push service refuses another key).
//   - RFC 8291: Content-Encoding aes128gcm, one record, decrypted with the
//     subscription's private key and auth secret (ECDH, HKDF, AES-128-GCM,
//     padding delimiter 2).
//
// What passed is recorded with the decrypted payload. A test may script the
// answers of an endpoint (429 with Retry-After, 500, 410) to exercise the
// sender's retries and removals.
//
// Besides the Go API the fake has a small control API for tests that are not
// Go (the Chromium e2e): POST /_fake/subscriptions, GET /_fake/messages.
package pushtest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Subscription is what PushSubscription.toJSON() gives a page.
type Subscription struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// Message is one accepted notification.
type Message struct {
	Endpoint string          `json:"endpoint"`
	Payload  json.RawMessage `json:"payload"` // the decrypted plaintext (JSON for our sender)
	Raw      []byte          `json:"-"`
	TTL      int             `json:"ttl"`
	Urgency  string          `json:"urgency"`
	Topic    string          `json:"topic"`
	Subject  string          `json:"subject"` // the JWT's sub
	At       time.Time       `json:"at"`
}

// Answer is a scripted reply.
type Answer struct {
	Status     int
	RetryAfter string
}

type sub struct {
	priv      *ecdh.PrivateKey
	auth      []byte
	serverKey []byte // the applicationServerKey it was made with
	script    []Answer
	sticky    int // answer every later request with this status (410: gone)
}

// Service is a running fake push service.
type Service struct {
	URL string // http://127.0.0.1:port
	srv *http.Server
	ln  net.Listener

	mu       sync.Mutex
	subs     map[string]*sub // by endpoint
	msgs     []Message
	refused  []string // why requests were refused (a test reads them on failure)
	requests int
	seq      int
}

// Start listens on addr ("127.0.0.1:0" for a free port) and serves.
func Start(addr string) (*Service, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pushtest: listen: %w", err)
	}
	s := &Service{URL: "http://" + ln.Addr().String(), ln: ln, subs: map[string]*sub{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /push/{id}", s.push)
	mux.HandleFunc("POST /_fake/subscriptions", s.newSubscriptionHTTP)
	mux.HandleFunc("GET /_fake/messages", s.messagesHTTP)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the service.
func (s *Service) Close() error { return s.srv.Close() }

// NewSubscription makes a subscription for a page that subscribed with
// applicationServerKey (base64url, the VAPID public key).
func (s *Service) NewSubscription(applicationServerKey string) (Subscription, error) {
	serverKey, err := decode(applicationServerKey)
	if err != nil {
		return Subscription{}, fmt.Errorf("applicationServerKey: %w", err)
	}
	if _, err := ecdh.P256().NewPublicKey(serverKey); err != nil {
		return Subscription{}, fmt.Errorf("applicationServerKey: %w", err)
	}
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return Subscription{}, err
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	var out Subscription
	out.Endpoint = s.URL + "/push/" + base64.RawURLEncoding.EncodeToString(id)
	out.Keys.P256dh = base64.RawURLEncoding.EncodeToString(priv.PublicKey().Bytes())
	out.Keys.Auth = base64.RawURLEncoding.EncodeToString(auth)
	s.mu.Lock()
	s.subs[out.Endpoint] = &sub{priv: priv, auth: auth, serverKey: serverKey}
	s.mu.Unlock()
	return out, nil
}

// Script makes the next requests to endpoint answer these, in order.
func (s *Service) Script(endpoint string, answers ...Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.subs[endpoint]; x != nil {
		x.script = append(x.script, answers...)
	}
}

// Gone makes endpoint answer status (404 or 410) from now on: the browser
// dropped the subscription.
func (s *Service) Gone(endpoint string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.subs[endpoint]; x != nil {
		x.sticky = status
	}
}

// Messages returns the accepted notifications (of one endpoint, or all
// with "").
func (s *Service) Messages(endpoint string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.msgs {
		if endpoint == "" || m.Endpoint == endpoint {
			out = append(out, m)
		}
	}
	return out
}

// Requests counts every POST to an endpoint, accepted or not.
func (s *Service) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Refused lists why requests were refused with 400/401/403.
func (s *Service) Refused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...)
}

var topicRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

func (s *Service) push(w http.ResponseWriter, r *http.Request) {
	endpoint := s.URL + r.URL.Path
	s.mu.Lock()
	s.requests++
	x := s.subs[endpoint]
	var scripted *Answer
	if x != nil && x.sticky == 0 && len(x.script) > 0 {
		scripted = &x.script[0]
		x.script = x.script[1:]
	}
	sticky := 0
	if x != nil {
		sticky = x.sticky
	}
	s.mu.Unlock()
	refuse := func(code int, why string) {
		s.mu.Lock()
		s.refused = append(s.refused, fmt.Sprintf("%d %s: %s", code, endpoint, why))
		s.mu.Unlock()
		http.Error(w, why, code)
	}
	switch {
	case x == nil:
		http.Error(w, "no such subscription", http.StatusNotFound)
		return
	case sticky != 0:
		http.Error(w, "subscription expired", sticky)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 8192))
	if err != nil {
		refuse(http.StatusRequestEntityTooLarge, "payload too large")
		return
	}
	ttl, err := strconv.Atoi(r.Header.Get("TTL"))
	if err != nil || ttl < 0 {
		refuse(http.StatusBadRequest, "TTL header missing or not a number (RFC 8030 §5.2)")
		return
	}
	urgency := r.Header.Get("Urgency")
	switch urgency {
	case "", "very-low", "low", "normal", "high":
	default:
		refuse(http.StatusBadRequest, "bad Urgency "+urgency)
		return
	}
	topic := r.Header.Get("Topic")
	if topic != "" && !topicRE.MatchString(topic) {
		refuse(http.StatusBadRequest, "bad Topic "+topic)
		return
	}
	subject, err := checkVAPID(r.Header.Get("Authorization"), s.URL, x.serverKey, time.Now())
	if err != nil {
		refuse(http.StatusForbidden, "VAPID: "+err.Error())
		return
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "aes128gcm" {
		refuse(http.StatusBadRequest, "Content-Encoding "+ce+", want aes128gcm")
		return
	}
	plain, err := Decrypt(body, x.priv, x.auth)
	if err != nil {
		refuse(http.StatusBadRequest, "payload: "+err.Error())
		return
	}
	if scripted != nil {
		if scripted.RetryAfter != "" {
			w.Header().Set("Retry-After", scripted.RetryAfter)
		}
		http.Error(w, http.StatusText(scripted.Status), scripted.Status)
		return
	}
	m := Message{Endpoint: endpoint, Raw: plain, TTL: ttl, Urgency: urgency, Topic: topic, Subject: subject, At: time.Now()}
	if json.Valid(plain) {
		m.Payload = plain
	}
	s.mu.Lock()
	s.seq++
	id := s.seq
	s.msgs = append(s.msgs, m)
	s.mu.Unlock()
	w.Header().Set("Location", s.URL+"/m/"+strconv.Itoa(id))
	w.WriteHeader(http.StatusCreated)
}

// checkVAPID verifies "vapid t=<JWT>, k=<key>" (RFC 8292 §3) and answers the
// JWT's sub.
func checkVAPID(header, origin string, want []byte, now time.Time) (string, error) {
	rest, ok := strings.CutPrefix(header, "vapid ")
	if !ok {
		return "", errors.New("Authorization is not the vapid scheme")
	}
	var tok, key string
	for _, p := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		switch k {
		case "t":
			tok = v
		case "k":
			key = v
		}
	}
	if tok == "" || key == "" {
		return "", errors.New("t or k missing")
	}
	k, err := decode(key)
	if err != nil || string(k) != string(want) {
		return "", errors.New("k is not the applicationServerKey of the subscription")
	}
	x, y := elliptic.Unmarshal(elliptic.P256(), k) //nolint:staticcheck // the raw point the protocol sends
	if x == nil {
		return "", errors.New("k is not a P-256 point")
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "", errors.New("t is not a JWS")
	}
	var head struct{ Typ, Alg string }
	if err := decodeJSON(parts[0], &head); err != nil || head.Alg != "ES256" {
		return "", fmt.Errorf("JWT header %s: alg must be ES256", parts[0])
	}
	sig, err := decode(parts[2])
	if err != nil || len(sig) != 64 {
		return "", errors.New("JWT signature is not 64 bytes r||s")
	}
	h := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y}
	if !ecdsa.Verify(pub, h[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", errors.New("JWT signature does not verify with k")
	}
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if err := decodeJSON(parts[1], &claims); err != nil {
		return "", fmt.Errorf("JWT claims: %w", err)
	}
	switch exp := time.Unix(claims.Exp, 0); {
	case claims.Aud != origin:
		return "", fmt.Errorf("aud %q, want %q", claims.Aud, origin)
	case !exp.After(now):
		return "", errors.New("JWT expired")
	case exp.After(now.Add(24 * time.Hour)):
		return "", errors.New("exp more than 24 hours ahead (RFC 8292 §2)")
	case claims.Sub == "":
		return "", errors.New("sub missing")
	}
	return claims.Sub, nil
}

// Decrypt opens an aes128gcm body (RFC 8188) with the keys of RFC 8291 §3.4.
func Decrypt(body []byte, priv *ecdh.PrivateKey, auth []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("shorter than the aes128gcm header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if rs < 18 {
		return nil, fmt.Errorf("record size %d below 18", rs)
	}
	if idlen != 65 || len(body) < 21+idlen {
		return nil, fmt.Errorf("keyid is %d bytes, want the sender's 65-byte public key", idlen)
	}
	asPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		return nil, fmt.Errorf("keyid: %w", err)
	}
	ct := body[21+idlen:]
	if len(ct) > int(rs) {
		return nil, errors.New("more than one record (RFC 8291 §4: one record)")
	}
	secret, err := priv.ECDH(asPub)
	if err != nil {
		return nil, fmt.Errorf("ecdh: %w", err)
	}
	prkKey, err := hkdf.Extract(sha256.New, secret, auth)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), priv.PublicKey().Bytes()...), asPub.Bytes()...)
	ikm, err := hkdf.Expand(sha256.New, prkKey, string(info), 32)
	if err != nil {
		return nil, err
	}
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, ct, nil) // record 0: the nonce unchanged
	if err != nil {
		return nil, fmt.Errorf("aes-gcm: %w", err)
	}
	// Padding: zeros after the delimiter, 2 in the last (only) record.
	end := len(plain) - 1
	for end >= 0 && plain[end] == 0 {
		end--
	}
	if end < 0 || plain[end] != 2 {
		return nil, errors.New("no last-record padding delimiter (2)")
	}
	return plain[:end], nil
}

func decode(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

func decodeJSON(s string, v any) error {
	b, err := decode(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// newSubscriptionHTTP: POST /_fake/subscriptions {"applicationServerKey"}
// -> the Subscription (for a page whose PushManager cannot reach a real
// push service).
func (s *Service) newSubscriptionHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ApplicationServerKey string `json:"applicationServerKey"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	sub, err := s.NewSubscription(in.ApplicationServerKey)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_ = json.NewEncoder(w).Encode(sub)
}

// messagesHTTP: GET /_fake/messages?endpoint= -> the accepted messages and
// the refusals.
func (s *Service) messagesHTTP(w http.ResponseWriter, r *http.Request) {
	msgs := s.Messages(r.URL.Query().Get("endpoint"))
	if msgs == nil {
		msgs = []Message{}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	refused := s.Refused()
	if refused == nil {
		refused = []string{}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"messages": msgs, "refused": refused})
}
