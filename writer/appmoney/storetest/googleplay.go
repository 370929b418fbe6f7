// Package storetest fakes the app stores' servers for tests and development:
// Google's OAuth2 token endpoint and Play Developer API, and Apple's App Store
// Server API with its signed data (JWS with an x5c chain of a test root), on
// the real paths with the real request and answer shapes, so the writer's
// production clients (writer/appmoney) are what the tests run.
package storetest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"storefront/writer/appmoney"
)

// GooglePlay fakes oauth2.googleapis.com/token and androidpublisher v3's
// purchases.products (get, consume, acknowledge) and voidedpurchases.list
// for one app.
type GooglePlay struct {
	*httptest.Server
	Package string
	Email   string
	key     *rsa.PrivateKey

	mu          sync.Mutex
	tokens      map[string]bool
	purchases   map[string]*appmoney.ProductPurchase // by purchase token
	voided      []appmoney.VoidedPurchase
	seq         int
	failConsume bool
	gets        int

	// PushEmail is the push subscription's service account; pushKey signs
	// its OIDC tokens, published at /oauth2/v3/certs.
	PushEmail string
	pushKey   *rsa.PrivateKey
}

// PushKeyID is the kid of the fake's token signing key.
const PushKeyID = "storetest-push-1"

// StartGooglePlay starts the fake for package pkg.
func StartGooglePlay(pkg string) *GooglePlay {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	pushKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	g := &GooglePlay{Package: pkg, Email: "play-billing@storefront-test.iam.gserviceaccount.com", key: key,
		tokens: map[string]bool{}, purchases: map[string]*appmoney.ProductPurchase{},
		PushEmail: "rtdn-push@storefront-test.iam.gserviceaccount.com", pushKey: pushKey}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", g.token)
	mux.HandleFunc("GET /oauth2/v3/certs", g.certs)
	base := "/androidpublisher/v3/applications/{pkg}/purchases"
	mux.HandleFunc("GET "+base+"/products/{product}/tokens/{token}", g.auth(g.get))
	mux.HandleFunc("POST "+base+"/products/{product}/tokens/{token}", g.auth(g.method))
	mux.HandleFunc("GET "+base+"/voidedpurchases", g.auth(g.list))
	g.Server = httptest.NewServer(mux)
	return g
}

// ServiceAccount is the key file Google would hand out, its token_uri on the fake.
func (g *GooglePlay) ServiceAccount() appmoney.ServiceAccount {
	der, _ := x509.MarshalPKCS8PrivateKey(g.key)
	return appmoney.ServiceAccount{Type: "service_account", ClientEmail: g.Email, PrivateKeyID: "test-key-1",
		PrivateKey: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), TokenURI: g.URL + "/token"}
}

// CertsURL is the fake's JWKS of OIDC token keys (www.googleapis.com/oauth2/v3/certs).
func (g *GooglePlay) CertsURL() string { return g.URL + "/oauth2/v3/certs" }

// certs publishes the push token key as Google does: {"keys":[{kty,alg,use,kid,n,e}]}.
func (g *GooglePlay) certs(w http.ResponseWriter, _ *http.Request) {
	pub := g.pushKey.PublicKey
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Header().Set("Cache-Control", "public, max-age=21600, must-revalidate, no-transform")
	_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "alg": "RS256", "use": "sig", "kid": PushKeyID,
		"n": base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
	}}})
}

// PushClaims are the claims of the OIDC token Pub/Sub sends with a push of
// an authenticated subscription with audience aud, valid for an hour.
func (g *GooglePlay) PushClaims(aud string) gojwt.MapClaims {
	now := time.Now()
	return gojwt.MapClaims{"aud": aud, "azp": "113774264463038321964", "email": g.PushEmail, "email_verified": true,
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "iss": "https://accounts.google.com", "sub": "113774264463038321964"}
}

// PushToken signs claims with the fake's key (kid PushKeyID), as Google
// signs a push's ID token.
func (g *GooglePlay) PushToken(claims gojwt.MapClaims) string {
	return SignRS256(g.pushKey, PushKeyID, claims)
}

// SignRS256 signs claims with key under kid (a test forging tokens passes its own key).
func SignRS256(key *rsa.PrivateKey, kid string, claims gojwt.MapClaims) string {
	t := gojwt.NewWithClaims(gojwt.SigningMethodRS256, claims)
	t.Header["kid"] = kid
	s, err := t.SignedString(key)
	if err != nil {
		panic(err)
	}
	return s
}

func googleErr(w http.ResponseWriter, code int, status, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status,
		"errors": []map[string]string{{"message": msg, "domain": "global", "reason": strings.ToLower(status)}}}})
}

// token is the OAuth2 JWT bearer grant (RFC 7523) of a service account.
func (g *GooglePlay) token(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"unsupported_grant_type","error_description":"Invalid grant_type: "}`))
		return
	}
	claims := gojwt.MapClaims{}
	_, err := gojwt.ParseWithClaims(r.PostFormValue("assertion"), claims, func(*gojwt.Token) (any, error) { return &g.key.PublicKey, nil },
		gojwt.WithValidMethods([]string{"RS256"}), gojwt.WithAudience(g.URL+"/token"), gojwt.WithIssuer(g.Email), gojwt.WithExpirationRequired())
	scope, _ := claims["scope"].(string)
	if err != nil || !strings.Contains(scope, appmoney.AndroidPublisherScope) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`))
		return
	}
	tok := "ya29.test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	g.mu.Lock()
	g.tokens[tok] = true
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": 3599, "token_type": "Bearer"})
}

func (g *GooglePlay) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		g.mu.Lock()
		ok := g.tokens[tok]
		g.mu.Unlock()
		if !ok {
			googleErr(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
			return
		}
		if r.PathValue("pkg") != g.Package {
			googleErr(w, http.StatusNotFound, "NOT_FOUND", "No application was found for the given package name.")
			return
		}
		h(w, r)
	}
}

// purchase finds the purchase of the path (lock held).
func (g *GooglePlay) purchase(w http.ResponseWriter, r *http.Request, token string) *appmoney.ProductPurchase {
	p := g.purchases[token]
	if p == nil || p.ProductID != r.PathValue("product") {
		googleErr(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid Value")
		return nil
	}
	return p
}

func (g *GooglePlay) get(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gets++
	p := g.purchase(w, r, r.PathValue("token"))
	if p == nil {
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(p)
}

// method is {token}:consume and {token}:acknowledge (a custom method is a
// suffix of the last path segment).
func (g *GooglePlay) method(w http.ResponseWriter, r *http.Request) {
	token, verb, _ := strings.Cut(r.PathValue("token"), ":")
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.purchase(w, r, token)
	if p == nil {
		return
	}
	switch {
	case verb == "consume" && g.failConsume:
		googleErr(w, http.StatusServiceUnavailable, "UNAVAILABLE", "The service is currently unavailable.")
		return
	case p.PurchaseState != 0:
		googleErr(w, http.StatusBadRequest, "FAILED_PRECONDITION", "The purchase is not in a valid state to perform the desired operation.")
		return
	case verb == "consume":
		if p.ConsumptionState == 1 {
			googleErr(w, http.StatusBadRequest, "FAILED_PRECONDITION", "The purchase is not in a valid state to perform the desired operation.")
			return
		}
		p.ConsumptionState, p.AcknowledgementState = 1, 1
	case verb == "acknowledge":
		p.AcknowledgementState = 1
	default:
		googleErr(w, http.StatusNotFound, "NOT_FOUND", "Method not found.")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (g *GooglePlay) list(w http.ResponseWriter, r *http.Request) {
	start, _ := strconv.ParseInt(r.URL.Query().Get("startTime"), 10, 64)
	if r.URL.Query().Get("startTime") != "" && start < time.Now().Add(-30*24*time.Hour).UnixMilli()-60_000 {
		googleErr(w, http.StatusBadRequest, "INVALID_ARGUMENT", "startTime is too far in the past.")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	out := []appmoney.VoidedPurchase{}
	partial := r.URL.Query().Get("includeQuantityBasedPartialRefund") == "true"
	for _, v := range g.voided {
		if v.VoidedQuantity > 0 && !partial {
			continue // Google lists quantity-based partial refunds only when asked
		}
		if t, _ := strconv.ParseInt(v.VoidedTimeMillis, 10, 64); t >= start {
			out = append(out, v)
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"voidedPurchases": out, "pageInfo": map[string]int{"totalResults": len(out), "resultPerPage": len(out)}})
}

// Buy makes a completed, unconsumed purchase of productID; accountID is the
// obfuscatedExternalAccountId the app set ("" = none).
func (g *GooglePlay) Buy(productID, accountID string) (token, orderID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	token = fmt.Sprintf("opaque-token-%d.AO-J1Oz%dtestPurchaseTokenValue", g.seq, time.Now().UnixNano())
	orderID = fmt.Sprintf("GPA.3301-%04d-%04d-%05d", g.seq, time.Now().Nanosecond()%10000, g.seq*7)
	g.purchases[token] = &appmoney.ProductPurchase{Kind: "androidpublisher#productPurchase",
		PurchaseTimeMillis: strconv.FormatInt(time.Now().UnixMilli(), 10), OrderID: orderID, PurchaseToken: token,
		ProductID: productID, Quantity: 1, ObfuscatedExternalAccountID: accountID, RegionCode: "KR"}
	return token, orderID
}

// SetState sets a purchase's purchaseState (2 pending, 1 canceled).
func (g *GooglePlay) SetState(token string, state int) {
	g.mu.Lock()
	g.purchases[token].PurchaseState = state
	g.mu.Unlock()
}

// Consumed tells whether the purchase was consumed.
func (g *GooglePlay) Consumed(token string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.purchases[token].ConsumptionState == 1
}

// FailConsume makes consume answer 503 while on.
func (g *GooglePlay) FailConsume(on bool) {
	g.mu.Lock()
	g.failConsume = on
	g.mu.Unlock()
}

// Gets counts purchases.products.get calls.
func (g *GooglePlay) Gets() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gets
}

// Refund voids a purchase (a refund from the Play Console or by Google) and
// returns the Pub/Sub push of its voidedPurchaseNotification.
func (g *GooglePlay) Refund(token string) []byte { return g.RefundUnits(token, 0) }

// RefundUnits refunds units of a multi-quantity purchase (a quantity-based
// partial refund; 0 = the whole purchase) and returns the push of its
// voidedPurchaseNotification (refundType 2, or 1 for a full refund).
func (g *GooglePlay) RefundUnits(token string, units int) []byte {
	g.mu.Lock()
	p := g.purchases[token]
	refundType := 2
	if units == 0 {
		p.PurchaseState, refundType = 1, 1
	}
	// Each void is its own entry, at its own time.
	g.seq++
	at := time.Now().UnixMilli() + int64(g.seq)
	g.voided = append(g.voided, appmoney.VoidedPurchase{Kind: "androidpublisher#voidedPurchase", PurchaseToken: token,
		PurchaseTimeMillis: p.PurchaseTimeMillis, VoidedTimeMillis: strconv.FormatInt(at, 10),
		OrderID: p.OrderID, VoidedSource: 1, VoidedReason: 7, VoidedQuantity: units})
	g.mu.Unlock()
	return g.Push(map[string]any{"voidedPurchaseNotification": map[string]any{"purchaseToken": token, "orderId": p.OrderID,
		"productType": 2, "refundType": refundType}})
}

// SetQuantity makes a purchase one of n units (multi-quantity purchase).
func (g *GooglePlay) SetQuantity(token string, n int) {
	g.mu.Lock()
	g.purchases[token].Quantity = n
	g.mu.Unlock()
}

// Push wraps a developer notification's content (voidedPurchaseNotification,
// oneTimeProductNotification, testNotification) in a Pub/Sub push body.
func (g *GooglePlay) Push(content map[string]any) []byte {
	g.mu.Lock()
	g.seq++
	id := strconv.Itoa(1_000_000 + g.seq)
	g.mu.Unlock()
	n := map[string]any{"version": "1.0", "packageName": g.Package, "eventTimeMillis": strconv.FormatInt(time.Now().UnixMilli(), 10)}
	for k, v := range content {
		n[k] = v
	}
	data, _ := json.Marshal(n)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	b, _ := json.Marshal(map[string]any{
		"message":      map[string]any{"data": data, "messageId": id, "message_id": id, "publishTime": now, "publish_time": now},
		"subscription": "projects/storefront-test/subscriptions/play-rtdn"})
	return b
}
