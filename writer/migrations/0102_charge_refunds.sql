-- +goose Up
-- Partial refunds: a charge keeps how much of it the gateway has refunded
-- (the gateway's totalAmount - balanceAmount); the payment key is known only
-- after the widget (the buyer's side) created the payment, so it is set at
-- confirm. Webhooks carry no id: pg_webhooks keeps a hash of each body seen.
ALTER TABLE charges ADD COLUMN canceled_amount bigint NOT NULL DEFAULT 0;
ALTER TABLE charges ADD CONSTRAINT charges_canceled_amount CHECK (canceled_amount >= 0 AND canceled_amount <= amount);
ALTER TABLE charges DROP CONSTRAINT charges_status_check;
ALTER TABLE charges ADD CONSTRAINT charges_status_check
    CHECK (status IN ('requested', 'failed', 'done', 'partial_canceled', 'canceled'));
UPDATE charges SET canceled_amount = amount WHERE status = 'canceled';

-- The daily comparison of the gateway's settlements with the ledger: one
-- row per Korean day, the differences found (empty = the day reconciles).
CREATE TABLE charge_reconciliations (
    day          date PRIMARY KEY,
    checked_at   timestamptz NOT NULL,
    settlements  int NOT NULL,
    differences  jsonb NOT NULL
);

-- +goose Down
DROP TABLE charge_reconciliations;
UPDATE charges SET status = 'done' WHERE status = 'partial_canceled';
ALTER TABLE charges DROP CONSTRAINT charges_status_check;
ALTER TABLE charges ADD CONSTRAINT charges_status_check CHECK (status IN ('requested', 'failed', 'done', 'canceled'));
ALTER TABLE charges DROP CONSTRAINT charges_canceled_amount;
ALTER TABLE charges DROP COLUMN canceled_amount;
