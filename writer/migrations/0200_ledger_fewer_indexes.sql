-- +goose NO TRANSACTION
-- +goose Up
-- Issue 32: every purchase inserts a ledger row, and the ledger had three
-- B-tree indexes, two of them on always-increasing keys (the id primary key
-- and ledger_sales_at on created_at), whose right-most leaf every buyer
-- writes under an exclusive buffer lock.
--
-- The primary key becomes (uid, id): it answers the member's money history
-- (uid = $1 AND id < $2 ORDER BY id DESC), which ledger_uid was for, and its
-- inserts land in the member's own part of the tree. ids stay unique: the
-- column is GENERATED ALWAYS AS IDENTITY and nothing inserts with OVERRIDING
-- SYSTEM VALUE; nothing looks a ledger row up by id alone.
--
-- The settlement's range over created_at (ledger_sales_at) becomes a BRIN:
-- the ledger is appended in time order, so a block range summary finds the
-- days of a statement, and an insert into the last, not yet summarised range
-- writes nothing to the index.
--
-- CONCURRENTLY, as in 0010: purchases keep running while it builds.
DROP INDEX CONCURRENTLY IF EXISTS ledger_uid_id;
CREATE UNIQUE INDEX CONCURRENTLY ledger_uid_id ON ledger (uid, id);
ALTER TABLE ledger DROP CONSTRAINT ledger_pkey, ADD CONSTRAINT ledger_pkey PRIMARY KEY USING INDEX ledger_uid_id;
DROP INDEX CONCURRENTLY IF EXISTS ledger_uid;
DROP INDEX CONCURRENTLY IF EXISTS ledger_sales_at_brin;
CREATE INDEX CONCURRENTLY ledger_sales_at_brin ON ledger USING brin (created_at) WHERE reason IN ('purchase', 'rental');
DROP INDEX CONCURRENTLY IF EXISTS ledger_sales_at;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS ledger_sales_at ON ledger (created_at) WHERE reason IN ('purchase', 'rental');
DROP INDEX CONCURRENTLY IF EXISTS ledger_sales_at_brin;
CREATE INDEX CONCURRENTLY IF NOT EXISTS ledger_uid ON ledger (uid, id);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ledger_id ON ledger (id);
ALTER TABLE ledger DROP CONSTRAINT ledger_pkey, ADD CONSTRAINT ledger_pkey PRIMARY KEY USING INDEX ledger_id;
