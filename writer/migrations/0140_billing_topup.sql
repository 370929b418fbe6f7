-- +goose Up
-- Issue 32: billing keys (Toss Payments automatic payments) and automatic top-up.

-- The gateway's customerKey of a member: random, so that it says nothing
-- about the member (the gateway ties billing keys to it).
CREATE TABLE billing_customers (
    uid          bigint PRIMARY KEY,
    customer_key text NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL
);

-- A registered card. The billing key charges the card without its holder, so
-- it is stored only encrypted (AES-256-GCM under BILLING_KEY_SECRET, the uid
-- as additional data: a row copied to another member does not decrypt);
-- key_mac (an HMAC of the key) finds a card registered twice.
CREATE TABLE billing_cards (
    id           bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid          bigint NOT NULL,
    key_enc      bytea NOT NULL,
    key_mac      bytea NOT NULL,
    card_company text NOT NULL DEFAULT '',
    card_number  text NOT NULL DEFAULT '',
    card_type    text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    UNIQUE (uid, key_mac)
);
CREATE INDEX billing_cards_uid ON billing_cards (uid, id DESC);

-- topup_state: armed (a purchase leaving the balance under the threshold
-- starts a top-up), pending (one is under way: no other starts), paused
-- (a top-up failed for good; the member turns the setting on again).
-- enabled_at: when is_use last became true (a scheduled top-up runs from
-- the first chosen day on or after it).
ALTER TABLE auto_payments
    ADD COLUMN topup_state   text NOT NULL DEFAULT 'armed' CHECK (topup_state IN ('armed', 'pending', 'paused')),
    ADD COLUMN paused_reason text NOT NULL DEFAULT '',
    ADD COLUMN enabled_at    timestamptz;
UPDATE auto_payments SET enabled_at = updated_at WHERE is_use;

-- How a charge was started: the payment widget, or a top-up on the billing key.
ALTER TABLE charges ADD COLUMN kind text NOT NULL DEFAULT 'widget' CHECK (kind IN ('widget', 'auto', 'scheduled'));

-- One automatic top-up: the job row the purchase (threshold) or the
-- scheduler (scheduled) writes, and the writers' workers take. order_id is
-- the gateway's orderId, the same on every attempt, so a retry after a lost
-- answer or a killed writer cannot charge twice. A scheduled top-up is one
-- per member and month (period 'YYYY-MM', Korean time); a threshold top-up
-- is one pending per member. next_at: when a worker may take it (a taken
-- row's next_at moves past its lease).
CREATE TABLE topups (
    order_id   text PRIMARY KEY,
    uid        bigint NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('threshold', 'scheduled')),
    period     text,
    amount     bigint NOT NULL CHECK (amount > 0),
    status     text NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
    attempts   int NOT NULL DEFAULT 0,
    next_at    timestamptz NOT NULL,
    last_error text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (uid, period)
);
CREATE UNIQUE INDEX topups_one_pending_threshold ON topups (uid) WHERE kind = 'threshold' AND status = 'pending';
CREATE INDEX topups_due ON topups (next_at) WHERE status = 'pending';

-- The member's money notices: a top-up's receipt, a paused setting.
CREATE TABLE money_notices (
    id         bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid        bigint NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('topup_receipt', 'topup_paused')),
    title      text NOT NULL,
    body       text NOT NULL,
    order_id   text NOT NULL DEFAULT '',
    amount     bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    UNIQUE (order_id, kind)
);
CREATE INDEX money_notices_uid ON money_notices (uid, id DESC);

-- +goose Down
DROP TABLE money_notices, topups, billing_cards, billing_customers;
ALTER TABLE charges DROP COLUMN kind;
ALTER TABLE auto_payments DROP COLUMN topup_state, DROP COLUMN paused_reason, DROP COLUMN enabled_at;
