-- +goose Up
-- The wallet guard runs on every balance change; with the test in the
-- trigger's WHEN clause the allowed path (through the ledger) never enters
-- plpgsql, which is a measurable part of a purchase.
DROP TRIGGER wallet_guard ON wallets;
CREATE TRIGGER wallet_guard_insert BEFORE INSERT ON wallets
    FOR EACH ROW WHEN (NEW.blue <> 0 OR NEW.android <> 0 OR NEW.ios <> 0 OR NEW.mileage <> 0)
    EXECUTE FUNCTION wallet_guard();
CREATE TRIGGER wallet_guard_update BEFORE UPDATE ON wallets
    FOR EACH ROW WHEN ((NEW.blue, NEW.android, NEW.ios, NEW.mileage) IS DISTINCT FROM (OLD.blue, OLD.android, OLD.ios, OLD.mileage)
                       AND coalesce(current_setting('money.via_ledger', true), '') <> 'on')
    EXECUTE FUNCTION wallet_guard();

-- +goose Down
DROP TRIGGER wallet_guard_update ON wallets;
DROP TRIGGER wallet_guard_insert ON wallets;
CREATE TRIGGER wallet_guard BEFORE INSERT OR UPDATE ON wallets
    FOR EACH ROW EXECUTE FUNCTION wallet_guard();
