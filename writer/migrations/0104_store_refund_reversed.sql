-- +goose Up
-- A store can reverse a refund it granted (App Store REFUND_REVERSED): the
-- purchase is credited again with what the refund took, and the flag of the
-- spent rest is cleared, not deleted, so the operators still see it happened.
ALTER TABLE money_flags ADD COLUMN cleared_at timestamptz;
ALTER TABLE money_flags ADD COLUMN clear_reason text NOT NULL DEFAULT '';
ALTER TABLE store_purchases ADD COLUMN reinstated_at timestamptz;

-- +goose Down
ALTER TABLE store_purchases DROP COLUMN reinstated_at;
ALTER TABLE money_flags DROP COLUMN clear_reason;
ALTER TABLE money_flags DROP COLUMN cleared_at;
