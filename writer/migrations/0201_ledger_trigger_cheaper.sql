-- +goose Up
-- Issue 32: the ledger trigger set and reset a GUC (money.via_ledger) around
-- its wallet update on every ledger row, so that the wallet guard could tell
-- the ledger's update from any other. The guard now tells it by the trigger
-- depth instead: the ledger's update runs inside ledger_apply (depth 1), an
-- UPDATE of wallets from any client runs at depth 0 and still meets
-- wallet_guard, which refuses any balance change. Two set_config calls less
-- per ledger row, and the guard's WHEN no longer reads a setting. (The old
-- guard let any session through that set money.via_ledger itself.)

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bal bigint;
BEGIN
    UPDATE wallets SET
        blue    = blue    + CASE WHEN NEW.money = 'blue'    THEN NEW.delta ELSE 0 END,
        android = android + CASE WHEN NEW.money = 'android' THEN NEW.delta ELSE 0 END,
        ios     = ios     + CASE WHEN NEW.money = 'ios'     THEN NEW.delta ELSE 0 END,
        mileage = mileage + CASE WHEN NEW.money = 'mileage' THEN NEW.delta ELSE 0 END
    WHERE uid = NEW.uid
    RETURNING CASE NEW.money WHEN 'blue' THEN blue WHEN 'android' THEN android
                             WHEN 'ios' THEN ios ELSE mileage END INTO bal;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no wallet for uid %', NEW.uid;
    END IF;
    NEW.balance_after := bal;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
-- The guard no longer looks at the setting either (a session could set it
-- and change balances): its WHEN lets through only what it must refuse.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION wallet_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        RAISE EXCEPTION 'wallet % must start empty; money moves through the ledger', NEW.uid;
    END IF;
    RAISE EXCEPTION 'wallet % balances change only through the ledger', NEW.uid;
END;
$$;
-- +goose StatementEnd
DROP TRIGGER wallet_guard_update ON wallets;
CREATE TRIGGER wallet_guard_update BEFORE UPDATE ON wallets
    FOR EACH ROW WHEN ((NEW.blue, NEW.android, NEW.ios, NEW.mileage) IS DISTINCT FROM (OLD.blue, OLD.android, OLD.ios, OLD.mileage)
                       AND pg_trigger_depth() = 0)
    EXECUTE FUNCTION wallet_guard();

-- +goose Down
DROP TRIGGER wallet_guard_update ON wallets;
CREATE TRIGGER wallet_guard_update BEFORE UPDATE ON wallets
    FOR EACH ROW WHEN ((NEW.blue, NEW.android, NEW.ios, NEW.mileage) IS DISTINCT FROM (OLD.blue, OLD.android, OLD.ios, OLD.mileage)
                       AND coalesce(current_setting('money.via_ledger', true), '') <> 'on')
    EXECUTE FUNCTION wallet_guard();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION wallet_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
