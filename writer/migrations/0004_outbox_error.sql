-- +goose Up
-- A row JetStream refuses for good (a document over the bucket's size limit)
-- is marked sent with the reason instead of blocking every row behind it.
ALTER TABLE outbox ADD COLUMN error text;

-- +goose Down
ALTER TABLE outbox DROP COLUMN error;
