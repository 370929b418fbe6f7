// Package devsecrets holds the development values of the secrets the services
// share (the edge, the writer and analytics each declare the same setting):
// one place, so the services agree on a development machine with no
// configuration, and live mode (svc.RefuseDevDefaults) refuses every one of
// them by comparing against the same constants.
//
// Everyone can read these in this repository: they sign nothing that
// matters. It imports nothing, so the edge may link it.
package devsecrets

const (
	// AudienceSecret signs the audience cookie (AUDIENCE_SECRET): the writer
	// signs it, the edge checks it.
	AudienceSecret = "dev-audience-secret"
	// ContentSecret signs content tokens (CONTENT_SECRET): the writer's
	// download-auth signs them, the edge checks them.
	ContentSecret = "dev-content-secret"
	// AnalystSecret signs the analyst cookie (ANALYST_SECRET): the writer
	// signs it, analytics checks it.
	AnalystSecret = "dev-analyst-secret"
	// IPSalt salts the client IP hash in tracking and business events
	// (TRACK_IP_SALT): the edge's and the writer's must agree.
	IPSalt = "dev-ip-salt"
	// AdminToken is the bearer token of the writer's admin API (ADMIN_TOKEN).
	AdminToken = "dev-admin-token"
	// CISecret keys the HMAC under which the writer stores the CI of an
	// identity verification (CI_HASH_SECRET): one person, one adult identity.
	CISecret = "dev-ci-secret"
	// BillingKeySecret keys the AES-GCM encryption of the payment
	// gateway's billing keys at rest (BILLING_KEY_SECRET).
	BillingKeySecret = "dev-billing-key-secret"
)
