package appmoney

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// AppStore is a client of the App Store Server API, authenticated with an
// ES256 JWT of an in-app purchase key (issuer id, key id, bundle id).
type AppStore struct {
	BaseURL  string // https://api.storekit.itunes.apple.com, the sandbox's, or a fake
	IssuerID string
	KeyID    string
	BundleID string
	Key      *ecdsa.PrivateKey
	Client   *http.Client
	Now      func() time.Time
}

// ParseAppStoreKey reads the .p8 (PKCS#8 PEM) key App Store Connect hands out.
func ParseAppStoreKey(b []byte) (*ecdsa.PrivateKey, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("app store key: no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("app store key: %w", err)
	}
	ek, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("app store key: not an EC key")
	}
	return ek, nil
}

func (a *AppStore) token() (string, error) {
	now := a.Now()
	t := gojwt.NewWithClaims(gojwt.SigningMethodES256, gojwt.MapClaims{
		"iss": a.IssuerID, "iat": now.Unix(), "exp": now.Add(20 * time.Minute).Unix(),
		"aud": "appstoreconnect-v1", "bid": a.BundleID,
	})
	t.Header["kid"] = a.KeyID
	return t.SignedString(a.Key)
}

// AppStoreError is an error answer of the App Store Server API.
type AppStoreError struct {
	HTTPStatus   int
	ErrorCode    int64  `json:"errorCode"`
	ErrorMessage string `json:"errorMessage"`
}

func (e *AppStoreError) Error() string {
	return fmt.Sprintf("app store %d %d: %s", e.HTTPStatus, e.ErrorCode, e.ErrorMessage)
}

// Transaction is Get Transaction Info: the signed transaction (JWS) of id.
func (a *AppStore) Transaction(ctx context.Context, id string) (string, error) {
	tok, err := a.token()
	if err != nil {
		return "", fmt.Errorf("app store token: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.BaseURL+"/inApps/v1/transactions/"+url.PathEscape(id), nil)
	if err != nil {
		return "", fmt.Errorf("app store request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := a.Client.Do(req)
	if err != nil {
		return "", fmt.Errorf("app store transaction %s: %w", id, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("app store transaction %s: read answer: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		e := &AppStoreError{HTTPStatus: resp.StatusCode}
		_ = json.Unmarshal(b, e)
		return "", e
	}
	var out struct {
		SignedTransactionInfo string `json:"signedTransactionInfo"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.SignedTransactionInfo == "" {
		return "", fmt.Errorf("app store transaction %s: answer without signedTransactionInfo", id)
	}
	return out.SignedTransactionInfo, nil
}

// Transaction payload of a signed transaction (JWSTransactionDecodedPayload).
type TransactionPayload struct {
	TransactionID         string `json:"transactionId"`
	OriginalTransactionID string `json:"originalTransactionId"`
	BundleID              string `json:"bundleId"`
	ProductID             string `json:"productId"`
	PurchaseDate          int64  `json:"purchaseDate"`
	OriginalPurchaseDate  int64  `json:"originalPurchaseDate"`
	Quantity              int    `json:"quantity"`
	Type                  string `json:"type"` // Consumable, Non-Consumable, ...
	InAppOwnershipType    string `json:"inAppOwnershipType"`
	SignedDate            int64  `json:"signedDate"`
	Environment           string `json:"environment"` // Production, Sandbox
	TransactionReason     string `json:"transactionReason,omitempty"`
	Storefront            string `json:"storefront,omitempty"`
	StorefrontID          string `json:"storefrontId,omitempty"`
	Price                 int64  `json:"price,omitempty"`
	Currency              string `json:"currency,omitempty"`
	AppAccountToken       string `json:"appAccountToken,omitempty"`
	RevocationDate        int64  `json:"revocationDate,omitempty"`
	RevocationReason      *int   `json:"revocationReason,omitempty"`
}

// NotificationPayload is an App Store Server Notification v2's decoded
// signedPayload (ResponseBodyV2DecodedPayload).
type NotificationPayload struct {
	NotificationType string `json:"notificationType"`
	Subtype          string `json:"subtype,omitempty"`
	NotificationUUID string `json:"notificationUUID"`
	Version          string `json:"version"`
	SignedDate       int64  `json:"signedDate"`
	Data             *struct {
		AppAppleID            int64  `json:"appAppleId,omitempty"`
		BundleID              string `json:"bundleId"`
		BundleVersion         string `json:"bundleVersion,omitempty"`
		Environment           string `json:"environment"`
		SignedTransactionInfo string `json:"signedTransactionInfo,omitempty"`
	} `json:"data,omitempty"`
}

// Apple's marker extensions: the leaf that signs App Store data and the
// intermediate (Apple Worldwide Developer Relations) that issues it.
var (
	oidAppStoreLeaf         = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 11, 1}
	oidAppStoreIntermediate = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 2, 1}
)

// OIDs for test chains (writer/appmoney/storetest).
var (
	OIDAppStoreLeaf         = oidAppStoreLeaf
	OIDAppStoreIntermediate = oidAppStoreIntermediate
)

// Verifier checks Apple's signed data (JWS with the x5c chain in its
// header): ES256, the chain leaf -> intermediate -> a pinned root, Apple's
// marker extensions, then the bundle id and environment of the payload.
type Verifier struct {
	Roots       *x509.CertPool
	BundleID    string
	Environment string // Production or Sandbox
	Now         func() time.Time
}

var errJWS = errors.New("signed data not from the App Store")

func hasExt(c *x509.Certificate, oid asn1.ObjectIdentifier) bool {
	for _, e := range c.Extensions {
		if e.Id.Equal(oid) {
			return true
		}
	}
	return false
}

// verify checks the JWS and decodes its payload into v.
func (v *Verifier) verify(jws string, out any) error {
	p := gojwt.NewParser(gojwt.WithValidMethods([]string{"ES256"}), gojwt.WithoutClaimsValidation())
	tok, err := p.Parse(jws, func(t *gojwt.Token) (any, error) {
		x5c, ok := t.Header["x5c"].([]any)
		if !ok || len(x5c) != 3 {
			return nil, errors.New("x5c: want leaf, intermediate and root")
		}
		var certs []*x509.Certificate
		for _, c := range x5c {
			s, _ := c.(string)
			der, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("x5c: %w", err)
			}
			cert, err := x509.ParseCertificate(der)
			if err != nil {
				return nil, fmt.Errorf("x5c: %w", err)
			}
			certs = append(certs, cert)
		}
		if !hasExt(certs[0], oidAppStoreLeaf) || !hasExt(certs[1], oidAppStoreIntermediate) {
			return nil, errors.New("x5c: not Apple's App Store certificates")
		}
		inter := x509.NewCertPool()
		inter.AddCert(certs[1])
		// The pinned root decides; the root in the header is only a copy.
		if _, err := certs[0].Verify(x509.VerifyOptions{Roots: v.Roots, Intermediates: inter,
			CurrentTime: v.Now(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
			return nil, fmt.Errorf("x5c: %w", err)
		}
		pub, ok := certs[0].PublicKey.(*ecdsa.PublicKey)
		if !ok {
			return nil, errors.New("x5c: leaf key is not EC")
		}
		return pub, nil
	})
	if err != nil || !tok.Valid {
		return fmt.Errorf("%w: %v", errJWS, err)
	}
	// Decode the payload again into the typed struct (the parser gave a map).
	parts := splitJWS(jws)
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return fmt.Errorf("%w: payload: %v", errJWS, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%w: payload: %v", errJWS, err)
	}
	return nil
}

func splitJWS(s string) [3]string {
	var out [3]string
	i := 0
	start := 0
	for j := 0; j < len(s) && i < 2; j++ {
		if s[j] == '.' {
			out[i] = s[start:j]
			i++
			start = j + 1
		}
	}
	out[i] = s[start:]
	return out
}

// Errors of verified data that does not belong to this app.
var (
	errWrongBundle = errors.New("signed data of another app")
	errWrongEnv    = errors.New("signed data of another environment")
)

// VerifyTransaction checks a signed transaction and that it is this app's.
func (v *Verifier) VerifyTransaction(jws string) (TransactionPayload, error) {
	var t TransactionPayload
	if err := v.verify(jws, &t); err != nil {
		return t, err
	}
	if t.BundleID != v.BundleID {
		return t, errWrongBundle
	}
	if t.Environment != v.Environment {
		return t, errWrongEnv
	}
	return t, nil
}

// VerifyNotification checks a notification's signedPayload and that it is
// this app's.
func (v *Verifier) VerifyNotification(jws string) (NotificationPayload, error) {
	var n NotificationPayload
	if err := v.verify(jws, &n); err != nil {
		return n, err
	}
	if n.Data == nil {
		return n, nil // e.g. a TEST notification carries no transaction
	}
	if n.Data.BundleID != v.BundleID {
		return n, errWrongBundle
	}
	if n.Data.Environment != v.Environment {
		return n, errWrongEnv
	}
	return n, nil
}
