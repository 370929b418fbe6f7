package storetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
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
	"github.com/google/uuid"

	"storefront/writer/appmoney"
)

// Chain is a test stand-in for Apple's signing chain: a root (pinned by the
// writer in tests), an intermediate and a leaf carrying Apple's marker
// extensions, and the leaf's key that signs.
type Chain struct {
	Root, Intermediate, Leaf *x509.Certificate
	leafKey                  *ecdsa.PrivateKey
}

func newCert(tmpl, parent *x509.Certificate, pub, signer any) *x509.Certificate {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		panic(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	return c
}

// NewChain makes a fresh chain (another chain signs data the writer must refuse).
func NewChain() *Chain {
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		return k
	}
	rk, ik, lk := key(), key(), key()
	now := time.Now()
	serial := func() *big.Int { n, _ := rand.Int(rand.Reader, big.NewInt(1<<62)); return n }
	rootT := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "Test Apple Root CA - G3", Organization: []string{"Apple Inc."}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	root := newCert(rootT, rootT, &rk.PublicKey, rk)
	interT := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "Test Apple Worldwide Developer Relations Certification Authority"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, MaxPathLenZero: true,
		KeyUsage:        x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		ExtraExtensions: []pkix.Extension{{Id: appmoney.OIDAppStoreIntermediate, Value: []byte{0x05, 0x00}}}}
	inter := newCert(interT, root, &ik.PublicKey, rk)
	leafT := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "Test Prod ECC Mac App Store and iTunes Store Receipt Signing"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtraExtensions: []pkix.Extension{{Id: appmoney.OIDAppStoreLeaf, Value: []byte{0x05, 0x00}}}}
	leaf := newCert(leafT, inter, &lk.PublicKey, ik)
	return &Chain{Root: root, Intermediate: inter, Leaf: leaf, leafKey: lk}
}

// RootPEM is the root certificate to pin.
func (c *Chain) RootPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Root.Raw})
}

// Sign makes Apple's JWS of v: ES256, the x5c header with leaf,
// intermediate and root (base64 DER).
func (c *Chain) Sign(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	claims := gojwt.MapClaims{}
	if err := json.Unmarshal(b, &claims); err != nil {
		panic(err)
	}
	t := gojwt.NewWithClaims(gojwt.SigningMethodES256, claims)
	delete(t.Header, "typ")
	t.Header["x5c"] = []string{base64.StdEncoding.EncodeToString(c.Leaf.Raw),
		base64.StdEncoding.EncodeToString(c.Intermediate.Raw), base64.StdEncoding.EncodeToString(c.Root.Raw)}
	s, err := t.SignedString(c.leafKey)
	if err != nil {
		panic(err)
	}
	return s
}

// AppStore fakes the App Store Server API's Get Transaction Info for one
// app and makes its Server Notifications v2.
type AppStore struct {
	*httptest.Server
	Chain       *Chain
	BundleID    string
	Environment string
	IssuerID    string
	KeyID       string
	key         *ecdsa.PrivateKey // the in-app purchase key App Store Connect issued to us

	mu   sync.Mutex
	txs  map[string]*appmoney.TransactionPayload
	seq  int64
	gets int
}

// StartAppStore starts the fake for bundleID in the Sandbox environment.
func StartAppStore(bundleID string) *AppStore {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	a := &AppStore{Chain: NewChain(), BundleID: bundleID, Environment: "Sandbox", IssuerID: "57246542-96fe-1a63-e053-0824d011072a",
		KeyID: "2X9R4HXF34", key: k, txs: map[string]*appmoney.TransactionPayload{}, seq: 2000000812345000}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /inApps/v1/transactions/{id}", a.transaction)
	a.Server = httptest.NewServer(mux)
	return a
}

// KeyPEM is the in-app purchase key as App Store Connect's .p8 file.
func (a *AppStore) KeyPEM() []byte {
	der, _ := x509.MarshalPKCS8PrivateKey(a.key)
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func appleErr(w http.ResponseWriter, status int, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errorCode": code, "errorMessage": msg})
}

func (a *AppStore) transaction(w http.ResponseWriter, r *http.Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	claims := gojwt.MapClaims{}
	t, err := gojwt.ParseWithClaims(tok, claims, func(*gojwt.Token) (any, error) { return &a.key.PublicKey, nil },
		gojwt.WithValidMethods([]string{"ES256"}), gojwt.WithAudience("appstoreconnect-v1"), gojwt.WithIssuer(a.IssuerID),
		gojwt.WithExpirationRequired(), gojwt.WithIssuedAt())
	if err != nil || t.Header["kid"] != a.KeyID || claims["bid"] != a.BundleID {
		w.WriteHeader(http.StatusUnauthorized) // Apple answers 401 with no body
		return
	}
	id := r.PathValue("id")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		appleErr(w, http.StatusBadRequest, 4000006, "Invalid transaction id.")
		return
	}
	a.mu.Lock()
	a.gets++
	p := a.txs[id]
	a.mu.Unlock()
	if p == nil {
		appleErr(w, http.StatusNotFound, 4040010, "Transaction id not found.")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"signedTransactionInfo": a.Chain.Sign(p)})
}

// Buy records a consumable purchase of productID and returns its transaction id.
func (a *AppStore) Buy(productID string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	id := strconv.FormatInt(a.seq, 10)
	now := time.Now().UnixMilli()
	a.txs[id] = &appmoney.TransactionPayload{TransactionID: id, OriginalTransactionID: id, BundleID: a.BundleID, ProductID: productID,
		PurchaseDate: now, OriginalPurchaseDate: now, Quantity: 1, Type: "Consumable", InAppOwnershipType: "PURCHASED",
		SignedDate: now, Environment: a.Environment, TransactionReason: "PURCHASE", Storefront: "KOR", StorefrontID: "143466",
		Price: 1100000, Currency: "KRW"}
	return id
}

// Edit changes a recorded transaction (another bundle, type, environment ...).
func (a *AppStore) Edit(id string, fn func(*appmoney.TransactionPayload)) {
	a.mu.Lock()
	fn(a.txs[id])
	a.mu.Unlock()
}

// Gets counts Get Transaction Info calls.
func (a *AppStore) Gets() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gets
}

// Refund revokes a transaction and returns the REFUND notification's body
// ({"signedPayload": JWS}), signed by chain (nil = the fake's own).
func (a *AppStore) Refund(id string, chain *Chain) []byte {
	a.mu.Lock()
	p := a.txs[id]
	p.RevocationDate = time.Now().UnixMilli()
	reason := 0
	p.RevocationReason = &reason
	p.SignedDate = time.Now().UnixMilli()
	tx := *p
	a.mu.Unlock()
	return a.Notification("REFUND", &tx, chain)
}

// ReverseRefund cancels the refund of a transaction (the transaction no
// longer carries a revocation) and returns the REFUND_REVERSED notification.
func (a *AppStore) ReverseRefund(id string) []byte {
	a.mu.Lock()
	p := a.txs[id]
	p.RevocationDate, p.RevocationReason = 0, nil
	p.SignedDate = time.Now().UnixMilli()
	tx := *p
	a.mu.Unlock()
	return a.Notification("REFUND_REVERSED", &tx, nil)
}

// Notification signs a Server Notification v2 of type kind carrying tx (nil = none).
func (a *AppStore) Notification(kind string, tx *appmoney.TransactionPayload, chain *Chain) []byte {
	if chain == nil {
		chain = a.Chain
	}
	data := map[string]any{"appAppleId": 1234567890, "bundleId": a.BundleID, "bundleVersion": "1", "environment": a.Environment}
	if tx != nil {
		data["signedTransactionInfo"] = chain.Sign(tx)
	}
	payload := map[string]any{"notificationType": kind, "notificationUUID": uuid.NewString(), "version": "2.0",
		"signedDate": time.Now().UnixMilli(), "data": data}
	b, _ := json.Marshal(map[string]string{"signedPayload": chain.Sign(payload)})
	return b
}

// String names the fake in logs.
func (a *AppStore) String() string { return fmt.Sprintf("app store fake %s (%s)", a.URL, a.BundleID) }
