-- +goose Up
-- Volumes paged out of works' documents (issue 35 item 2, contract
-- CatalogSchema 2): each work is republished as a head in the catalog
-- bucket and its volume pages in catalog-vols. The rows go out through the
-- relay like any change, so readers never see a gap: until a work's row is
-- published the edges keep its inline document (they read both shapes), and
-- a head goes out only after its pages are stored. Edges must run a version
-- that reads heads before any writer of this version starts
-- (docs/operations.md "Paged volumes").
--
-- One row per work, in pid order; the relay publishes them in batches
-- (WRITER_RELAY_BATCH), and admin changes committed meanwhile queue behind
-- them: the rebuild's rate is in writer/README.md. Progress: the pending
-- gauge (writer_outbox_pending) and `SELECT count(*) FROM outbox WHERE
-- sent_at IS NULL AND kind = 'kv'`.
INSERT INTO outbox (kind, key) SELECT 'kv', 'prod.' || pid FROM works ORDER BY pid;
-- Relays of every node pick the rows up at once, not at their next poll.
SELECT pg_notify('outbox', '');

-- +goose Down
-- Nothing to undo in PostgreSQL: an older writer republishes a work inline
-- (CatalogSchema 1) at its next change, which edges of either version read;
-- its pages stay in catalog-vols, unreferenced.
SELECT 1;
