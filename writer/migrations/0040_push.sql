-- +goose Up
-- Web Push (issue 19): a member's devices that asked for new-volume alarms.
-- One row per push endpoint (a browser profile's subscription): the same
-- browser subscribing again under another member moves to that member, since
-- the device now belongs to whoever is logged in. Which works ring is the
-- member's alarms (alarms.is_on); the subscription says where to ring.
CREATE TABLE push_subscriptions (
    id         bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid        bigint NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
    endpoint   text NOT NULL UNIQUE,
    p256dh     text NOT NULL,
    auth       text NOT NULL,
    channel    text NOT NULL DEFAULT '',
    user_agent text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX push_subscriptions_uid ON push_subscriptions (uid);

-- A volume whose release the push worker has fanned out: at most once per
-- volume, whichever writer node got there first (the insert conflicts for the
-- others), in the same transaction as its deliveries.
CREATE TABLE push_releases (
    pid        text NOT NULL,
    no         int NOT NULL,
    release_at timestamptz NOT NULL,
    fanned_at  timestamptz NOT NULL,
    recipients int NOT NULL,
    PRIMARY KEY (pid, no)
);

-- One notification of one volume to one subscription: the primary key is the
-- deduplication. next_at is when a worker may take the row (a taken row's
-- next_at moves past its lease, so a worker that dies mid-send leaves it to
-- another after the lease: at-least-once); sent_at or failed_at ends it.
CREATE TABLE push_deliveries (
    pid       text NOT NULL,
    no        int NOT NULL,
    sub_id    bigint NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    next_at   timestamptz NOT NULL,
    attempts  int NOT NULL DEFAULT 0,
    sent_at   timestamptz,
    failed_at timestamptz,
    error     text NOT NULL DEFAULT '',
    PRIMARY KEY (pid, no, sub_id)
);
CREATE INDEX push_deliveries_due ON push_deliveries (next_at) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX push_deliveries_sub ON push_deliveries (sub_id);

-- The worker looks for volumes whose release instant has just passed.
CREATE INDEX volumes_release_at ON volumes (release_at);

-- +goose Down
DROP INDEX volumes_release_at;
DROP TABLE push_deliveries, push_releases, push_subscriptions;
