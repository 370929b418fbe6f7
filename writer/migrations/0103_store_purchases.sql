-- +goose Up
-- App money: purchases confirmed by Google Play or the App Store, one row per
-- (store, transaction id) so a receipt posted twice (or by two devices at
-- once) credits once. A refund or void revokes the row: what is still in the
-- wallet is taken back (revoked_amount), the rest is the shortfall, and the
-- account is flagged in money_flags (a balance never goes negative).
CREATE TABLE store_purchases (
    store           text NOT NULL CHECK (store IN ('google', 'apple')),
    transaction_id  text NOT NULL,
    uid             bigint NOT NULL,
    product_id      text NOT NULL,
    money           text NOT NULL CHECK (money IN ('android', 'ios')),
    amount          bigint NOT NULL CHECK (amount > 0),
    status          text NOT NULL CHECK (status IN ('credited', 'revoked')),
    revoked_amount  bigint NOT NULL DEFAULT 0 CHECK (revoked_amount >= 0 AND revoked_amount <= amount),
    shortfall       bigint NOT NULL DEFAULT 0 CHECK (shortfall >= 0),
    revoke_reason   text NOT NULL DEFAULT '',
    purchased_at    timestamptz NOT NULL,
    created_at      timestamptz NOT NULL,
    revoked_at      timestamptz,
    PRIMARY KEY (store, transaction_id)
);
CREATE INDEX store_purchases_uid ON store_purchases (uid, created_at);

-- Store notifications already handled (Pub/Sub messageId, App Store
-- notificationUUID): a redelivery is acknowledged without work.
CREATE TABLE store_notifications (
    store        text NOT NULL,
    id           text NOT NULL,
    kind         text NOT NULL,
    received_at  timestamptz NOT NULL,
    PRIMARY KEY (store, id)
);

-- Accounts that owe money the ledger could not take back (spent app money
-- refunded by a store), for the operators to settle.
CREATE TABLE money_flags (
    id          bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid         bigint NOT NULL,
    reason      text NOT NULL,
    ref         text NOT NULL,
    amount      bigint NOT NULL CHECK (amount > 0),
    created_at  timestamptz NOT NULL
);
CREATE INDEX money_flags_uid ON money_flags (uid);

-- +goose Down
DROP TABLE money_flags;
DROP TABLE store_notifications;
DROP TABLE store_purchases;
