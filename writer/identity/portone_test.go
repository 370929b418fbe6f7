package identity_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"storefront/writer/identity"
	"storefront/writer/identity/portonesandbox"
)

// The client against the sandbox: a verification read with the right secret
// and store; PortOne's documented errors for a wrong secret, another store and
// an unknown id; a provider that is not there or answers 5xx is ErrDown.
func TestClientSpeaksPortOne(t *testing.T) {
	sb := portonesandbox.New(portonesandbox.Config{})
	srv := httptest.NewServer(sb.Handler())
	defer srv.Close()
	ctx := context.Background()
	page := portonesandbox.PageURL(srv.URL, portonesandbox.DefaultStoreID, "iv-1", portonesandbox.DefaultChannelKey, "")
	if err := portonesandbox.Certify(ctx, page, portonesandbox.Person{Name: "홍길동", BirthDate: "1990-01-02", Gender: "MALE"}); err != nil {
		t.Fatal(err)
	}
	c := &identity.Client{BaseURL: srv.URL, Secret: portonesandbox.DefaultSecret, StoreID: portonesandbox.DefaultStoreID}
	v, err := c.Get(ctx, "iv-1")
	if err != nil || v.Status != identity.StatusVerified || v.ID != "iv-1" || v.VerifiedCustomer == nil ||
		v.VerifiedCustomer.Name != "홍길동" || v.VerifiedCustomer.BirthDate != "1990-01-02" || v.VerifiedCustomer.Gender != "MALE" ||
		len(v.VerifiedCustomer.CI) != 88 || v.Channel == nil || v.Channel.Type != identity.ChannelTest {
		t.Fatalf("verified: %+v %v", v, err)
	}
	if _, err := c.Get(ctx, "iv-unknown"); !errors.Is(err, identity.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	var ae *identity.APIError
	bad := *c
	bad.Secret = "wrong"
	if _, err := bad.Get(ctx, "iv-1"); !errors.As(err, &ae) || ae.Status != 401 || ae.Type != identity.ErrTypeUnauthorized {
		t.Errorf("wrong secret: %v", err)
	}
	other := *c
	other.StoreID = "store-other"
	if _, err := other.Get(ctx, "iv-1"); !errors.As(err, &ae) || ae.Status != 403 || ae.Type != identity.ErrTypeForbidden {
		t.Errorf("another store: %v", err)
	}
	sb.SetDown(http.StatusBadGateway)
	if _, err := c.Get(ctx, "iv-1"); !errors.Is(err, identity.ErrDown) {
		t.Errorf("5xx: %v", err)
	}
	sb.SetDown(0)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	closed := *c
	closed.BaseURL = gone.URL
	if _, err := closed.Get(ctx, "iv-1"); !errors.Is(err, identity.ErrDown) {
		t.Errorf("connection refused: %v", err)
	}
	// The provider refuses to verify an id twice: the second certification
	// leaves the first person.
	if err := portonesandbox.Certify(ctx, page, portonesandbox.Person{Name: "김다른", BirthDate: "1980-01-01"}); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Get(ctx, "iv-1"); v.VerifiedCustomer.Name != "홍길동" {
		t.Errorf("a finished verification was overwritten: %+v", v.VerifiedCustomer)
	}
}
