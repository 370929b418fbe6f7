-- +goose Up
-- Issue 31 item 3 (in part): content providers, the contract rate each is
-- settled at, and which works are whose. A provider staff account
-- (staff_accounts.provider_id) reads the statements of the provider with that
-- id; operators make contracts and assign works (writer/settlement), each
-- change audited in staff_audit.

-- A provider (a publisher or studio). No foreign key from staff_accounts:
-- provider accounts created before contracts existed keep working, and a
-- statement for an id without a contract is a 404.
CREATE TABLE providers (
    id         text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9._-]{1,40}$'),
    name       text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

-- The provider's share of what a work earns, in basis points (7000 = 70 %),
-- from a month on (the first day of a KST month). A statement uses the row in
-- force for its month, so a new rate never rewrites a past statement.
CREATE TABLE provider_rates (
    provider_id text NOT NULL REFERENCES providers (id),
    from_month  date NOT NULL CHECK (extract(day FROM from_month) = 1),
    rate_bp     int NOT NULL CHECK (rate_bp BETWEEN 0 AND 10000),
    set_at      timestamptz NOT NULL,
    PRIMARY KEY (provider_id, from_month)
);

-- A work belongs to at most one provider; its sales go to that provider's
-- statements.
CREATE TABLE work_providers (
    pid         text PRIMARY KEY REFERENCES works (pid),
    provider_id text NOT NULL REFERENCES providers (id),
    assigned_at timestamptz NOT NULL
);
CREATE INDEX work_providers_provider ON work_providers (provider_id);

-- A statement reads a month of episode sales: ledger rows of purchases and
-- rentals by time (the ledger's only other index is per member).
CREATE INDEX ledger_sales_at ON ledger (created_at) WHERE reason IN ('purchase', 'rental');
-- Store refunds that reached spent money, by when they were made or undone.
CREATE INDEX money_flags_created ON money_flags (created_at);
CREATE INDEX money_flags_cleared ON money_flags (cleared_at) WHERE cleared_at IS NOT NULL;

-- +goose Down
DROP INDEX money_flags_cleared;
DROP INDEX money_flags_created;
DROP INDEX ledger_sales_at;
DROP TABLE work_providers;
DROP TABLE provider_rates;
DROP TABLE providers;
