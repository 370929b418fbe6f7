package staff

// Roles of staff accounts (staff_accounts.role).
const (
	RoleOperator  = "operator"  // manages staff, reads the audit trail
	RoleContent   = "content"   // catalog, prices, schedules, events, coupons, pushes, uploads
	RoleProvider  = "provider"  // its own works only: episodes, schedules, prices within its contract, sales, settlement statements
	RoleModerator = "moderator" // reported episode comments and reviews (CS Q&A has no reports)
	RoleAnalyst   = "analyst"   // reports
	// RoleMachine is the principal of the ADMIN_TOKEN bearer: programs
	// (catalog import, test fixtures, load-test preparation), never people.
	RoleMachine = "machine"
)

// Permissions the admin routes ask for.
type Permission string

const (
	// PermCatalog: works, volumes, authors, events, awards, FAQ, notices,
	// banners, keywords, site documents, media uploads, coupon grants.
	PermCatalog Permission = "catalog"
	// PermMemberRole: a member's role (PUT users/{uid}/role).
	PermMemberRole Permission = "member-role"
	// PermStaff: create, change and remove staff accounts.
	PermStaff Permission = "staff"
	// PermAudit: read and export the audit trail.
	PermAudit Permission = "audit"
	// PermModeration: the queues of reported episode comments and reviews,
	// hiding a comment, deciding a review (hide, restore, dismiss), an
	// episode's creator's note and pinned comment.
	PermModeration Permission = "moderation"
	// PermProviders: provider contracts (name, rate) and which works are
	// whose (writer/settlement).
	PermProviders Permission = "providers"
	// PermSettlement: read settlement statements and sales. A provider holds
	// it for its own provider only (writer/settlement checks the id against
	// the session's provider); operators and analysts read any provider's.
	PermSettlement Permission = "settlement"
	// PermOwnWorks: the partner portal's changes to a provider's own works
	// (episodes, uploads, schedules, prices within its contract). The routes
	// that take it also take PermCatalog, and check the work against the
	// provider (OwnWork) before anything else: the guard lets the role in,
	// the scope check lets it touch only its own works.
	PermOwnWorks Permission = "own-works"
)

// grants is the one table of who may do what. A role not listed, or a
// permission not in its list, is refused (403): new routes are closed to
// everyone until a line here opens them.
var grants = map[string][]Permission{
	RoleOperator:  {PermStaff, PermAudit, PermMemberRole, PermProviders, PermSettlement},
	RoleContent:   {PermCatalog, PermModeration},
	RoleModerator: {PermModeration},
	RoleAnalyst:   {PermSettlement},
	RoleProvider:  {PermSettlement, PermOwnWorks},
	// The machine token keeps exactly what programs need to build a
	// catalog and its fixtures (the comments' tests hide one through it);
	// it can never manage staff or read the trail.
	RoleMachine: {PermCatalog, PermMemberRole, PermModeration},
}

// Allowed reports whether role holds perm.
func Allowed(role string, perm Permission) bool {
	for _, p := range grants[role] {
		if p == perm {
			return true
		}
	}
	return false
}

// ValidRole reports whether role is one a staff account may hold.
func ValidRole(role string) bool {
	switch role {
	case RoleOperator, RoleContent, RoleProvider, RoleModerator, RoleAnalyst:
		return true
	}
	return false
}
