// Package identity is the writer's client of a Korean identity-verification
// provider (본인인증): PortOne V2's REST API, which fronts the carriers' and
// agencies' real-name checks (Danal, KG Inicis and others). The browser opens
// the provider's certification window (PortOne's browser SDK,
// requestIdentityVerification) with an id the writer issued; the writer then
// reads GET /identity-verifications/{id} and trusts only what that answer
// says: status VERIFIED and its verifiedCustomer (name, birth date, CI).
//
// The development and test double is writer/identity/portonesandbox, which
// speaks the same protocol over HTTP; live mode refuses it (package doubles).
package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultBaseURL is PortOne's API.
const DefaultBaseURL = "https://api.portone.io"

// Statuses of a verification.
const (
	StatusReady    = "READY"
	StatusVerified = "VERIFIED"
	StatusFailed   = "FAILED"
)

// Channel types: a TEST channel verifies nobody real.
const (
	ChannelLive = "LIVE"
	ChannelTest = "TEST"
)

// Verification is PortOne V2's IdentityVerification (one of
// ReadyIdentityVerification, VerifiedIdentityVerification,
// FailedIdentityVerification, told apart by status). Field names are the
// API's.
type Verification struct {
	Status            string             `json:"status"`
	ID                string             `json:"id"`
	Channel           *Channel           `json:"channel,omitempty"`
	VerifiedCustomer  *VerifiedCustomer  `json:"verifiedCustomer,omitempty"`
	RequestedCustomer *RequestedCustomer `json:"requestedCustomer,omitempty"`
	CustomData        string             `json:"customData,omitempty"`
	RequestedAt       string             `json:"requestedAt"`
	UpdatedAt         string             `json:"updatedAt"`
	StatusChangedAt   string             `json:"statusChangedAt"`
	VerifiedAt        string             `json:"verifiedAt,omitempty"`
	PgTxID            string             `json:"pgTxId,omitempty"`
	PgRawResponse     string             `json:"pgRawResponse,omitempty"`
	Failure           *Failure           `json:"failure,omitempty"`
	Version           string             `json:"version,omitempty"`
}

// Channel is PortOne's SelectedChannel.
type Channel struct {
	Type         string `json:"type"` // LIVE or TEST
	ID           string `json:"id,omitempty"`
	Key          string `json:"key,omitempty"`
	Name         string `json:"name,omitempty"`
	PgProvider   string `json:"pgProvider"`
	PgMerchantID string `json:"pgMerchantId"`
}

// VerifiedCustomer is PortOne's IdentityVerificationVerifiedCustomer.
type VerifiedCustomer struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name"`
	Operator    string `json:"operator,omitempty"`
	PhoneNumber string `json:"phoneNumber,omitempty"`
	BirthDate   string `json:"birthDate,omitempty"` // yyyy-MM-dd
	Gender      string `json:"gender,omitempty"`    // MALE, FEMALE, OTHER
	IsForeigner *bool  `json:"isForeigner,omitempty"`
	CI          string `json:"ci,omitempty"`
	DI          string `json:"di,omitempty"`
}

// RequestedCustomer is PortOne's IdentityVerificationRequestedCustomer.
type RequestedCustomer struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"`
	PhoneNumber string `json:"phoneNumber,omitempty"`
	BirthYear   string `json:"birthYear,omitempty"`
	BirthMonth  string `json:"birthMonth,omitempty"`
	BirthDay    string `json:"birthDay,omitempty"`
}

// Failure is PortOne's IdentityVerificationFailure.
type Failure struct {
	Reason    string `json:"reason,omitempty"`
	PgCode    string `json:"pgCode,omitempty"`
	PgMessage string `json:"pgMessage,omitempty"`
}

// APIError is PortOne's error answer ({type, message}).
type APIError struct {
	Status  int    `json:"-"`
	Type    string `json:"type"`
	Message string `json:"message,omitempty"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("portone: %d %s: %s", e.Status, e.Type, e.Message)
}

// Error types of GET /identity-verifications/{id}.
const (
	ErrTypeNotFound     = "IDENTITY_VERIFICATION_NOT_FOUND"
	ErrTypeUnauthorized = "UNAUTHORIZED"
	ErrTypeForbidden    = "FORBIDDEN"
	ErrTypeInvalid      = "INVALID_REQUEST"
)

// ErrDown means the provider could not answer (network, timeout, 5xx, 429, an
// answer that is not its JSON): the caller changes nothing and says so.
var ErrDown = errors.New("identity provider unavailable")

// ErrNotFound means the provider knows no verification of that id in our store.
var ErrNotFound = errors.New("identity verification not found")

// Client reads verifications from PortOne V2. The zero HTTP client is
// replaced by one with a 10 s timeout.
type Client struct {
	BaseURL string // DefaultBaseURL, or the sandbox's URL
	Secret  string // the V2 API secret (Authorization: PortOne <secret>)
	StoreID string // our store: the provider answers only its verifications
	HTTP    *http.Client
}

// Get reads one verification. Errors: ErrNotFound, ErrDown (wrapped), or an
// *APIError for the provider refusing our credentials.
func (c *Client) Get(ctx context.Context, id string) (*Verification, error) {
	base := strings.TrimRight(c.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u := base + "/identity-verifications/" + url.PathEscape(id)
	if c.StoreID != "" {
		u += "?storeId=" + url.QueryEscape(c.StoreID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("portone request: %w", err)
	}
	req.Header.Set("Authorization", "PortOne "+c.Secret)
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDown, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: read answer: %v", ErrDown, err)
	}
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return nil, fmt.Errorf("%w: status %d", ErrDown, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		ae := &APIError{Status: resp.StatusCode}
		if json.Unmarshal(body, ae) != nil || ae.Type == "" {
			return nil, fmt.Errorf("%w: status %d without an error type", ErrDown, resp.StatusCode)
		}
		if ae.Type == ErrTypeNotFound {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		return nil, ae
	}
	var v Verification
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("%w: answer is not a verification: %v", ErrDown, err)
	}
	return &v, nil
}
