-- +goose NO TRANSACTION
-- +goose Up
-- The relay claims documents and events in separate lanes (writer/outbox), so
-- a full EVENTS stream (analytics behind) never holds back a catalog change.
-- Each lane reads the oldest pending rows of its kind: with (id) alone, the
-- document lane would walk past every pending event of a backlog on each
-- claim. The old index is dropped, the new one answers every pending query.
-- CONCURRENTLY: the outbox takes every purchase's insert, a plain build would
-- stop them while it reads the table; a build interrupted halfway leaves an
-- invalid index, which the first statement clears on the next try.
DROP INDEX CONCURRENTLY IF EXISTS outbox_pending_kind;
CREATE INDEX CONCURRENTLY outbox_pending_kind ON outbox (kind, id) WHERE sent_at IS NULL;
DROP INDEX CONCURRENTLY IF EXISTS outbox_pending;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS outbox_pending ON outbox (id) WHERE sent_at IS NULL;
DROP INDEX CONCURRENTLY IF EXISTS outbox_pending_kind;
