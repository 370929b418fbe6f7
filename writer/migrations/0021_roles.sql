-- +goose Up
-- A member's role. Analysts log in like members (same accounts, same
-- sessions); the role only opens the analytics reports, through the signed
-- analyst cookie the writer sets from the session (contract.AnalystCookie).
-- It gives no catalog-admin rights: the admin API stays behind ADMIN_TOKEN.
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'member'
    CHECK (role IN ('member', 'analyst'));

-- +goose Down
ALTER TABLE users DROP COLUMN role;
