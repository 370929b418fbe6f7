-- +goose Up
-- Issue 32: every automatic top-up's receipt (and the notice that the
-- setting paused) also reaches the member's devices by Web Push, through the
-- push worker that rings new-volume alarms. money_notices stays the member's
-- history of them; pushed_at marks a notice the worker has fanned out (to
-- one delivery per web subscription of the member), in the same transaction
-- as its deliveries, so a notice rings once whichever writer takes it.
ALTER TABLE money_notices ADD COLUMN pushed_at timestamptz;
-- Notices written before this change are history, not news: not rung late.
UPDATE money_notices SET pushed_at = created_at;
CREATE INDEX money_notices_unpushed ON money_notices (id) WHERE pushed_at IS NULL;

-- One notification of one notice to one subscription, as push_deliveries is
-- for a volume: the primary key is the deduplication; next_at moves past the
-- lease when a worker takes the row; sent_at or failed_at ends it.
CREATE TABLE push_notice_deliveries (
    notice_id bigint NOT NULL REFERENCES money_notices (id) ON DELETE CASCADE,
    sub_id    bigint NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    next_at   timestamptz NOT NULL,
    attempts  int NOT NULL DEFAULT 0,
    sent_at   timestamptz,
    failed_at timestamptz,
    error     text NOT NULL DEFAULT '',
    PRIMARY KEY (notice_id, sub_id)
);
CREATE INDEX push_notice_deliveries_due ON push_notice_deliveries (next_at) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX push_notice_deliveries_sub ON push_notice_deliveries (sub_id);

-- +goose Down
DROP TABLE push_notice_deliveries;
DROP INDEX money_notices_unpushed;
ALTER TABLE money_notices DROP COLUMN pushed_at;
