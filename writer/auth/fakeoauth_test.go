package auth_test

import (
	"testing"

	"storefront/writer/auth"
	"storefront/writer/internal/writertest"
)

// fakeProvider is the shared fake social login provider
// (writertest.OAuthProvider): real OAuth2 over HTTP with PKCE.
type fakeProvider struct{ *writertest.OAuthProvider }

func newFakeProvider(t *testing.T, kind, userID string) *fakeProvider {
	return &fakeProvider{writertest.NewOAuthProvider(t, kind, userID)}
}

func (f *fakeProvider) provider() auth.Provider { return f.Provider() }
