-- +goose Up
-- The per-statement pg_notify on outbox inserts made every purchase, charge
-- and member change a notifying transaction. PostgreSQL commits notifying
-- transactions one at a time under a cluster-wide lock held until the commit
-- record is flushed, so on a durable server those commits could not share an
-- fsync (no group commit) and purchases ran at a third of pgbench's TPC-B.
-- Each writer now wakes its own relay in-process after a commit that wrote
-- outbox rows; other nodes find rows by their poll, and the low-rate catalog
-- writers (admin API, bulk import) still notify explicitly (outbox.Notify).
DROP TRIGGER outbox_notify ON outbox;
DROP FUNCTION outbox_notify();

-- +goose Down
-- +goose StatementBegin
CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox', '');
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
