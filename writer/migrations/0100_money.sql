-- +goose Up
-- Money: wallets, the ledger, idempotency, charges, entitlements, purchases and
-- coupons. Users and works are referenced by value (uid bigint, pid text) without
-- foreign keys so that this schema does not depend on the order in which the
-- core tables evolve.

-- A wallet holds the four moneys of a user. Balances change ONLY through ledger
-- inserts (trigger ledger_apply); wallet_guard rejects any other change, so a
-- balance always equals the sum of its ledger rows.
CREATE TABLE wallets (
    uid             bigint PRIMARY KEY,
    blue            bigint NOT NULL DEFAULT 0 CHECK (blue >= 0),
    android         bigint NOT NULL DEFAULT 0 CHECK (android >= 0),
    ios             bigint NOT NULL DEFAULT 0 CHECK (ios >= 0),
    mileage         bigint NOT NULL DEFAULT 0 CHECK (mileage >= 0),
    join_bonus_at   timestamptz,
    first_charge_at timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ledger (
    id            bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid           bigint NOT NULL,
    money         text NOT NULL CHECK (money IN ('blue', 'android', 'ios', 'mileage')),
    delta         bigint NOT NULL CHECK (delta <> 0),
    balance_after bigint NOT NULL DEFAULT 0 CHECK (balance_after >= 0),
    reason        text NOT NULL,
    ref           text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL
);
CREATE INDEX ledger_uid ON ledger (uid, id);

-- +goose StatementBegin
CREATE FUNCTION wallet_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.blue <> 0 OR NEW.android <> 0 OR NEW.ios <> 0 OR NEW.mileage <> 0 THEN
            RAISE EXCEPTION 'wallet % must start empty; money moves through the ledger', NEW.uid;
        END IF;
    ELSIF (NEW.blue, NEW.android, NEW.ios, NEW.mileage) IS DISTINCT FROM (OLD.blue, OLD.android, OLD.ios, OLD.mileage)
          AND coalesce(current_setting('money.via_ledger', true), '') <> 'on' THEN
        RAISE EXCEPTION 'wallet % balances change only through the ledger', NEW.uid;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER wallet_guard BEFORE INSERT OR UPDATE ON wallets
    FOR EACH ROW EXECUTE FUNCTION wallet_guard();

-- +goose StatementBegin
CREATE FUNCTION ledger_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bal bigint;
BEGIN
    PERFORM set_config('money.via_ledger', 'on', true);
    UPDATE wallets SET
        blue    = blue    + CASE WHEN NEW.money = 'blue'    THEN NEW.delta ELSE 0 END,
        android = android + CASE WHEN NEW.money = 'android' THEN NEW.delta ELSE 0 END,
        ios     = ios     + CASE WHEN NEW.money = 'ios'     THEN NEW.delta ELSE 0 END,
        mileage = mileage + CASE WHEN NEW.money = 'mileage' THEN NEW.delta ELSE 0 END
    WHERE uid = NEW.uid
    RETURNING CASE NEW.money WHEN 'blue' THEN blue WHEN 'android' THEN android
                             WHEN 'ios' THEN ios ELSE mileage END INTO bal;
    PERFORM set_config('money.via_ledger', 'off', true);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no wallet for uid %', NEW.uid;
    END IF;
    NEW.balance_after := bal;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER ledger_apply BEFORE INSERT ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_apply();

-- +goose StatementBegin
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

-- Auto-payment settings (seed §3 auto_payment_info). trigger_value: for
-- bluemoney-auto-payment the balance below which a charge fires, for
-- bluemoney-scheduled-payment the day of month (1-28).
CREATE TABLE auto_payments (
    uid           bigint PRIMARY KEY,
    is_use        boolean NOT NULL,
    type          text NOT NULL CHECK (type IN ('bluemoney-auto-payment', 'bluemoney-scheduled-payment')),
    money         bigint NOT NULL CHECK (money > 0),
    trigger_value bigint NOT NULL CHECK (trigger_value >= 0),
    updated_at    timestamptz NOT NULL
);

-- One row per (uid, Idempotency-Key). The first request inserts it and stores
-- its answer in the same transaction as its effect; concurrent requests with
-- the same key wait on the primary key and then replay the stored answer.
CREATE TABLE money_idempotency (
    uid        bigint NOT NULL,
    key        text NOT NULL,
    op         text NOT NULL,
    req_hash   bytea NOT NULL,
    status     int,
    body       bytea,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (uid, key)
);

-- Charges through the payment gateway.
CREATE TABLE charges (
    order_id     text PRIMARY KEY,
    uid          bigint NOT NULL,
    money        text NOT NULL CHECK (money IN ('blue', 'android', 'ios')),
    amount       bigint NOT NULL CHECK (amount > 0),
    status       text NOT NULL CHECK (status IN ('requested', 'failed', 'done', 'canceled')),
    payment_key  text NOT NULL DEFAULT '',
    checkout_url text NOT NULL DEFAULT '',
    fail_reason  text NOT NULL DEFAULT '',
    bonus        bigint NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);
CREATE INDEX charges_uid ON charges (uid, created_at DESC);
CREATE UNIQUE INDEX charges_payment_key ON charges (payment_key) WHERE payment_key <> '';

-- Webhook events seen, so a re-delivered webhook is ignored.
CREATE TABLE pg_webhooks (
    event_id    text PRIMARY KEY,
    order_id    text NOT NULL,
    type        text NOT NULL,
    received_at timestamptz NOT NULL
);

-- What a user may read. kind B = owned for good, R = until expires_at.
CREATE TABLE entitlements (
    uid        bigint NOT NULL,
    pid        text NOT NULL,
    vol        int NOT NULL CHECK (vol > 0),
    kind       text NOT NULL CHECK (kind IN ('B', 'R')),
    source     text NOT NULL,
    expires_at timestamptz,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (uid, pid, vol),
    CHECK ((kind = 'B') = (expires_at IS NULL))
);

-- Purchase and rental history: one row per buy/rent/ticket/coupon action.
CREATE TABLE purchases (
    id         bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid        bigint NOT NULL,
    pid        text NOT NULL,
    buy_type   text NOT NULL CHECK (buy_type IN ('B', 'R', 'T', 'W', 'C', 'P', 'J')),
    vols       int[] NOT NULL,
    amount     bigint NOT NULL CHECK (amount >= 0),
    paid       jsonb NOT NULL DEFAULT '{}',
    expires_at timestamptz,
    created_at timestamptz NOT NULL
);
CREATE INDEX purchases_uid ON purchases (uid, id DESC);

-- Wait-for-free state per user and work: usable again from available_at.
CREATE TABLE wff_state (
    uid          bigint NOT NULL,
    pid          text NOT NULL,
    available_at timestamptz NOT NULL,
    PRIMARY KEY (uid, pid)
);

-- Coupon grants: read coupons (for one work), passes (any work) and jumping
-- passes (any jumping-pass work, newest volumes included), and tickets.
-- Grants not yet received (is_recv false) are the gift box.
CREATE TABLE coupon_grants (
    id           bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
    uid          bigint NOT NULL,
    kind         text NOT NULL CHECK (kind IN ('read', 'pass', 'jumping', 'ticket')),
    pid          text NOT NULL DEFAULT '',
    section      text NOT NULL DEFAULT '',
    count        int NOT NULL CHECK (count > 0),
    used_cnt     int NOT NULL DEFAULT 0 CHECK (used_cnt >= 0 AND used_cnt <= count),
    is_recv      boolean NOT NULL DEFAULT false,
    available_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    source       text NOT NULL,
    eid          bigint NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL
);
CREATE INDEX coupon_grants_uid ON coupon_grants (uid, kind, pid);

-- An event's coupons are claimed once per user.
CREATE TABLE event_claims (
    uid        bigint NOT NULL,
    eid        bigint NOT NULL,
    claimed_at timestamptz NOT NULL,
    PRIMARY KEY (uid, eid)
);

-- +goose Down
DROP TABLE event_claims, coupon_grants, wff_state, purchases, entitlements, pg_webhooks,
    charges, money_idempotency, auto_payments, ledger, wallets;
DROP FUNCTION ledger_append_only, ledger_apply, wallet_guard;
