package appmoney

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"
)

// AndroidPublisherScope is the OAuth2 scope of the Google Play Developer API.
const AndroidPublisherScope = "https://www.googleapis.com/auth/androidpublisher"

// ServiceAccount is the part of a Google service-account key file (JSON)
// the JWT bearer flow needs.
type ServiceAccount struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKeyID string `json:"private_key_id"`
	PrivateKey   string `json:"private_key"`
	TokenURI     string `json:"token_uri"`
}

// ParseServiceAccount reads a service-account key file's content.
func ParseServiceAccount(b []byte) (ServiceAccount, error) {
	var sa ServiceAccount
	if err := json.Unmarshal(b, &sa); err != nil {
		return sa, fmt.Errorf("service account key: %w", err)
	}
	if sa.ClientEmail == "" || sa.PrivateKey == "" || sa.TokenURI == "" {
		return sa, errors.New("service account key: client_email, private_key and token_uri are required")
	}
	return sa, nil
}

// ProductPurchase is the Developer API's purchases.products resource.
type ProductPurchase struct {
	Kind                        string `json:"kind"`
	PurchaseTimeMillis          string `json:"purchaseTimeMillis"`
	PurchaseState               int    `json:"purchaseState"` // 0 purchased, 1 canceled, 2 pending
	ConsumptionState            int    `json:"consumptionState"`
	DeveloperPayload            string `json:"developerPayload"`
	OrderID                     string `json:"orderId"`
	PurchaseType                *int   `json:"purchaseType,omitempty"` // 0 test (license testing), 1 promo, 2 rewarded
	AcknowledgementState        int    `json:"acknowledgementState"`
	PurchaseToken               string `json:"purchaseToken,omitempty"`
	ProductID                   string `json:"productId,omitempty"`
	Quantity                    int    `json:"quantity,omitempty"`
	ObfuscatedExternalAccountID string `json:"obfuscatedExternalAccountId,omitempty"`
	RegionCode                  string `json:"regionCode,omitempty"`
}

// PurchasedAt is purchaseTimeMillis as a time.
func (p ProductPurchase) PurchasedAt() time.Time { return millis(p.PurchaseTimeMillis) }

func millis(s string) time.Time {
	ms, _ := strconv.ParseInt(s, 10, 64)
	return time.UnixMilli(ms).UTC()
}

// VoidedPurchase is one entry of purchases.voidedpurchases.list.
type VoidedPurchase struct {
	Kind               string `json:"kind"`
	PurchaseToken      string `json:"purchaseToken"`
	PurchaseTimeMillis string `json:"purchaseTimeMillis"`
	VoidedTimeMillis   string `json:"voidedTimeMillis"`
	OrderID            string `json:"orderId"`
	VoidedSource       int    `json:"voidedSource"` // 0 user, 1 developer, 2 Google
	VoidedReason       int    `json:"voidedReason"`
	// VoidedQuantity is set on the void of a quantity-based partial refund
	// (listed only with includeQuantityBasedPartialRefund=true): the units
	// this refund voided. Absent, the whole purchase is voided.
	VoidedQuantity int `json:"voidedQuantity,omitempty"`
}

type voidedList struct {
	VoidedPurchases []VoidedPurchase `json:"voidedPurchases"`
	TokenPagination *struct {
		NextPageToken string `json:"nextPageToken"`
	} `json:"tokenPagination,omitempty"`
}

// GoogleError is an error answer of a Google API ({"error":{code,message,status}}).
type GoogleError struct {
	HTTPStatus int
	Body       struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

func (e *GoogleError) Error() string {
	return fmt.Sprintf("google play %d %s: %s", e.HTTPStatus, e.Body.Status, e.Body.Message)
}

// GooglePlay is a client of the Google Play Developer API (androidpublisher
// v3) for one app, authenticated as a service account through the OAuth2
// JWT bearer flow against the key's token_uri.
type GooglePlay struct {
	BaseURL     string // https://androidpublisher.googleapis.com (or a fake)
	PackageName string
	client      *http.Client
}

// NewGooglePlay makes the client; base is the API's base URL, and the
// service account's token_uri is where access tokens come from.
func NewGooglePlay(ctx context.Context, base, packageName string, sa ServiceAccount, hc *http.Client) *GooglePlay {
	cfg := &jwt.Config{Email: sa.ClientEmail, PrivateKey: []byte(sa.PrivateKey), PrivateKeyID: sa.PrivateKeyID,
		Scopes: []string{AndroidPublisherScope}, TokenURL: sa.TokenURI}
	if hc == nil {
		hc = &http.Client{Timeout: 15 * time.Second}
	}
	// The token source lives as long as the client, so it gets a context
	// carrying only the transport, not a request's.
	tctx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, hc)
	c := oauth2.NewClient(tctx, cfg.TokenSource(tctx))
	c.Timeout = hc.Timeout
	return &GooglePlay{BaseURL: base, PackageName: packageName, client: c}
}

func (g *GooglePlay) productURL(productID, token string) string {
	return fmt.Sprintf("%s/androidpublisher/v3/applications/%s/purchases/products/%s/tokens/%s", g.BaseURL,
		url.PathEscape(g.PackageName), url.PathEscape(productID), url.PathEscape(token))
}

// Product is purchases.products.get.
func (g *GooglePlay) Product(ctx context.Context, productID, token string) (ProductPurchase, error) {
	var p ProductPurchase
	err := g.do(ctx, http.MethodGet, g.productURL(productID, token), nil, &p)
	return p, err
}

// Consume is purchases.products.consume: the money is consumable, and
// consuming also acknowledges (an unacknowledged purchase is refunded by
// Google after three days).
func (g *GooglePlay) Consume(ctx context.Context, productID, token string) error {
	return g.do(ctx, http.MethodPost, g.productURL(productID, token)+":consume", nil, nil)
}

// Voided is purchases.voidedpurchases.list from start on, every page.
func (g *GooglePlay) Voided(ctx context.Context, start time.Time) ([]VoidedPurchase, error) {
	var all []VoidedPurchase
	page := ""
	for range 100 {
		q := url.Values{"startTime": {strconv.FormatInt(start.UnixMilli(), 10)}, "type": {"0"}, "maxResults": {"1000"},
			"includeQuantityBasedPartialRefund": {"true"}}
		if page != "" {
			q.Set("token", page)
		}
		var l voidedList
		if err := g.do(ctx, http.MethodGet, fmt.Sprintf("%s/androidpublisher/v3/applications/%s/purchases/voidedpurchases?%s",
			g.BaseURL, url.PathEscape(g.PackageName), q.Encode()), nil, &l); err != nil {
			return nil, err
		}
		all = append(all, l.VoidedPurchases...)
		if l.TokenPagination == nil || l.TokenPagination.NextPageToken == "" {
			return all, nil
		}
		page = l.TokenPagination.NextPageToken
	}
	return nil, errors.New("google play: voided purchases do not end")
}

func (g *GooglePlay) do(ctx context.Context, method, u string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("google play request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return fmt.Errorf("google play %s: %w", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("google play %s: read answer: %w", method, err)
	}
	if resp.StatusCode/100 != 2 {
		ge := &GoogleError{HTTPStatus: resp.StatusCode}
		_ = json.Unmarshal(b, ge)
		return ge
	}
	if out == nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("google play %s: answer: %w", method, err)
	}
	return nil
}

// DeveloperNotification is the Real-time developer notification carried in
// a Pub/Sub message's data.
type DeveloperNotification struct {
	Version                    string `json:"version"`
	PackageName                string `json:"packageName"`
	EventTimeMillis            string `json:"eventTimeMillis"`
	OneTimeProductNotification *struct {
		Version          string `json:"version"`
		NotificationType int    `json:"notificationType"` // 1 purchased, 2 canceled
		PurchaseToken    string `json:"purchaseToken"`
		SKU              string `json:"sku"`
	} `json:"oneTimeProductNotification,omitempty"`
	VoidedPurchaseNotification *struct {
		PurchaseToken string `json:"purchaseToken"`
		OrderID       string `json:"orderId"`
		ProductType   int    `json:"productType"` // 1 subscription, 2 one-time
		RefundType    int    `json:"refundType"`  // 1 full, 2 quantity-based partial
	} `json:"voidedPurchaseNotification,omitempty"`
	TestNotification *struct {
		Version string `json:"version"`
	} `json:"testNotification,omitempty"`
}

// PushMessage is a Pub/Sub push request body.
type PushMessage struct {
	Message struct {
		Data        []byte            `json:"data"` // base64 in JSON
		MessageID   string            `json:"messageId"`
		PublishTime string            `json:"publishTime"`
		Attributes  map[string]string `json:"attributes,omitempty"`
	} `json:"message"`
	Subscription string `json:"subscription"`
}

// One-time product notification types.
const (
	OneTimeProductPurchased = 1
	OneTimeProductCanceled  = 2
)
